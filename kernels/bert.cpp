// Layers of the bert and groupbert workloads and the blocked-ELL sparse weight. Compiled by
// nvcc in CUDA builds (see launch.h): the functors of bertops.h then run as CUDA kernels.
#include "kernels/bert.h"

#include "kernels/bertops.h"
#include "kernels/launch.h"
#include "kernels/opsmath.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace wt::kernels {

namespace {

void layerNorm(Runtime& rt, const float* x, const Param& g, const Param& b, float* y, float* mean, float* rstd,
               int64_t T, int64_t d)
{
    rowOp(rt, ew("layernorm_forward", double(T * d), 8, 1, 1), {{"T", T}, {"C", d}}, T,
          fn::LayerNormForward{x, g.w.f(), b.w.f(), y, mean, rstd, d});
}
void layerNormBackward(Runtime& rt, const float* x, const float* dy, Param& g, Param& b, const float* mean,
                       const float* rstd, float* dx, int64_t T, int64_t d, bool accumulate)
{
    rowOp(rt, ew("layernorm_backward", double(T * d), 12, accumulate ? 3 : 2, 1), {{"T", T}, {"C", d}}, T,
          fn::LayerNormBackward{x, g.w.f(), dy, mean, rstd, dx, d, accumulate});
    colReduce(rt, ew("layernorm_param_grad", double(T * d), 5, 2, 0), {{"T", T}, {"C", d}}, d, T,
              fn::LayerNormParamGrad{x, dy, mean, rstd, g.g.f(), b.g.f(), T, d});
}

// Runs f(i), i in [0, n), inside an already open launch bracket: a CUDA kernel on the device,
// a loop on the CPU.
template <class F>
void runFunctor(Runtime& rt, const char* name, int64_t n, F f)
{
    if (n <= 0)
        return;
#if defined(__CUDACC__)
    if (rt.onDevice()) {
        int64_t blocks = (n + 255) / 256;
        if (blocks > 65535 * 8)
            blocks = 65535 * 8;
        forEachKernel<<<unsigned(blocks), 256, 0, static_cast<cudaStream_t>(rt.backend().stream())>>>(f, n);
        throwIfCudaError(cudaGetLastError(), name);
        return;
    }
#else
    (void)rt;
    (void)name;
#endif
    for (int64_t i = 0; i < n; ++i)
        f(i);
}

}  // namespace

// --- embedding ------------------------------------------------------------------------------
BertEmbedding::BertEmbedding(int64_t vocab, int64_t d, int64_t maxSeq) : Embedding(vocab, d)
{
    addParam("position", {maxSeq, d}, Param::Init::Uniform, 1.f / std::sqrt(float(d)));   // 1
    addParam("ln.weight", {d}, Param::Init::One, 0);                                       // 2
    addParam("ln.bias", {d}, Param::Init::Zero, 0);                                        // 3
}

const float* BertEmbedding::forward(Runtime& rt, const int32_t* tokens, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d;
    m_T = T;
    m_tokens = tokens;
    rt.ensure(m_sum, size_t(T * d) * 4);
    rt.ensure(m_y, size_t(T * d) * 4);
    rt.ensure(m_mean, size_t(T) * 4);
    rt.ensure(m_rstd, size_t(T) * 4);
    {
        Scope sc(rt, "lookup", ScopeLevel::Op);
        forEach(rt, ew("embedding_position_forward", double(T * d), 1, 2, 1), {{"T", T}, {"d", d}}, T * d,
                fn::EmbedPosForward{tokens, table().w.f(), m_params[1]->w.f(), m_sum.f(), d, s.seq});
    }
    Scope sc(rt, "norm", ScopeLevel::Op);
    layerNorm(rt, m_sum.f(), *m_params[2], *m_params[3], m_y.f(), m_mean.f(), m_rstd.f(), T, d);
    return m_y.f();
}

void BertEmbedding::backward(Runtime& rt, const float* dOut, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d;
    rt.ensure(m_dsum, size_t(T * d) * 4);
    {
        Scope sc(rt, "norm", ScopeLevel::Op);
        layerNormBackward(rt, m_sum.f(), dOut, *m_params[2], *m_params[3], m_mean.f(), m_rstd.f(), m_dsum.f(), T, d,
                          false);
    }
    Scope sc(rt, "lookup", ScopeLevel::Op);
    forEach(rt, ew("position_grad", double(T * d), 1, 1, 1.0 / double(s.batch)), {{"S", s.seq}, {"d", d}}, s.seq * d,
            fn::PosGrad{m_dsum.f(), m_params[1]->g.f(), d, s.seq, s.batch});
    m_dOut = m_dsum.f();   // the table's sparse rows: scattered by update()
}

