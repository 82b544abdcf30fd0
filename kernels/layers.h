// The layers of the two models, built on the op runtime. Each layer owns its parameters,
// gradients and activation buffers; forward() returns its output, backward() the gradient of
// its input (buffers owned by the layer). Op scopes (ScopeLevel::Op) are opened inside; the
// model opens the layer scopes.
#pragma once

#include "kernels/attention.h"
#include "kernels/runtime.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace wt::kernels {

struct Param {
    std::string name;               // e.g. "conv1.weight"
    std::vector<int64_t> shape;
    enum class Init { Uniform, Zero, One } init = Init::Uniform;
    float initScale = 0;            // half-width of the uniform init
    Buffer w;                       // values
    Buffer g;                       // gradient (dense; unused for the sparse embedding)
    Buffer v;                       // momentum (dense parameters only)
    bool sparseRows = false;        // embedding: updated by a scatter from the output gradient
    int64_t numel() const;
};

// Sizes shared by the layers of one step.
struct StepShape {
    int64_t batch = 0, seq = 0;     // sequences per step and tokens per sequence
    int64_t tokens() const { return batch * seq; }
};

// How update() changes the parameters: SGD with Nesterov momentum on the gradient scaled by
// global-norm clipping, min(1, clip / ||g||), where ||g||^2 is a device scalar summed by
// gradNorm() over every layer (read by the update kernels: no host sync).
struct UpdateRule {
    float lr = 0;
    float momentum = 0;              // 0: plain SGD
    float clip = 0;                  // largest global gradient norm; 0: no clipping
    const float* normSq = nullptr;   // device scalar ||g||^2 (needed when clip > 0)
};

class Layer {
public:
    explicit Layer(std::string name) : m_name(std::move(name)) {}
    virtual ~Layer() = default;
    const std::string& name() const { return m_name; }
    std::vector<Param*> params();
    // Dynamic sparsity: whether restructure() has work after the update of step `step` (0-based).
    virtual bool restructures(int64_t /*step*/) const { return false; }
    // Changes the layer's structure after the update (prune + regrow), in the layer's scope.
    virtual void restructure(Runtime& /*rt*/) {}
    virtual void allocate(Runtime& rt, uint64_t seed);   // parameters, gradients, momentum, initialized
    // Adds the squared norm of this layer's gradients to the device scalar normSq (one
    // launch for all of them: op::gradNormSq).
    virtual void gradNorm(Runtime& rt, float* normSq);
    // Updates this layer's parameters by `rule` (one launch per parameter).
    virtual void update(Runtime& rt, const UpdateRule& rule);
    void update(Runtime& rt, float lr) { update(rt, UpdateRule{lr}); }   // plain SGD

protected:
    Param& addParam(std::string name, std::vector<int64_t> shape, Param::Init init, float scale);
    std::string m_name;
    std::vector<std::unique_ptr<Param>> m_params;
};

class Embedding : public Layer {
public:
    Embedding(int64_t vocab, int64_t d);
    // tokens: device int32 [T]
    virtual const float* forward(Runtime& rt, const int32_t* tokens, const StepShape& s);
    virtual void backward(Runtime& rt, const float* dOut, const StepShape& s);   // keeps dOut for update
    using Layer::update;
    void gradNorm(Runtime& rt, float* normSq) override;
    void update(Runtime& rt, const UpdateRule& rule) override;
    Param& table() { return *m_params[0]; }
    const float* outputGrad() const { return m_dOut; }

protected:   // BertEmbedding (bert.h) adds positions and a layer norm
    int64_t m_d;
    Buffer m_out;
    const int32_t* m_tokens = nullptr;
    const float* m_dOut = nullptr;
    int64_t m_T = 0;
};

// A block with the same input and output shape [T, d].
class Block : public Layer {
public:
    using Layer::Layer;
    virtual const float* forward(Runtime& rt, const float* x, const StepShape& s) = 0;
    virtual const float* backward(Runtime& rt, const float* dy, const StepShape& s) = 0;
};

// Gated causal convolution block: conv (width k, d -> 2d) via im2col + GEMM, GLU, residual.
class GatedConvBlock : public Block {
public:
    GatedConvBlock(std::string name, int64_t d, int64_t k);
    const float* forward(Runtime& rt, const float* x, const StepShape& s) override;
    const float* backward(Runtime& rt, const float* dy, const StepShape& s) override;

private:
    int64_t m_d, m_k;
    const float* m_x = nullptr;
    Buffer m_col, m_h, m_glu, m_out, m_dh, m_dcol, m_dx, m_dglu;
};

// Layer norm over the width (the pre-norm Transformer's final norm before the softmax layer).
class LayerNormBlock : public Block {
public:
    LayerNormBlock(std::string name, int64_t d);
    const float* forward(Runtime& rt, const float* x, const StepShape& s) override;
    const float* backward(Runtime& rt, const float* dy, const StepShape& s) override;

private:
    int64_t m_d;
    const float* m_x = nullptr;
    Buffer m_y, m_mean, m_rstd, m_dx;
};

// Pre-norm Transformer decoder layer: x + Attn(LN(x)), then h + FFN(LN(h)), GELU in the FFN;
// causal MultiHeadAttention (attention.h) between qkv_proj and out_proj.
class DecoderLayer : public Block {
public:
    DecoderLayer(std::string name, int64_t d, int64_t heads, int64_t ffn);
    const float* forward(Runtime& rt, const float* x, const StepShape& s) override;
    const float* backward(Runtime& rt, const float* dy, const StepShape& s) override;

private:
    int64_t m_d, m_ffn;
    MultiHeadAttention m_attention;
    const float* m_x = nullptr;
    Buffer m_ln1, m_mean1, m_rstd1, m_qkv, m_attn, m_h1;
    Buffer m_ln2, m_mean2, m_rstd2, m_up, m_act, m_down, m_out;
    Buffer m_dh1, m_dctx, m_dx, m_dup, m_dact, m_dln;
};

// Shared helpers of the layers (also used by the softmax layers and the tests).
namespace op {
void linearForward(Runtime& rt, const float* x, int64_t rows, int64_t in, const Param& w, const Param* b, float* y);
// dx = dy W (beta 0 or 1), dW = dy^T x, db = colsum(dy); dx is always computed (null only in dry runs).
// afterDx runs right after the dx product, before dW's: an op that reads dx then finds it in cache
// (the conv's col2im: 5x slower after dW's product had streamed its operands).
void linearBackward(Runtime& rt, const float* x, const float* dy, int64_t rows, int64_t in, Param& w, Param* b,
                    float* dx, bool accumulateDx, const std::function<void()>& afterDx = {});
// normSq += the sum of squares of the tensors (pointer, elements), in one `grad_norm_sq` launch
// per 16 of them: a layer's gradients at once, like a framework's multi-tensor norm (bert's
// encoder layer was 12 launches of 256 to 262,144 floats, each paying the pool's start).
void gradNormSq(Runtime& rt, const std::vector<std::pair<const float*, int64_t>>& tensors, float* normSq);
}  // namespace op

}  // namespace wt::kernels
