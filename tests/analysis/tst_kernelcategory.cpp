// Kernel categories: the built-in rules on real kernel names (cuBLAS, CUTLASS, cuDNN, NCCL,
// FlashAttention, PyTorch's ATen kernels, our own workloads' op names), memcpy/memset as
// memory, user rules first (first match wins), and rules files that do not parse.
#include "analysis/kernelcategory.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <fstream>

using namespace wt;

class TestKernelCategory : public QObject {
    Q_OBJECT
private slots:
    void builtin_data();
    void builtin();
    void memoryActivities();
    void userRulesFirst();
    void badRules_data();
    void badRules();
    void loadFile();
};

void TestKernelCategory::builtin_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("category");
    // Names as the shared traces and our captures hold them.
    QTest::newRow("cublas xmma") << "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_execute_kernel__5x_cublas" << "gemm";
    QTest::newRow("volta sgemm") << "volta_sgemm_128x64_nn" << "gemm";
    QTest::newRow("nvjet") << "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN" << "gemm";
    QTest::newRow("cutlass") << "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)" << "gemm";
    QTest::newRow("splitK reduce of cuBLAS") << "void cublasLt::splitKreduce_kernel<32, 16, int, float>(...)" << "gemm";
    QTest::newRow("own sgemm op") << "sgemm_batched_nt" << "gemm";
    QTest::newRow("flash") << "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>(Flash_fwd_params)" << "attention";
    QTest::newRow("fmha on cutlass") << "fmha_cutlassF_f16_aligned_64x64_rf_sm80" << "attention";
    QTest::newRow("nccl") << "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)" << "communication";
    QTest::newRow("nccl old") << "ncclKernel_AllToAll_RING_LL_Sum_int8_t(ncclWorkElem)" << "communication";
    QTest::newRow("cudnn conv") << "volta_scudnn_128x128_stridedB_splitK_small_nn_v1" << "convolution";
    QTest::newRow("implicit gemm conv") << "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw" << "convolution";
    QTest::newRow("own im2col") << "im2col" << "convolution";
    QTest::newRow("layer norm") << "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float)" << "normalization";
    QTest::newRow("batch norm cudnn") << "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(...)" << "normalization";
    QTest::newRow("own layernorm") << "layernorm_backward" << "normalization";
    QTest::newRow("softmax warp") << "void <unnamed>::softmax_warp_forward<float, float, float, 10, false>(float*, const float*)" << "softmax";
    QTest::newRow("own log softmax") << "log_softmax_forward" << "softmax";
    QTest::newRow("elementwise") << "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, T2, T3)" << "element-wise";
    QTest::newRow("own gelu") << "gelu_forward" << "element-wise";
    QTest::newRow("own sgd") << "sgd_update" << "element-wise";
    QTest::newRow("reduce") << "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float>>>(T3)" << "reduction";
    QTest::newRow("own loss") << "mean_loss" << "reduction";
    QTest::newRow("own memcpy op kernel") << "memcpy_htod_tokens" << "memory";
    QTest::newRow("radix sort") << "void cub::DeviceRadixSortOnesweepKernel<Policy800, false, long, int>(...)" << "other";
    QTest::newRow("unknown") << "my_custom_kernel" << "other";
}

void TestKernelCategory::builtin()
{
    QFETCH(QString, name);
    QFETCH(QString, category);
    const std::string n = name.toStdString();
    QCOMPARE(QString::fromStdString(std::string(KernelCategories::builtinCategoryOf(ActivityKind::Kernel, n))), category);
    QCOMPARE(QString::fromStdString(KernelCategories().categoryOf(ActivityKind::Kernel, n)), category);
}

void TestKernelCategory::memoryActivities()
{
    KernelCategories c;
    QCOMPARE(c.categoryOf(ActivityKind::Memcpy, "Memcpy HtoD (Pageable -> Device)"), std::string("memory"));
    QCOMPARE(c.categoryOf(ActivityKind::Memset, "[CUDA memset]"), std::string("memory"));
    // A memcpy whose name reads like a GEMM is still a memcpy.
    QCOMPARE(c.categoryOf(ActivityKind::Memcpy, "gemm"), std::string("memory"));
}

void TestKernelCategory::userRulesFirst()
{
    const KernelCategories c = KernelCategories::parse("# my rules\n"
                                                       "\n"
                                                       "^sm80_xmma_gemm.*_nn_ -> gemm-nn\n"
                                                       "xmma -> tensor-core\n"
                                                       "custom\tmine\n"
                                                       "HtoD -> upload\n");
    QVERIFY(c.hasUserRules());
    // First match wins; the second rule takes the xmma kernels the first left.
    QCOMPARE(c.categoryOf(ActivityKind::Kernel, "sm80_xmma_gemm_f32_nn_n_tile"), std::string("gemm-nn"));
    QCOMPARE(c.categoryOf(ActivityKind::Kernel, "sm80_xmma_gemm_f32_tn_n_tile"), std::string("tensor-core"));
    QCOMPARE(c.categoryOf(ActivityKind::Kernel, "MY_CUSTOM_kernel"), std::string("mine"));   // case-insensitive, tab form
    QCOMPARE(c.categoryOf(ActivityKind::Memcpy, "Memcpy HtoD"), std::string("upload"));
    // Names no user rule matches fall to the built-in rules.
    QCOMPARE(c.categoryOf(ActivityKind::Kernel, "ncclDevKernel_AllGather"), std::string("communication"));
    QCOMPARE(c.categoryOf(ActivityKind::Memset, "[CUDA memset]"), std::string("memory"));
    QVERIFY(!KernelCategories().hasUserRules());
}

void TestKernelCategory::badRules_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("no arrow") << "gemm\n" << "r.txt:1: expected 'REGEX -> CATEGORY'";
    QTest::newRow("no category") << "# c\ngemm ->  \n" << "r.txt:2: expected 'REGEX -> CATEGORY'";
    QTest::newRow("bad regex") << "ok -> a\n(unclosed -> b\n" << "r.txt:2: bad regular expression '(unclosed'";
}

void TestKernelCategory::badRules()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    try {
        KernelCategories::parse(text.toStdString(), "r.txt");
        QFAIL("expected CategoryRulesError");
    } catch (const CategoryRulesError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith(message), e.what());
    }
}

void TestKernelCategory::loadFile()
{
    const std::string path = test::tempPath("rules.txt");
    {
        std::ofstream out(path);
        out << "saxpy -> blas1\n";
    }
    const KernelCategories c = KernelCategories::load(path);
    QCOMPARE(c.categoryOf(ActivityKind::Kernel, "saxpy"), std::string("blas1"));
    QCOMPARE(c.text(), std::string("saxpy -> blas1\n"));
    try {
        KernelCategories::load(path + ".missing");
        QFAIL("expected CategoryRulesError");
    } catch (const CategoryRulesError& e) {
        QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("cannot read")));
    }
}

QTEST_GUILESS_MAIN(TestKernelCategory)
#include "tst_kernelcategory.moc"
