// The CUDA backend against the CPU backend (label gpu): every layer's forward output and
// gradients, and whole training steps of every model with every softmax variant, within
// 1e-4 relative error (the BERT family: encoder layers incl. the conv module, grouped FFN and
// block-sparse kernels, and 3 tiny steps with prune / regrow). Skips when no GPU is usable.
#include "kernels/bert.h"
#include "kernels/layers.h"
#include "kernels/model.h"
#include "kernels/softmax.h"
#include "kernelstest.h"

#include <QTest>

#include <functional>

using namespace wt::kernels;
using namespace wt::test;

namespace {

constexpr double kTol = 1e-4;
// fused_bf16 rounds its GEMM inputs to bfloat16 on both sides, but cuBLAS's tensor cores and
// the CPU's vdpbf16ps sum in other orders and blocks: the two agree to bfloat16's precision.
constexpr double kBf16Tol = 3e-2;
double g_tol = kTol;   // the tolerance of the running test function

#define SKIP_WITHOUT_GPU()                                                                          \
    do {                                                                                            \
        if (!cudaAvailable())                                                                       \
            QSKIP(qPrintable(QStringLiteral("no usable GPU: ") + QString::fromStdString(cudaUnavailableReason()))); \
    } while (0)

void compare(const std::vector<float>& gpu, const std::vector<float>& cpu, const std::string& what)
{
    double e = relError(gpu, cpu);
    QVERIFY2(e < g_tol, qPrintable(QString::fromStdString(what) + QStringLiteral(": relative error %1").arg(e)));
}

// Runs the same block on both backends: output, input gradient, parameter gradients.
void compareBlock(const std::function<std::unique_ptr<Block>()>& make, const StepShape& s, int64_t d)
{
    Runtime cpu(makeCpuBackend()), gpu(makeCudaBackend());
    auto a = make(), b = make();
    a->allocate(cpu, 5);
    b->allocate(gpu, 5);
    const size_t n = size_t(s.tokens() * d);
    auto x = randomVector(n, 1), dy = randomVector(n, 2);
    Buffer xg, dyg;
    put(gpu, xg, x);
    put(gpu, dyg, dy);
    const float* ya = a->forward(cpu, x.data(), s);
    const float* yb = b->forward(gpu, xg.f(), s);
    compare(get(gpu, yb, n), std::vector<float>(ya, ya + n), a->name() + " forward");
    const float* dxa = a->backward(cpu, dy.data(), s);
    const float* dxb = b->backward(gpu, dyg.f(), s);
    compare(get(gpu, dxb, n), std::vector<float>(dxa, dxa + n), a->name() + " dx");
    auto pa = a->params(), pb = b->params();
    for (size_t i = 0; i < pa.size(); ++i)
        compare(getGrad(gpu, *pb[i]), getGrad(cpu, *pa[i]), pa[i]->name + " grad");
}

}  // namespace

