// The math of every elementwise and row-wise op, written once as host+device functors.
// launch.h runs them as CPU loops or CUDA kernels; tests on the CPU thus check the GPU math.
// A functor may also have a host-only cpuRows(r0, r1) (row ops), cpuRange(i0, i1)
// (elementwise) or cpuColumns(j0, j1) (column reductions): the CPU backend's vectorized path of the same definition (cpurows.h), which
// launch.h runs instead of the plain loop while cpu::vectorized() is on.
// kCpuSerial = true: a functor whose CPU loop must not be split over threads.
// Layouts are row-major; T = tokens (batch * seq), d = model width.
#pragma once

#include "kernels/cpurows.h"
#include "kernels/hd.h"

namespace wt::kernels::fn {

// --- parameters -------------------------------------------------------------------------
WT_HD uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
struct InitUniform {   // p[i] = uniform(-a, a) from (seed, i), identical on every backend
    float* p; uint64_t seed; float a;
    WT_HD void operator()(int64_t i) const
    {
        uint64_t h = splitmix(seed * 0x100000001b3ull + uint64_t(i));
        float u = float(h >> 40) * (1.f / 16777216.f);
        p[i] = (2.f * u - 1.f) * a;
    }
};
struct Fill {
    float* p; float v;
    WT_HD void operator()(int64_t i) const { p[i] = v; }
};
// Gradient scale of global-norm clipping: min(1, clip / ||g||); 1 without clipping.
WT_HD float clipScale(const float* normSq, float clip)
{
    if (!normSq || !(clip > 0.f))
        return 1.f;
    float n = sqrtf(*normSq);
    return n > clip ? clip / n : 1.f;
}
struct Sgd {   // Nesterov momentum (v != null) on the clipped gradient: v = mu v + g; w -= lr (g + mu v)
    float* w; const float* g; float* v; float lr, mu; const float* normSq; float clip;
    WT_HD void operator()(int64_t i) const
    {
        float gi = g[i] * clipScale(normSq, clip);
        if (v) {
            float vi = mu * v[i] + gi;
            v[i] = vi;
            gi += mu * vi;
        }
        w[i] -= lr * gi;
    }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::sgdRange(w, g, v, lr, mu, clipScale(normSq, clip), i0, i1); }
};
struct Square {   // summand of a squared norm
    const float* x;
    WT_HD float operator()(int64_t i) const { return x[i] * x[i]; }
    double cpuSum(int64_t i0, int64_t i1) const { return cpu::sumSquaresRange(x, i0, i1); }
};
// Summand of the squared norm of up to kMax tensors taken as one index space (a layer's
// gradients in one launch, as a multi-tensor norm): tensor t holds indices [end[t-1], end[t]).
struct SquareMulti {
    static constexpr int kMax = 16;
    const float* x[kMax];
    int64_t end[kMax];
    int count;
    WT_HD float operator()(int64_t i) const
    {
        int t = 0;
        while (t + 1 < count && i >= end[t])
            ++t;
        const float v = x[t][i - (t > 0 ? end[t - 1] : 0)];
        return v * v;
    }
    // Each tensor's part of [i0, i1) in order, each summed as Square's (one fixed order).
    double cpuSum(int64_t i0, int64_t i1) const
    {
        double acc = 0;
        int64_t start = 0;
        for (int t = 0; t < count && start < i1; start = end[t], ++t) {
            const int64_t lo = i0 > start ? i0 : start, hi = i1 < end[t] ? i1 : end[t];
            if (lo < hi)
                acc += cpu::sumSquaresRange(x[t], lo - start, hi - start);
        }
        return acc;
    }
};

// --- embedding --------------------------------------------------------------------------
struct EmbedForward {
    const int32_t* tok; const float* table; float* out; int64_t d;
    WT_HD void operator()(int64_t i) const { out[i] = table[int64_t(tok[i / d]) * d + i % d]; }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::selectRowsRange(table, tok, out, d, i0, i1); }
};
struct EmbedSgd {   // sparse update: table[tok[t]] -= lr * scale * dOut[t]; duplicates add up
    static constexpr bool kCpuSerial = true;   // duplicates add to one row: the host loop is the order
    const int32_t* tok; const float* g; float* table; int64_t d; float lr; const float* normSq; float clip;
    WT_HD void operator()(int64_t i) const
    {
        hd::atomicAddF(&table[int64_t(tok[i / d]) * d + i % d], -lr * clipScale(normSq, clip) * g[i]);
    }
    void cpuRange(int64_t i0, int64_t i1) const
    {
        cpu::embedSgdRange(tok, g, table, d, -lr * clipScale(normSq, clip), i0, i1);
    }
};