void BertEmbedding::gradNorm(Runtime& rt, float* normSq)
{
    // The table's sparse rows (Embedding::gradNorm's) and the dense parameters in one launch.
    std::vector<std::pair<const float*, int64_t>> grads = {{m_dOut, m_T * m_d}};
    for (size_t i = 1; i < m_params.size(); ++i)
        grads.emplace_back(m_params[i]->g.f(), m_params[i]->numel());
    op::gradNormSq(rt, grads, normSq);
}

void BertEmbedding::update(Runtime& rt, const UpdateRule& r)
{
    Embedding::update(rt, r);
    const bool mom = r.momentum > 0;
    for (size_t i = 1; i < m_params.size(); ++i) {
        Param& p = *m_params[i];
        forEach(rt, ew("sgd_update", double(p.numel()), mom ? 6 : 2, mom ? 3 : 2, mom ? 2 : 1), {{"n", p.numel()}},
                p.numel(), fn::Sgd{p.w.f(), p.g.f(), mom ? p.v.f() : nullptr, r.lr, r.momentum, r.normSq, r.clip});
    }
}

// --- block-sparse weight --------------------------------------------------------------------
BlockSparseWeight::BlockSparseWeight(int64_t out, int64_t in, int64_t block, double density, double pruneFraction)
    : m_out(out), m_in(in), m_B(block)
{
    if (block <= 0 || out % block || in % block)
        throw std::invalid_argument("block=" + std::to_string(block) + " does not divide the weight's sizes " +
                                    std::to_string(out) + " x " + std::to_string(in));
    m_nbr = out / block;
    m_nbc = in / block;
    m_K = std::clamp<int64_t>(std::llround(density * double(m_nbc)), 1, m_nbc);
    m_P = std::min<int64_t>(std::llround(pruneFraction * double(m_K)), m_K);
    if (pruneFraction > 0 && m_P == 0 && m_K < m_nbc)
        m_P = 1;   // a prune step always changes something when there is room
    if (m_K == m_nbc)
        m_P = 0;   // nothing to regrow into
    m_col.resize(size_t(m_nbr * m_K));
    m_index.resize(size_t(2 * m_nbr * m_K + m_nbc + 1 + m_nbr * m_P));
    m_normsHost.resize(size_t(m_nbr * m_K));
}

void BlockSparseWeight::buildIndex()
{
    std::copy(m_col.begin(), m_col.end(), m_index.begin());
    int32_t* start = m_index.data() + m_nbr * m_K;
    int32_t* slot = start + m_nbc + 1;
    std::fill(start, start + m_nbc + 1, 0);
    for (int32_t c : m_col)
        start[c + 1]++;
    for (int64_t c = 0; c < m_nbc; ++c)
        start[c + 1] += start[c];
    std::vector<int32_t> fill(start, start + m_nbc);
    for (int64_t s = 0; s < m_nbr * m_K; ++s)
        slot[fill[size_t(m_col[size_t(s)])]++] = int32_t(s);
}

void BlockSparseWeight::allocate(Runtime& rt, uint64_t seed)
{
    m_rng.seed(seed);
    std::vector<int32_t> all(static_cast<size_t>(m_nbc), 0);
    std::iota(all.begin(), all.end(), 0);
    for (int64_t rb = 0; rb < m_nbr; ++rb) {   // K distinct block columns per block row
        for (int64_t k = 0; k < m_K; ++k) {
            std::uniform_int_distribution<int64_t> pick(k, m_nbc - 1);
            std::swap(all[size_t(k)], all[size_t(pick(m_rng))]);
            m_col[size_t(rb * m_K + k)] = all[size_t(k)];
        }
    }
    buildIndex();
    rt.ensure(m_indexDev, m_index.size() * 4);
    rt.ensure(m_norms, m_normsHost.size() * 4);
    if (!rt.dry())
        rt.backend().upload(m_indexDev.i(), m_index.data(), m_index.size() * 4);
}

std::vector<float> BlockSparseWeight::dense(const float* v) const
{
    std::vector<float> w(size_t(m_out * m_in), 0.f);
    for (int64_t o = 0; o < m_out; ++o)
        for (int64_t k = 0; k < m_K; ++k)
            for (int64_t j = 0; j < m_B; ++j)
                w[size_t(o * m_in + m_col[size_t((o / m_B) * m_K + k)] * m_B + j)] = v[o * m_K * m_B + k * m_B + j];
    return w;
}

