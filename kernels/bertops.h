// The math of the ops that the BERT-family workloads add (bert, groupbert, block-sparse bert),
// written once as host+device functors like opsmath.h: launch.h runs them as CPU loops or CUDA
// kernels. Layouts are row-major; T = tokens (batch * seq), d = model width.
#pragma once

#include "kernels/cpurows.h"
#include "kernels/hd.h"

namespace wt::kernels::fn {

// --- embedding with learned positions ---------------------------------------------------
struct EmbedPosForward {   // out[t, c] = table[tok[t], c] + pos[t % S, c]
    const int32_t* tok; const float* table; const float* pos; float* out; int64_t d, S;
    WT_HD void operator()(int64_t i) const
    {
        int64_t t = i / d, c = i % d;
        out[i] = table[int64_t(tok[t]) * d + c] + pos[(t % S) * d + c];
    }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::embedPosForwardRange(tok, table, pos, out, d, S, i0, i1); }
};
struct PosGrad {   // dpos[s, c] = sum_b dOut[b*S + s, c] (gather over the batch: no atomics)
    const float* dOut; float* dpos; int64_t d, S, B;
    WT_HD void operator()(int64_t i) const
    {
        int64_t s = i / d, c = i % d;
        float acc = 0.f;
        for (int64_t b = 0; b < B; ++b)
            acc += dOut[(b * S + s) * d + c];
        dpos[i] = acc;
    }
    void cpuRange(int64_t i0, int64_t i1) const { cpu::posGradRange(dOut, dpos, d, S, B, i0, i1); }
};

// --- elementwise helpers (attention's softmax, causal or not, is in opsmath.h) --------------
struct AddInPlace {   // y += a
    const float* a; float* y;
    WT_HD void operator()(int64_t i) const { y[i] += a[i]; }
};
struct ScaledCopy {   // y = s * a
    const float* a; float* y; float s;
    WT_HD void operator()(int64_t i) const { y[i] = s * a[i]; }
};

// --- grouped convolution over time (GroupBERT's conv module) ----------------------------
// x, y: [B*S, C]; w: [C, K, Cg] with Cg = C / groups input channels per group; same padding
// (K odd: (K-1)/2 each side) within each sequence. y[t, c] = b[c] + sum_{k, i} w[c, k, i] *
// x[t + k - P, g(c) Cg + i].
struct GroupConvForward {
    const float* x; const float* w; const float* bias; float* y; int64_t S, C, K, Cg;
    WT_HD void operator()(int64_t i) const
    {
        int64_t t = i / C, c = i % C, s = t % S, P = (K - 1) / 2, g0 = (c / Cg) * Cg;
        float acc = bias[c];
        for (int64_t k = 0; k < K; ++k) {
            int64_t src = s + k - P;
            if (src < 0 || src >= S)
                continue;
            const float* xr = x + (t - s + src) * C + g0;
            const float* wr = w + (c * K + k) * Cg;
            for (int64_t j = 0; j < Cg; ++j)
                acc += wr[j] * xr[j];
        }
        y[i] = acc;
    }
};
struct GroupConvBackwardData {   // dx[t, ci] = sum_{c in group, k} w[c, k, ci % Cg] dy[t - k + P, c]
    const float* dy; const float* w; float* dx; int64_t S, C, K, Cg;
    WT_HD void operator()(int64_t i) const
    {
        int64_t t = i / C, ci = i % C, s = t % S, P = (K - 1) / 2, g0 = (ci / Cg) * Cg, j = ci % Cg;
        float acc = 0.f;
        for (int64_t k = 0; k < K; ++k) {
            int64_t dst = s - k + P;
            if (dst < 0 || dst >= S)
                continue;
            const float* dr = dy + (t - s + dst) * C;
            for (int64_t c = g0; c < g0 + Cg; ++c)
                acc += w[(c * K + k) * Cg + j] * dr[c];
        }
        dx[i] = acc;
    }
};
struct GroupConvBackwardWeight {   // dw[c, k, j] = sum_t dy[t, c] x[t + k - P, g(c) Cg + j]
    const float* dy; const float* x; float* dw; int64_t T, S, C, K, Cg;
    WT_HD void operator()(int64_t i) const
    {
        int64_t c = i / (K * Cg), k = (i / Cg) % K, j = i % Cg, P = (K - 1) / 2, ci = (c / Cg) * Cg + j;
        float acc = 0.f;
        for (int64_t t = 0; t < T; ++t) {
            int64_t s = t % S, src = s + k - P;
            if (src >= 0 && src < S)
                acc += dy[t * C + c] * x[(t - s + src) * C + ci];
        }
        dw[i] = acc;
    }
};