// --- elementwise ------------------------------------------------------------------------
struct Add {   // y = a + b
    const float* a; const float* b; float* y;
    WT_HD void operator()(int64_t i) const { y[i] = a[i] + b[i]; }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::addRange(a, b, y, i0, i1); }
};
struct Copy {
    const float* a; float* y;
    WT_HD void operator()(int64_t i) const { y[i] = a[i]; }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::copyRange(a, y, i0, i1); }
};
struct BiasAdd {   // y[r, c] += bias[c]
    float* y; const float* bias; int64_t n;
    WT_HD void operator()(int64_t i) const { y[i] += bias[i % n]; }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::biasAddRange(y, bias, n, i0, i1); }
};
struct GluForward {   // h [T, 2C] = [a | g] -> out [T, C] = a * sigmoid(g)
    const float* h; float* out; int64_t C;
    WT_HD void operator()(int64_t i) const
    {
        int64_t r = i / C, c = i % C;
        out[i] = h[r * 2 * C + c] * hd::sigmoid(h[r * 2 * C + C + c]);
    }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::gluForwardRange(h, out, C, i0, i1); }
};
struct GluBackward {
    const float* h; const float* dout; float* dh; int64_t C;
    WT_HD void operator()(int64_t i) const
    {
        int64_t r = i / C, c = i % C;
        float a = h[r * 2 * C + c], s = hd::sigmoid(h[r * 2 * C + C + c]);
        dh[r * 2 * C + c] = dout[i] * s;
        dh[r * 2 * C + C + c] = dout[i] * a * s * (1.f - s);
    }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::gluBackwardRange(h, dout, dh, C, i0, i1); }
};
struct GeluForward {
    const float* x; float* y;
    WT_HD void operator()(int64_t i) const { y[i] = hd::gelu(x[i]); }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::geluForwardRange(x, y, i0, i1); }
};
struct GeluBackward {
    const float* x; const float* dy; float* dx;
    WT_HD void operator()(int64_t i) const { dx[i] = dy[i] * hd::geluGrad(x[i]); }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::geluBackwardRange(x, dy, dx, i0, i1); }
};

// --- causal convolution (im2col over time, kernel width K, left padding K-1) ------------
struct Im2col {   // x [B*S, C] -> col [B*S, K*C]; col[t, k*C + c] = x[t - (K-1) + k, c] or 0
    const float* x; float* col; int64_t S, C, K;
    WT_HD void operator()(int64_t i) const
    {
        int64_t KC = K * C, row = i / KC, k = (i % KC) / C, c = i % C;
        int64_t s = row % S, src = s - (K - 1) + k;
        col[i] = src >= 0 ? x[(row - s + src) * C + c] : 0.f;
    }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::im2colRange(x, col, S, C, K, i0, i1); }
};
struct Col2im {   // dx[t, c] (+)= sum_k dcol[t + (K-1) - k, k*C + c]  (gather: no atomics)
    const float* dcol; float* dx; int64_t S, C, K; bool accumulate;
    WT_HD void operator()(int64_t i) const
    {
        int64_t row = i / C, c = i % C, s = row % S;
        float acc = 0.f;
        for (int64_t k = 0; k < K; ++k) {
            int64_t dst = s + (K - 1) - k;
            if (dst < S)
                acc += dcol[(row - s + dst) * K * C + k * C + c];
        }
        dx[i] = accumulate ? dx[i] + acc : acc;
    }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::col2imRange(dcol, dx, S, C, K, accumulate, i0, i1); }
};