void BlockSparseWeight::forward(Runtime& rt, const float* x, int64_t T, const Param& values, float* y)
{
    const int64_t KB = m_K * m_B, nnz = m_out * KB;
    if (!rt.onDevice())
        rt.ensure(m_panel, size_t(T * KB) * 4);
    const double rd = 4.0 * double(T * m_nbr * KB + nnz), wr = 4.0 * double(T * m_out);
    OpLaunch L{"block_sparse_forward", 2.0 * double(T * nnz), rd + wr, rd, wr};
    if (rt.begin(L, {{"T", T}, {"in", m_in}, {"out", m_out}, {"B", m_B}, {"K", m_K}})) {
        const int32_t* col = m_indexDev.i();
        if (rt.onDevice()) {
            runFunctor(rt, "block_sparse_forward", T * m_out, fn::BsrForward{x, values.w.f(), col, y, m_in, m_out, m_B, m_K});
        } else {
            // One GEMM per block row over the gathered input columns of its K blocks.
            float* panel = m_panel.f();
            for (int64_t rb = 0; rb < m_nbr; ++rb) {
                for (int64_t t = 0; t < T; ++t)
                    for (int64_t k = 0; k < m_K; ++k)
                        std::copy_n(x + t * m_in + int64_t(m_col[size_t(rb * m_K + k)]) * m_B, m_B,
                                    panel + t * KB + k * m_B);
                rt.backend().gemm(false, true, int(T), int(m_B), int(KB), 1.f, panel, int(KB),
                                  values.w.f() + rb * m_B * KB, int(KB), 0.f, y + rb * m_B, int(m_out));
            }
        }
    }
    rt.end();
}

void BlockSparseWeight::backward(Runtime& rt, const float* x, const float* dy, int64_t T, Param& values, float* dx)
{
    const int64_t KB = m_K * m_B, nnz = m_out * KB;
    if (!rt.onDevice()) {
        rt.ensure(m_panel, size_t(T * KB) * 4);
        rt.ensure(m_dpanel, size_t(T * KB) * 4);
    }
    const int32_t* col = m_indexDev.i();
    const int32_t* colStart = col ? col + m_nbr * m_K : nullptr;
    const int32_t* colSlot = col ? colStart + m_nbc + 1 : nullptr;
    {
        const double rd = 4.0 * double(T * m_out + nnz), wr = 4.0 * double(T * m_in);
        OpLaunch L{"block_sparse_backward_data", 2.0 * double(T * nnz), rd + wr, rd, wr};
        if (rt.begin(L, {{"T", T}, {"in", m_in}, {"out", m_out}, {"B", m_B}, {"K", m_K}})) {
            if (rt.onDevice()) {
                runFunctor(rt, "block_sparse_backward_data", T * m_in,
                           fn::BsrBackwardData{dy, values.w.f(), colStart, colSlot, dx, m_in, m_out, m_B, m_K});
            } else {
                std::fill_n(dx, T * m_in, 0.f);
                float* dp = m_dpanel.f();
                for (int64_t rb = 0; rb < m_nbr; ++rb) {
                    rt.backend().gemm(false, false, int(T), int(KB), int(m_B), 1.f, dy + rb * m_B, int(m_out),
                                      values.w.f() + rb * m_B * KB, int(KB), 0.f, dp, int(KB));
                    for (int64_t t = 0; t < T; ++t)
                        for (int64_t k = 0; k < m_K; ++k) {
                            float* dst = dx + t * m_in + int64_t(m_col[size_t(rb * m_K + k)]) * m_B;
                            const float* src = dp + t * KB + k * m_B;
                            for (int64_t j = 0; j < m_B; ++j)
                                dst[j] += src[j];
                        }
                }
            }
        }
        rt.end();
    }
    const double rd = 4.0 * double(T * m_out + T * m_nbr * KB), wr = 4.0 * double(nnz);
    OpLaunch L{"block_sparse_backward_weight", 2.0 * double(T * nnz), rd + wr, rd, wr};
    if (rt.begin(L, {{"T", T}, {"in", m_in}, {"out", m_out}, {"B", m_B}, {"K", m_K}})) {
        if (rt.onDevice()) {
            runFunctor(rt, "block_sparse_backward_weight", nnz,
                       fn::BsrBackwardWeight{dy, x, col, values.g.f(), T, m_in, m_out, m_B, m_K});
        } else {
            float* panel = m_panel.f();
            for (int64_t rb = 0; rb < m_nbr; ++rb) {
                for (int64_t t = 0; t < T; ++t)
                    for (int64_t k = 0; k < m_K; ++k)
                        std::copy_n(x + t * m_in + int64_t(m_col[size_t(rb * m_K + k)]) * m_B, m_B,
                                    panel + t * KB + k * m_B);
                rt.backend().gemm(true, false, int(m_B), int(KB), int(T), 1.f, dy + rb * m_B, int(m_out), panel,
                                  int(KB), 0.f, values.g.f() + rb * m_B * KB, int(KB));
            }
        }
    }
    rt.end();
}