// --- block-sparse matrix product (blocked-ELL) ------------------------------------------
// W [out, in] in blocks of B x B; block row rb holds K blocks, slot k at block column
// col[rb*K + k]. Values are stored [out, K*B]: row o = rb*B + r holds its K blocks' rows side
// by side, v[o, k*B + j] = W[o, col[rb*K+k]*B + j]. y = x W^T as a dense linear layer.
struct BsrForward {   // y[t, o] = sum_{k, j} x[t, col*B + j] v[o, k*B + j]
    const float* x; const float* v; const int32_t* col; float* y; int64_t in, out, B, K;
    WT_HD void operator()(int64_t i) const
    {
        int64_t t = i / out, o = i % out, rb = o / B;
        const float* vr = v + o * K * B;
        const float* xr = x + t * in;
        float acc = 0.f;
        for (int64_t k = 0; k < K; ++k) {
            const float* xs = xr + int64_t(col[rb * K + k]) * B;
            const float* vs = vr + k * B;
            for (int64_t j = 0; j < B; ++j)
                acc += xs[j] * vs[j];
        }
        y[i] = acc;
    }
};
// dx[t, c] = sum over the slots (rb, k) at block column c/B: sum_r dy[t, rb*B + r] v[rb*B + r, k*B + c%B].
// colStart [in/B + 1] and colSlot (rb*K + k, grouped by block column) index the transpose.
struct BsrBackwardData {
    const float* dy; const float* v; const int32_t* colStart; const int32_t* colSlot; float* dx;
    int64_t in, out, B, K;
    WT_HD void operator()(int64_t i) const
    {
        int64_t t = i / in, c = i % in, cb = c / B, j = c % B;
        const float* dr = dy + t * out;
        float acc = 0.f;
        for (int32_t e = colStart[cb]; e < colStart[cb + 1]; ++e) {
            int64_t slot = colSlot[e], rb = slot / K, k = slot % K;
            for (int64_t r = 0; r < B; ++r)
                acc += dr[rb * B + r] * v[(rb * B + r) * K * B + k * B + j];
        }
        dx[i] = acc;
    }
};
struct BsrBackwardWeight {   // dv[o, k*B + j] = sum_t dy[t, o] x[t, col[rb*K+k]*B + j]
    const float* dy; const float* x; const int32_t* col; float* dv; int64_t T, in, out, B, K;
    WT_HD void operator()(int64_t i) const
    {
        int64_t o = i / (K * B), k = (i / B) % K, j = i % B, rb = o / B;
        int64_t c = int64_t(col[rb * K + k]) * B + j;
        float acc = 0.f;
        for (int64_t t = 0; t < T; ++t)
            acc += dy[t * out + o] * x[t * in + c];
        dv[i] = acc;
    }
};
struct BlockMagnitude {   // norm[rb*K + k] = sum |v| over the block (the pruning criterion)
    const float* v; float* norm; int64_t B, K;
    WT_HD void operator()(int64_t s) const
    {
        int64_t rb = s / K, k = s % K;
        float acc = 0.f;
        for (int64_t r = 0; r < B; ++r)
            for (int64_t j = 0; j < B; ++j)
                acc += fabsf(v[(rb * B + r) * K * B + k * B + j]);
        norm[s] = acc;
    }
};
struct ZeroSlots {   // zero the values (and momentum) of the re-allocated slots slot[0..n)
    float* v; float* m; const int32_t* slot; int64_t B, K;
    WT_HD void operator()(int64_t i) const
    {
        int64_t e = i / (B * B), r = (i / B) % B, j = i % B;
        int64_t s = slot[e], rb = s / K, k = s % K;
        int64_t at = (rb * B + r) * K * B + k * B + j;
        v[at] = 0.f;
        if (m)
            m[at] = 0.f;
    }
};

}  // namespace wt::kernels::fn
