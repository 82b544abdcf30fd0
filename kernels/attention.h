// Multi-head scaled dot-product attention between the two projections, written once for the
// Transformer decoder layer (causal mask) and the BERT encoder layer (no mask): split heads,
// scores = Q K^T, softmax of scores / sqrt(dh) (masked), context = P V, merge heads; backward()
// runs the same in reverse. The caller owns the projections and the op scope around both calls
// (`attention` in both layers): this class opens no scope, so the launches, their names and
// their sizes (op features) are those the two layers issued before it existed.
// Compiled by nvcc in CUDA builds like layers.cpp (see launch.h).
#pragma once

#include "kernels/runtime.h"

#include <cstdint>

namespace wt::kernels {

struct StepShape;   // layers.h

enum class AttentionMask {
    Causal,   // query t sees keys 0..t of its sequence; softmax ops causal_softmax_forward/_backward
    None,     // every key of the sequence visible; ops attention_softmax_forward/_backward
};

class MultiHeadAttention {
public:
    // d: model width, heads: H (dividing d; each head dh = d / H wide).
    MultiHeadAttention(int64_t d, int64_t heads, AttentionMask mask);

    // qkv: [T, 3d] token-major, per token q | k | v, each H heads of dh (the QKV projection's
    // output; read during this call only). Returns the context [T, d] (heads merged), owned and
    // valid until the next forward(); context() gives it again (for the output projection's
    // backward).
    const float* forward(Runtime& rt, const float* qkv, const StepShape& s);
    // After forward() of the same step: dctx [T, d] (the output projection's input gradient)
    // to dqkv [T, 3d], owned, valid until the next backward().
    const float* backward(Runtime& rt, const float* dctx, const StepShape& s);

    const float* context() const { return m_ctx.f(); }
    AttentionMask mask() const { return m_mask; }

private:
    int64_t m_d, m_heads;
    AttentionMask m_mask;
    // forward: q, k, v head-major [3, B, H, S, dh]; scores and probabilities [B, H, S, S];
    // context head-major [B, H, S, dh] and merged [T, d]
    Buffer m_heads3, m_scores, m_probs, m_ctxh, m_ctx;
    // backward: dctx head-major, dP [B, H, S, S], dq | dk | dv head-major, dqkv [T, 3d]
    Buffer m_dctxh, m_dp, m_dheads3, m_dqkv;
};

}  // namespace wt::kernels