void BlockSparseWeight::pruneRegrow(Runtime& rt, Param& values)
{
    if (m_P == 0)
        return;
    const int64_t slots = m_nbr * m_K, B = m_B;
    forEach(rt, ew("block_magnitude", double(slots * B * B), 1, 1, 1.0 / double(B * B)), {{"blocks", slots}, {"B", B}},
            slots, fn::BlockMagnitude{values.w.f(), m_norms.f(), B, m_K});
    rt.download("memcpy_dtoh_block_norms", m_normsHost.data(), m_norms.f(), size_t(slots) * 4);
    if (!rt.dry() && !rt.sizing()) {
        // Per block row: drop the m_P smallest blocks, regrow m_P at random columns that hold
        // no block (the just-pruned ones excluded while there are others), zero-initialised.
        int32_t* regrown = m_index.data() + 2 * slots + m_nbc + 1;
        std::vector<int64_t> order(static_cast<size_t>(m_K), 0);
        std::vector<char> used(static_cast<size_t>(m_nbc), 0);
        std::vector<int32_t> freeCols;
        for (int64_t rb = 0; rb < m_nbr; ++rb) {
            const float* nr = m_normsHost.data() + rb * m_K;
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return nr[a] < nr[b]; });
            std::fill(used.begin(), used.end(), 0);
            for (int64_t k = 0; k < m_K; ++k)
                used[size_t(m_col[size_t(rb * m_K + k)])] = 1;
            freeCols.clear();
            for (int64_t c = 0; c < m_nbc; ++c)
                if (!used[size_t(c)])
                    freeCols.push_back(int32_t(c));
            if (int64_t(freeCols.size()) < m_P)   // too dense to avoid them: the pruned columns may return (as zeros)
                for (int64_t q = 0; q < m_P; ++q)
                    freeCols.push_back(m_col[size_t(rb * m_K + order[size_t(q)])]);
            for (int64_t q = 0; q < m_P; ++q) {
                std::uniform_int_distribution<int64_t> pick(q, int64_t(freeCols.size()) - 1);
                std::swap(freeCols[size_t(q)], freeCols[size_t(pick(m_rng))]);
                const int64_t slot = rb * m_K + order[size_t(q)];
                m_col[size_t(slot)] = freeCols[size_t(q)];
                regrown[rb * m_P + q] = int32_t(slot);
            }
        }
        buildIndex();
    }
    rt.upload("memcpy_htod_block_index", m_indexDev.i(), m_index.data(), m_index.size() * 4);
    const int32_t* regrownDev = m_indexDev.i() ? m_indexDev.i() + 2 * slots + m_nbc + 1 : nullptr;
    forEach(rt, ew("block_regrow_zero", double(m_nbr * m_P * B * B), 0, 0, 2), {{"blocks", m_nbr * m_P}, {"B", B}},
            m_nbr * m_P * B * B, fn::ZeroSlots{values.w.f(), values.v.f(), regrownDev, B, m_K});
}

// --- encoder layer --------------------------------------------------------------------------
struct EncoderLayer::Module {
    std::string scope;
    Param* lnW = nullptr;
    Param* lnB = nullptr;
    const float* x = nullptr;   // module input
    const float* a = nullptr;   // body input (LN(x) pre-norm, x post-norm)
    Buffer ln, mean, rstd, h, out, dh, dx;
};

EncoderLayer::EncoderLayer(std::string name, int64_t d, int64_t heads, int64_t ffn, const EncoderOptions& o)
    : Block(std::move(name)), m_d(d), m_ffn(ffn), m_o(o), m_attention(d, heads, AttentionMask::None)
{
    const bool sparse = o.density < 1.0;
    auto addModule = [&](const std::string& scope, const std::string& ln) {
        auto m = std::make_unique<Module>();
        m->scope = scope;
        m->lnW = &addParam(ln + ".weight", {d}, Param::Init::One, 0);
        m->lnB = &addParam(ln + ".bias", {d}, Param::Init::Zero, 0);
        m_modules.push_back(std::move(m));
    };
    if (o.groupbert) {
        addModule("conv_module", "conv_ln");
        const int64_t G = o.convGroups > 0 ? o.convGroups : d;
        if (d % G)
            throw std::invalid_argument("conv_groups=" + std::to_string(G) + " does not divide hidden=" + std::to_string(d));
        m_convCg = d / G;
        m_pw1 = makeLin("conv_pointwise_in", d, 2 * d, 1, false);
        m_convW = &addParam("conv.weight", {d, o.convKernel, m_convCg}, Param::Init::Uniform,
                            1.f / std::sqrt(float(o.convKernel * m_convCg)));
        m_convB = &addParam("conv.bias", {d}, Param::Init::Zero, 0);
        m_convLnW = &addParam("conv_norm.weight", {d}, Param::Init::One, 0);
        m_convLnB = &addParam("conv_norm.bias", {d}, Param::Init::Zero, 0);
        m_pw2 = makeLin("conv_pointwise_out", d, d, 1, false);
    }
    addModule("attention", "attn_ln");
    m_qkv = makeLin("qkv", d, 3 * d, 1, sparse && o.sparseAttention);
    m_outp = makeLin("out", d, d, 1, sparse && o.sparseAttention);
    addModule(o.groupbert ? "grouped_ffn" : "ffn", "ffn_ln");
    const int64_t G = o.groupbert ? o.groups : 1;
    if (d % G || ffn % G)
        throw std::invalid_argument("groups=" + std::to_string(G) + " does not divide hidden and ffn");
    m_up = makeLin("ffn_up", d, ffn, G, sparse);
    m_down = makeLin("ffn_down", ffn, d, G, sparse);
}