// --- attention head layout --------------------------------------------------------------
// Between [B, S, P, H, dh] (token-major, P = 3 for qkv or 1) and [P, B, H, S, dh] (head-major).
struct HeadsPermute {
    const float* src; float* dst; int64_t B, S, P, H, dh; bool toHeads;
    WT_HD void operator()(int64_t i) const
    {
        // i indexes the head-major layout
        int64_t e = i % dh, s = (i / dh) % S, h = (i / (dh * S)) % H, b = (i / (dh * S * H)) % B;
        int64_t p = i / (dh * S * H * B);
        int64_t t = (((b * S + s) * P + p) * H + h) * dh + e;
        if (toHeads)
            dst[i] = src[t];
        else
            dst[t] = src[i];
    }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::headsPermuteRange(src, dst, B, S, P, H, dh, toHeads, i0, i1); }
};

// --- row ops ----------------------------------------------------------------------------
struct SumAcc { float s; };
struct PairAcc { float a, b; };
struct WelfordAcc { float n, mean, m2; };

struct LogSoftmaxForward {   // y[r, :] = x[r, :] - logsumexp(x[r, :])
    using Acc = hd::Lse;
    const float* x; float* y; int64_t n, ldx, ldy;
    WT_HD int64_t cols(int64_t) const { return n; }
    WT_HD Acc init() const { return hd::lseInit(); }
    WT_HD void accumulate(Acc& a, int64_t r, int64_t c) const { hd::lseAdd(a, x[r * ldx + c]); }
    WT_HD static Acc combine(Acc a, Acc b) { return hd::lseCombine(a, b); }
    WT_HD void finish(int64_t, const Acc&) const {}
    WT_HD void map(int64_t r, int64_t c, const Acc& a) const { y[r * ldy + c] = x[r * ldx + c] - hd::lseValue(a); }
    void cpuRows(int64_t r0, int64_t r1) const { cpu::logSoftmaxForwardRows(x, y, n, ldx, ldy, r0, r1); }
};
struct LogSoftmaxBackward {   // dx = dy - exp(y) * sum(dy)
    using Acc = SumAcc;
    const float* y; const float* dy; float* dx; int64_t n, ld;
    WT_HD int64_t cols(int64_t) const { return n; }
    WT_HD Acc init() const { return {0.f}; }
    WT_HD void accumulate(Acc& a, int64_t r, int64_t c) const { a.s += dy[r * ld + c]; }
    WT_HD static Acc combine(Acc a, Acc b) { return {a.s + b.s}; }
    WT_HD void finish(int64_t, const Acc&) const {}
    WT_HD void map(int64_t r, int64_t c, const Acc& a) const
    {
        dx[r * ld + c] = dy[r * ld + c] - expf(y[r * ld + c]) * a.s;
    }
    void cpuRows(int64_t r0, int64_t r1) const { cpu::logSoftmaxBackwardRows(y, dy, dx, n, ld, r0, r1); }
};
// Fused log-softmax + target pick + loss + gradient, in place over the logits: one online
// pass for the log-sum-exp (which also picks the target's logit), then one pass that
// overwrites logits with d(loss)/d(logits). loss[lossRow[r] or r] += lse - x[target].
// finish() uses the picked logit, not x: with a row split over blocks (launch.h) other blocks
// may already have overwritten it.
struct LsePick {
    hd::Lse lse;
    float picked;   // the target column's logit (0 in partials that do not hold it)
};
struct FusedLogSoftmaxLoss {
    using Acc = LsePick;
    float* x; int64_t n, ld; const int32_t* target; float scale; float* loss; const int32_t* lossRow;
    WT_HD int64_t cols(int64_t) const { return n; }
    WT_HD Acc init() const { return {hd::lseInit(), 0.f}; }
    WT_HD void accumulate(Acc& a, int64_t r, int64_t c) const
    {
        float v = x[r * ld + c];
        hd::lseAdd(a.lse, v);
        if (c == target[r])
            a.picked = v;
    }
    WT_HD static Acc combine(Acc a, Acc b) { return {hd::lseCombine(a.lse, b.lse), a.picked + b.picked}; }
    WT_HD void finish(int64_t r, const Acc& a) const
    {
        int64_t out = lossRow ? lossRow[r] : r;
        loss[out] += hd::lseValue(a.lse) - a.picked;
    }
    WT_HD void map(int64_t r, int64_t c, const Acc& a) const
    {
        float p = expf(x[r * ld + c] - hd::lseValue(a.lse));
        x[r * ld + c] = (p - (c == target[r] ? 1.f : 0.f)) * scale;
    }
    void cpuRows(int64_t r0, int64_t r1) const
    {
        cpu::fusedLogSoftmaxLossRows(x, n, ld, target, scale, loss, lossRow, r0, r1);
    }
};
struct CausalSoftmaxForward {   // rows of [B*H*S, S] scores; row r attends to keys 0..r%S
    using Acc = hd::Lse;
    const float* x; float* p; int64_t S; float scale;
    WT_HD int64_t cols(int64_t) const { return S; }
    WT_HD Acc init() const { return hd::lseInit(); }
    WT_HD void accumulate(Acc& a, int64_t r, int64_t c) const
    {
        if (c <= r % S)
            hd::lseAdd(a, x[r * S + c] * scale);
    }
    WT_HD static Acc combine(Acc a, Acc b) { return hd::lseCombine(a, b); }
    WT_HD void finish(int64_t, const Acc&) const {}
    WT_HD void map(int64_t r, int64_t c, const Acc& a) const
    {
        p[r * S + c] = c <= r % S ? expf(x[r * S + c] * scale - hd::lseValue(a)) : 0.f;
    }
    void cpuRows(int64_t r0, int64_t r1) const { cpu::softmaxRows(x, p, S, scale, true, r0, r1); }
};
struct AttnSoftmaxForward {   // rows of [B*H*S, S] scores, every key visible
    using Acc = hd::Lse;
    const float* x; float* p; int64_t S; float scale;
    WT_HD int64_t cols(int64_t) const { return S; }
    WT_HD Acc init() const { return hd::lseInit(); }
    WT_HD void accumulate(Acc& a, int64_t r, int64_t c) const { hd::lseAdd(a, x[r * S + c] * scale); }
    WT_HD static Acc combine(Acc a, Acc b) { return hd::lseCombine(a, b); }
    WT_HD void finish(int64_t, const Acc&) const {}
    WT_HD void map(int64_t r, int64_t c, const Acc& a) const { p[r * S + c] = expf(x[r * S + c] * scale - hd::lseValue(a)); }
    void cpuRows(int64_t r0, int64_t r1) const { cpu::softmaxRows(x, p, S, scale, false, r0, r1); }
};
struct SoftmaxBackward {   // ds = p * (dp - sum(p * dp)) * scale
    using Acc = SumAcc;
    const float* p; const float* dp; float* ds; int64_t S; float scale;
    WT_HD int64_t cols(int64_t) const { return S; }
    WT_HD Acc init() const { return {0.f}; }
    WT_HD void accumulate(Acc& a, int64_t r, int64_t c) const { a.s += p[r * S + c] * dp[r * S + c]; }
    WT_HD static Acc combine(Acc a, Acc b) { return {a.s + b.s}; }
    WT_HD void finish(int64_t, const Acc&) const {}
    WT_HD void map(int64_t r, int64_t c, const Acc& a) const
    {
        ds[r * S + c] = p[r * S + c] * (dp[r * S + c] - a.s) * scale;
    }
    void cpuRows(int64_t r0, int64_t r1) const { cpu::softmaxBackwardRows(p, dp, ds, S, scale, r0, r1); }
};
constexpr float kLayerNormEps = 1e-5f;
struct LayerNormForward {
    using Acc = WelfordAcc;
    const float* x; const float* gamma; const float* beta; float* y; float* mean; float* rstd; int64_t C;
    WT_HD int64_t cols(int64_t) const { return C; }
    WT_HD Acc init() const { return {0.f, 0.f, 0.f}; }
    WT_HD void accumulate(Acc& a, int64_t r, int64_t c) const
    {
        float v = x[r * C + c];
        a.n += 1.f;
        float d = v - a.mean;
        a.mean += d / a.n;
        a.m2 += d * (v - a.mean);
    }
    WT_HD static Acc combine(Acc a, Acc b)
    {
        if (b.n == 0.f)
            return a;
        if (a.n == 0.f)
            return b;
        float n = a.n + b.n, d = b.mean - a.mean;
        return {n, a.mean + d * b.n / n, a.m2 + b.m2 + d * d * a.n * b.n / n};
    }
    WT_HD void finish(int64_t r, const Acc& a) const
    {
        mean[r] = a.mean;
        rstd[r] = 1.f / sqrtf(a.m2 / a.n + kLayerNormEps);
    }
    WT_HD void map(int64_t r, int64_t c, const Acc& a) const
    {
        float rs = 1.f / sqrtf(a.m2 / a.n + kLayerNormEps);
        y[r * C + c] = (x[r * C + c] - a.mean) * rs * gamma[c] + beta[c];
    }
    void cpuRows(int64_t r0, int64_t r1) const
    {
        cpu::layerNormForwardRows(x, gamma, beta, y, mean, rstd, C, kLayerNormEps, r0, r1);
    }
};
struct LayerNormBackward {   // dx (+)= rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * gamma
    using Acc = PairAcc;
    const float* x; const float* gamma; const float* dy; const float* mean; const float* rstd; float* dx; int64_t C;
    bool accumulate_;
    WT_HD int64_t cols(int64_t) const { return C; }
    WT_HD Acc init() const { return {0.f, 0.f}; }
    WT_HD void accumulate(Acc& a, int64_t r, int64_t c) const
    {
        float g = dy[r * C + c] * gamma[c], xh = (x[r * C + c] - mean[r]) * rstd[r];
        a.a += g;
        a.b += g * xh;
    }
    WT_HD static Acc combine(Acc a, Acc b) { return {a.a + b.a, a.b + b.b}; }
    WT_HD void finish(int64_t, const Acc&) const {}
    WT_HD void map(int64_t r, int64_t c, const Acc& a) const
    {
        float g = dy[r * C + c] * gamma[c], xh = (x[r * C + c] - mean[r]) * rstd[r];
        float v = rstd[r] * (g - a.a / float(C) - xh * a.b / float(C));
        dx[r * C + c] = accumulate_ ? dx[r * C + c] + v : v;
    }
    void cpuRows(int64_t r0, int64_t r1) const
    {
        cpu::layerNormBackwardRows(x, gamma, dy, mean, rstd, dx, C, accumulate_, r0, r1);
    }
};
// Column reductions (launch.h colReduce): accumulate(acc, j, i) adds element (i, j).
struct ColumnSum {   // out[j] = sum_i y[i, j]
    using Acc = SumAcc;
    const float* y; float* out; int64_t rows, C;
    WT_HD int64_t cols(int64_t) const { return rows; }
    WT_HD Acc init() const { return {0.f}; }
    WT_HD void accumulate(Acc& a, int64_t j, int64_t i) const { a.s += y[i * C + j]; }
    WT_HD static Acc combine(Acc a, Acc b) { return {a.s + b.s}; }
    WT_HD void finish(int64_t j, const Acc& a) const { out[j] = a.s; }
    WT_HD void map(int64_t, int64_t, const Acc&) const {}
    void cpuColumns(int64_t j0, int64_t j1) const { cpu::columnSumColumns(y, out, rows, C, j0, j1); }
};
struct LayerNormParamGrad {   // dgamma[j] = sum_i dy * xhat, dbeta[j] = sum_i dy
    using Acc = PairAcc;
    const float* x; const float* dy; const float* mean; const float* rstd; float* dgamma; float* dbeta; int64_t rows, C;
    WT_HD int64_t cols(int64_t) const { return rows; }
    WT_HD Acc init() const { return {0.f, 0.f}; }
    WT_HD void accumulate(Acc& a, int64_t j, int64_t i) const
    {
        float g = dy[i * C + j];
        a.a += g * (x[i * C + j] - mean[i]) * rstd[i];
        a.b += g;
    }
    WT_HD static Acc combine(Acc a, Acc b) { return {a.a + b.a, a.b + b.b}; }
    WT_HD void finish(int64_t j, const Acc& a) const
    {
        dgamma[j] = a.a;
        dbeta[j] = a.b;
    }
    WT_HD void map(int64_t, int64_t, const Acc&) const {}
    void cpuColumns(int64_t j0, int64_t j1) const
    {
        cpu::layerNormParamGradColumns(x, dy, mean, rstd, dgamma, dbeta, rows, C, j0, j1);
    }
};
struct MeanLoss {   // out[0] = scale * sum(v), one row
    using Acc = SumAcc;
    const float* v; float* out; int64_t n; float scale;
    WT_HD int64_t cols(int64_t) const { return n; }
    WT_HD Acc init() const { return {0.f}; }
    WT_HD void accumulate(Acc& a, int64_t, int64_t c) const { a.s += v[c]; }
    WT_HD static Acc combine(Acc a, Acc b) { return {a.s + b.s}; }
    WT_HD void finish(int64_t, const Acc& a) const { out[0] = a.s * scale; }
    WT_HD void map(int64_t, int64_t, const Acc&) const {}
};

