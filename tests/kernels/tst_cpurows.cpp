// The CPU backend's vectorized row kernels (cpurows.h) against float64 evaluations of their
// definitions, and the thread pool: every index exactly once, and the kernels' results (and
// a whole training step's) bitwise the same for 1 and 2 threads.
#include "kernels/bertops.h"
#include "kernels/cpurows.h"
#include "kernels/layers.h"
#include "kernels/launch.h"
#include "kernels/model.h"
#include "kernels/observer.h"
#include "kernels/opsmath.h"
#include "kernels/threadpool.h"
#include "kernels/vecmath.h"
#include "kernelstest.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace wt::kernels;
using wt::test::randomVector;

namespace {

std::vector<double> logSoftmaxRef(const std::vector<float>& x, int64_t rows, int64_t n)
{
    std::vector<double> y(x.size());
    for (int64_t r = 0; r < rows; ++r) {
        double m = -INFINITY, s = 0;
        for (int64_t c = 0; c < n; ++c)
            m = std::max(m, double(x[size_t(r * n + c)]));
        for (int64_t c = 0; c < n; ++c)
            s += std::exp(double(x[size_t(r * n + c)]) - m);
        for (int64_t c = 0; c < n; ++c)
            y[size_t(r * n + c)] = double(x[size_t(r * n + c)]) - m - std::log(s);
    }
    return y;
}

double maxAbsDiff(const std::vector<float>& a, const std::vector<double>& b)
{
    double w = 0;
    for (size_t i = 0; i < a.size(); ++i)
        w = std::max(w, std::fabs(double(a[i]) - b[i]));
    return w;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

// Runs rows [0, rows) of a row kernel on the pool.
template <class F>
void onPool(int64_t rows, F f)
{
    cpu::parallelFor(rows, 1, [&](int64_t lo, int64_t hi) { f(lo, hi); });
}

const int64_t kLengths[] = {1, 7, 16, 33, 512, 513, 10002};

// Counts the launches by name.
class LaunchNames final : public Observer {
public:
    void scopeEnter(std::string_view, ScopeLevel) override {}
    void scopeExit() override {}
    void launchBegin(const OpLaunch& op) override { names.emplace_back(op.name); }
    void launchEnd() override {}
    std::vector<std::string> names;
};

}  // namespace

class TestCpuRows : public QObject {
    Q_OBJECT
private slots:
    void cleanup() { cpu::setThreads(0); }

    void poolCoversEveryIndexOnce()
    {
        for (int threads : {1, 2, 3, 5}) {
            ThreadPool pool(threads);
            QCOMPARE(pool.threads(), threads);
            for (int64_t count : {0, 1, 2, 3, 10, 1000, 4097}) {
                for (int64_t minPer : {1, 3, 1000}) {
                    std::vector<int> hits(size_t(count), 0);
                    pool.parallelFor(count, minPer, [&](int64_t lo, int64_t hi) {
                        for (int64_t i = lo; i < hi; ++i)
                            hits[size_t(i)]++;
                    });
                    for (int64_t i = 0; i < count; ++i)
                        QCOMPARE(hits[size_t(i)], 1);
                }
            }
        }
        // Many short jobs in a row (workers that slept through a job must not rerun the next).
        ThreadPool pool(2);
        std::vector<int> hits(64, 0);
        for (int job = 0; job < 2000; ++job)
            pool.parallelFor(64, 1, [&](int64_t lo, int64_t hi) {
                for (int64_t i = lo; i < hi; ++i)
                    hits[size_t(i)]++;
            });
        for (int h : hits)
            QCOMPARE(h, 2000);
    }

    void logSoftmaxForwardAgainstFloat64()
    {
        for (int64_t n : kLengths) {
            const int64_t rows = 5;
            std::vector<float> x = randomVector(size_t(rows * n), uint64_t(n), 12.f), y(x.size());
            const size_t masked = n > 1 ? 1 : 0;   // a masked logit (a row of only -inf has no softmax)
            if (n > 1)
                x[masked] = -std::numeric_limits<float>::infinity();
            onPool(rows, [&](int64_t lo, int64_t hi) { cpu::logSoftmaxForwardRows(x.data(), y.data(), n, n, n, lo, hi); });
            std::vector<double> ref = logSoftmaxRef(x, rows, n);
            if (n > 1) {
                QVERIFY(std::isinf(y[masked]) && y[masked] < 0);
                y[masked] = 0, ref[masked] = 0;
            }
            const double err = maxAbsDiff(y, ref);
            QVERIFY2(err < 1e-5, qPrintable(QStringLiteral("n %1: %2").arg(n).arg(err)));
        }
    }

