// Multi-head attention of the decoder and encoder layers. Compiled by nvcc in CUDA builds (see
// launch.h): the functors of opsmath.h then run as CUDA kernels.
#include "kernels/attention.h"

#include "kernels/launch.h"
#include "kernels/layers.h"
#include "kernels/opsmath.h"

#include <cmath>

namespace wt::kernels {

MultiHeadAttention::MultiHeadAttention(int64_t d, int64_t heads, AttentionMask mask) : m_d(d), m_heads(heads), m_mask(mask) {}

const float* MultiHeadAttention::forward(Runtime& rt, const float* qkv, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d, B = s.batch, S = s.seq, H = m_heads, dh = d / H, hs = B * H * S * dh;
    rt.ensure(m_heads3, size_t(3 * hs) * 4);
    rt.ensure(m_scores, size_t(B * H * S * S) * 4);
    rt.ensure(m_probs, size_t(B * H * S * S) * 4);
    rt.ensure(m_ctxh, size_t(T * d) * 4);
    rt.ensure(m_ctx, size_t(T * d) * 4);
    forEach(rt, ew("split_heads", double(3 * hs), 0, 1, 1), {{"B", B}, {"S", S}, {"H", H}, {"dh", dh}}, 3 * hs,
            fn::HeadsPermute{qkv, m_heads3.f(), B, S, 3, H, dh, true});
    const float* q = m_heads3.f();
    const float* k = q ? q + hs : nullptr;
    const float* v = q ? q + 2 * hs : nullptr;
    rt.gemmBatched("sgemm_batched_nt", false, true, int(S), int(S), int(dh), 1.f, q, int(dh), S * dh, k, int(dh), S * dh,
                   0.f, m_scores.f(), int(S), S * S, int(B * H));
    const float scale = 1.f / std::sqrt(float(dh));
    const Dims rows{{"rows", B * H * S}, {"S", S}};
    if (m_mask == AttentionMask::Causal)
        rowOp(rt, ew("causal_softmax_forward", double(B * H * S * S), 4, 1, 1), rows, B * H * S,
              fn::CausalSoftmaxForward{m_scores.f(), m_probs.f(), S, scale});
    else
        rowOp(rt, ew("attention_softmax_forward", double(B * H * S * S), 4, 1, 1), rows, B * H * S,
              fn::AttnSoftmaxForward{m_scores.f(), m_probs.f(), S, scale});
    rt.gemmBatched("sgemm_batched_nn", false, false, int(S), int(dh), int(S), 1.f, m_probs.f(), int(S), S * S, v, int(dh),
                   S * dh, 0.f, m_ctxh.f(), int(dh), S * dh, int(B * H));
    forEach(rt, ew("merge_heads", double(hs), 0, 1, 1), {{"B", B}, {"S", S}, {"H", H}, {"dh", dh}}, hs,
            fn::HeadsPermute{m_ctxh.f(), m_ctx.f(), B, S, 1, H, dh, false});
    return m_ctx.f();
}

const float* MultiHeadAttention::backward(Runtime& rt, const float* dctx, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d, B = s.batch, S = s.seq, H = m_heads, dh = d / H, hs = B * H * S * dh;
    rt.ensure(m_dctxh, size_t(T * d) * 4);
    rt.ensure(m_dp, size_t(B * H * S * S) * 4);
    rt.ensure(m_dheads3, size_t(3 * hs) * 4);
    rt.ensure(m_dqkv, size_t(T * 3 * d) * 4);
    const float scale = 1.f / std::sqrt(float(dh));
    forEach(rt, ew("split_heads", double(hs), 0, 1, 1), {{"B", B}, {"S", S}, {"H", H}, {"dh", dh}}, hs,
            fn::HeadsPermute{dctx, m_dctxh.f(), B, S, 1, H, dh, true});
    const float* q = m_heads3.f();
    const float* k = q ? q + hs : nullptr;
    const float* v = q ? q + 2 * hs : nullptr;
    float* dq = m_dheads3.f();
    float* dk = dq ? dq + hs : nullptr;
    float* dv = dq ? dq + 2 * hs : nullptr;
    const int BH = int(B * H);
    rt.gemmBatched("sgemm_batched_nt", false, true, int(S), int(S), int(dh), 1.f, m_dctxh.f(), int(dh), S * dh, v, int(dh),
                   S * dh, 0.f, m_dp.f(), int(S), S * S, BH);
    rt.gemmBatched("sgemm_batched_tn", true, false, int(S), int(dh), int(S), 1.f, m_probs.f(), int(S), S * S, m_dctxh.f(),
                   int(dh), S * dh, 0.f, dv, int(dh), S * dh, BH);
    // dS overwrites the raw scores (no longer needed). Masked entries have P = 0, so dS = 0.
    rowOp(rt, ew(m_mask == AttentionMask::Causal ? "causal_softmax_backward" : "attention_softmax_backward",
                 double(B * H * S * S), 3, 2, 1),
          {{"rows", B * H * S}, {"S", S}}, B * H * S, fn::SoftmaxBackward{m_probs.f(), m_dp.f(), m_scores.f(), S, scale});
    rt.gemmBatched("sgemm_batched_nn", false, false, int(S), int(dh), int(S), 1.f, m_scores.f(), int(S), S * S, k, int(dh),
                   S * dh, 0.f, dq, int(dh), S * dh, BH);
    rt.gemmBatched("sgemm_batched_tn", true, false, int(S), int(dh), int(S), 1.f, m_scores.f(), int(S), S * S, q, int(dh),
                   S * dh, 0.f, dk, int(dh), S * dh, BH);
    forEach(rt, ew("merge_heads", double(3 * hs), 0, 1, 1), {{"B", B}, {"S", S}, {"H", H}, {"dh", dh}}, 3 * hs,
            fn::HeadsPermute{m_dheads3.f(), m_dqkv.f(), B, S, 3, H, dh, false});
    return m_dqkv.f();
}

}  // namespace wt::kernels
