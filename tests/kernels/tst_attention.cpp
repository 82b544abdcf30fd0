// kernels/attention: the one multi-head attention of the Transformer decoder (causal) and the
// BERT encoder (no mask), at both users' tiny-preset shapes: its context and its dqkv against a
// float64 brute-force reference (forward by definition, gradient by central differences of
// that forward), the launches it lists (names, sizes), and its use inside the two layers.
#include "kernels/attention.h"
#include "kernels/bert.h"
#include "kernels/layers.h"
#include "kernelstest.h"

#include <QTest>

#include <cmath>
#include <vector>

using namespace wt::kernels;
using wt::test::randomVector;
using wt::test::relError;

namespace {

struct Shape {
    int64_t d, H, B, S;
    int64_t T() const { return B * S; }
};

// context[t, h*dh + e] of qkv [T, 3d] (per token q | k | v, each head h at h*dh), by definition.
std::vector<double> referenceForward(const std::vector<double>& qkv, const Shape& sh, bool causal)
{
    const int64_t d = sh.d, dh = d / sh.H, S = sh.S;
    const double scale = 1.0 / std::sqrt(double(dh));
    std::vector<double> ctx(size_t(sh.T() * d), 0.0), w(static_cast<size_t>(S), 0.0);
    auto at = [&](int64_t b, int64_t s, int64_t part, int64_t h, int64_t e) {
        return qkv[size_t((b * S + s) * 3 * d + part * d + h * dh + e)];
    };
    for (int64_t b = 0; b < sh.B; ++b)
        for (int64_t h = 0; h < sh.H; ++h)
            for (int64_t i = 0; i < S; ++i) {
                const int64_t last = causal ? i : S - 1;
                double top = -1e300;
                for (int64_t j = 0; j <= last; ++j) {
                    double dotp = 0;
                    for (int64_t e = 0; e < dh; ++e)
                        dotp += at(b, i, 0, h, e) * at(b, j, 1, h, e);
                    w[size_t(j)] = dotp * scale;
                    top = std::max(top, w[size_t(j)]);
                }
                double sum = 0;
                for (int64_t j = 0; j <= last; ++j)
                    sum += (w[size_t(j)] = std::exp(w[size_t(j)] - top));
                for (int64_t j = 0; j <= last; ++j)
                    for (int64_t e = 0; e < dh; ++e)
                        ctx[size_t((b * S + i) * d + h * dh + e)] += w[size_t(j)] / sum * at(b, j, 2, h, e);
            }
    return ctx;
}

double weightedSum(const std::vector<double>& y, const std::vector<float>& r)
{
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i)
        s += y[i] * double(r[i]);
    return s;
}

void checkAgainstReference(const Shape& sh, AttentionMask mask)
{
    const bool causal = mask == AttentionMask::Causal;
    const size_t nIn = size_t(sh.T() * 3 * sh.d), nOut = size_t(sh.T() * sh.d);
    const std::vector<float> qkv = randomVector(nIn, 11), R = randomVector(nOut, 12);
    Runtime rt(makeCpuBackend());
    MultiHeadAttention attn(sh.d, sh.H, mask);
    const StepShape s{sh.B, sh.S};
    const float* ctx = attn.forward(rt, qkv.data(), s);
    QCOMPARE(attn.context(), ctx);
    std::vector<float> got(ctx, ctx + nOut);
    const float* dqkvp = attn.backward(rt, R.data(), s);
    std::vector<float> dqkv(dqkvp, dqkvp + nIn);

    std::vector<double> x(qkv.begin(), qkv.end());
    const std::vector<double> want = referenceForward(x, sh, causal);
    const double fwdErr = relError(got, want);
    QVERIFY2(fwdErr < 1e-5, qPrintable(QStringLiteral("context: relative error %1").arg(fwdErr)));
    if (causal) {   // the first token of each sequence sees only itself: its context is its v
        for (int64_t b = 0; b < sh.B; ++b)
            for (int64_t c = 0; c < sh.d; ++c)
                QCOMPARE(got[size_t(b * sh.S * sh.d + c)], qkv[size_t(b * sh.S * 3 * sh.d + 2 * sh.d + c)]);
    }

    // dL/dqkv of L = sum(context * R), central differences of the float64 reference.
    std::vector<double> analytic, numeric;
    for (size_t i = 0; i < nIn; i += 3) {
        const double saved = x[i], h = 1e-5;
        x[i] = saved + h;
        const double up = weightedSum(referenceForward(x, sh, causal), R);
        x[i] = saved - h;
        const double down = weightedSum(referenceForward(x, sh, causal), R);
        x[i] = saved;
        numeric.push_back((up - down) / (2 * h));
        analytic.push_back(dqkv[i]);
    }
    const double bwdErr = relError(analytic, numeric);
    QVERIFY2(bwdErr < 1e-4, qPrintable(QStringLiteral("dqkv: relative error %1").arg(bwdErr)));
}