EncoderLayer::~EncoderLayer() = default;

EncoderLayer::Lin EncoderLayer::makeLin(const std::string& name, int64_t in, int64_t out, int64_t groups, bool sparse)
{
    Lin l;
    l.in = in;
    l.out = out;
    l.groups = groups;
    if (sparse) {
        l.sparse = std::make_unique<BlockSparseWeight>(out, in, m_o.block, m_o.density, m_o.pruneFraction);
        const int64_t KB = l.sparse->blocksPerRow() * m_o.block;
        l.w = &addParam(name + ".weight", {out, KB}, Param::Init::Uniform, 1.f / std::sqrt(float(KB)));
    } else {
        l.w = &addParam(name + ".weight", {out, in / groups}, Param::Init::Uniform, 1.f / std::sqrt(float(in / groups)));
    }
    l.b = &addParam(name + ".bias", {out}, Param::Init::Zero, 0);
    return l;
}

void EncoderLayer::allocate(Runtime& rt, uint64_t seed)
{
    Layer::allocate(rt, seed);
    uint64_t k = 1;
    for (Lin* l : {&m_qkv, &m_outp, &m_up, &m_down})
        if (l->sparse)
            l->sparse->allocate(rt, fn::splitmix(seed ^ std::hash<std::string>{}(l->w->name)) + k++);
}

namespace {
void linForward(Runtime& rt, const EncoderLayer::Lin& l, const float* x, int64_t T, float* y)
{
    if (l.sparse) {
        l.sparse->forward(rt, x, T, *l.w, y);
    } else if (l.groups > 1) {
        const int64_t G = l.groups, ig = l.in / G, og = l.out / G;
        rt.gemmBatched("sgemm_batched_nt", false, true, int(T), int(og), int(ig), 1.f, x, int(l.in), ig, l.w->w.f(),
                       int(ig), og * ig, 0.f, y, int(l.out), og, int(G));
    } else {
        rt.gemm("sgemm_nt", false, true, int(T), int(l.out), int(l.in), 1.f, x, int(l.in), l.w->w.f(), int(l.in), 0.f,
                y, int(l.out));
    }
    forEach(rt, ew("bias_add", double(T * l.out), 1, 1, 1), {{"rows", T}, {"cols", l.out}}, T * l.out,
            fn::BiasAdd{y, l.b->w.f(), l.out});
}
void linBackward(Runtime& rt, const EncoderLayer::Lin& l, const float* x, const float* dy, int64_t T, float* dx)
{
    if (l.sparse) {
        l.sparse->backward(rt, x, dy, T, *l.w, dx);
    } else if (l.groups > 1) {
        const int64_t G = l.groups, ig = l.in / G, og = l.out / G;
        rt.gemmBatched("sgemm_batched_nn", false, false, int(T), int(ig), int(og), 1.f, dy, int(l.out), og,
                       l.w->w.f(), int(ig), og * ig, 0.f, dx, int(l.in), ig, int(G));
        rt.gemmBatched("sgemm_batched_tn", true, false, int(og), int(ig), int(T), 1.f, dy, int(l.out), og, x,
                       int(l.in), ig, 0.f, l.w->g.f(), int(ig), og * ig, int(G));
    } else {
        rt.gemm("sgemm_nn", false, false, int(T), int(l.in), int(l.out), 1.f, dy, int(l.out), l.w->w.f(), int(l.in),
                0.f, dx, int(l.in));
        rt.gemm("sgemm_tn", true, false, int(l.out), int(l.in), int(T), 1.f, dy, int(l.out), x, int(l.in), 0.f,
                l.w->g.f(), int(l.in));
    }
    colReduce(rt, ew("bias_grad", double(T * l.out), 1, 1, 0), {{"rows", T}, {"cols", l.out}}, l.out, T,
              fn::ColumnSum{dy, l.b->g.f(), T, l.out});
}
}  // namespace