    void logSoftmaxBackwardAgainstFloat64()
    {
        for (int64_t n : kLengths) {
            const int64_t rows = 4;
            std::vector<float> x = randomVector(size_t(rows * n), uint64_t(n) + 1, 5.f), y(x.size());
            std::vector<float> dy = randomVector(x.size(), uint64_t(n) + 2), dx(x.size());
            onPool(rows, [&](int64_t lo, int64_t hi) { cpu::logSoftmaxForwardRows(x.data(), y.data(), n, n, n, lo, hi); });
            onPool(rows, [&](int64_t lo, int64_t hi) {
                cpu::logSoftmaxBackwardRows(y.data(), dy.data(), dx.data(), n, n, lo, hi);
            });
            std::vector<double> ref(x.size());
            for (int64_t r = 0; r < rows; ++r) {
                double s = 0;
                for (int64_t c = 0; c < n; ++c)
                    s += dy[size_t(r * n + c)];
                for (int64_t c = 0; c < n; ++c)
                    ref[size_t(r * n + c)] = dy[size_t(r * n + c)] - std::exp(double(y[size_t(r * n + c)])) * s;
            }
            QVERIFY2(wt::test::relError(dx, ref) < 1e-5, qPrintable(QString::number(n)));
            // In place (dx = dy), as the full softmax calls it.
            std::vector<float> inPlace = dy;
            cpu::logSoftmaxBackwardRows(y.data(), inPlace.data(), inPlace.data(), n, n, 0, rows);
            QVERIFY(sameBits(inPlace, dx));
        }
    }

    void fusedLossAgainstFloat64()
    {
        const int64_t rows = 6, n = 1003;
        std::vector<float> x = randomVector(size_t(rows * n), 9, 8.f);
        // Row 3 starts with a whole block (and some) of -inf, row 4's maximum is in its last
        // block: the in-place exps are rescaled when the running max moves.
        for (int64_t c = 0; c < 600; ++c)
            x[size_t(3 * n + c)] = -INFINITY;
        x[size_t(4 * n + 1001)] = 30.f;
        std::vector<int32_t> target = {0, 5, 1002, 700, 500, 3};
        std::vector<double> ref = logSoftmaxRef(x, rows, n);
        std::vector<float> loss(rows, 0.f), g = x;
        const float scale = 0.25f;
        cpu::fusedLogSoftmaxLossRows(g.data(), n, n, target.data(), scale, loss.data(), nullptr, 0, rows);
        for (int64_t r = 0; r < rows; ++r) {
            QVERIFY(std::fabs(loss[size_t(r)] + ref[size_t(r * n + target[size_t(r)])]) < 1e-5);
            for (int64_t c = 0; c < n; ++c) {
                const double p = std::exp(ref[size_t(r * n + c)]);
                const double want = (p - (c == target[size_t(r)] ? 1.0 : 0.0)) * scale;
                QVERIFY(std::fabs(g[size_t(r * n + c)] - want) < 1e-6);
            }
        }
    }

    void attentionSoftmaxAgainstFloat64()
    {
        const int64_t S = 37, rows = 3 * S;
        const float scale = 0.35f;
        std::vector<float> x = randomVector(size_t(rows * S), 4, 6.f);
        for (bool causal : {false, true}) {
            std::vector<float> p(x.size(), -1.f);
            cpu::softmaxRows(x.data(), p.data(), S, scale, causal, 0, rows);
            for (int64_t r = 0; r < rows; ++r) {
                const int64_t seen = causal ? r % S + 1 : S;
                double m = -INFINITY, s = 0;
                for (int64_t c = 0; c < seen; ++c)
                    m = std::max(m, double(x[size_t(r * S + c)]) * scale);
                for (int64_t c = 0; c < seen; ++c)
                    s += std::exp(double(x[size_t(r * S + c)]) * scale - m);
                for (int64_t c = 0; c < S; ++c) {
                    const double want = c < seen ? std::exp(double(x[size_t(r * S + c)]) * scale - m) / s : 0.0;
                    QVERIFY(std::fabs(p[size_t(r * S + c)] - want) < 1e-6);
                }
            }
        }
    }

    void layerNormAgainstFloat64()
    {
        const int64_t rows = 9, C = 67;
        std::vector<float> x = randomVector(size_t(rows * C), 5, 3.f), gamma = randomVector(size_t(C), 6),
                           beta = randomVector(size_t(C), 7), y(x.size()), mean(rows), rstd(rows);
        for (auto& v : x)
            v += 10.f;   // an offset: a one-pass variance would lose digits here
        cpu::layerNormForwardRows(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), C,
                                  fn::kLayerNormEps, 0, rows);
        for (int64_t r = 0; r < rows; ++r) {
            double mu = 0, var = 0;
            for (int64_t c = 0; c < C; ++c)
                mu += x[size_t(r * C + c)];
            mu /= double(C);
            for (int64_t c = 0; c < C; ++c)
                var += (x[size_t(r * C + c)] - mu) * (x[size_t(r * C + c)] - mu);
            const double rs = 1.0 / std::sqrt(var / double(C) + fn::kLayerNormEps);
            QVERIFY(std::fabs(mean[size_t(r)] - mu) < 1e-5);
            QVERIFY(std::fabs(rstd[size_t(r)] - rs) < 1e-5 * rs);
            for (int64_t c = 0; c < C; ++c) {
                const double want = (x[size_t(r * C + c)] - mu) * rs * gamma[size_t(c)] + beta[size_t(c)];
                QVERIFY(std::fabs(y[size_t(r * C + c)] - want) < 2e-5);
            }
        }
        // Backward, written and accumulated: rstd (g - mean(g) - xhat mean(g xhat)), g = dy gamma.
        std::vector<float> dy = randomVector(x.size(), 8), dx(x.size()), dxAcc = randomVector(x.size(), 9);
        const std::vector<float> dxAcc0 = dxAcc;
        cpu::layerNormBackwardRows(x.data(), gamma.data(), dy.data(), mean.data(), rstd.data(), dx.data(), C, false, 0, rows);
        cpu::layerNormBackwardRows(x.data(), gamma.data(), dy.data(), mean.data(), rstd.data(), dxAcc.data(), C, true, 0, rows);
        for (int64_t r = 0; r < rows; ++r) {
            const double mu = mean[size_t(r)], rs = rstd[size_t(r)];
            double mg = 0, mgx = 0;
            for (int64_t c = 0; c < C; ++c) {
                const double g = double(dy[size_t(r * C + c)]) * gamma[size_t(c)];
                mg += g;
                mgx += g * (x[size_t(r * C + c)] - mu) * rs;
            }
            mg /= double(C);
            mgx /= double(C);
            for (int64_t c = 0; c < C; ++c) {
                const size_t i = size_t(r * C + c);
                const double g = double(dy[i]) * gamma[size_t(c)];
                const double want = rs * (g - mg - (x[i] - mu) * rs * mgx);
                QVERIFY2(std::fabs(dx[i] - want) < 2e-4 * std::max(1.0, std::fabs(want)), qPrintable(QString::number(dx[i] - want)));
                QVERIFY(std::fabs(dxAcc[i] - (dxAcc0[i] + want)) < 2e-4 * std::max(1.0, std::fabs(want)));
            }
        }
    }