std::vector<OpInfo> listed(AttentionMask mask, const Shape& sh)
{
    Runtime rt(nullptr);   // dry run: lists, allocates nothing
    std::vector<OpInfo> ops;
    rt.setListing(&ops);
    MultiHeadAttention attn(sh.d, sh.H, mask);
    const StepShape s{sh.B, sh.S};
    attn.forward(rt, nullptr, s);
    attn.backward(rt, nullptr, s);
    return ops;
}

const Shape kDecoderTiny{16, 2, 2, 8};   // transformer --preset tiny: hidden, heads, batch, seq
const Shape kEncoderTiny{16, 2, 4, 16};  // bert --preset tiny

}  // namespace

class TestAttention : public QObject {
    Q_OBJECT
private slots:
    void causalAtDecoderShapes() { checkAgainstReference(kDecoderTiny, AttentionMask::Causal); }
    void unmaskedAtEncoderShapes() { checkAgainstReference(kEncoderTiny, AttentionMask::None); }
    // Odd sizes: heads of width 3, a sequence of 1 (softmax over one key), one sequence.
    void oddShapes()
    {
        checkAgainstReference({9, 3, 1, 5}, AttentionMask::Causal);
        checkAgainstReference({9, 3, 1, 5}, AttentionMask::None);
        checkAgainstReference({4, 1, 3, 1}, AttentionMask::Causal);
        checkAgainstReference({4, 1, 3, 1}, AttentionMask::None);
    }

    // The launches, in order, with the names and sizes the two layers listed before the
    // attention was shared (captures' op names and op features depend on them).
    void launches_data()
    {
        QTest::addColumn<bool>("causal");
        QTest::newRow("decoder") << true;
        QTest::newRow("encoder") << false;
    }
    void launches()
    {
        QFETCH(bool, causal);
        const Shape sh = causal ? kDecoderTiny : kEncoderTiny;
        const auto ops = listed(causal ? AttentionMask::Causal : AttentionMask::None, sh);
        const std::string sm = causal ? "causal_softmax" : "attention_softmax";
        const std::vector<std::string> names = {"split_heads", "sgemm_batched_nt", sm + "_forward", "sgemm_batched_nn",
                                                "merge_heads", "split_heads", "sgemm_batched_nt", "sgemm_batched_tn",
                                                sm + "_backward", "sgemm_batched_nn", "sgemm_batched_tn", "merge_heads"};
        QCOMPARE(ops.size(), names.size());
        for (size_t i = 0; i < ops.size(); ++i) {
            QCOMPARE(ops[i].name, names[i]);
            QVERIFY(ops[i].scope.empty());   // no scope of its own: the caller's op scope holds it
        }
        const int64_t rows = sh.B * sh.H * sh.S;
        QCOMPARE(ops[0].shapes, "B=" + std::to_string(sh.B) + " S=" + std::to_string(sh.S) + " H=" +
                                    std::to_string(sh.H) + " dh=" + std::to_string(sh.d / sh.H));
        QCOMPARE(ops[2].shapes, "rows=" + std::to_string(rows) + " S=" + std::to_string(sh.S));
        QCOMPARE(ops[2].flops, double(rows * sh.S) * 4);
        QCOMPARE(ops[8].flops, double(rows * sh.S) * 3);
    }

    // Both layers run it inside their `attention` op scope.
    void inTheLayers()
    {
        Runtime rt(nullptr);
        std::vector<OpInfo> ops;
        rt.setListing(&ops);
        DecoderLayer dec("decoder.0", 16, 2, 32);
        EncoderLayer enc("encoder.0", 16, 2, 32, EncoderOptions{});
        const StepShape s{2, 8};
        dec.forward(rt, nullptr, s);
        dec.backward(rt, nullptr, s);
        enc.forward(rt, nullptr, s);
        enc.backward(rt, nullptr, s);
        int causal = 0, unmasked = 0;
        for (const OpInfo& op : ops) {
            if (op.name.find("causal_softmax") == 0) {
                QCOMPARE(op.scope, std::string("attention"));
                ++causal;
            }
            if (op.name.find("attention_softmax") == 0) {
                QCOMPARE(op.scope, std::string("attention"));
                ++unmasked;
            }
        }
        QCOMPARE(causal, 2);
        QCOMPARE(unmasked, 2);
    }
};

QTEST_GUILESS_MAIN(TestAttention)
#include "tst_attention.moc"