// --- gathers and scatters of the softmax layers -----------------------------------------
struct InRange {   // flag[i] = lo <= target[i] < hi (the framework's mask)
    const int32_t* target; int32_t lo, hi; int32_t* flag;
    WT_HD void operator()(int64_t i) const { flag[i] = target[i] >= lo && target[i] < hi ? 1 : 0; }
};
struct FlagBucket {   // bucket of i = flag[i] (for nonzero: bucket 1 holds the selected rows)
    const int32_t* flag;
    WT_HD int operator()(int64_t i) const { return flag[i]; }
};
struct ClusterBucket {   // bucket 0 = head (shortlist), i = tail cluster i
    const int32_t* target; const int32_t* cutoffs; int nc;
    WT_HD int operator()(int64_t i) const
    {
        int b = 0;
        for (int k = 0; k < nc; ++k)
            b += target[i] >= cutoffs[k] ? 1 : 0;
        return b;
    }
};
struct IndexSelectRows {   // dst[r, :] = src[idx[r], :]
    const float* src; const int32_t* idx; float* dst; int64_t d;
    WT_HD void operator()(int64_t i) const { dst[i] = src[int64_t(idx[i / d]) * d + i % d]; }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::selectRowsRange(src, idx, dst, d, i0, i1); }
};
struct IndexAddRows {   // dst[idx[r], :] += src[r, :] (idx unique)
    const float* src; const int32_t* idx; float* dst; int64_t d;
    WT_HD void operator()(int64_t i) const { dst[int64_t(idx[i / d]) * d + i % d] += src[i]; }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::addRowsRange(src, idx, dst, d, i0, i1); }
};
struct SelectTargets {   // relTarget[r] = target[idx[r]] - lo
    const int32_t* target; const int32_t* idx; int32_t lo; int32_t* rel;
    WT_HD void operator()(int64_t r) const { rel[r] = target[idx[r]] - lo; }
};
struct HeadTargets {   // head column of each token: its word (shortlist) or its cluster logit
    const int32_t* target; const int32_t* cutoffs; int nc; int32_t* out;
    WT_HD void operator()(int64_t i) const
    {
        int32_t t = target[i];
        int b = 0;
        for (int k = 0; k < nc; ++k)
            b += t >= cutoffs[k] ? 1 : 0;
        out[i] = b == 0 ? t : cutoffs[0] + b - 1;
    }
};
struct GatherPick {   // out[r] (+)= logp[r, col[r]]  ('gather' of the framework)
    const float* logp; int64_t ld; const int32_t* col; float* out; bool accumulate;
    WT_HD void operator()(int64_t r) const { out[r] = (accumulate ? out[r] : 0.f) + logp[r * ld + col[r]]; }
};
struct IndexCopy {   // out[idx[r]] = v[r]
    const float* v; const int32_t* idx; float* out;
    WT_HD void operator()(int64_t r) const { out[idx[r]] = v[r]; }
};
struct ScatterPickGrad {   // grad[r, col[r]] = g (nll / gather backward into a zeroed buffer)
    float* grad; int64_t ld; const int32_t* col; float g;
    WT_HD void operator()(int64_t r) const { grad[r * ld + col[r]] = g; }
};
struct PermutedTargets {   // for the bucketed variants: rel[r] = target[perm[r]] - lo
    const int32_t* target; const int32_t* perm; int32_t lo; int32_t* rel;
    WT_HD void operator()(int64_t r) const { rel[r] = target[perm[r]] - lo; }
};

}  // namespace wt::kernels::fn