// A residual module: a = pre ? LN(x) : x; h = x + body(a); out = pre ? h : LN(h).
const float* EncoderLayer::moduleForward(Runtime& rt, Module& m, const float* x, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d;
    m.x = x;
    for (Buffer* b : {&m.ln, &m.h, &m.out})
        rt.ensure(*b, size_t(T * d) * 4);
    rt.ensure(m.mean, size_t(T) * 4);
    rt.ensure(m.rstd, size_t(T) * 4);
    Scope sc(rt, m.scope, ScopeLevel::Op);
    m.a = x;
    if (m_o.preNorm) {
        layerNorm(rt, x, *m.lnW, *m.lnB, m.ln.f(), m.mean.f(), m.rstd.f(), T, d);
        m.a = m.ln.f();
    }
    size_t idx = 0;
    while (m_modules[idx].get() != &m)
        ++idx;
    const int kind = int(idx) + (m_o.groupbert ? 0 : 1);   // 0 conv, 1 attention, 2 ffn
    const float* body = bodyForward(rt, kind, m.a, s);
    forEach(rt, ew("residual_add", double(T * d), 1, 2, 1), {{"n", T * d}}, T * d, fn::Add{x, body, m.h.f()});
    if (m_o.preNorm)
        return m.h.f();
    layerNorm(rt, m.h.f(), *m.lnW, *m.lnB, m.out.f(), m.mean.f(), m.rstd.f(), T, d);
    return m.out.f();
}

const float* EncoderLayer::moduleBackward(Runtime& rt, Module& m, const float* dy, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d;
    rt.ensure(m.dh, size_t(T * d) * 4);
    rt.ensure(m.dx, size_t(T * d) * 4);
    Scope sc(rt, m.scope, ScopeLevel::Op);
    const float* dh = dy;
    if (!m_o.preNorm) {
        layerNormBackward(rt, m.h.f(), dy, *m.lnW, *m.lnB, m.mean.f(), m.rstd.f(), m.dh.f(), T, d, false);
        dh = m.dh.f();
    }
    size_t idx = 0;
    while (m_modules[idx].get() != &m)
        ++idx;
    const int kind = int(idx) + (m_o.groupbert ? 0 : 1);
    const float* da = bodyBackward(rt, kind, dh, s);
    if (m_o.preNorm) {
        forEach(rt, ew("residual_backward", double(T * d), 0, 1, 1), {{"n", T * d}}, T * d, fn::Copy{dh, m.dx.f()});
        layerNormBackward(rt, m.x, da, *m.lnW, *m.lnB, m.mean.f(), m.rstd.f(), m.dx.f(), T, d, true);
    } else {
        forEach(rt, ew("residual_backward", double(T * d), 1, 2, 1), {{"n", T * d}}, T * d, fn::Add{dh, da, m.dx.f()});
    }
    return m.dx.f();
}

const float* EncoderLayer::forward(Runtime& rt, const float* x, const StepShape& s)
{
    for (auto& m : m_modules)
        x = moduleForward(rt, *m, x, s);
    return x;
}

const float* EncoderLayer::backward(Runtime& rt, const float* dy, const StepShape& s)
{
    for (size_t i = m_modules.size(); i-- > 0;)
        dy = moduleBackward(rt, *m_modules[i], dy, s);
    return dy;
}

