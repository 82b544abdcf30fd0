// The BERT-family workloads (bert, groupbert, block-sparse bert): finite-difference gradients
// of the encoder layer (conv module, grouped FFN, block-sparse FFN; post- and pre-norm), float64
// references of the new ops (block-sparse products on the BLAS path and as the CUDA functors,
// grouped convolution, bidirectional attention softmax, position embedding), the sparse
// pattern through prune / regrow, training, op listing one to one, and GroupBERT's FLOPs.
#include "kernels/bert.h"
#include "kernels/bertops.h"
#include "kernels/launch.h"
#include "kernels/model.h"
#include "kernels/opsmath.h"
#include "kernelstest.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

using namespace wt::kernels;
using wt::test::randomVector;
using wt::test::relError;

namespace {

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

void expectClose(const std::vector<float>& analytic, const std::vector<double>& numeric, size_t stride,
                 const std::string& what, double tol = 2e-2)
{
    std::vector<double> a, n;
    for (size_t i = 0; i < analytic.size(); i += stride) {
        a.push_back(analytic[i]);
        n.push_back(numeric[i]);
    }
    double e = relError(a, n);
    if (!(e < tol))
        QFAIL(qPrintable(QStringLiteral("%1: relative error %2").arg(QString::fromStdString(what)).arg(e)));
}

double dot(const float* a, const std::vector<float>& b)
{
    double s = 0;
    for (size_t i = 0; i < b.size(); ++i)
        s += double(a[i]) * double(b[i]);
    return s;
}

// L = sum(block(x) * R): gradients of x and of every parameter against central differences.
void checkBlock(Runtime& rt, Block& block, const StepShape& s, int64_t d)
{
    block.allocate(rt, 7);
    const size_t n = size_t(s.tokens() * d);
    std::vector<float> x = randomVector(n, 1), R = randomVector(n, 2);
    for (Param* p : block.params()) {   // break zero biases and unit norms
        auto v = randomVector(size_t(p->numel()), std::hash<std::string>{}(p->name), 0.3f);
        for (size_t i = 0; i < v.size(); ++i)
            p->w.f()[i] += v[i];
    }
    auto loss = [&] { return dot(block.forward(rt, x.data(), s), R); };
    loss();
    const float* dx = block.backward(rt, R.data(), s);
    std::vector<float> gx(dx, dx + n);
    std::vector<std::vector<float>> gp;
    for (Param* p : block.params())
        gp.emplace_back(p->g.f(), p->g.f() + p->numel());
    size_t stride = n > 200 ? 3 : 1;
    expectClose(gx, numericGrad(x, loss, stride), stride, block.name() + " input");
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
        expectClose(gp[k++], num, st, p->name);
    }
}

// A parameter holder for BlockSparseWeight tests.
struct SparseFixture {
    Runtime rt{makeCpuBackend()};
    BlockSparseWeight w;
    Param values;
    SparseFixture(int64_t out, int64_t in, int64_t B, double density, double frac = 0.25)
        : w(out, in, B, density, frac)
    {
        w.allocate(rt, 11);
        values.shape = {out, w.blocksPerRow() * B};
        rt.ensure(values.w, size_t(values.numel()) * 4);
        rt.ensure(values.g, size_t(values.numel()) * 4);
        rt.ensure(values.v, size_t(values.numel()) * 4);
        auto v = randomVector(size_t(values.numel()), 3);
        std::copy(v.begin(), v.end(), values.w.f());
        auto m = randomVector(size_t(values.numel()), 4);
        std::copy(m.begin(), m.end(), values.v.f());
    }
};

double flopsOf(const std::vector<OpInfo>& ops, const std::function<bool(const OpInfo&)>& pick)
{
    double f = 0;
    for (const auto& o : ops)
        if (pick(o))
            f += o.flops;
    return f;
}

double mean(const std::vector<float>& v, size_t from, size_t to)
{
    double s = 0;
    for (size_t i = from; i < to; ++i)
        s += v[i];
    return s / double(to - from);
}

}  // namespace

