// Every softmax variant against a float64 evaluation of its formula on the same inputs:
// loss and all gradients within 1e-4 relative error. Adaptive: Grave et al. 2017 (head =
// shortlist + one logit per cluster, tail i projects d -> d/4^(i+1) -> cluster size).
#include "kernels/softmax.h"
#include "kernelstest.h"

#include <QTest>

using namespace wt::kernels;
using wt::test::randomVector;
using wt::test::relError;

namespace {

struct Reference {
    double loss = 0;
    std::vector<double> dh;
    std::vector<std::vector<double>> dparams;   // same order as the layer's params()
};

// y[r] = W x (W: rows x cols), in double.
std::vector<double> matvec(const std::vector<float>& W, int64_t rows, int64_t cols, const std::vector<double>& x)
{
    std::vector<double> y(size_t(rows), 0.0);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
            y[size_t(r)] += double(W[size_t(r * cols + c)]) * x[size_t(c)];
    return y;
}

// Softmax probabilities and the log-probability of column t.
std::vector<double> softmax(const std::vector<double>& z, int64_t t, double& logp)
{
    double m = z[0];
    for (double v : z)
        m = std::max(m, v);
    double s = 0;
    for (double v : z)
        s += std::exp(v - m);
    std::vector<double> p(z.size());
    for (size_t i = 0; i < z.size(); ++i)
        p[i] = std::exp(z[i] - m) / s;
    logp = z[size_t(t)] - m - std::log(s);
    return p;
}

// dz = (p - onehot(t)) / N; accumulates dW += dz x^T, returns W^T dz.
std::vector<double> linearBack(const std::vector<float>& W, std::vector<double>& dW, int64_t rows, int64_t cols,
                               const std::vector<double>& x, const std::vector<double>& dz)
{
    std::vector<double> dx(size_t(cols), 0.0);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            dW[size_t(r * cols + c)] += dz[size_t(r)] * x[size_t(c)];
            dx[size_t(c)] += double(W[size_t(r * cols + c)]) * dz[size_t(r)];
        }
    return dx;
}

Reference reference(const std::string& variant, const std::vector<std::vector<float>>& P, const std::vector<float>& h,
                    const std::vector<int32_t>& targets, int64_t d, int64_t V, const std::vector<int64_t>& cutoffs)
{
    const int64_t N = int64_t(targets.size());
    Reference ref;
    ref.dh.assign(size_t(N * d), 0.0);
    for (const auto& p : P)
        ref.dparams.emplace_back(p.size(), 0.0);
    for (int64_t r = 0; r < N; ++r) {
        std::vector<double> x(h.begin() + r * d, h.begin() + (r + 1) * d);
        const int64_t t = targets[size_t(r)];
        std::vector<double> dx(size_t(d), 0.0);
        if (variant == "full") {
            double lp;
            auto p = softmax(matvec(P[0], V, d, x), t, lp);
            ref.loss -= lp / double(N);
            p[size_t(t)] -= 1;
            for (auto& v : p)
                v /= double(N);
            dx = linearBack(P[0], ref.dparams[0], V, d, x, p);
        } else {
            const int64_t nc = int64_t(cutoffs.size()), hs = cutoffs[0] + nc;
            int64_t cluster = 0;
            for (int64_t c : cutoffs)
                cluster += t >= c;
            const int64_t headCol = cluster == 0 ? t : cutoffs[0] + cluster - 1;
            double lp;
            auto p = softmax(matvec(P[0], hs, d, x), headCol, lp);
            ref.loss -= lp / double(N);
            p[size_t(headCol)] -= 1;
            for (auto& v : p)
                v /= double(N);
            dx = linearBack(P[0], ref.dparams[0], hs, d, x, p);
            if (cluster > 0) {
                const size_t i = size_t(cluster - 1);
                const int64_t lo = cutoffs[i], hi = cluster < nc ? cutoffs[i + 1] : V, w = tailWidth(d, i);
                auto proj = matvec(P[1 + 2 * i], w, d, x);
                double lpt;
                auto q = softmax(matvec(P[2 + 2 * i], hi - lo, w, proj), t - lo, lpt);
                ref.loss -= lpt / double(N);
                q[size_t(t - lo)] -= 1;
                for (auto& v : q)
                    v /= double(N);
                auto dproj = linearBack(P[2 + 2 * i], ref.dparams[2 + 2 * i], hi - lo, w, proj, q);
                auto dxt = linearBack(P[1 + 2 * i], ref.dparams[1 + 2 * i], w, d, x, dproj);
                for (int64_t c = 0; c < d; ++c)
                    dx[size_t(c)] += dxt[size_t(c)];
            }
        }
        for (int64_t c = 0; c < d; ++c)
            ref.dh[size_t(r * d + c)] = dx[size_t(c)];
    }
    return ref;
}

}  // namespace