const float* EncoderLayer::bodyForward(Runtime& rt, int kind, const float* a, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d;
    if (kind == 0) {   // conv module: pointwise d -> 2d, GLU, grouped conv, LN, GELU, pointwise d -> d
        const int64_t K = m_o.convKernel, Cg = m_convCg;
        rt.ensure(m_pw1Buf, size_t(T * 2 * d) * 4);
        for (Buffer* b : {&m_glu, &m_conv, &m_convN, &m_convAct, &m_pw2Buf})
            rt.ensure(*b, size_t(T * d) * 4);
        rt.ensure(m_convMean, size_t(T) * 4);
        rt.ensure(m_convRstd, size_t(T) * 4);
        linForward(rt, m_pw1, a, T, m_pw1Buf.f());
        forEach(rt, ew("glu_forward", double(T * d), 6, 2, 1), {{"T", T}, {"C", d}}, T * d,
                fn::GluForward{m_pw1Buf.f(), m_glu.f(), d});
        forEach(rt, {"grouped_conv_forward", 2.0 * double(T * d * K * Cg), 4.0 * double(2 * T * d + d * K * Cg),
                     4.0 * double(T * d + d * K * Cg), 4.0 * double(T * d)},
                {{"T", T}, {"C", d}, {"K", K}, {"Cg", Cg}}, T * d,
                fn::GroupConvForward{m_glu.f(), m_convW->w.f(), m_convB->w.f(), m_conv.f(), s.seq, d, K, Cg});
        layerNorm(rt, m_conv.f(), *m_convLnW, *m_convLnB, m_convN.f(), m_convMean.f(), m_convRstd.f(), T, d);
        forEach(rt, ew("gelu_forward", double(T * d), 12, 1, 1), {{"n", T * d}}, T * d,
                fn::GeluForward{m_convN.f(), m_convAct.f()});
        linForward(rt, m_pw2, m_convAct.f(), T, m_pw2Buf.f());
        return m_pw2Buf.f();
    }
    if (kind == 1) {   // bidirectional multi-head attention
        rt.ensure(m_qkvBuf, size_t(T * 3 * d) * 4);
        rt.ensure(m_attn, size_t(T * d) * 4);
        linForward(rt, m_qkv, a, T, m_qkvBuf.f());
        linForward(rt, m_outp, m_attention.forward(rt, m_qkvBuf.f(), s), T, m_attn.f());
        return m_attn.f();
    }
    // feed-forward (grouped in GroupBERT, block-sparse below density 1)
    const int64_t f = m_ffn;
    rt.ensure(m_upBuf, size_t(T * f) * 4);
    rt.ensure(m_act, size_t(T * f) * 4);
    rt.ensure(m_downBuf, size_t(T * d) * 4);
    linForward(rt, m_up, a, T, m_upBuf.f());
    forEach(rt, ew("gelu_forward", double(T * f), 12, 1, 1), {{"n", T * f}}, T * f, fn::GeluForward{m_upBuf.f(), m_act.f()});
    linForward(rt, m_down, m_act.f(), T, m_downBuf.f());
    return m_downBuf.f();
}

const float* EncoderLayer::bodyBackward(Runtime& rt, int kind, const float* dm, const StepShape& s)
{
    const int64_t T = s.tokens(), d = m_d;
    const float* a = m_modules[size_t(kind - (m_o.groupbert ? 0 : 1))]->a;
    if (kind == 0) {
        const int64_t K = m_o.convKernel, Cg = m_convCg;
        rt.ensure(m_dpw1, size_t(T * 2 * d) * 4);
        for (Buffer* b : {&m_dglu, &m_dconv, &m_dconvN, &m_dconvAct, &m_dcin})
            rt.ensure(*b, size_t(T * d) * 4);
        linBackward(rt, m_pw2, m_convAct.f(), dm, T, m_dconvAct.f());
        forEach(rt, ew("gelu_backward", double(T * d), 16, 2, 1), {{"n", T * d}}, T * d,
                fn::GeluBackward{m_convN.f(), m_dconvAct.f(), m_dconvN.f()});
        layerNormBackward(rt, m_conv.f(), m_dconvN.f(), *m_convLnW, *m_convLnB, m_convMean.f(), m_convRstd.f(),
                          m_dconv.f(), T, d, false);
        forEach(rt, {"grouped_conv_backward_data", 2.0 * double(T * d * K * Cg), 4.0 * double(2 * T * d + d * K * Cg),
                     4.0 * double(T * d + d * K * Cg), 4.0 * double(T * d)},
                {{"T", T}, {"C", d}, {"K", K}, {"Cg", Cg}}, T * d,
                fn::GroupConvBackwardData{m_dconv.f(), m_convW->w.f(), m_dglu.f(), s.seq, d, K, Cg});
        forEach(rt, {"grouped_conv_backward_weight", 2.0 * double(T * d * K * Cg), 4.0 * double(2 * T * d + d * K * Cg),
                     4.0 * double(2 * T * d), 4.0 * double(d * K * Cg)},
                {{"T", T}, {"C", d}, {"K", K}, {"Cg", Cg}}, d * K * Cg,
                fn::GroupConvBackwardWeight{m_dconv.f(), m_glu.f(), m_convW->g.f(), T, s.seq, d, K, Cg});
        colReduce(rt, ew("bias_grad", double(T * d), 1, 1, 0), {{"rows", T}, {"cols", d}}, d, T,
                  fn::ColumnSum{m_dconv.f(), m_convB->g.f(), T, d});
        forEach(rt, ew("glu_backward", double(T * d), 10, 3, 2), {{"T", T}, {"C", d}}, T * d,
                fn::GluBackward{m_pw1Buf.f(), m_dglu.f(), m_dpw1.f(), d});
        linBackward(rt, m_pw1, a, m_dpw1.f(), T, m_dcin.f());
        return m_dcin.f();
    }
    if (kind == 1) {
        for (Buffer* b : {&m_dctx, &m_dain})
            rt.ensure(*b, size_t(T * d) * 4);
        linBackward(rt, m_outp, m_attention.context(), dm, T, m_dctx.f());
        linBackward(rt, m_qkv, a, m_attention.backward(rt, m_dctx.f(), s), T, m_dain.f());
        return m_dain.f();
    }
    const int64_t f = m_ffn;
    rt.ensure(m_dup, size_t(T * f) * 4);
    rt.ensure(m_dact, size_t(T * f) * 4);
    rt.ensure(m_dfin, size_t(T * d) * 4);
    linBackward(rt, m_down, m_act.f(), dm, T, m_dact.f());
    forEach(rt, ew("gelu_backward", double(T * f), 16, 2, 1), {{"n", T * f}}, T * f,
            fn::GeluBackward{m_upBuf.f(), m_dact.f(), m_dup.f()});
    linBackward(rt, m_up, a, m_dup.f(), T, m_dfin.f());
    return m_dfin.f();
}

