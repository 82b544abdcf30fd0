// Finite-difference gradient checks of every op's backward on tiny shapes: the embedding,
// the gated conv block (im2col conv GEMM + bias, GLU, residual), the Transformer decoder layer
// (layer norm, QKV projection, causal multi-head attention, output projection, GELU FFN,
// residuals) and each softmax layer (logits, log-softmax, NLL / cross-entropy).
#include "kernels/layers.h"
#include "kernels/softmax.h"
#include "kernelstest.h"

#include <QTest>

#include <algorithm>
#include <functional>

using namespace wt::kernels;
using wt::test::randomVector;
using wt::test::relError;

namespace {

// Central differences of f at each of (at most `maxProbe`) coordinates of x.
std::vector<double> numericGrad(std::vector<float>& x, const std::function<double()>& f, size_t stride)
{
    std::vector<double> g(x.size(), 0.0);
    for (size_t i = 0; i < x.size(); i += stride) {
        float saved = x[i];
        float h = 1e-2f * std::max(1.f, std::fabs(saved));
        x[i] = saved + h;
        double up = f();
        x[i] = saved - h;
        double down = f();
        x[i] = saved;
        g[i] = (up - down) / (2.0 * double(h));
    }
    return g;
}

// Compares analytic and numeric gradients at the probed coordinates.
void expectClose(const std::vector<float>& analytic, const std::vector<double>& numeric, size_t stride,
                 const char* what, double tol = 2e-2)
{
    std::vector<double> a, n;
    for (size_t i = 0; i < analytic.size(); i += stride) {
        a.push_back(analytic[i]);
        n.push_back(numeric[i]);
    }
    double e = relError(a, n);
    if (!(e < tol))
        QFAIL(qPrintable(QStringLiteral("%1: relative error %2").arg(QString::fromUtf8(what)).arg(e)));
}

double dot(const std::vector<float>& a, const std::vector<float>& b)
{
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i)
        s += double(a[i]) * double(b[i]);
    return s;
}

// Checks a Block: L = sum(block(x) * R), gradients for x and every parameter.
// rt must outlive the block (the block's buffers belong to it).
void checkBlock(Runtime& rt, Block& block, const StepShape& s, int64_t d)
{
    block.allocate(rt, 7);
    const size_t n = size_t(s.tokens() * d);
    std::vector<float> x = randomVector(n, 1), R = randomVector(n, 2);
    // Break the zero biases / unit norms so every term matters.
    for (Param* p : block.params()) {
        auto v = randomVector(size_t(p->numel()), std::hash<std::string>{}(p->name), 0.3f);
        for (size_t i = 0; i < v.size(); ++i)
            p->w.f()[i] += v[i];
    }
    auto loss = [&] {
        const float* y = block.forward(rt, x.data(), s);
        return dot(std::vector<float>(y, y + n), R);
    };
    loss();
    const float* dx = block.backward(rt, R.data(), s);
    std::vector<float> gx(dx, dx + n);
    std::vector<std::vector<float>> gp;
    for (Param* p : block.params())
        gp.emplace_back(p->g.f(), p->g.f() + p->numel());
    size_t stride = n > 200 ? 3 : 1;
    expectClose(gx, numericGrad(x, loss, stride), stride, "input");
    size_t k = 0;
    for (Param* p : block.params()) {
        std::vector<float> w(p->w.f(), p->w.f() + p->numel());
        auto f = [&] {
            std::copy(w.begin(), w.end(), p->w.f());
            return loss();
        };
        size_t st = w.size() > 200 ? 7 : 1;
        auto num = numericGrad(w, f, st);
        std::copy(w.begin(), w.end(), p->w.f());
        expectClose(gp[k++], num, st, p->name.c_str());
    }
}

}  // namespace