class TestBert : public QObject {
    Q_OBJECT
private slots:
    void encoderGradients_data()
    {
        QTest::addColumn<bool>("pre");
        QTest::addColumn<bool>("groupbert");
        QTest::addColumn<double>("density");
        QTest::addColumn<int>("block");
        QTest::newRow("sparse attention + ffn B=2") << true << false << 0.5 << 2;
        QTest::newRow("bert post-norm") << false << false << 1.0 << 1;
        QTest::newRow("bert pre-norm") << true << false << 1.0 << 1;
        QTest::newRow("block-sparse ffn B=2") << false << false << 0.5 << 2;
        QTest::newRow("unstructured sparse ffn") << true << false << 0.4 << 1;
        QTest::newRow("groupbert conv module + grouped ffn (pre)") << true << true << 1.0 << 1;
        QTest::newRow("groupbert post-norm") << false << true << 1.0 << 1;
    }
    void encoderGradients()
    {
        QFETCH(bool, pre);
        QFETCH(bool, groupbert);
        QFETCH(double, density);
        QFETCH(int, block);
        const bool sparseAttention = QTest::currentDataTag() == QLatin1String("sparse attention + ffn B=2");
        Runtime rt(makeCpuBackend());
        EncoderOptions o;
        o.sparseAttention = sparseAttention;
        o.preNorm = pre;
        o.groupbert = groupbert;
        o.groups = groupbert ? 2 : 1;
        o.convKernel = 3;
        o.convGroups = groupbert ? 4 : 0;   // grouped conv, 2 channels per group
        o.density = density;
        o.block = block;
        EncoderLayer l("encoder.0", 8, 2, 16, o);
        QCOMPARE(l.sparse(), density < 1);
        checkBlock(rt, l, {2, 5}, 8);
    }
    void depthwiseConvGradients()
    {
        Runtime rt(makeCpuBackend());
        EncoderOptions o;
        o.preNorm = true;
        o.groupbert = true;
        o.groups = 4;
        o.convKernel = 5;
        EncoderLayer l("encoder.0", 8, 2, 16, o);
        checkBlock(rt, l, {2, 6}, 8);
    }
    void mlmHeadGradients()
    {
        Runtime rt(makeCpuBackend());
        Buffer pos;
        wt::test::putInts(rt, pos, {1, 4, 6});
        MlmHead h(6, 3, &pos);
        h.allocate(rt, 5);
        const StepShape s{2, 4};
        std::vector<float> x = randomVector(48, 1), R = randomVector(18, 2);
        auto loss = [&] { return dot(h.forward(rt, x.data(), s), R); };
        loss();
        const float* dx = h.backward(rt, R.data(), s);
        std::vector<float> gx(dx, dx + 48);
        QCOMPARE(gx[0], 0.f);   // unmasked rows get no gradient
        expectClose(gx, numericGrad(x, loss, 1), 1, "mlm_head input");
    }
    // The block-sparse products against dense float64 products of the same weight: the CPU path
    // (OpenBLAS per block row) and the functors the CUDA kernels run.
    void blockSparseReference_data()
    {
        QTest::addColumn<int>("B");
        QTest::addColumn<double>("density");
        QTest::newRow("B=4 d=0.5") << 4 << 0.5;
        QTest::newRow("B=1 d=0.25") << 1 << 0.25;
        QTest::newRow("B=8 d=0.25") << 8 << 0.25;
        QTest::newRow("B=4 d=1") << 4 << 1.0;
    }
    void blockSparseReference()
    {
        QFETCH(int, B);
        QFETCH(double, density);
        const int64_t out = 32, in = 48, T = 7;
        SparseFixture f(out, in, B, density);
        const int64_t K = f.w.blocksPerRow();
        QCOMPARE(K, std::max<int64_t>(1, std::llround(density * double(in / B))));
        auto W = f.w.dense(f.values.w.f());
        int64_t nz = std::count_if(W.begin(), W.end(), [](float v) { return v != 0.f; });
        QCOMPARE(nz, out * K * B);   // random values: every kept entry is nonzero
        auto x = randomVector(size_t(T * in), 5), dy = randomVector(size_t(T * out), 6);
        std::vector<double> y(size_t(T * out)), dx(size_t(T * in)), dW(size_t(out * in));
        for (int64_t t = 0; t < T; ++t)
            for (int64_t o = 0; o < out; ++o)
                for (int64_t c = 0; c < in; ++c) {
                    y[size_t(t * out + o)] += double(x[size_t(t * in + c)]) * W[size_t(o * in + c)];
                    dx[size_t(t * in + c)] += double(dy[size_t(t * out + o)]) * W[size_t(o * in + c)];
                    dW[size_t(o * in + c)] += double(dy[size_t(t * out + o)]) * x[size_t(t * in + c)];
                }
        std::vector<double> dWsparse;   // the reference gradient on the pattern
        {
            std::vector<float> ones(size_t(f.values.numel()), 1.f);
            auto mask = f.w.dense(ones.data());
            for (size_t i = 0; i < mask.size(); ++i)
                dWsparse.push_back(mask[i] != 0.f ? dW[i] : 0.0);
        }
        // BLAS path
        std::vector<float> yb(size_t(T * out)), dxb(size_t(T * in));
        f.w.forward(f.rt, x.data(), T, f.values, yb.data());
        f.w.backward(f.rt, x.data(), dy.data(), T, f.values, dxb.data());
        QVERIFY(relError(yb, y) < 1e-5);
        QVERIFY(relError(dxb, dx) < 1e-5);
        QVERIFY(relError(f.w.dense(f.values.g.f()), dWsparse) < 1e-5);
        // functors (what CUDA runs)
        const int32_t* col = f.w.deviceIndex();
        const int32_t* colStart = col + (out / B) * K;
        const int32_t* colSlot = colStart + in / B + 1;
        std::vector<float> yf(size_t(T * out)), dxf(size_t(T * in)), dvf(size_t(f.values.numel()));
        fn::BsrForward fw{x.data(), f.values.w.f(), col, yf.data(), in, out, B, K};
        fn::BsrBackwardData bd{dy.data(), f.values.w.f(), colStart, colSlot, dxf.data(), in, out, B, K};
        fn::BsrBackwardWeight bw{dy.data(), x.data(), col, dvf.data(), T, in, out, B, K};
        for (int64_t i = 0; i < T * out; ++i)
            fw(i);
        for (int64_t i = 0; i < T * in; ++i)
            bd(i);
        for (int64_t i = 0; i < f.values.numel(); ++i)
            bw(i);
        QVERIFY(relError(yf, y) < 1e-5);
        QVERIFY(relError(dxf, dx) < 1e-5);
        QVERIFY(relError(f.w.dense(dvf.data()), dWsparse) < 1e-5);
    }
    void groupedConvReference()
    {
        const int64_t Bt = 2, S = 5, C = 6, K = 3, Cg = 2, T = Bt * S, P = 1;
        auto x = randomVector(size_t(T * C), 1), w = randomVector(size_t(C * K * Cg), 2), b = randomVector(size_t(C), 3);
        auto dy = randomVector(size_t(T * C), 4);
        std::vector<double> y(size_t(T * C)), dx(size_t(T * C)), dw(size_t(C * K * Cg));
        for (int64_t t = 0; t < T; ++t)
            for (int64_t c = 0; c < C; ++c) {
                y[size_t(t * C + c)] = b[size_t(c)];
                for (int64_t k = 0; k < K; ++k)
                    for (int64_t i = 0; i < Cg; ++i) {
                        int64_t s = t % S + k - P;
                        if (s < 0 || s >= S)
                            continue;
                        int64_t src = (t / S) * S + s, ci = (c / Cg) * Cg + i;
                        double wv = w[size_t((c * K + k) * Cg + i)];
                        y[size_t(t * C + c)] += wv * x[size_t(src * C + ci)];
                        dx[size_t(src * C + ci)] += wv * dy[size_t(t * C + c)];
                        dw[size_t((c * K + k) * Cg + i)] += double(dy[size_t(t * C + c)]) * x[size_t(src * C + ci)];
                    }
            }
        std::vector<float> yf(y.size()), dxf(dx.size()), dwf(dw.size());
        fn::GroupConvForward f{x.data(), w.data(), b.data(), yf.data(), S, C, K, Cg};
        fn::GroupConvBackwardData bd{dy.data(), w.data(), dxf.data(), S, C, K, Cg};
        fn::GroupConvBackwardWeight bw{dy.data(), x.data(), dwf.data(), T, S, C, K, Cg};
        for (int64_t i = 0; i < T * C; ++i) {
            f(i);
            bd(i);
        }
        for (int64_t i = 0; i < C * K * Cg; ++i)
            bw(i);
        QVERIFY(relError(yf, y) < 1e-6);
        QVERIFY(relError(dxf, dx) < 1e-6);
        QVERIFY(relError(dwf, dw) < 1e-6);
    }
    void attentionSoftmaxAndPositionsReference()
    {
        const int64_t rows = 6, S = 5;
        auto x = randomVector(size_t(rows * S), 1, 3.f);
        std::vector<float> p(x.size());
        Runtime rt(makeCpuBackend());
        rowOp(rt, OpLaunch{"t", 0, 0}, {}, rows, fn::AttnSoftmaxForward{x.data(), p.data(), S, 0.5f});
        std::vector<double> ref(x.size());
        for (int64_t r = 0; r < rows; ++r) {
            double z = 0;
            for (int64_t c = 0; c < S; ++c)
                z += std::exp(0.5 * x[size_t(r * S + c)]);
            for (int64_t c = 0; c < S; ++c)
                ref[size_t(r * S + c)] = std::exp(0.5 * x[size_t(r * S + c)]) / z;   // every key, none masked
        }
        QVERIFY(relError(p, ref) < 1e-6);
        // position embedding and its gradient (a sum over the batch)
        const int64_t d = 3, Bt = 2, T = Bt * S;
        std::vector<int32_t> tok{0, 1, 2, 3, 0, 1, 1, 3, 2, 0};
        auto table = randomVector(12, 2), pos = randomVector(size_t(S * d), 3), dOut = randomVector(size_t(T * d), 4);
        std::vector<float> out(size_t(T * d)), dpos(size_t(S * d));
        std::vector<double> outRef(out.size()), dposRef(dpos.size());
        for (int64_t t = 0; t < T; ++t)
            for (int64_t c = 0; c < d; ++c) {
                outRef[size_t(t * d + c)] = double(table[size_t(tok[size_t(t)] * d + c)]) + pos[size_t((t % S) * d + c)];
                dposRef[size_t((t % S) * d + c)] += dOut[size_t(t * d + c)];
            }
        fn::EmbedPosForward ef{tok.data(), table.data(), pos.data(), out.data(), d, S};
        fn::PosGrad pg{dOut.data(), dpos.data(), d, S, Bt};
        for (int64_t i = 0; i < T * d; ++i)
            ef(i);
        for (int64_t i = 0; i < S * d; ++i)
            pg(i);
        QVERIFY(relError(out, outRef) < 1e-7);
        QVERIFY(relError(dpos, dposRef) < 1e-6);
    }
    // Prune + regrow: each block row keeps K distinct blocks (density), the removed ones are
    // the row's smallest, and the regrown ones start at zero (values and momentum): a pruned
    // block never returns with its old values.
    void pruneRegrowKeepsDensity()
    {
        SparseFixture f(24, 48, 4, 0.5, 0.34);
        const int64_t K = f.w.blocksPerRow(), nbr = 6, B = 4, KB = K * B;
        QCOMPARE(K, int64_t(6));
        QCOMPARE(f.w.prunedPerRow(), int64_t(2));
        auto blockNorm = [&](const float* v, int64_t rb, int64_t k) {
            double s = 0;
            for (int64_t r = 0; r < B; ++r)
                for (int64_t j = 0; j < B; ++j)
                    s += std::fabs(v[(rb * B + r) * KB + k * B + j]);
            return s;
        };
        std::map<std::pair<int64_t, int32_t>, std::vector<float>> removed;   // (row, column) -> values when pruned
        for (int round = 0; round < 6; ++round) {
            auto colBefore = f.w.columns();
            std::vector<float> vBefore(f.values.w.f(), f.values.w.f() + f.values.numel());
            f.w.pruneRegrow(f.rt, f.values);
            const auto& col = f.w.columns();
            for (int64_t rb = 0; rb < nbr; ++rb) {
                std::set<int32_t> distinct(col.begin() + rb * K, col.begin() + (rb + 1) * K);
                QCOMPARE(int64_t(distinct.size()), K);   // density kept, no duplicate block
                int changed = 0;
                double maxPruned = 0, minKept = 1e30;
                for (int64_t k = 0; k < K; ++k) {
                    const size_t s = size_t(rb * K + k);
                    if (col[s] != colBefore[s]) {
                        ++changed;
                        maxPruned = std::max(maxPruned, blockNorm(vBefore.data(), rb, k));
                        std::vector<float> old;
                        for (int64_t r = 0; r < B; ++r)
                            for (int64_t j = 0; j < B; ++j) {
                                old.push_back(vBefore[size_t((rb * B + r) * KB + k * B + j)]);
                                QCOMPARE(f.values.w.f()[(rb * B + r) * KB + k * B + j], 0.f);
                                QCOMPARE(f.values.v.f()[(rb * B + r) * KB + k * B + j], 0.f);
                            }
                        removed[{rb, colBefore[s]}] = old;
                        QVERIFY(!distinct.count(colBefore[s]));   // the pruned column did not come back
                    } else {
                        minKept = std::min(minKept, blockNorm(vBefore.data(), rb, k));
                    }
                }
                QCOMPARE(changed, 2);
                QVERIFY(maxPruned <= minKept);
                // A block that returns to a (row, column) it was pruned from holds zeros, not its old values.
                for (int64_t k = 0; k < K; ++k) {
                    auto it = removed.find({rb, col[size_t(rb * K + k)]});
                    if (it == removed.end())
                        continue;
                    for (int64_t r = 0; r < B; ++r)
                        for (int64_t j = 0; j < B; ++j)
                            QVERIFY(f.values.w.f()[(rb * B + r) * KB + k * B + j] != it->second[size_t(r * B + j)] ||
                                    it->second[size_t(r * B + j)] == 0.f);
                }
            }
            // the next round: training moves the values (new random values on the pattern)
            auto v = randomVector(size_t(f.values.numel()), 100 + uint64_t(round));
            std::copy(v.begin(), v.end(), f.values.w.f());
            // the index the functors read matches the host pattern
            QVERIFY(std::equal(col.begin(), col.end(), f.w.deviceIndex()));
        }
        // the sparse forward after regrowth agrees with the dense product of the new pattern
        auto x = randomVector(size_t(3 * 48), 9);
        std::vector<float> y(size_t(3 * 24));
        f.w.forward(f.rt, x.data(), 3, f.values, y.data());
        auto W = f.w.dense(f.values.w.f());
        std::vector<double> ref(y.size());
        for (int64_t t = 0; t < 3; ++t)
            for (int64_t o = 0; o < 24; ++o)
                for (int64_t c = 0; c < 48; ++c)
                    ref[size_t(t * 24 + o)] += double(x[size_t(t * 48 + c)]) * W[size_t(o * 48 + c)];
        QVERIFY(relError(y, ref) < 1e-5);
    }
    void configs()
    {
        using Ov = std::vector<std::pair<std::string, std::string>>;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("bert", "tiny", "full", Ov{{"density", "1.5"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 resolveConfig("bert", "tiny", "full", Ov{{"density", "0.5"}, {"block", "3"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("bert", "tiny", "full", Ov{{"norm", "mid"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("bert", "tiny", "full", Ov{{"groups", "2"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("groupbert", "tiny", "full", Ov{{"groups", "3"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("groupbert", "tiny", "full", Ov{{"kernel", "4"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveConfig("groupbert", "tiny", "full", Ov{{"density", "0.5"}}));
        auto c = resolveConfig("bert", "paper", "full", {});
        QCOMPARE(c.hidden, int64_t(768));
        QCOMPARE(c.layers, int64_t(12));
        QCOMPARE(c.vocab, int64_t(30522));
        QCOMPARE(c.maskedPerSeq(), int64_t(19));   // 15% of 128
        QVERIFY(!c.preNorm);
        QVERIFY(resolveConfig("groupbert", "paper", "full", {}).preNorm);
        auto m = Model::create("bert", "tiny", "full", {{"density", "0.25"}, {"block", "4"}, {"norm", "pre"}});
        QVERIFY(m->configJson().find("\"density\":0.25,\"block\":4") != std::string::npos);
        QVERIFY(m->configJson().find("\"norm\":\"pre\"") != std::string::npos);
    }
    // The op listing is the next step's launches one to one (prune steps included), and a step
    // after prepare() allocates nothing.
    void listingMatchesLaunches_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QStringList>("sets");
        QTest::newRow("bert full") << "bert" << "full" << QStringList{};
        QTest::newRow("bert adaptive pre-norm") << "bert" << "adaptive" << QStringList{"norm=pre"};
        QTest::newRow("sparse bert prune every 2")
            << "bert" << "fused" << QStringList{"density=0.5", "block=4", "prune_every=2"};
        QTest::newRow("sparse attention prune every 2")
            << "bert" << "full" << QStringList{"density=0.5", "block=4", "prune_every=2", "sparse_attention=1"};
        QTest::newRow("groupbert full") << "groupbert" << "full" << QStringList{};
        QTest::newRow("groupbert bucketed post-norm") << "groupbert" << "bucketed" << QStringList{"norm=post"};
    }
    void listingMatchesLaunches()
    {
        QFETCH(QString, workload);
        QFETCH(QString, variant);
        QFETCH(QStringList, sets);
        std::vector<std::pair<std::string, std::string>> ov;
        for (const auto& s : sets)
            ov.push_back(parseOverride(s.toStdString()));
        auto m = Model::create(workload.toStdString(), "tiny", variant.toStdString(), ov);
        struct Rec final : Observer {
            std::vector<std::string> path;
            std::vector<std::pair<std::string, std::string>> launches;
            std::set<std::string> scopes;
            void scopeEnter(std::string_view n, ScopeLevel) override
            {
                path.emplace_back(n);
                std::string s;
                for (size_t i = 0; i < path.size(); ++i)
                    s += (i ? "/" : "") + path[i];
                scopes.insert(s);
            }
            void scopeExit() override { path.pop_back(); }
            void launchBegin(const OpLaunch& op) override
            {
                std::string s;
                for (size_t i = 0; i < path.size(); ++i)
                    s += (i ? "/" : "") + path[i];
                launches.emplace_back(s, std::string(op.name));
            }
            void launchEnd() override {}
        } obs;
        m->setObserver(&obs);
        int64_t allocations = -1;
        int prunes = 0;
        for (int i = 0; i < 4; ++i) {
            auto ops = m->listOps();
            QCOMPARE(m->runtime().allocations(), allocations < 0 ? 0 : allocations);
            m->prepare();
            allocations = m->runtime().allocations();
            obs.launches.clear();
            QVERIFY(std::isfinite(m->step()));
            QCOMPARE(m->runtime().allocations(), allocations);
            QCOMPARE(obs.launches.size(), ops.size());
            for (size_t k = 0; k < ops.size(); ++k) {
                QCOMPARE(obs.launches[k].second, ops[k].name);
                QCOMPARE(obs.launches[k].first, ops[k].scope);
            }
            prunes += int(std::count_if(ops.begin(), ops.end(), [](const OpInfo& o) {
                return o.scope == "step/update/encoder.1/prune_regrow" && o.name == "block_magnitude";
            }));
        }
        const bool group = workload == QLatin1String("groupbert");
        for (auto s : {"step/forward/embedding/lookup", "step/forward/encoder.1/attention", "step/forward/mlm_head/transform",
                       "step/forward/softmax", "step/backward/mlm_head/gather_masked"})
            QVERIFY2(obs.scopes.count(s), s);
        QVERIFY(obs.scopes.count(group ? "step/forward/encoder.0/conv_module" : "step/forward/encoder.0/ffn"));
        if (group)
            QVERIFY(obs.scopes.count("step/forward/encoder.0/grouped_ffn"));
        const int weights = sets.contains(QLatin1String("sparse_attention=1")) ? 4 : 2;   // sparse weights per layer
        QCOMPARE(prunes, sets.contains(QLatin1String("prune_every=2")) ? weights * 2 : 0);   // after steps 2 and 4
    }
    // 50 tiny steps lower the MLM loss of every workload (Zipf tokens: towards the unigram entropy).
    void trainingLowersMlmLoss_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QStringList>("sets");
        QTest::newRow("bert") << "bert" << QStringList{};
        QTest::newRow("bert pre-norm") << "bert" << QStringList{"norm=pre"};
        QTest::newRow("sparse bert") << "bert" << QStringList{"density=0.5", "block=4", "prune_every=10"};
        QTest::newRow("groupbert") << "groupbert" << QStringList{};
    }
    void trainingLowersMlmLoss()
    {
        QFETCH(QString, workload);
        QFETCH(QStringList, sets);
        std::vector<std::pair<std::string, std::string>> ov{{"batch", "16"}};
        for (const auto& s : sets)
            ov.push_back(parseOverride(s.toStdString()));
        auto m = Model::create(workload.toStdString(), "tiny", "full", ov);
        std::vector<float> losses;
        for (int i = 0; i < 50; ++i) {
            losses.push_back(m->step());
            QVERIFY(std::isfinite(losses.back()));
        }
        const double first = mean(losses, 0, 5), last = mean(losses, 40, 50), floor = m->unigramEntropy();
        qInfo("%s: loss %.3f -> %.3f (unigram entropy %.3f)", qPrintable(workload), first, last, floor);
        QVERIFY2(last < first - 0.5 * (first - floor),
                 qPrintable(QStringLiteral("loss %1 -> %2, floor %3").arg(first).arg(last).arg(floor)));
    }
    // GroupBERT at BERT's width and depth: its encoder matmul FLOPs per step are BERT's times
    // the ratio of the per-layer formulas (docs/workloads.md), and the whole step costs less.
    void groupbertFlopsBelowBert()
    {
        auto bert = Model::create("bert", "paper", "full", {});
        auto group = Model::create("groupbert", "paper", "full", {});
        const ModelConfig& c = group->config();
        const double T = double(c.batch * c.seq), d = double(c.hidden), f = double(c.ffn), S = double(c.seq);
        const double G = double(c.groups), K = double(c.kernel), Cg = c.convGroups ? d / double(c.convGroups) : 1.0;
        QCOMPARE(bert->config().hidden, c.hidden);
        QCOMPARE(bert->config().layers, c.layers);
        const double attention = 2 * T * 4 * d * d + 4 * T * S * d;
        const double bertLayer = attention + 2 * T * 2 * d * f;
        const double groupLayer = attention + 2 * T * 2 * d * f / G + 2 * T * 3 * d * d + 2 * T * d * K * Cg;
        auto matmuls = [](const OpInfo& o) {
            return o.scope.find("/encoder.") != std::string::npos &&
                   (o.kind == LaunchKind::Gemm || o.name == "grouped_conv_forward" || o.name == "grouped_conv_backward_data" ||
                    o.name == "grouped_conv_backward_weight");
        };
        auto bo = bert->listOps(), go = group->listOps();
        auto fwd = [&](const OpInfo& o) { return matmuls(o) && o.scope.rfind("step/forward/", 0) == 0; };
        const double bf = flopsOf(bo, fwd), gf = flopsOf(go, fwd);
        auto near = [](double a, double b) { return std::fabs(a / b - 1) < 1e-12; };
        QVERIFY(near(bf, double(c.layers) * bertLayer));
        QVERIFY(near(gf, double(c.layers) * groupLayer));
        // backward: two products per forward one (dx and dW)
        QVERIFY(near(flopsOf(go, matmuls), 3 * gf));
        QVERIFY(near(flopsOf(bo, matmuls), 3 * bf));
        const double ratio = groupLayer / bertLayer;
        qInfo("groupbert / bert encoder matmul FLOPs: %.4f (G=%g)", gf / bf, G);
        QVERIFY(ratio < 0.8);
        QVERIFY(std::fabs(gf / bf - ratio) < 1e-12);
        auto all = [](const OpInfo&) { return true; };
        QVERIFY(flopsOf(go, all) < flopsOf(bo, all));
    }
    // Block-sparse FFN FLOPs scale with the density.
    void sparseFlopsScaleWithDensity()
    {
        auto ffnFlops = [](const char* density) {
            auto m = Model::create("bert", "paper", "full", {{"density", density}, {"block", "16"}});
            return flopsOf(m->listOps(), [](const OpInfo& o) { return o.name.rfind("block_sparse_", 0) == 0; });
        };
        const double half = ffnFlops("0.5"), quarter = ffnFlops("0.25");
        QVERIFY(half > 0);
        QCOMPARE(quarter / half, 0.5);
    }
};

QTEST_GUILESS_MAIN(TestBert)
#include "tst_bert.moc"