class TestCuda : public QObject {
    Q_OBJECT
private slots:
    void init() { g_tol = kTol; }
    void gatedConvBlock()
    {
        SKIP_WITHOUT_GPU();
        compareBlock([] { return std::make_unique<GatedConvBlock>("conv1", 64, 4); }, {3, 33}, 64);
    }
    void decoderLayer()
    {
        SKIP_WITHOUT_GPU();
        compareBlock([] { return std::make_unique<DecoderLayer>("decoder.0", 64, 4, 256); }, {3, 33}, 64);
    }
    void encoderLayers_data()
    {
        QTest::addColumn<bool>("pre");
        QTest::addColumn<bool>("groupbert");
        QTest::addColumn<double>("density");
        QTest::addColumn<int>("block");
        QTest::newRow("bert post-norm") << false << false << 1.0 << 1;
        QTest::newRow("bert pre-norm") << true << false << 1.0 << 1;
        QTest::newRow("block-sparse B=16") << false << false << 0.25 << 16;
        QTest::newRow("unstructured sparse") << false << false << 0.3 << 1;
        QTest::newRow("groupbert") << true << true << 1.0 << 1;
        QTest::newRow("sparse attention B=16") << false << false << 0.5 << 16;
    }
    void encoderLayers()
    {
        SKIP_WITHOUT_GPU();
        QFETCH(bool, pre);
        QFETCH(bool, groupbert);
        QFETCH(double, density);
        QFETCH(int, block);
        EncoderOptions o;
        o.preNorm = pre;
        o.groupbert = groupbert;
        o.groups = groupbert ? 4 : 1;
        o.density = density;
        o.block = block;
        o.sparseAttention = QTest::currentDataTag() == QLatin1String("sparse attention B=16");
        compareBlock([&] { return std::make_unique<EncoderLayer>("encoder.0", 64, 4, 256, o); }, {3, 33}, 64);
    }
    void embedding()
    {
        SKIP_WITHOUT_GPU();
        Runtime cpu(makeCpuBackend()), gpu(makeCudaBackend());
        Embedding a(500, 32), b(500, 32);
        a.allocate(cpu, 3);
        b.allocate(gpu, 3);
        StepShape s{4, 50};
        std::vector<int32_t> tok(200);
        for (size_t i = 0; i < tok.size(); ++i)
            tok[i] = int32_t((i * i * 7) % 500);   // with repeats: the scatter must add them up
        Buffer tg, dg;
        putInts(gpu, tg, tok);
        auto dy = randomVector(200 * 32, 9);
        put(gpu, dg, dy);
        const float* ya = a.forward(cpu, tok.data(), s);
        const float* yb = b.forward(gpu, tg.i(), s);
        compare(get(gpu, yb, 200 * 32), std::vector<float>(ya, ya + 200 * 32), "embedding forward");
        a.backward(cpu, dy.data(), s);
        b.backward(gpu, dg.f(), s);
        a.update(cpu, 0.5f);
        b.update(gpu, 0.5f);
        compare(getParam(gpu, b.table()), getParam(cpu, a.table()), "embedding sgd");
    }
    void softmaxLayers_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("vocab");   // 40000: tail rows of 36000 columns are split over blocks
        for (auto v : softmaxVariants())
            for (int vocab : {5000, 40000})
                QTest::newRow(qPrintable(QString::fromUtf8(v.data(), int(v.size())) + QStringLiteral("/V%1").arg(vocab)))
                    << QString::fromUtf8(v.data(), int(v.size())) << vocab;
    }
    void softmaxLayers()
    {
        SKIP_WITHOUT_GPU();
        QFETCH(QString, variant);
        g_tol = variant == QLatin1String("fused_bf16") ? kBf16Tol : kTol;
        QFETCH(int, vocab);
        const int64_t N = 300, d = 64, V = vocab;
        const std::vector<int64_t> cutoffs{400, 1500, 4000};
        Runtime cpu(makeCpuBackend()), gpu(makeCudaBackend());
        auto a = makeSoftmaxLayer(variant.toStdString(), V, d, cutoffs);
        auto b = makeSoftmaxLayer(variant.toStdString(), V, d, cutoffs);
        a->allocate(cpu, 4);
        b->allocate(gpu, 4);
        std::vector<int32_t> targets(static_cast<size_t>(N));
        for (size_t i = 0; i < targets.size(); ++i)
            targets[i] = int32_t((i * 7919 + (i % 3 ? 0 : 3000)) % V);
        auto h = randomVector(size_t(N * d), 6);
        Buffer hg, tg, lg;
        put(gpu, hg, h);
        putInts(gpu, tg, targets);
        gpu.ensure(lg, 4);
        float la = 0;
        a->forward(cpu, h.data(), targets.data(), targets, &la);
        b->forward(gpu, hg.f(), tg.i(), targets, lg.f());
        float lb = get(gpu, lg.f(), 1)[0];
        QVERIFY2(std::fabs(la - lb) < g_tol * std::fabs(la), qPrintable(QStringLiteral("loss %1 vs %2").arg(lb).arg(la)));
        const float* dha = a->backward(cpu);
        const float* dhb = b->backward(gpu);
        compare(get(gpu, dhb, size_t(N * d)), std::vector<float>(dha, dha + N * d), "softmax dh");
        auto pa = a->params(), pb = b->params();
        for (size_t i = 0; i < pa.size(); ++i)
            compare(getGrad(gpu, *pb[i]), getGrad(cpu, *pa[i]), pa[i]->name + " grad");
    }
    void modelSteps_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("variant");
        for (auto w : {"gcn", "transformer"})
            for (auto v : softmaxVariants())
                QTest::newRow(qPrintable(QString::fromLatin1(w) + "/" + QString::fromUtf8(v.data(), int(v.size()))))
                    << QString::fromLatin1(w) << QString::fromUtf8(v.data(), int(v.size()));
    }
    // The BERT family at tiny: 3 steps, prune / regrow after each for the sparse one.
    void bertSteps_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QStringList>("sets");
        for (auto v : softmaxVariants()) {
            const QString vs = QString::fromUtf8(v.data(), int(v.size()));
            QTest::newRow(qPrintable("bert/" + vs)) << "bert" << vs << QStringList{};
            QTest::newRow(qPrintable("groupbert/" + vs)) << "groupbert" << vs << QStringList{};
        }
        QTest::newRow("sparse bert") << "bert" << "full" << QStringList{"density=0.5", "block=4", "prune_every=1"};
        QTest::newRow("bert pre-norm") << "bert" << "full" << QStringList{"norm=pre"};
    }
    void bertSteps()
    {
        SKIP_WITHOUT_GPU();
        QFETCH(QString, workload);
        QFETCH(QString, variant);
        g_tol = variant == QLatin1String("fused_bf16") ? kBf16Tol : kTol;
        QFETCH(QStringList, sets);
        std::vector<std::pair<std::string, std::string>> ov;
        for (const auto& s : sets)
            ov.push_back(parseOverride(s.toStdString()));
        auto cpu = Model::create(workload.toStdString(), "tiny", variant.toStdString(), ov, BackendKind::Cpu, 9);
        auto gpu = Model::create(workload.toStdString(), "tiny", variant.toStdString(), ov, BackendKind::Cuda, 9);
        for (int i = 0; i < 3; ++i) {
            float a = cpu->step(), b = gpu->step();
            QVERIFY2(std::fabs(a - b) < g_tol * std::fabs(a), qPrintable(QStringLiteral("step %1: %2 vs %3").arg(i).arg(b).arg(a)));
        }
        auto la = cpu->layers(), lb = gpu->layers();
        for (size_t i = 0; i < la.size(); ++i) {
            auto pa = la[i]->params(), pb = lb[i]->params();
            for (size_t k = 0; k < pa.size(); ++k)
                compare(getParam(gpu->runtime(), *pb[k]), getParam(cpu->runtime(), *pa[k]), pa[k]->name);
        }
    }
    void modelSteps()
    {
        SKIP_WITHOUT_GPU();
        QFETCH(QString, workload);
        QFETCH(QString, variant);
        g_tol = variant == QLatin1String("fused_bf16") ? kBf16Tol : kTol;
        std::vector<std::pair<std::string, std::string>> ov{
            {"hidden", "64"}, {"vocab", "3000"}, {"cutoffs", "300,1000,2000"}, {"batch", "4"}, {"seq", "32"}};
        if (workload == "transformer")
            ov.push_back({"heads", "4"}), ov.push_back({"ffn", "128"});
        auto cpu = Model::create(workload.toStdString(), "tiny", variant.toStdString(), ov, BackendKind::Cpu, 9);
        auto gpu = Model::create(workload.toStdString(), "tiny", variant.toStdString(), ov, BackendKind::Cuda, 9);
        for (int i = 0; i < 3; ++i) {
            float a = cpu->step(), b = gpu->step();
            QVERIFY2(std::fabs(a - b) < g_tol * std::fabs(a), qPrintable(QStringLiteral("step %1: %2 vs %3").arg(i).arg(b).arg(a)));
        }
        auto la = cpu->layers(), lb = gpu->layers();
        for (size_t i = 0; i < la.size(); ++i) {
            auto pa = la[i]->params(), pb = lb[i]->params();
            for (size_t k = 0; k < pa.size(); ++k)
                compare(getParam(gpu->runtime(), *pb[k]), getParam(cpu->runtime(), *pa[k]), pa[k]->name);
        }
    }
};

QTEST_APPLESS_MAIN(TestCuda)
#include "tst_cuda.moc"