    void elementwiseRangesMatchTheFunctors()
    {
        // The range kernels do the functors' arithmetic in the functors' order: the same bits,
        // for any split of the index range (ranges that start and end inside rows).
        const int64_t B = 2, S = 7, C = 24, K = 3, T = B * S;
        std::vector<float> x = randomVector(size_t(T * C), 21), wide = randomVector(size_t(T * K * C), 22);
        std::vector<float> bias = randomVector(size_t(C), 23), other = randomVector(size_t(T * C), 24);
        auto splitRun = [](int64_t n, auto&& range) {
            const int64_t cuts[] = {0, 5, 5, 31, n / 2, n - 3, n};
            for (size_t k = 0; k + 1 < std::size(cuts); ++k)
                if (cuts[k + 1] > cuts[k])
                    range(cuts[k], cuts[k + 1]);
        };
        auto compare = [&](const char* what, int64_t n, auto functor, std::vector<float>& out, std::vector<float> init) {
            std::vector<float> want = init;
            out = init;
            auto f = functor(want.data());
            for (int64_t i = 0; i < n; ++i)
                f(i);
            auto g = functor(out.data());
            splitRun(n, [&](int64_t lo, int64_t hi) { g.cpuRange(lo, hi); });
            QVERIFY2(sameBits(out, want), what);
        };
        std::vector<float> out;
        compare("im2col", T * K * C, [&](float* o) { return fn::Im2col{x.data(), o, S, C, K}; }, out,
                std::vector<float>(size_t(T * K * C), 7.f));
        for (bool acc : {false, true})
            compare("col2im", T * C, [&](float* o) { return fn::Col2im{wide.data(), o, S, C, K, acc}; }, out, other);
        compare("bias_add", T * C, [&](float* o) { return fn::BiasAdd{o, bias.data(), C}; }, out, other);
        compare("add", T * C, [&](float* o) { return fn::Add{x.data(), other.data(), o}; }, out, std::vector<float>(x.size()));
        compare("copy", T * C, [&](float* o) { return fn::Copy{x.data(), o}; }, out, std::vector<float>(x.size()));
        const int64_t H = 3, dh = 4, P = 3;   // qkv [B, S, 3, H, dh]
        std::vector<float> qkv = randomVector(size_t(B * S * P * H * dh), 25);
        for (bool toHeads : {true, false})
            compare("heads_permute", B * S * P * H * dh,
                    [&](float* o) { return fn::HeadsPermute{qkv.data(), o, B, S, P, H, dh, toHeads}; },
                    out, std::vector<float>(qkv.size()));
        std::vector<int32_t> idx = {3, 0, 9, 13, 1, 2, 4, 5, 6, 7, 8, 10, 11, 12};   // a permutation of T rows
        compare("index_select_rows", T * C, [&](float* o) { return fn::IndexSelectRows{x.data(), idx.data(), o, C}; }, out,
                std::vector<float>(x.size()));
        compare("index_add_rows", T * C, [&](float* o) { return fn::IndexAddRows{x.data(), idx.data(), o, C}; }, out, other);
        compare("embedding_forward", T * C, [&](float* o) { return fn::EmbedForward{idx.data(), x.data(), o, C}; }, out,
                std::vector<float>(x.size()));
        // BERT's embedding with positions (S positions) and the position gradient (B in order).
        std::vector<float> pos = randomVector(size_t(S * C), 36);
        compare("embedding_position_forward", T * C,
                [&](float* o) { return fn::EmbedPosForward{idx.data(), x.data(), pos.data(), o, C, S}; }, out,
                std::vector<float>(x.size()));
        compare("position_grad", S * C, [&](float* o) { return fn::PosGrad{x.data(), o, C, S, B}; }, out,
                std::vector<float>(size_t(S * C), 3.f));
        std::vector<int32_t> tokens = {1, 1, 4, 0, 1, 4, 2, 2, 9, 1, 0, 3, 3, 1};   // repeats add up in order
        float embNorm = 9.f;
        compare("embedding_sgd", T * C,
                [&](float* o) { return fn::EmbedSgd{tokens.data(), x.data(), o, C, 0.5f, &embNorm, 1.f}; }, out, other);
        std::vector<float> g = randomVector(x.size(), 26), v = randomVector(x.size(), 27);
        float normSq = 4.f;
        std::vector<float> w0 = randomVector(x.size(), 28), w1 = w0, v1 = v;
        fn::Sgd a{w0.data(), g.data(), v.data(), 0.1f, 0.9f, &normSq, 1.f};
        for (int64_t i = 0; i < int64_t(x.size()); ++i)
            a(i);
        fn::Sgd b{w1.data(), g.data(), v1.data(), 0.1f, 0.9f, &normSq, 1.f};
        splitRun(int64_t(x.size()), [&](int64_t lo, int64_t hi) { b.cpuRange(lo, hi); });
        QVERIFY(sameBits(w0, w1));
        QVERIFY(sameBits(v, v1));
        // GLU and GELU use vexp / verf: within float rounding of the functors' expf / erff.
        std::vector<float> h = randomVector(size_t(T * 2 * C), 29, 4.f), o1(size_t(T * C)), o2(size_t(T * C));
        fn::GluForward gf{h.data(), o1.data(), C};
        for (int64_t i = 0; i < T * C; ++i)
            gf(i);
        fn::GluForward{h.data(), o2.data(), C}.cpuRange(0, T * C);
        QVERIFY(wt::test::relError(o2, o1) < 1e-6);
        fn::GeluForward ge{x.data(), o1.data()};
        for (int64_t i = 0; i < T * C; ++i)
            ge(i);
        fn::GeluForward{x.data(), o2.data()}.cpuRange(0, T * C);
        QVERIFY(wt::test::relError(o2, o1) < 1e-6);
        fn::GeluBackward gb{x.data(), other.data(), o1.data()};
        for (int64_t i = 0; i < T * C; ++i)
            gb(i);
        fn::GeluBackward{x.data(), other.data(), o2.data()}.cpuRange(0, T * C);
        QVERIFY(wt::test::relError(o2, o1) < 1e-6);
    }

