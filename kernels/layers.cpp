// Layers of the gcn and transformer models. Compiled by nvcc in CUDA builds (see launch.h).
#include "kernels/layers.h"

#include "kernels/launch.h"
#include "kernels/opsmath.h"

#include <cmath>

namespace wt::kernels {

int64_t Param::numel() const
{
    int64_t n = 1;
    for (int64_t s : shape)
        n *= s;
    return n;
}

Param& Layer::addParam(std::string name, std::vector<int64_t> shape, Param::Init init, float scale)
{
    auto p = std::make_unique<Param>();
    p->name = m_name + "." + name;
    p->shape = std::move(shape);
    p->init = init;
    p->initScale = scale;
    m_params.push_back(std::move(p));
    return *m_params.back();
}

std::vector<Param*> Layer::params()
{
    std::vector<Param*> out;
    for (auto& p : m_params)
        out.push_back(p.get());
    return out;
}

void Layer::allocate(Runtime& rt, uint64_t seed)
{
    uint64_t k = 0;
    for (auto& p : m_params) {
        size_t bytes = size_t(p->numel()) * sizeof(float);
        rt.ensure(p->w, bytes);
        if (!p->sparseRows) {
            rt.ensure(p->g, bytes);
            rt.ensure(p->v, bytes);   // zero-filled: momentum starts at rest
        }
        // Seeds differ per parameter: the layer name's hash mixed with the model seed.
        uint64_t s = fn::splitmix(seed ^ std::hash<std::string>{}(p->name)) + k++;
        if (p->init == Param::Init::Uniform)
            forEach(rt, ew("init_uniform", double(p->numel()), 4, 0, 1), {{"n", p->numel()}}, p->numel(),
                    fn::InitUniform{p->w.f(), s, p->initScale});
        else if (p->init == Param::Init::One)
            forEach(rt, ew("fill", double(p->numel()), 0, 0, 1), {{"n", p->numel()}}, p->numel(),
                    fn::Fill{p->w.f(), 1.f});
    }
}

void Layer::gradNorm(Runtime& rt, float* normSq)
{
    std::vector<std::pair<const float*, int64_t>> grads;
    for (auto& p : m_params)
        grads.emplace_back(p->g.f(), p->numel());
    op::gradNormSq(rt, grads, normSq);
}

void Layer::update(Runtime& rt, const UpdateRule& r)
{
    const bool mom = r.momentum > 0;
    for (auto& p : m_params)
        forEach(rt, ew("sgd_update", double(p->numel()), mom ? 6 : 2, mom ? 3 : 2, mom ? 2 : 1), {{"n", p->numel()}},
                p->numel(), fn::Sgd{p->w.f(), p->g.f(), mom ? p->v.f() : nullptr, r.lr, r.momentum, r.normSq, r.clip});
}

// --- helpers ----------------------------------------------------------------------------
namespace op {

void linearForward(Runtime& rt, const float* x, int64_t rows, int64_t in, const Param& w, const Param* b, float* y)
{
    int64_t out = w.shape[0];
    rt.gemm("sgemm_nt", false, true, int(rows), int(out), int(in), 1.f, x, int(in), w.w.f(), int(in), 0.f, y,
            int(out));
    if (b)
        forEach(rt, ew("bias_add", double(rows * out), 1, 1, 1), {{"rows", rows}, {"cols", out}}, rows * out,
                fn::BiasAdd{y, b->w.f(), out});
}

void linearBackward(Runtime& rt, const float* x, const float* dy, int64_t rows, int64_t in, Param& w, Param* b,
                    float* dx, bool accumulateDx, const std::function<void()>& afterDx)
{
    int64_t out = w.shape[0];
    rt.gemm("sgemm_nn", false, false, int(rows), int(in), int(out), 1.f, dy, int(out), w.w.f(), int(in),
            accumulateDx ? 1.f : 0.f, dx, int(in));
    if (afterDx)
        afterDx();
    rt.gemm("sgemm_tn", true, false, int(out), int(in), int(rows), 1.f, dy, int(out), x, int(in), 0.f, w.g.f(),
            int(in));
    if (b)
        colReduce(rt, ew("bias_grad", double(rows * out), 1, 1, 0), {{"rows", rows}, {"cols", out}}, out, rows,
                  fn::ColumnSum{dy, b->g.f(), rows, out});
}

void gradNormSq(Runtime& rt, const std::vector<std::pair<const float*, int64_t>>& tensors, float* normSq)
{
    constexpr int kMax = fn::SquareMulti::kMax;
    for (size_t first = 0; first < tensors.size(); first += kMax) {
        fn::SquareMulti f{};
        int64_t n = 0;
        for (size_t i = first; i < tensors.size() && f.count < kMax; ++i) {
            f.x[f.count] = tensors[i].first;
            n += tensors[i].second;
            f.end[f.count++] = n;
        }
        reduceAdd(rt, ew("grad_norm_sq", double(n), 2, 1, 0), {{"n", n}, {"tensors", f.count}}, n, f, normSq);
    }
}

}  // namespace op

// --- embedding --------------------------------------------------------------------------
Embedding::Embedding(int64_t vocab, int64_t d) : Layer("embedding"), m_d(d)
{
    Param& t = addParam("weight", {vocab, d}, Param::Init::Uniform, 1.f / std::sqrt(float(d)));
    t.sparseRows = true;
}

const float* Embedding::forward(Runtime& rt, const int32_t* tokens, const StepShape& s)
{
    m_T = s.tokens();
    m_tokens = tokens;
    rt.ensure(m_out, size_t(m_T * m_d) * 4);
    Scope sc(rt, "lookup", ScopeLevel::Op);
    forEach(rt, ew("embedding_forward", double(m_T * m_d), 0, 1, 1), {{"T", m_T}, {"d", m_d}}, m_T * m_d,
            fn::EmbedForward{tokens, table().w.f(), m_out.f(), m_d});
    return m_out.f();
}

void Embedding::backward(Runtime&, const float* dOut, const StepShape&)
{
    // The gradient of the table is sparse: the rows of dOut at the tokens. It is applied by
    // the scatter in update(), as frameworks do for sparse embeddings.
    m_dOut = dOut;
}

void Embedding::gradNorm(Runtime& rt, float* normSq)
{
    // The sparse gradient counts as its rows (one per token; repeated tokens are not merged).
    op::gradNormSq(rt, {{m_dOut, m_T * m_d}}, normSq);
}

void Embedding::update(Runtime& rt, const UpdateRule& r)
{
    // Sparse rows: plain SGD (a momentum buffer would make every step touch the whole table).
    forEach(rt, ew("embedding_sgd_scatter", double(m_T * m_d), 2, 2, 1), {{"T", m_T}, {"d", m_d}}, m_T * m_d,
            fn::EmbedSgd{m_tokens, m_dOut, table().w.f(), m_d, r.lr, r.normSq, r.clip});
}

// --- gated conv block -------------------------------------------------------------------
GatedConvBlock::GatedConvBlock(std::string name, int64_t d, int64_t k) : Block(std::move(name)), m_d(d), m_k(k)
{
    addParam("weight", {2 * d, k * d}, Param::Init::Uniform, 1.f / std::sqrt(float(k * d)));
    addParam("bias", {2 * d}, Param::Init::Zero, 0);
}

const float* GatedConvBlock::forward(Runtime& rt, const float* x, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d, k = m_k;
    m_x = x;
    rt.ensure(m_col, size_t(T * k * d) * 4);
    rt.ensure(m_h, size_t(T * 2 * d) * 4);
    rt.ensure(m_glu, size_t(T * d) * 4);
    rt.ensure(m_out, size_t(T * d) * 4);
    {
        Scope sc(rt, "conv_gemm", ScopeLevel::Op);
        forEach(rt, ew("im2col", double(T * k * d), 0, 1, 1), {{"T", T}, {"k", k}, {"C", d}}, T * k * d,
                fn::Im2col{x, m_col.f(), s.seq, d, k});
        op::linearForward(rt, m_col.f(), T, k * d, *m_params[0], m_params[1].get(), m_h.f());
    }
    {
        Scope sc(rt, "glu", ScopeLevel::Op);
        forEach(rt, ew("glu_forward", double(T * d), 6, 2, 1), {{"T", T}, {"C", d}}, T * d,
                fn::GluForward{m_h.f(), m_glu.f(), d});
    }
    {
        Scope sc(rt, "residual", ScopeLevel::Op);
        forEach(rt, ew("residual_add", double(T * d), 1, 2, 1), {{"n", T * d}}, T * d,
                fn::Add{x, m_glu.f(), m_out.f()});
    }
    return m_out.f();
}

const float* GatedConvBlock::backward(Runtime& rt, const float* dy, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d, k = m_k;
    rt.ensure(m_dh, size_t(T * 2 * d) * 4);
    rt.ensure(m_dcol, size_t(T * k * d) * 4);
    rt.ensure(m_dx, size_t(T * d) * 4);
    {
        Scope sc(rt, "residual", ScopeLevel::Op);   // identity path of the residual
        forEach(rt, ew("residual_backward", double(T * d), 0, 1, 1), {{"n", T * d}}, T * d, fn::Copy{dy, m_dx.f()});
    }
    {
        Scope sc(rt, "glu", ScopeLevel::Op);
        forEach(rt, ew("glu_backward", double(T * d), 10, 3, 2), {{"T", T}, {"C", d}}, T * d,
                fn::GluBackward{m_h.f(), dy, m_dh.f(), d});
    }
    {
        Scope sc(rt, "conv_gemm", ScopeLevel::Op);
        // col2im right after dcol's product, which leaves its tiles in cache; dW's product after it.
        op::linearBackward(rt, m_col.f(), m_dh.f(), T, k * d, *m_params[0], m_params[1].get(), m_dcol.f(), false, [&] {
            forEach(rt, ew("col2im", double(T * d), double(k), double(k) + 1, 1), {{"T", T}, {"k", k}, {"C", d}}, T * d,
                    fn::Col2im{m_dcol.f(), m_dx.f(), s.seq, d, k, true});
        });
    }
    return m_dx.f();
}

// --- decoder layer ----------------------------------------------------------------------
DecoderLayer::DecoderLayer(std::string name, int64_t d, int64_t heads, int64_t ffn)
    : Block(std::move(name)), m_d(d), m_ffn(ffn), m_attention(d, heads, AttentionMask::Causal)
{
    float sd = 1.f / std::sqrt(float(d)), sf = 1.f / std::sqrt(float(ffn));
    addParam("ln1.weight", {d}, Param::Init::One, 0);            // 0
    addParam("ln1.bias", {d}, Param::Init::Zero, 0);             // 1
    addParam("qkv.weight", {3 * d, d}, Param::Init::Uniform, sd);// 2
    addParam("qkv.bias", {3 * d}, Param::Init::Zero, 0);         // 3
    addParam("out.weight", {d, d}, Param::Init::Uniform, sd);    // 4
    addParam("out.bias", {d}, Param::Init::Zero, 0);             // 5
    addParam("ln2.weight", {d}, Param::Init::One, 0);            // 6
    addParam("ln2.bias", {d}, Param::Init::Zero, 0);             // 7
    addParam("ffn_up.weight", {ffn, d}, Param::Init::Uniform, sd);   // 8
    addParam("ffn_up.bias", {ffn}, Param::Init::Zero, 0);            // 9
    addParam("ffn_down.weight", {d, ffn}, Param::Init::Uniform, sf); // 10
    addParam("ffn_down.bias", {d}, Param::Init::Zero, 0);            // 11
}

namespace {
void layerNorm(Runtime& rt, const float* x, const Param& g, const Param& b, float* y, float* mean, float* rstd,
               int64_t T, int64_t d)
{
    rowOp(rt, ew("layernorm_forward", double(T * d), 8, 1, 1), {{"T", T}, {"C", d}}, T,
          fn::LayerNormForward{x, g.w.f(), b.w.f(), y, mean, rstd, d});
}
void layerNormBackward(Runtime& rt, const float* x, const float* dy, Param& g, Param& b, const float* mean,
                       const float* rstd, float* dx, int64_t T, int64_t d, bool accumulate = true)
{
    rowOp(rt, ew("layernorm_backward", double(T * d), 12, accumulate ? 3 : 2, 1), {{"T", T}, {"C", d}}, T,
          fn::LayerNormBackward{x, g.w.f(), dy, mean, rstd, dx, d, accumulate});
    colReduce(rt, ew("layernorm_param_grad", double(T * d), 5, 2, 0), {{"T", T}, {"C", d}}, d, T,
              fn::LayerNormParamGrad{x, dy, mean, rstd, g.g.f(), b.g.f(), T, d});
}
}  // namespace

LayerNormBlock::LayerNormBlock(std::string name, int64_t d) : Block(std::move(name)), m_d(d)
{
    addParam("weight", {d}, Param::Init::One, 0);
    addParam("bias", {d}, Param::Init::Zero, 0);
}

const float* LayerNormBlock::forward(Runtime& rt, const float* x, const StepShape& s)
{
    const int64_t T = s.tokens();
    m_x = x;
    rt.ensure(m_y, size_t(T * m_d) * 4);
    rt.ensure(m_mean, size_t(T) * 4);
    rt.ensure(m_rstd, size_t(T) * 4);
    Scope sc(rt, "norm", ScopeLevel::Op);
    layerNorm(rt, x, *m_params[0], *m_params[1], m_y.f(), m_mean.f(), m_rstd.f(), T, m_d);
    return m_y.f();
}

const float* LayerNormBlock::backward(Runtime& rt, const float* dy, const StepShape& s)
{
    const int64_t T = s.tokens();
    rt.ensure(m_dx, size_t(T * m_d) * 4);
    Scope sc(rt, "norm", ScopeLevel::Op);
    layerNormBackward(rt, m_x, dy, *m_params[0], *m_params[1], m_mean.f(), m_rstd.f(), m_dx.f(), T, m_d, false);
    return m_dx.f();
}

const float* DecoderLayer::forward(Runtime& rt, const float* x, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d, f = m_ffn;
    auto& P = m_params;
    m_x = x;
    for (Buffer* b : {&m_ln1, &m_attn, &m_h1, &m_ln2, &m_down, &m_out})
        rt.ensure(*b, size_t(T * d) * 4);
    for (Buffer* b : {&m_mean1, &m_rstd1, &m_mean2, &m_rstd2})
        rt.ensure(*b, size_t(T) * 4);
    rt.ensure(m_qkv, size_t(T * 3 * d) * 4);
    rt.ensure(m_up, size_t(T * f) * 4);
    rt.ensure(m_act, size_t(T * f) * 4);
    {
        Scope sc(rt, "ln1", ScopeLevel::Op);
        layerNorm(rt, x, *P[0], *P[1], m_ln1.f(), m_mean1.f(), m_rstd1.f(), T, d);
    }
    {
        Scope sc(rt, "qkv_proj", ScopeLevel::Op);
        op::linearForward(rt, m_ln1.f(), T, d, *P[2], P[3].get(), m_qkv.f());
    }
    const float* ctx;
    {
        Scope sc(rt, "attention", ScopeLevel::Op);
        ctx = m_attention.forward(rt, m_qkv.f(), s);
    }
    {
        Scope sc(rt, "out_proj", ScopeLevel::Op);
        op::linearForward(rt, ctx, T, d, *P[4], P[5].get(), m_attn.f());
    }
    {
        Scope sc(rt, "attn_residual", ScopeLevel::Op);
        forEach(rt, ew("residual_add", double(T * d), 1, 2, 1), {{"n", T * d}}, T * d, fn::Add{x, m_attn.f(), m_h1.f()});
    }
    {
        Scope sc(rt, "ln2", ScopeLevel::Op);
        layerNorm(rt, m_h1.f(), *P[6], *P[7], m_ln2.f(), m_mean2.f(), m_rstd2.f(), T, d);
    }
    {
        Scope sc(rt, "ffn_up", ScopeLevel::Op);
        op::linearForward(rt, m_ln2.f(), T, d, *P[8], P[9].get(), m_up.f());
    }
    {
        Scope sc(rt, "gelu", ScopeLevel::Op);
        forEach(rt, ew("gelu_forward", double(T * f), 12, 1, 1), {{"n", T * f}}, T * f, fn::GeluForward{m_up.f(), m_act.f()});
    }
    {
        Scope sc(rt, "ffn_down", ScopeLevel::Op);
        op::linearForward(rt, m_act.f(), T, f, *P[10], P[11].get(), m_down.f());
    }
    {
        Scope sc(rt, "ffn_residual", ScopeLevel::Op);
        forEach(rt, ew("residual_add", double(T * d), 1, 2, 1), {{"n", T * d}}, T * d,
                fn::Add{m_h1.f(), m_down.f(), m_out.f()});
    }
    return m_out.f();
}

const float* DecoderLayer::backward(Runtime& rt, const float* dy, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d, f = m_ffn;
    auto& P = m_params;
    for (Buffer* b : {&m_dh1, &m_dctx, &m_dx, &m_dln})
        rt.ensure(*b, size_t(T * d) * 4);
    rt.ensure(m_dup, size_t(T * f) * 4);
    rt.ensure(m_dact, size_t(T * f) * 4);
    {
        Scope sc(rt, "ffn_residual", ScopeLevel::Op);
        forEach(rt, ew("residual_backward", double(T * d), 0, 1, 1), {{"n", T * d}}, T * d, fn::Copy{dy, m_dh1.f()});
    }
    {
        Scope sc(rt, "ffn_down", ScopeLevel::Op);
        op::linearBackward(rt, m_act.f(), dy, T, f, *P[10], P[11].get(), m_dact.f(), false);
    }
    {
        Scope sc(rt, "gelu", ScopeLevel::Op);
        forEach(rt, ew("gelu_backward", double(T * f), 16, 2, 1), {{"n", T * f}}, T * f,
                fn::GeluBackward{m_up.f(), m_dact.f(), m_dup.f()});
    }
    {
        Scope sc(rt, "ffn_up", ScopeLevel::Op);
        op::linearBackward(rt, m_ln2.f(), m_dup.f(), T, d, *P[8], P[9].get(), m_dln.f(), false);
    }
    {
        Scope sc(rt, "ln2", ScopeLevel::Op);
        layerNormBackward(rt, m_h1.f(), m_dln.f(), *P[6], *P[7], m_mean2.f(), m_rstd2.f(), m_dh1.f(), T, d);
    }
    {
        Scope sc(rt, "attn_residual", ScopeLevel::Op);
        forEach(rt, ew("residual_backward", double(T * d), 0, 1, 1), {{"n", T * d}}, T * d, fn::Copy{m_dh1.f(), m_dx.f()});
    }
    {
        Scope sc(rt, "out_proj", ScopeLevel::Op);
        op::linearBackward(rt, m_attention.context(), m_dh1.f(), T, d, *P[4], P[5].get(), m_dctx.f(), false);
    }
    const float* dqkv;
    {
        Scope sc(rt, "attention", ScopeLevel::Op);
        dqkv = m_attention.backward(rt, m_dctx.f(), s);
    }
    {
        Scope sc(rt, "qkv_proj", ScopeLevel::Op);
        op::linearBackward(rt, m_ln1.f(), dqkv, T, d, *P[2], P[3].get(), m_dln.f(), false);
    }
    {
        Scope sc(rt, "ln1", ScopeLevel::Op);
        layerNormBackward(rt, m_x, m_dln.f(), *P[0], *P[1], m_mean1.f(), m_rstd1.f(), m_dx.f(), T, d);
    }
    return m_dx.f();
}

}  // namespace wt::kernels
