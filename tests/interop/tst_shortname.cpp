// Short names (render/shortname.h) on real names: a table of kernel, op and memcpy names
// taken from ../shared/traces with their short forms, and over every name every shared trace
// stores (kernels, scopes, API calls), imported as `wheretime import` does: the labels of one
// view at a 40-character cell are distinct for distinct names, fit the cell, and keep a
// memcpy's kind.
#include "render/shortname.h"
#include "render/textelide.h"
#include "interop/importer.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QTest>

#include <map>
#include <set>

using namespace wt;

class TestShortName : public QObject {
    Q_OBJECT
private slots:
    void shortForm_data();
    void shortForm();
    void distinctOnHandMadeCollisions();
    void widthZeroKeepsShortFormsWhereUnique();
    void everyTraceDistinctAt40_data();
    void everyTraceDistinctAt40();
};

void TestShortName::shortForm_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("expected");
    QTest::newRow("vectorized")
        << "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::clamp_min_scalar_kernel_impl"
           "(at::TensorIterator&, c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::"
           "{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::clamp_min_scalar_"
           "kernel_impl(at::TensorIterator&, c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() "
           "const::{lambda(float)#1}, at::detail::Array<char*, 2>)"
        << "vectorized_elementwise_kernel";
    QTest::newRow("cudnn bn")
        << "void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnnTensorStruct, float const*, "
           "cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, "
           "float, cudnn::reduced_divisor, int, cudnn::reduced_divisor, cudnn::bnFwPersistentState*, int, float)"
        << "bn_fw_tr_1C11_singleread";
    QTest::newRow("cutlass wrapper")
        << "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nt_align4>(cutlass_80_tensorop_s1688gemm_"
           "256x64_16x4_nt_align4::Params)"
        << "cutlass_80_tensorop_s1688gemm_256x64_16x4_nt_align4";
    QTest::newRow("nccl") << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
                          << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t";
    QTest::newRow("plain cudnn") << "volta_scudnn_128x64_stridedB_small_nn_v1" << "volta_scudnn_128x64_stridedB_small_nn_v1";
    QTest::newRow("autograd") << "autograd::engine::evaluate_function: MulBackward0" << "MulBackward0";
    QTest::newRow("autograd cpp node")
        << "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad" << "torch::autograd::AccumulateGrad";
    QTest::newRow("aten op keeps namespace") << "aten::cudnn_convolution_backward_weight" << "aten::cudnn_convolution_backward_weight";
    QTest::newRow("nsys memcpy") << "[CUDA memcpy HtoD]" << "memcpy HtoD";
    QTest::newRow("nsys memcpy DtoD") << "[CUDA memcpy DtoD]" << "memcpy DtoD";
    QTest::newRow("kineto memcpy") << "Memcpy DtoH (Device -> Pageable)" << "Memcpy DtoH";
    QTest::newRow("memset") << "[CUDA memset]" << "memset";
    QTest::newRow("annotation") << "## KJTAllToAllTensorsAwaitable wait() ##" << "## KJTAllToAllTensorsAwaitable wait() ##";
    QTest::newRow("python") << "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
                            << "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
    QTest::newRow("not a signature") << "PyTorch Profiler (0)" << "PyTorch Profiler (0)";
    QTest::newRow("kineto memset") << "Memset (Device)" << "Memset (Device)";
    QTest::newRow("mangled cutlass")
        << "_ZN7cutlass6KernelI40cutlass_80_tensorop_s1688gemm_64x64_32x6E"
           "EvNT_6ParamsE"
        << "cutlass_80_tensorop_s1688gemm_64x64_32x6";
}

void TestShortName::shortForm()
{
    QFETCH(QString, name);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(shortName(name.toStdString())), expected);
    // The full name is always the last form.
    QCOMPARE(QString::fromStdString(nameForms(name.toStdString()).back()), name);
}