    // GELU's exact definition x Phi(x) and its derivative Phi(x) + x phi(x), and GLU, against
    // float64 over the whole range the activations see (the erfc's clamp at |x| = 4 sqrt 2
    // included), at lengths that end inside a vector and ranges that start inside a row.
    void geluAndGluAgainstFloat64()
    {
        for (int64_t n : {int64_t(1), int64_t(7), int64_t(33), int64_t(1000), int64_t(4099)}) {
            const size_t len = size_t(n);
            std::vector<float> x(len), dy = randomVector(len, uint64_t(n) + 40), y(len), dx(len);
            for (int64_t i = 0; i < n; ++i)   // -12 .. 12, 0 and +-4 sqrt 2 hit exactly for n = 1000
                x[size_t(i)] = n == 1 ? 0.f : -12.f + 24.f * float(i) / float(n - 1);
            if (n >= 1000)
                x[3] = 5.65685425f, x[4] = -5.65685425f, x[5] = 1e-30f, x[6] = -1e-30f;
            onPool(n, [&](int64_t lo, int64_t hi) { cpu::geluForwardRange(x.data(), y.data(), lo, hi); });
            onPool(n, [&](int64_t lo, int64_t hi) { cpu::geluBackwardRange(x.data(), dy.data(), dx.data(), lo, hi); });
            double worstY = 0, worstDx = 0;
            for (int64_t i = 0; i < n; ++i) {
                const double v = x[size_t(i)], scale = std::max(1.0, std::fabs(v));
                const double cdf = 0.5 * std::erfc(-v / std::sqrt(2.0)), pdf = std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI);
                worstY = std::max(worstY, std::fabs(double(y[size_t(i)]) - v * cdf) / scale);
                worstDx = std::max(worstDx, std::fabs(double(dx[size_t(i)]) - dy[size_t(i)] * (cdf + v * pdf)) / scale);
            }
            QVERIFY2(worstY < 4e-7, qPrintable(QStringLiteral("gelu n %1: %2").arg(n).arg(worstY)));
            QVERIFY2(worstDx < 6e-7, qPrintable(QStringLiteral("gelu' n %1: %2").arg(n).arg(worstDx)));
        }
        const int64_t T = 9, C = 37;   // h = [a | g] per row
        std::vector<float> h = randomVector(size_t(T * 2 * C), 41, 12.f), dout = randomVector(size_t(T * C), 42);
        std::vector<float> out(size_t(T * C)), dh(h.size());
        const int64_t cut = 2 * C + 5;   // one range ends, the next starts, inside row 2
        for (auto [lo, hi] : {std::pair<int64_t, int64_t>{0, cut}, {cut, T * C}}) {
            cpu::gluForwardRange(h.data(), out.data(), C, lo, hi);
            cpu::gluBackwardRange(h.data(), dout.data(), dh.data(), C, lo, hi);
        }
        double worst = 0;
        for (int64_t r = 0; r < T; ++r)
            for (int64_t c = 0; c < C; ++c) {
                const double a = h[size_t(r * 2 * C + c)], g = h[size_t(r * 2 * C + C + c)], d = dout[size_t(r * C + c)];
                const double s = 1 / (1 + std::exp(-g));
                worst = std::max({worst, std::fabs(out[size_t(r * C + c)] - a * s) / std::max(1.0, std::fabs(a)),
                                  std::fabs(dh[size_t(r * 2 * C + c)] - d * s),
                                  std::fabs(dh[size_t(r * 2 * C + C + c)] - d * a * s * (1 - s)) / std::max(1.0, std::fabs(a))});
            }
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
    }

    void columnReductionsMatchTheFunctors()
    {
        // C = 200: whole register tiles (64 sums, 32 pairs) and tails, at chunk starts off the tiles.
        const int64_t rows = 33, C = 200;
        std::vector<float> y = randomVector(size_t(rows * C), 31), x = randomVector(size_t(rows * C), 32);
        std::vector<float> mean = randomVector(size_t(rows), 33), rstd = randomVector(size_t(rows), 34, 2.f);
        const size_t nc = static_cast<size_t>(C);
        std::vector<float> s0(nc), s1(nc, 5.f), g0(nc), b0(nc), g1(nc, 3.f), b1(nc, 3.f);
        fn::ColumnSum cs{y.data(), s0.data(), rows, C};
        fn::LayerNormParamGrad lp{x.data(), y.data(), mean.data(), rstd.data(), g0.data(), b0.data(), rows, C};
        for (int64_t j = 0; j < C; ++j) {
            fn::SumAcc a = cs.init();
            fn::PairAcc p = lp.init();
            for (int64_t i = 0; i < rows; ++i) {
                cs.accumulate(a, j, i);
                lp.accumulate(p, j, i);
            }
            cs.finish(j, a);
            lp.finish(j, p);
        }
        fn::ColumnSum{y.data(), s1.data(), rows, C}.cpuColumns(0, 13);
        fn::ColumnSum{y.data(), s1.data(), rows, C}.cpuColumns(13, C);
        fn::LayerNormParamGrad{x.data(), y.data(), mean.data(), rstd.data(), g1.data(), b1.data(), rows, C}.cpuColumns(0, 77);
        fn::LayerNormParamGrad{x.data(), y.data(), mean.data(), rstd.data(), g1.data(), b1.data(), rows, C}.cpuColumns(77, C);
        QVERIFY(sameBits(s0, s1));
        QVERIFY(sameBits(g0, g1));
        QVERIFY(sameBits(b0, b1));
        // The squared norm: fixed blocks, any thread count, close to the double sum.
        std::vector<float> big = randomVector(100003, 35);
        double want = 0;
        for (float v : big)
            want += double(v) * double(v);
        const double got = fn::Square{big.data()}.cpuSum(0, int64_t(big.size()));
        QVERIFY(std::fabs(got - want) < 1e-9 * want);
    }

    void vectorExpHasTheScalarBits()
    {
        // The row kernels' 8-lane exp (in expRange, the log-softmax sums, the attention softmax)
        // against vecmath.h's vexp, element by element: every float of [-100, 100] in steps that
        // cross each clamp, the specials, and a length with a tail (not a multiple of 8).
        std::vector<float> x;
        for (float v = -100.f; v <= 100.f; v += 0.0137f)
            x.push_back(v);
        for (float v : {-87.33f, -87.32f, -87.34f, 88.72f, 88.71f, 88.73f, 0.f, -0.f, 1e-30f, -1e-30f,
                        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min()})
            x.push_back(v);
        x.resize(x.size() | 5);   // a tail of 5 after the 8-lane chunks
        std::vector<float> y(x.size()), want(x.size());
        cpu::expRange(x.data(), y.data(), int64_t(x.size()));
        for (size_t i = 0; i < x.size(); ++i)
            want[i] = vec::vexp(x[i]);
        QVERIFY(sameBits(y, want));
    }

    void nonPositiveExpHasTheScalarBits()
    {
        // The 8-lane exp of the shifted scores (x - max <= 0: the softmaxes, the log-sum-exp, the
        // fused loss), with 2^k in one factor and no upper clamp, against vexp bit for bit:
        // [-100, 0] in steps that cross the lower clamp, -0, the smallest magnitudes, -inf, NaN,
        // and the 20,000 floats around each point where k changes (-ln2/2: from -1 to 0; -87.33:
        // the clamp, k = -126).
        std::vector<float> x;
        for (float v = -100.f; v <= 0.f; v += 0.0071f)
            x.push_back(v);
        for (float at : {-0.34657359f, -87.33f, -86.9824f}) {
            float v = at;
            for (int i = 0; i < 10000; ++i)
                v = std::nextafter(v, -INFINITY);
            for (int i = 0; i < 20000; ++i, v = std::nextafter(v, 0.f))
                x.push_back(v);
        }
        for (float v : {-87.33f, -87.32f, -87.34f, -87.3365f, -86.64f, -0.f, 0.f, -1e-30f, -1e-45f,
                        -std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN()})
            x.push_back(v);
        x.resize(x.size() | 3);   // a tail after the 8-lane chunks
        std::vector<float> y(x.size()), want(x.size());
        cpu::expNonPositiveRange(x.data(), y.data(), int64_t(x.size()));
        for (size_t i = 0; i < x.size(); ++i)
            want[i] = vec::vexp(x[i]);
        QVERIFY(sameBits(y, want));
    }

    void causalSoftmaxMaskInRegisters()
    {
        // The causal mask applied in registers (the last block a row sees read whole, its masked
        // lanes -inf): against float64 from the same float max, the masked columns exactly +0,
        // for S with and without room for a whole last block, large scores included.
        for (int64_t S : {5, 16, 40, 128}) {
            const int64_t rows = 3 * S;
            std::vector<float> x = randomVector(size_t(rows * S), uint64_t(S) + 90, 40.f), p(x.size(), -1.f);
            cpu::softmaxRows(x.data(), p.data(), S, 0.125f, true, 0, rows);
            for (int64_t r = 0; r < rows; ++r) {
                const int64_t seen = r % S + 1;
                float m = -INFINITY;
                for (int64_t c = 0; c < seen; ++c)
                    m = std::max(m, x[size_t(r * S + c)] * 0.125f);
                double sum = 0;
                for (int64_t c = 0; c < seen; ++c)
                    sum += std::exp(double(x[size_t(r * S + c)] * 0.125f) - double(m));
                for (int64_t c = 0; c < S; ++c) {
                    const float got = p[size_t(r * S + c)];
                    if (c >= seen) {
                        QVERIFY2(got == 0.f && !std::signbit(got), qPrintable(QStringLiteral("S %1 row %2 col %3").arg(S).arg(r).arg(c)));
                        continue;
                    }
                    const double want = std::exp(double(x[size_t(r * S + c)] * 0.125f) - double(m)) / sum;
                    QVERIFY2(std::fabs(got - want) < 1e-6, qPrintable(QStringLiteral("S %1 row %2 col %3").arg(S).arg(r).arg(c)));
                }
            }
        }
    }

    void gluSigmoidOfExtremeGates()
    {
        // GLU's sigmoid(g) = 1 / (1 + exp(-g)) against float64 for gates far past the exp's
        // clamps (exp(-g) overflowing to inf must give 0, not NaN), both signs, and +-0.
        const std::vector<float> gates = {-200.f, -100.f, -88.8f, -88.7f, -87.4f, -87.3f, -30.f, -1.f, -1e-30f, -0.f,
                                          0.f,    1e-30f, 1.f,    30.f,   87.3f,  87.4f,  88.7f, 88.8f, 100.f, 200.f, 17.f};
        const int64_t C = int64_t(gates.size());
        std::vector<float> h(size_t(2 * C), 0.f), dout(size_t(C), 0.7f), out(size_t(C), 0.f), dh(size_t(2 * C), 0.f);
        for (int64_t c = 0; c < C; ++c) {
            h[size_t(c)] = 1.5f;
            h[size_t(C + c)] = gates[size_t(c)];
        }
        cpu::gluForwardRange(h.data(), out.data(), C, 0, C);
        cpu::gluBackwardRange(h.data(), dout.data(), dh.data(), C, 0, C);
        for (int64_t c = 0; c < C; ++c) {
            const double sg = 1.0 / (1.0 + std::exp(-double(gates[size_t(c)])));
            QVERIFY2(std::fabs(out[size_t(c)] - 1.5 * sg) < 3e-7, qPrintable(QString::number(gates[size_t(c)])));
            QVERIFY2(std::fabs(dh[size_t(c)] - 0.7 * sg) < 2e-7, qPrintable(QString::number(gates[size_t(c)])));
            QVERIFY2(std::fabs(dh[size_t(C + c)] - 0.7 * 1.5 * sg * (1.0 - sg)) < 2e-7, qPrintable(QString::number(gates[size_t(c)])));
        }
    }

    void attentionSoftmaxRowsOfEveryLength()
    {
        // The fused exp-and-sum pass: row lengths with and without a tail of the 16 lanes, the
        // encoder's S = 128 among them, against float64; then 1 and 2 threads, bitwise.
        for (int64_t S : {1, 8, 16, 31, 128, 129}) {
            const int64_t rows = 2 * S + 3;
            std::vector<float> x = randomVector(size_t(rows * S), uint64_t(S) + 40, 10.f);
            for (bool causal : {false, true}) {
                std::vector<float> p[2];
                for (int t = 0; t < 2; ++t) {
                    cpu::setThreads(t + 1);
                    p[t].assign(x.size(), -1.f);
                    onPool(rows, [&](int64_t lo, int64_t hi) { cpu::softmaxRows(x.data(), p[t].data(), S, 0.125f, causal, lo, hi); });
                }
                QVERIFY2(sameBits(p[0], p[1]), qPrintable(QStringLiteral("S %1").arg(S)));
                double worst = 0;
                for (int64_t r = 0; r < rows; ++r) {
                    const int64_t seen = causal ? r % S + 1 : S;
                    double m = -INFINITY, s = 0;
                    for (int64_t c = 0; c < seen; ++c)
                        m = std::max(m, double(x[size_t(r * S + c)]) * 0.125);
                    for (int64_t c = 0; c < seen; ++c)
                        s += std::exp(double(x[size_t(r * S + c)]) * 0.125 - m);
                    for (int64_t c = 0; c < S; ++c) {
                        const double want = c < seen ? std::exp(double(x[size_t(r * S + c)]) * 0.125 - m) / s : 0.0;
                        worst = std::max(worst, std::fabs(p[0][size_t(r * S + c)] - want));
                    }
                }
                QVERIFY2(worst < 1e-6, qPrintable(QStringLiteral("S %1: %2").arg(S).arg(worst)));
            }
        }
    }

    void rowKernelsBitwiseForAnyThreadCount()
    {
        const int64_t rows = 37, n = 10002;
        std::vector<float> x = randomVector(size_t(rows * n), 11, 9.f), dy = randomVector(x.size(), 12);
        std::vector<float> y[2], dx[2];
        for (int t = 0; t < 2; ++t) {
            cpu::setThreads(t + 1);
            QCOMPARE(cpu::threads(), t + 1);
            y[t].resize(x.size());
            dx[t].resize(x.size());
            onPool(rows, [&](int64_t lo, int64_t hi) { cpu::logSoftmaxForwardRows(x.data(), y[t].data(), n, n, n, lo, hi); });
            onPool(rows, [&](int64_t lo, int64_t hi) {
                cpu::logSoftmaxBackwardRows(y[t].data(), dy.data(), dx[t].data(), n, n, lo, hi);
            });
        }
        QVERIFY(sameBits(y[0], y[1]));
        QVERIFY(sameBits(dx[0], dx[1]));
        // The fused loss and gradient, and the squared norm's fixed blocks (reduceAdd's split).
        std::vector<int32_t> target(static_cast<size_t>(rows));
        for (int64_t r = 0; r < rows; ++r)
            target[size_t(r)] = int32_t((r * 977) % n);
        std::vector<float> g[2], loss[2];
        for (int t = 0; t < 2; ++t) {
            cpu::setThreads(t + 1);
            g[t] = x;
            loss[t].assign(size_t(rows), 0.f);
            onPool(rows, [&](int64_t lo, int64_t hi) {
                cpu::fusedLogSoftmaxLossRows(g[t].data(), n, n, target.data(), 0.5f, loss[t].data(), nullptr, lo, hi);
            });
        }
        QVERIFY(sameBits(g[0], g[1]));
        QVERIFY(sameBits(loss[0], loss[1]));
    }

    void gradNormSqOneLaunchOfManyTensors()
    {
        // 20 tensors, with lengths inside and across reduceAdd's 16,384-float blocks: one launch
        // per 16 of them, the float64 sum to float rounding, the same bits on 1 and 2 threads,
        // and the functor's own (CUDA) loop over the joined index space close to it.
        const int64_t lengths[] = {1, 7, 16384, 16385, 100000, 3, 256, 65536, 33, 1,
                                   40000, 16383, 2, 5000, 70000, 17, 9, 32768, 1000, 4};
        std::vector<std::vector<float>> data;
        std::vector<std::pair<const float*, int64_t>> tensors;
        double ref = 0;
        for (size_t i = 0; i < std::size(lengths); ++i) {
            data.push_back(randomVector(size_t(lengths[i]), 40 + unsigned(i), 2.f));
            for (float v : data.back())
                ref += double(v) * double(v);
        }
        for (size_t i = 0; i < data.size(); ++i)
            tensors.emplace_back(data[i].data(), lengths[i]);
        float sums[3] = {};
        for (int run = 0; run < 3; ++run) {
            cpu::setThreads(run == 1 ? 2 : 1);
            cpu::setVectorized(run < 2);
            Runtime rt(makeCpuBackend());
            LaunchNames obs;
            rt.setObserver(&obs);
            float normSq = 0.5f;   // added to
            op::gradNormSq(rt, tensors, &normSq);
            QCOMPARE(obs.names, std::vector<std::string>({"grad_norm_sq", "grad_norm_sq"}));
            sums[run] = normSq - 0.5f;
        }
        cpu::setVectorized(true);
        QVERIFY2(std::fabs(sums[0] - ref) <= 1e-6 * ref, qPrintable(QStringLiteral("%1 vs %2").arg(sums[0]).arg(ref)));
        QCOMPARE(std::memcmp(&sums[0], &sums[1], 4), 0);
        QVERIFY2(std::fabs(sums[2] - ref) <= 1e-6 * ref, qPrintable(QStringLiteral("%1 vs %2").arg(sums[2]).arg(ref)));
    }

    void fusedLossRowPairsHaveTheSingleRowBits()
    {
        // Rows of one block run two at a time; one row per call takes the single-row loop: the
        // same bits, loss slots included (two rows share slot 0), with a row of -inf logits.
        for (int64_t n : {int64_t(1), int64_t(7), int64_t(128), int64_t(512)}) {
            const int64_t rows = 9;
            std::vector<float> x = randomVector(size_t(rows * n), 70 + unsigned(n), 8.f);
            for (int64_t c = 0; c < n; ++c)
                x[size_t(4 * n + c)] = -std::numeric_limits<float>::infinity();
            std::vector<int32_t> target(static_cast<size_t>(rows)), lossRow(static_cast<size_t>(rows));
            for (int64_t r = 0; r < rows; ++r) {
                target[size_t(r)] = int32_t((r * 5) % n);
                lossRow[size_t(r)] = int32_t(r < 2 ? 0 : r);
            }
            std::vector<float> g[2] = {x, x}, loss[2] = {std::vector<float>(size_t(rows)), std::vector<float>(size_t(rows))};
            cpu::fusedLogSoftmaxLossRows(g[0].data(), n, n, target.data(), 0.25f, loss[0].data(), lossRow.data(), 0, rows);
            for (int64_t r = 0; r < rows; ++r)
                cpu::fusedLogSoftmaxLossRows(g[1].data(), n, n, target.data(), 0.25f, loss[1].data(), lossRow.data(), r, r + 1);
            QVERIFY2(std::memcmp(g[0].data(), g[1].data(), g[0].size() * 4) == 0, qPrintable(QString::number(n)));
            QVERIFY2(std::memcmp(loss[0].data(), loss[1].data(), loss[0].size() * 4) == 0, qPrintable(QString::number(n)));
        }
    }

    void logSoftmaxBackwardNextRowSumBits()
    {
        // The next row's sum of dy is taken between this row's steps: the same bits as one row
        // per call, in place (dx = dy) too, at lengths inside and across the steps.
        for (int64_t n : kLengths) {
            const int64_t rows = 5;
            std::vector<float> x = randomVector(size_t(rows * n), 80 + unsigned(n), 6.f), y(x.size());
            onPool(rows, [&](int64_t lo, int64_t hi) { cpu::logSoftmaxForwardRows(x.data(), y.data(), n, n, n, lo, hi); });
            const std::vector<float> dy = randomVector(x.size(), 81 + unsigned(n));
            std::vector<float> whole = dy, single = dy;
            cpu::logSoftmaxBackwardRows(y.data(), whole.data(), whole.data(), n, n, 0, rows);
            for (int64_t r = 0; r < rows; ++r)
                cpu::logSoftmaxBackwardRows(y.data(), single.data(), single.data(), n, n, r, r + 1);
            QVERIFY2(sameBits(whole, single), qPrintable(QString::number(n)));
        }
    }

    void gluLanesHaveTheScalarBits()
    {
        // GLU's 8-lane sigmoid (the bounded exp) against its scalar twin at every position (one
        // element per call takes the scalar loop) and against 1 / (1 + vexp(-g)), the functors'
        // exp, bit for bit for gates within +-87.33.
        const int64_t T = 3, C = 37;
        std::vector<float> h = randomVector(size_t(2 * T * C), 90, 40.f), dout = randomVector(size_t(T * C), 91);
        std::vector<float> out[2] = {std::vector<float>(size_t(T * C)), std::vector<float>(size_t(T * C))};
        std::vector<float> dh[2] = {std::vector<float>(h.size()), std::vector<float>(h.size())};
        cpu::gluForwardRange(h.data(), out[0].data(), C, 0, T * C);
        cpu::gluBackwardRange(h.data(), dout.data(), dh[0].data(), C, 0, T * C);
        for (int64_t i = 0; i < T * C; ++i) {
            cpu::gluForwardRange(h.data(), out[1].data(), C, i, i + 1);
            cpu::gluBackwardRange(h.data(), dout.data(), dh[1].data(), C, i, i + 1);
        }
        QVERIFY(sameBits(out[0], out[1]));
        QVERIFY(sameBits(dh[0], dh[1]));
        for (int64_t i = 0; i < T * C; ++i) {
            const int64_t r = i / C, c = i % C;
            const float a = h[size_t(r * 2 * C + c)], gate = h[size_t(r * 2 * C + C + c)];
            const float ref = a * (1.f / (1.f + vec::vexp(-gate)));
            QCOMPARE(std::memcmp(&ref, &out[0][size_t(i)], 4), 0);
        }
    }

    void trainingStepBitwiseForAnyThreadCount()
    {
        // gcn with sizes large enough that most launches split into chunks (512 tokens x 64:
        // 32,768 elements per activation, rows of up to 4,064 tail logits).
        const std::vector<std::pair<std::string, std::string>> sizes = {
            {"vocab", "4096"}, {"hidden", "64"}, {"batch", "8"}, {"seq", "64"}};
        // transformer and bert: their attention products (8 heads of 64 x 64 x 8) run as one
        // single-threaded sgemm per head, split over the pool on 2 threads (cpubackend.cpp).
        const std::vector<std::pair<std::string, std::string>> attention = {
            {"hidden", "64"}, {"heads", "8"}, {"batch", "2"}, {"seq", "64"}};
        const std::pair<const char*, const char*> runs[] = {
            {"gcn", "adaptive"}, {"gcn", "full"}, {"gcn", "fused"}, {"transformer", "adaptive"}, {"bert", "adaptive"}};
        for (const auto& [workload, variant] : runs) {
            std::vector<float> losses[2], weights[2];
            for (int t = 0; t < 2; ++t) {
                cpu::setThreads(t + 1);
                auto m = Model::create(workload, "tiny", variant, std::string(workload) == "gcn" ? sizes : attention);
                for (int s = 0; s < 3; ++s)
                    losses[t].push_back(m->step());
                for (Layer* layer : m->layers())
                    for (Param* p : layer->params()) {
                        std::vector<float> w = wt::test::getParam(m->runtime(), *p);
                        weights[t].insert(weights[t].end(), w.begin(), w.end());
                    }
            }
            QVERIFY2(sameBits(losses[0], losses[1]), variant);
            QVERIFY2(sameBits(weights[0], weights[1]), variant);
            QVERIFY(std::isfinite(losses[0].back()));
        }
    }

    void vectorizedStepCloseToPlainLoops()
    {
        // The same steps with the functors' own loops: the losses agree to float rounding.
        std::vector<float> losses[2];
        for (int v = 0; v < 2; ++v) {
            cpu::setVectorized(v == 1);
            auto m = Model::create("transformer", "tiny", "adaptive", {});
            for (int s = 0; s < 5; ++s)
                losses[v].push_back(m->step());
        }
        cpu::setVectorized(true);
        for (size_t s = 0; s < losses[0].size(); ++s)
            QVERIFY2(std::fabs(losses[0][s] - losses[1][s]) < 1e-4f * std::fabs(losses[0][s]),
                     qPrintable(QStringLiteral("step %1: %2 vs %3").arg(s).arg(losses[0][s]).arg(losses[1][s])));
    }
};

QTEST_APPLESS_MAIN(TestCpuRows)
#include "tst_cpurows.moc"