class TestSoftmax : public QObject {
    Q_OBJECT
private slots:
    void matchesFloat64_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("emptyCluster");   // 1: no target falls in the last cluster
        for (auto v : softmaxVariants()) {
            QString name = QString::fromUtf8(v.data(), int(v.size()));
            QTest::newRow(qPrintable(name + "/d64")) << name << 64 << 0;
            QTest::newRow(qPrintable(name + "/d20-empty-cluster")) << name << 20 << 1;
        }
    }
    void matchesFloat64()
    {
        QFETCH(QString, variant);
        QFETCH(int, d);
        QFETCH(int, emptyCluster);
        const std::string v = variant.toStdString();
        const int64_t V = 500, N = 96;
        const std::vector<int64_t> cutoffs{50, 150, 400};
        Runtime rt(makeCpuBackend());
        auto layer = makeSoftmaxLayer(v, V, d, cutoffs);
        layer->allocate(rt, 21);
        std::vector<int32_t> targets(static_cast<size_t>(N));
        uint64_t s = 99;
        for (auto& t : targets) {   // every cluster populated, some tokens repeated
            s = s * 6364136223846793005ull + 1;
            t = int32_t((s >> 33) % uint64_t(emptyCluster ? 400 : V));
        }
        auto h = randomVector(size_t(N * d), 8, 2.f);
        float loss = 0;
        // Two steps: the second reuses the buffers with the same shapes.
        for (int rep = 0; rep < 2; ++rep) {
            layer->forward(rt, h.data(), targets.data(), targets, &loss);
            layer->backward(rt);
        }
        std::vector<std::vector<float>> P;
        for (Param* p : layer->params())
            P.emplace_back(p->w.f(), p->w.f() + p->numel());
        Reference ref = reference(v, P, h, targets, d, V, cutoffs);
        layer->forward(rt, h.data(), targets.data(), targets, &loss);
        const float* dh = layer->backward(rt);
        // fused_bf16 rounds every GEMM input to bfloat16 (8 significant bits): its loss and
        // gradients are the exact ones to about 1%, not to fp32's rounding.
        const bool bf16 = v == "fused_bf16";
        const double lossTol = bf16 ? 1e-2 : 1e-4, gradTol = bf16 ? 3e-2 : 1e-4;
        QVERIFY2(std::fabs(double(loss) - ref.loss) / ref.loss < lossTol, qPrintable(QStringLiteral("loss %1 vs %2").arg(loss).arg(ref.loss)));
        QVERIFY2(relError(std::vector<float>(dh, dh + N * d), ref.dh) < gradTol, "dL/dh");
        size_t k = 0;
        for (Param* p : layer->params()) {
            std::vector<float> g(p->g.f(), p->g.f() + p->numel());
            double e = relError(g, ref.dparams[k]);
            bool allZero = std::all_of(ref.dparams[k].begin(), ref.dparams[k].end(), [](double x) { return x == 0; });
            if (allZero)
                QVERIFY2(std::all_of(g.begin(), g.end(), [](float x) { return x == 0; }), p->name.c_str());
            else
                QVERIFY2(e < gradTol, qPrintable(QString::fromStdString(p->name) + QStringLiteral(": %1").arg(e)));
            ++k;
        }
    }
    void variantsAgree()
    {
        // All adaptive variants compute the same function from the same parameters.
        const int64_t V = 300, N = 40, d = 32;
        std::vector<int32_t> targets(static_cast<size_t>(N));
        for (size_t i = 0; i < targets.size(); ++i)
            targets[i] = int32_t((i * 37 + 11) % V);
        auto h = randomVector(size_t(N * d), 3);
        std::vector<float> losses;
        for (auto v : {"adaptive", "bucketed", "fused"}) {
            Runtime rt(makeCpuBackend());
            auto layer = makeSoftmaxLayer(v, V, d, {20, 100});
            layer->allocate(rt, 5);
            float loss = 0;
            layer->forward(rt, h.data(), targets.data(), targets, &loss);
            losses.push_back(loss);
        }
        QVERIFY(std::fabs(losses[0] - losses[1]) < 1e-5f * losses[0]);
        QVERIFY(std::fabs(losses[0] - losses[2]) < 1e-5f * losses[0]);
    }
    void bf16VariantRoundsOnlyItsGemms()
    {
        // fused_bf16 is fused with its GEMMs through the bfloat16 kernel: close to fused's
        // loss but not equal to it, and its launches are bf16gemm_* where fused's are sgemm_*.
        const int64_t V = 300, N = 40, d = 32;
        std::vector<int32_t> targets(static_cast<size_t>(N));
        for (size_t i = 0; i < targets.size(); ++i)
            targets[i] = int32_t((i * 37 + 11) % V);
        auto h = randomVector(size_t(N * d), 3);
        float loss[2] = {};
        std::vector<OpInfo> ops[2];
        int k = 0;
        for (auto v : {"fused", "fused_bf16"}) {
            Runtime rt(makeCpuBackend());
            auto layer = makeSoftmaxLayer(v, V, d, {20, 100});
            layer->allocate(rt, 5);
            rt.setListing(&ops[k]);
            layer->forward(rt, h.data(), targets.data(), targets, &loss[k]);
            layer->backward(rt);
            QVERIFY(!rt.bf16Gemms());   // the layer restores the runtime's setting
            ++k;
        }
        QVERIFY(loss[0] != loss[1]);
        QVERIFY2(std::fabs(loss[0] - loss[1]) < 1e-2f * loss[0], qPrintable(QStringLiteral("%1 vs %2").arg(loss[0]).arg(loss[1])));
        QCOMPARE(ops[0].size(), ops[1].size());
        int gemms = 0;
        for (size_t i = 0; i < ops[0].size(); ++i) {
            const std::string& a = ops[0][i].name;
            const std::string& b = ops[1][i].name;
            if (a.rfind("sgemm_", 0) == 0) {
                QCOMPARE(QString::fromStdString(b), QString::fromStdString("bf16" + a.substr(1)));
                QCOMPARE(ops[1][i].flops, ops[0][i].flops);
                ++gemms;
            } else {
                QCOMPARE(b, a);
            }
        }
        QVERIFY(gemms >= 6);   // head and two tails (two projections each) forward, and backward
    }
    void rejectsBadCutoffs()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeSoftmaxLayer("adaptive", 100, 8, {50, 40}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeSoftmaxLayer("fused", 100, 8, {100}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeSoftmaxLayer("bucketed", 100, 8, {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeSoftmaxLayer("nope", 100, 8, {10}));
    }
};

QTEST_APPLESS_MAIN(TestSoftmax)
#include "tst_softmax.moc"