class TestGradients : public QObject {
    Q_OBJECT
private slots:
    void gatedConvBlock()
    {
        Runtime rt(makeCpuBackend());
        GatedConvBlock b("conv1", 6, 3);
        checkBlock(rt, b, {2, 5}, 6);
    }
    void decoderLayer()
    {
        Runtime rt(makeCpuBackend());
        DecoderLayer l("decoder.0", 8, 2, 12);
        checkBlock(rt, l, {2, 4}, 8);
    }
    void layerNormBlock()
    {
        Runtime rt(makeCpuBackend());
        LayerNormBlock l("final_ln", 8);
        checkBlock(rt, l, {2, 3}, 8);
    }
    void embedding()
    {
        Runtime rt(makeCpuBackend());
        Embedding e(10, 4);
        e.allocate(rt, 3);
        StepShape s{2, 3};
        std::vector<int32_t> tok{1, 3, 3, 0, 9, 1};
        auto R = randomVector(24, 5);
        std::vector<float> table(e.table().w.f(), e.table().w.f() + 40);
        auto loss = [&] {
            std::copy(table.begin(), table.end(), e.table().w.f());
            const float* y = e.forward(rt, tok.data(), s);
            return dot(std::vector<float>(y, y + 24), R);
        };
        loss();
        e.backward(rt, R.data(), s);
        // The sparse SGD scatter with lr = -1 adds the gradient to the table: read it back.
        std::vector<float> before(e.table().w.f(), e.table().w.f() + 40);
        e.update(rt, -1.f);
        std::vector<float> grad(40);
        for (size_t i = 0; i < 40; ++i)
            grad[i] = e.table().w.f()[i] - before[i];
        expectClose(grad, numericGrad(table, loss, 1), 1, "embedding.weight");
    }
    // The update: the squared global norm summed by gradNorm(), then Nesterov momentum on the
    // gradient scaled by min(1, clip / norm), two steps against the formulas in double.
    void clippedMomentumUpdate()
    {
        Runtime rt(makeCpuBackend());
        GatedConvBlock b("conv1", 4, 2);
        b.allocate(rt, 3);
        std::vector<std::vector<float>> w0, g;
        double sq = 0;
        uint64_t k = 0;
        for (Param* p : b.params()) {
            auto gv = randomVector(size_t(p->numel()), 17 + k++, 2.f);
            std::copy(gv.begin(), gv.end(), p->g.f());
            for (float x : gv)
                sq += double(x) * x;
            g.push_back(gv);
            w0.emplace_back(p->w.f(), p->w.f() + p->numel());
        }
        float normSq = 0;
        b.gradNorm(rt, &normSq);
        QVERIFY(std::fabs(normSq - sq) < 1e-5 * sq);
        const double lr = 0.1, mu = 0.9, clip = 1.0, scale = std::min(1.0, clip / std::sqrt(sq));
        QVERIFY(scale < 0.5);   // the test clips
        const UpdateRule rule{float(lr), float(mu), float(clip), &normSq};
        b.update(rt, rule);
        b.update(rt, rule);
        size_t i = 0;
        for (Param* p : b.params()) {
            std::vector<double> want(w0[i].size());
            for (size_t e = 0; e < want.size(); ++e) {
                double gs = g[i][e] * scale, v1 = gs, w1 = w0[i][e] - lr * (gs + mu * v1);
                double v2 = mu * v1 + gs;
                want[e] = w1 - lr * (gs + mu * v2);
            }
            std::vector<float> got(p->w.f(), p->w.f() + p->numel());
            QVERIFY2(relError(got, want) < 1e-5, p->name.c_str());
            ++i;
        }
        // Without clipping and momentum: plain SGD.
        std::vector<float> before(b.params()[0]->w.f(), b.params()[0]->w.f() + b.params()[0]->numel());
        b.update(rt, 0.5f);
        for (size_t e = 0; e < before.size(); ++e)
            QCOMPARE(b.params()[0]->w.f()[e], before[e] - 0.5f * g[0][e]);
    }
    void softmaxLayers_data()
    {
        QTest::addColumn<QString>("variant");
        // Not fused_bf16: its forward rounds h to bfloat16, so finite differences smaller than
        // bfloat16's resolution see no change (tst_softmax checks it against float64 instead).
        for (auto v : softmaxVariants())
            if (v != "fused_bf16")
                QTest::newRow(std::string(v).c_str()) << QString::fromUtf8(v.data(), int(v.size()));
    }
    void softmaxLayers()
    {
        QFETCH(QString, variant);
        Runtime rt(makeCpuBackend());
        const int64_t N = 7, d = 16, V = 30;
        auto layer = makeSoftmaxLayer(variant.toStdString(), V, d, {8, 14, 24});
        layer->allocate(rt, 11);
        std::vector<int32_t> targets{0, 9, 3, 20, 27, 13, 25};
        auto h = randomVector(size_t(N * d), 4);
        float lossDev = 0;
        auto loss = [&] {
            layer->forward(rt, h.data(), targets.data(), targets, &lossDev);
            return double(lossDev);
        };
        loss();
        const float* dh = layer->backward(rt);
        std::vector<float> gh(dh, dh + N * d);
        std::vector<std::vector<float>> gp;
        for (Param* p : layer->params())
            gp.emplace_back(p->g.f(), p->g.f() + p->numel());
        expectClose(gh, numericGrad(h, loss, 1), 1, "hidden");
        size_t k = 0;
        for (Param* p : layer->params()) {
            std::vector<float> w(p->w.f(), p->w.f() + p->numel());
            auto f = [&] {
                std::copy(w.begin(), w.end(), p->w.f());
                return loss();
            };
            size_t st = w.size() > 100 ? 5 : 1;
            auto num = numericGrad(w, f, st);
            std::copy(w.begin(), w.end(), p->w.f());
            expectClose(gp[k++], num, st, p->name.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestGradients)
#include "tst_gradients.moc"