void EncoderLayer::pruneRegrow(Runtime& rt)
{
    Scope sc(rt, "prune_regrow", ScopeLevel::Op);
    for (Lin* l : {&m_qkv, &m_outp, &m_up, &m_down})
        if (l->sparse)
            l->sparse->pruneRegrow(rt, *l->w);
}

// --- masked-LM head -------------------------------------------------------------------------
MlmHead::MlmHead(int64_t d, int64_t masked, const Buffer* positions)
    : Block("mlm_head"), m_d(d), m_M(masked), m_positions(positions)
{
    addParam("transform.weight", {d, d}, Param::Init::Uniform, 1.f / std::sqrt(float(d)));   // 0
    addParam("transform.bias", {d}, Param::Init::Zero, 0);                                   // 1
    addParam("ln.weight", {d}, Param::Init::One, 0);                                         // 2
    addParam("ln.bias", {d}, Param::Init::Zero, 0);                                          // 3
}

const float* MlmHead::forward(Runtime& rt, const float* x, const StepShape&)
{
    const int64_t M = m_M, d = m_d;
    for (Buffer* b : {&m_sel, &m_dense, &m_act, &m_y})
        rt.ensure(*b, size_t(M * d) * 4);
    rt.ensure(m_mean, size_t(M) * 4);
    rt.ensure(m_rstd, size_t(M) * 4);
    {
        Scope sc(rt, "gather_masked", ScopeLevel::Op);
        forEach(rt, ew("index_select_masked", double(M * d), 0, 1, 1), {{"rows", M}, {"d", d}}, M * d,
                fn::IndexSelectRows{x, m_positions->i(), m_sel.f(), d});
    }
    Scope sc(rt, "transform", ScopeLevel::Op);
    op::linearForward(rt, m_sel.f(), M, d, *m_params[0], m_params[1].get(), m_dense.f());
    forEach(rt, ew("gelu_forward", double(M * d), 12, 1, 1), {{"n", M * d}}, M * d, fn::GeluForward{m_dense.f(), m_act.f()});
    layerNorm(rt, m_act.f(), *m_params[2], *m_params[3], m_y.f(), m_mean.f(), m_rstd.f(), M, d);
    return m_y.f();
}

const float* MlmHead::backward(Runtime& rt, const float* dy, const StepShape& s)
{
    const int64_t M = m_M, d = m_d, T = s.tokens();
    for (Buffer* b : {&m_dact, &m_ddense, &m_dsel})
        rt.ensure(*b, size_t(M * d) * 4);
    rt.ensure(m_dx, size_t(T * d) * 4);
    {
        Scope sc(rt, "transform", ScopeLevel::Op);
        layerNormBackward(rt, m_act.f(), dy, *m_params[2], *m_params[3], m_mean.f(), m_rstd.f(), m_dact.f(), M, d, false);
        forEach(rt, ew("gelu_backward", double(M * d), 16, 2, 1), {{"n", M * d}}, M * d,
                fn::GeluBackward{m_dense.f(), m_dact.f(), m_ddense.f()});
        op::linearBackward(rt, m_sel.f(), m_ddense.f(), M, d, *m_params[0], m_params[1].get(), m_dsel.f(), false);
    }
    Scope sc(rt, "gather_masked", ScopeLevel::Op);
    rt.zero("memset_grad", m_dx.f(), size_t(T * d) * 4);
    forEach(rt, ew("index_add_masked", double(M * d), 1, 2, 1), {{"rows", M}, {"d", d}}, M * d,
            fn::IndexAddRows{m_dsel.f(), m_positions->i(), m_dx.f(), d});
    return m_dx.f();
}

}  // namespace wt::kernels