void TestShortName::distinctOnHandMadeCollisions()
{
    const std::vector<std::string> names = {
        "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, 3>)",
        "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>, at::detail::Array<char*, 3> >(int, at::native::MulFunctor<float>, at::detail::Array<char*, 3>)",
        "void at::native::reduce_kernel<128, 4>(int)",
        "MulBackward0",
        "autograd::engine::evaluate_function: MulBackward0",
        "[CUDA memcpy HtoD]",
        "[CUDA memcpy DtoD]",
        "[CUDA memcpy HtoD]",   // equal names share a label
    };
    for (size_t width : {size_t(0), size_t(40), size_t(24), size_t(12)}) {
        const std::vector<std::string> labels = distinctLabels(names, width);
        QCOMPARE(labels.size(), names.size());
        QCOMPARE(labels[5], labels[7]);
        std::set<std::string> seen(labels.begin(), labels.end());
        QCOMPARE(seen.size(), names.size() - 1);
        for (const std::string& l : labels)
            QVERIFY2(width == 0 || displayLength(l) <= width, l.c_str());
        QVERIFY(labels[5].find("HtoD") != std::string::npos);
        QVERIFY(labels[6].find("DtoD") != std::string::npos);
    }
    const std::vector<std::string> at40 = distinctLabels(names, 40);
    QCOMPARE(at40[2], std::string("reduce_kernel"));   // unique short forms stay short
    QCOMPARE(at40[3], std::string("MulBackward0"));
    QCOMPARE(at40[4], std::string("evaluate_function: MulBackward0"));
    QCOMPARE(at40[5], std::string("memcpy HtoD"));
}

void TestShortName::widthZeroKeepsShortFormsWhereUnique()
{
    // The empty name (a compare row without an OTHER kernel) is a name like the others.
    QCOMPARE(shortName(""), std::string());
    QCOMPARE(distinctLabels({"", "x", ""}, 0), (std::vector<std::string>{"", "x", ""}));
    const std::vector<std::string> labels =
        distinctLabels({"void k1<float>(float*)", "void k1<double>(double*)", "void k2(int)"}, 0);
    QCOMPARE(labels[0], std::string("k1<float>"));
    QCOMPARE(labels[1], std::string("k1<double>"));
    QCOMPARE(labels[2], std::string("k2"));
}

void TestShortName::everyTraceDistinctAt40_data()
{
    QTest::addColumn<QString>("file");
    for (const char* f : {"kineto-2021_v100_resnet50.pt.trace.json.gz", "kineto-hta_2ranks_rank-0.json.gz",
                          "kineto_a100_nccl_rank-0-of-2.json.gz", "kineto_v100_ns-resolution.pt.trace.json.gz",
                          "nsys-2022.2_a100_saxpy-mpi.sqlite", "nsys-2026.2_h100x2_fastvideo-1s.sqlite"})
        QTest::newRow(f) << QString::fromUtf8(f);
}

void TestShortName::everyTraceDistinctAt40()
{
    QFETCH(QString, file);
    WT_REQUIRE_TRACE(path, file);
    const std::string out = test::tempPath("shortname.wt");
    Database db(out, OpenMode::ReadWrite);
    interop::importTrace(db, path.toStdString());
    Reader r(db);
    std::vector<std::string> names;
    for (const auto& [id, s] : r.strings())
        if (!s.empty())
            names.push_back(s);
    QVERIFY(names.size() > 10);
    int shortened = 0;
    for (size_t width : {size_t(40), size_t(0)}) {
        const std::vector<std::string> labels = distinctLabels(names, width);
        std::map<std::string, std::string> nameOf;
        for (size_t i = 0; i < names.size(); ++i) {
            auto [it, added] = nameOf.emplace(labels[i], names[i]);
            QVERIFY2(added, qPrintable(QStringLiteral("'%1' and '%2' both read '%3'")
                                           .arg(QString::fromStdString(it->second), QString::fromStdString(names[i]),
                                                QString::fromStdString(labels[i]))));
            if (width > 0)
                QVERIFY2(displayLength(labels[i]) <= width, labels[i].c_str());
            const std::string kind = memcpyKind(names[i]);
            if (!kind.empty())
                QVERIFY2(labels[i].find(kind) != std::string::npos, labels[i].c_str());
            if (labels[i].size() < names[i].size())
                ++shortened;
        }
    }
    qInfo("%zu names, %d labels shorter than their name", names.size(), shortened);
}

QTEST_GUILESS_MAIN(TestShortName)
#include "tst_shortname.moc"
