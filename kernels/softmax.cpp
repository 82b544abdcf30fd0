// The softmax layers. Compiled by nvcc in CUDA builds (see launch.h).
#include "kernels/softmax.h"

#include "kernels/launch.h"
#include "kernels/opsmath.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wt::kernels {

namespace {

// Framework log-softmax: reads x twice (max/sum, then write), writes y.
void logSoftmax(Runtime& rt, const float* x, float* y, int64_t rows, int64_t n)
{
    rowOp(rt, ew("log_softmax_forward", double(rows * n), 4, 2, 1), {{"rows", rows}, {"cols", n}}, rows,
          fn::LogSoftmaxForward{x, y, n, n, n});
}
void logSoftmaxBackward(Runtime& rt, const float* y, const float* dy, float* dx, int64_t rows, int64_t n)
{
    rowOp(rt, ew("log_softmax_backward", double(rows * n), 4, 3, 1), {{"rows", rows}, {"cols", n}}, rows,
          fn::LogSoftmaxBackward{y, dy, dx, n, n});
}
void fusedLoss(Runtime& rt, float* x, int64_t rows, int64_t n, const int32_t* target, float scale, float* loss,
               const int32_t* lossRow)
{
    rowOp(rt, ew("fused_logsoftmax_loss_grad", double(rows * n), 5, 2, 1), {{"rows", rows}, {"cols", n}}, rows,
          fn::FusedLogSoftmaxLoss{x, n, n, target, scale, loss, lossRow});
}
// NLL / gather backward: zero the gradient, then put g at each row's target column.
void pickBackward(Runtime& rt, float* grad, int64_t rows, int64_t n, const int32_t* col, float g)
{
    rt.zero("memset_grad", grad, size_t(rows * n) * 4);
    forEach(rt, ew("gather_backward_scatter", double(rows), 0, 1, 1), {{"rows", rows}}, rows,
            fn::ScatterPickGrad{grad, n, col, g});
}
void meanLoss(Runtime& rt, const float* v, float* out, int64_t n, float scale)
{
    rowOp(rt, ew("mean_loss", double(n), 1, 1, 0), {{"n", n}}, 1, fn::MeanLoss{v, out, n, scale});
}

// --- full softmax ---------------------------------------------------------------------
class FullSoftmax final : public SoftmaxLayer {
public:
    FullSoftmax(int64_t vocab, int64_t d) : m_vocab(vocab), m_d(d)
    {
        addParam("weight", {vocab, d}, Param::Init::Uniform, 1.f / std::sqrt(float(d)));
    }
    void forward(Runtime& rt, const float* h, const int32_t* targets, const std::vector<int32_t>& hostTargets,
                 float* lossOut) override
    {
        const int64_t N = int64_t(hostTargets.size()), V = m_vocab;
        m_N = N;
        m_h = h;
        m_targets = targets;
        rt.ensure(m_logits, size_t(N * V) * 4);
        rt.ensure(m_logp, size_t(N * V) * 4);
        rt.ensure(m_pick, size_t(N) * 4);
        {
            Scope sc(rt, "logits_gemm", ScopeLevel::Op);
            op::linearForward(rt, h, N, m_d, *m_params[0], nullptr, m_logits.f());
        }
        {
            Scope sc(rt, "log_softmax", ScopeLevel::Op);
            logSoftmax(rt, m_logits.f(), m_logp.f(), N, V);
        }
        {
            Scope sc(rt, "nll_loss", ScopeLevel::Op);
            forEach(rt, ew("gather_forward", double(N), 0, 2, 1), {{"rows", N}}, N,
                    fn::GatherPick{m_logp.f(), V, targets, m_pick.f(), false});
            meanLoss(rt, m_pick.f(), lossOut, N, -1.f / float(N));
        }
    }
    const float* backward(Runtime& rt) override
    {
        const int64_t N = m_N, V = m_vocab;
        rt.ensure(m_dh, size_t(N * m_d) * 4);
        {
            Scope sc(rt, "nll_loss", ScopeLevel::Op);
            pickBackward(rt, m_logits.f(), N, V, m_targets, -1.f / float(N));   // dlogp reuses logits
        }
        {
            Scope sc(rt, "log_softmax", ScopeLevel::Op);
            // dlogp was written over the logits (no longer needed); dlogits replaces it in place.
            logSoftmaxBackward(rt, m_logp.f(), m_logits.f(), m_logits.f(), N, V);
        }
        {
            Scope sc(rt, "logits_gemm", ScopeLevel::Op);
            op::linearBackward(rt, m_h, m_logits.f(), N, m_d, *m_params[0], nullptr, m_dh.f(), false);
        }
        return m_dh.f();
    }

private:
    int64_t m_vocab, m_d, m_N = 0;
    const float* m_h = nullptr;
    const int32_t* m_targets = nullptr;
    Buffer m_logits, m_logp, m_pick, m_dh;
};

// --- adaptive softmax (three execution strategies) --------------------------------------
enum class Mode { Framework, Bucketed, Fused };

// The layer's GEMMs in bfloat16 while it lives (fused_bf16), the runtime's setting restored after.
class Bf16Gemms {
public:
    Bf16Gemms(Runtime& rt, bool on) : m_rt(rt), m_before(rt.bf16Gemms()) { rt.setBf16Gemms(on); }
    ~Bf16Gemms() { m_rt.setBf16Gemms(m_before); }
    Bf16Gemms(const Bf16Gemms&) = delete;
    Bf16Gemms& operator=(const Bf16Gemms&) = delete;

private:
    Runtime& m_rt;
    bool m_before;
};

class AdaptiveSoftmax final : public SoftmaxLayer {
public:
    AdaptiveSoftmax(Mode mode, bool bf16, int64_t vocab, int64_t d, const std::vector<int64_t>& cutoffs)
        : m_mode(mode), m_bf16(bf16), m_vocab(vocab), m_d(d), m_cutoffs(cutoffs)
    {
        const int64_t nc = int64_t(cutoffs.size());
        m_headSize = cutoffs[0] + nc;
        addParam("head.weight", {m_headSize, d}, Param::Init::Uniform, 1.f / std::sqrt(float(d)));
        m_tails.resize(size_t(nc));
        for (int64_t i = 0; i < nc; ++i) {
            Tail& t = m_tails[size_t(i)];
            t.lo = cutoffs[size_t(i)];
            t.hi = i + 1 < nc ? cutoffs[size_t(i) + 1] : vocab;
            t.width = tailWidth(d, size_t(i));
            std::string n = "tail" + std::to_string(i + 1);
            t.name = n;
            addParam(n + ".proj", {t.width, d}, Param::Init::Uniform, 1.f / std::sqrt(float(d)));
            addParam(n + ".out", {t.hi - t.lo, t.width}, Param::Init::Uniform, 1.f / std::sqrt(float(t.width)));
        }
    }

    void forward(Runtime& rt, const float* h, const int32_t* targets, const std::vector<int32_t>& hostTargets,
                 float* lossOut) override
    {
        const int64_t N = int64_t(hostTargets.size()), nc = int64_t(m_tails.size());
        const Bf16Gemms precision(rt, m_bf16);
        m_N = N;
        m_h = h;
        m_targets = targets;
        rt.ensure(m_headLogits, size_t(N * m_headSize) * 4);
        rt.ensure(m_headCol, size_t(N) * 4);
        rt.ensure(m_out, size_t(N) * 4);
        if (m_mode != Mode::Fused)
            rt.ensure(m_headLogp, size_t(N * m_headSize) * 4);
        ensureTailArenas(rt, N);

        if (m_mode == Mode::Framework)
            forwardFrameworkTails(rt, targets, hostTargets);
        else
            bucketTokens(rt, targets, hostTargets);

        {
            Scope sc(rt, "head_gemm", ScopeLevel::Op);
            op::linearForward(rt, h, N, m_d, *m_params[0], nullptr, m_headLogits.f());
        }
        {
            Scope sc(rt, "head_targets", ScopeLevel::Op);
            forEach(rt, ew("adaptive_head_targets", double(N), 0, 1, 1), {{"rows", N}}, N,
                    fn::HeadTargets{targets, m_cutoffsDev.i(), int(nc), m_headCol.i()});
        }
        if (m_mode == Mode::Framework) {
            {
                Scope sc(rt, "head_logsoftmax", ScopeLevel::Op);
                logSoftmax(rt, m_headLogits.f(), m_headLogp.f(), N, m_headSize);
            }
            Scope sc(rt, "head_loss", ScopeLevel::Op);
            forEach(rt, ew("gather_forward", double(N), 1, 3, 1), {{"rows", N}}, N,
                    fn::GatherPick{m_headLogp.f(), m_headSize, m_headCol.i(), m_out.f(), true});
            meanLoss(rt, m_out.f(), lossOut, N, -1.f / float(N));
            return;
        }
        if (m_mode == Mode::Bucketed)
            forwardBucketedTails(rt);
        else
            forwardFusedTails(rt);
        if (m_mode == Mode::Bucketed) {
            {
                Scope sc(rt, "head_logsoftmax", ScopeLevel::Op);
                logSoftmax(rt, m_headLogits.f(), m_headLogp.f(), N, m_headSize);
            }
            Scope sc(rt, "head_loss", ScopeLevel::Op);
            forEach(rt, ew("gather_forward", double(N), 1, 3, 1), {{"rows", N}}, N,
                    fn::GatherPick{m_headLogp.f(), m_headSize, m_headCol.i(), m_out.f(), true});
            meanLoss(rt, m_out.f(), lossOut, N, -1.f / float(N));
            return;
        }
        Scope sc(rt, "head_loss", ScopeLevel::Op);
        fusedLoss(rt, m_headLogits.f(), N, m_headSize, m_headCol.i(), 1.f / float(N), m_out.f(), nullptr);
        meanLoss(rt, m_out.f(), lossOut, N, 1.f / float(N));
    }

    // Parameters, plus the cutoffs as a device constant (uploaded once, outside any step).
    void allocate(Runtime& rt, uint64_t seed) override
    {
        Layer::allocate(rt, seed);
        std::vector<int32_t> c(m_cutoffs.begin(), m_cutoffs.end());
        rt.ensure(m_cutoffsDev, c.size() * 4);
        if (!rt.dry())
            rt.backend().upload(m_cutoffsDev.i(), c.data(), c.size() * 4);
    }

    const float* backward(Runtime& rt) override
    {
        const int64_t N = m_N;
        const float g = -1.f / float(N);
        const Bf16Gemms precision(rt, m_bf16);
        rt.ensure(m_dh, size_t(N * m_d) * 4);
        Param& head = *m_params[0];
        if (m_mode != Mode::Fused) {
            {
                Scope sc(rt, "head_loss", ScopeLevel::Op);   // dlogp of the head reuses m_headLogits
                pickBackward(rt, m_headLogits.f(), N, m_headSize, m_headCol.i(), g);
            }
            Scope sc(rt, "head_logsoftmax", ScopeLevel::Op);
            logSoftmaxBackward(rt, m_headLogp.f(), m_headLogits.f(), m_headLogits.f(), N, m_headSize);
        }
        {
            Scope sc(rt, "head_gemm", ScopeLevel::Op);
            op::linearBackward(rt, m_h, m_headLogits.f(), N, m_d, head, nullptr, m_dh.f(), false);
        }
        for (size_t i = m_tails.size(); i-- > 0;) {
            Tail& t = m_tails[i];
            Param& proj = *m_params[1 + 2 * i];
            Param& out = *m_params[2 + 2 * i];
            const int64_t n = t.count, osz = t.hi - t.lo;
            if (n == 0) {   // no token in this cluster: its weights get no gradient
                Scope sc(rt, t.name + "_out", ScopeLevel::Op);
                rt.zero("memset_grad", out.g.f(), size_t(out.numel()) * 4);
                rt.zero("memset_grad", proj.g.f(), size_t(proj.numel()) * 4);
                continue;
            }
            if (m_mode != Mode::Fused) {
                {
                    Scope sc(rt, t.name + "_loss", ScopeLevel::Op);
                    pickBackward(rt, t.logits, n, osz, t.rel, g);
                }
                Scope sc(rt, t.name + "_logsoftmax", ScopeLevel::Op);
                logSoftmaxBackward(rt, t.logp, t.logits, t.logits, n, osz);
            }
            {
                Scope sc(rt, t.name + "_out", ScopeLevel::Op);
                op::linearBackward(rt, t.proj, t.logits, n, t.width, out, nullptr, t.dproj, false);
            }
            {
                Scope sc(rt, t.name + "_proj", ScopeLevel::Op);
                op::linearBackward(rt, t.x, t.dproj, n, m_d, proj, nullptr, t.dx, false);
            }
            Scope sc(rt, t.name + "_select", ScopeLevel::Op);
            forEach(rt, ew("index_add_rows", double(n * m_d), 1, 2, 1), {{"rows", n}, {"d", m_d}}, n * m_d,
                    fn::IndexAddRows{t.dx, t.rows, m_dh.f(), m_d});
        }
        return m_dh.f();
    }

private:
    struct Tail {
        std::string name;
        int64_t lo = 0, hi = 0, width = 0;
        int64_t count = 0;                  // tokens of this step whose target is in the cluster
        const int32_t* rows = nullptr;      // device: their row indices (count)
        Buffer flag, perm, offsets;         // framework variant: the cluster's mask and compaction
        // This step's slices of the shared tail arenas (null in dry runs).
        int32_t* rel = nullptr;
        float *x = nullptr, *proj = nullptr, *logits = nullptr, *logp = nullptr, *pick = nullptr;
        float *dproj = nullptr, *dx = nullptr;
    };

    // The tails of one step hold sum_i n_i <= N tokens, so arenas sized for N tokens of the
    // widest projection and the largest cluster hold every split of the batch: sized once
    // (before the first step), never grown inside a step, whatever the targets.
    void ensureTailArenas(Runtime& rt, int64_t N)
    {
        int64_t maxOsz = 0, maxWidth = 0;
        for (const Tail& t : m_tails) {
            maxOsz = std::max(maxOsz, t.hi - t.lo);
            maxWidth = std::max(maxWidth, t.width);
        }
        rt.ensure(m_tailRel, size_t(N) * 4);
        rt.ensure(m_tailX, size_t(N * m_d) * 4);
        rt.ensure(m_tailDx, size_t(N * m_d) * 4);
        rt.ensure(m_tailProj, size_t(N * maxWidth) * 4);
        rt.ensure(m_tailDproj, size_t(N * maxWidth) * 4);
        rt.ensure(m_tailLogits, size_t(N * maxOsz) * 4);
        if (m_mode != Mode::Fused) {
            rt.ensure(m_tailLogp, size_t(N * maxOsz) * 4);
            rt.ensure(m_tailPick, size_t(N) * 4);
        }
    }

    // Lays the tails out one after the other in the arenas, by this step's counts.
    void placeTails()
    {
        auto at = [](const Buffer& b, int64_t off) { return b.f() ? b.f() + off : nullptr; };
        int64_t rows = 0, proj = 0, logits = 0;
        for (Tail& t : m_tails) {
            const int64_t n = t.count;
            t.rel = m_tailRel.i() ? m_tailRel.i() + rows : nullptr;
            t.x = at(m_tailX, rows * m_d);
            t.dx = at(m_tailDx, rows * m_d);
            t.pick = at(m_tailPick, rows);
            t.proj = at(m_tailProj, proj);
            t.dproj = at(m_tailDproj, proj);
            t.logits = at(m_tailLogits, logits);
            t.logp = at(m_tailLogp, logits);
            rows += n;
            proj += n * t.width;
            logits += n * (t.hi - t.lo);
        }
    }

    int64_t hostCount(const std::vector<int32_t>& targets, int64_t lo, int64_t hi) const
    {
        int64_t n = 0;
        for (int32_t t : targets)
            n += t >= lo && t < hi;
        return n;
    }

    // Gathers the cluster's rows and runs its two projections.
    void tailGemms(Runtime& rt, Tail& t, size_t i)
    {
        const int64_t n = t.count, osz = t.hi - t.lo;
        {
            Scope sc(rt, t.name + "_select", ScopeLevel::Op);
            forEach(rt, ew("index_select_rows", double(n * m_d), 0, 1, 1), {{"rows", n}, {"d", m_d}}, n * m_d,
                    fn::IndexSelectRows{m_h, t.rows, t.x, m_d});
            forEach(rt, ew("select_targets", double(n), 1, 2, 1), {{"rows", n}}, n,
                    fn::SelectTargets{m_targets, t.rows, int32_t(t.lo), t.rel});
        }
        {
            Scope sc(rt, t.name + "_proj", ScopeLevel::Op);
            op::linearForward(rt, t.x, n, m_d, *m_params[1 + 2 * i], nullptr, t.proj);
        }
        Scope sc(rt, t.name + "_out", ScopeLevel::Op);
        (void)osz;
        op::linearForward(rt, t.proj, n, t.width, *m_params[2 + 2 * i], nullptr, t.logits);
    }

    // Framework tails: per cluster mask, nonzero (sync), select, GEMMs, log-softmax, gather, index_copy.
    void forwardFrameworkTails(Runtime& rt, const int32_t* targets, const std::vector<int32_t>& hostTargets)
    {
        const int64_t N = m_N;
        {
            Scope sc(rt, "output_init", ScopeLevel::Op);
            rt.zero("memset_output", m_out.f(), size_t(N) * 4);
        }
        for (Tail& t : m_tails) {
            rt.ensure(t.flag, size_t(N) * 4);
            rt.ensure(t.perm, size_t(N) * 4);
            rt.ensure(t.offsets, 3 * 4);
            t.count = 0;
        }
        for (size_t i = 0; i < m_tails.size(); ++i) {
            Tail& t = m_tails[i];
            const int64_t osz = t.hi - t.lo;
            {
                Scope sc(rt, t.name + "_mask", ScopeLevel::Op);
                forEach(rt, ew("cluster_mask", double(N), 2, 1, 1), {{"rows", N}}, N,
                        fn::InRange{targets, int32_t(t.lo), int32_t(t.hi), t.flag.i()});
                bucketize(rt, ew("nonzero", double(N), 1, 2, 1), {{"rows", N}}, N, 2, fn::FlagBucket{t.flag.i()},
                          t.perm.i(), t.offsets.i());
                int32_t off[3] = {0, 0, int32_t(N)};
                off[1] = int32_t(N - hostCount(hostTargets, t.lo, t.hi));
                rt.download("memcpy_dtoh_count", off, t.offsets.i(), sizeof off);   // the framework's sync
                t.count = off[2] - off[1];
                t.rows = t.perm.i() ? t.perm.i() + off[1] : nullptr;
            }
            placeTails();   // tail i's slice follows the tails before it (later ones count 0 yet)
            if (t.count == 0)
                continue;
            tailGemms(rt, t, i);
            {
                Scope sc(rt, t.name + "_logsoftmax", ScopeLevel::Op);
                logSoftmax(rt, t.logits, t.logp, t.count, osz);
            }
            Scope sc(rt, t.name + "_loss", ScopeLevel::Op);
            forEach(rt, ew("gather_forward", double(t.count), 0, 2, 1), {{"rows", t.count}}, t.count,
                    fn::GatherPick{t.logp, osz, t.rel, t.pick, false});
            forEach(rt, ew("index_copy", double(t.count), 0, 2, 1), {{"rows", t.count}}, t.count,
                    fn::IndexCopy{t.pick, t.rows, m_out.f()});
        }
    }

    // Bucketed variants: one stable sort of the tokens by cluster, one host sync.
    void bucketTokens(Runtime& rt, const int32_t* targets, const std::vector<int32_t>& hostTargets)
    {
        const int64_t N = m_N;
        const int nb = int(m_tails.size()) + 1;
        Scope sc(rt, "bucketize", ScopeLevel::Op);
        rt.ensure(m_perm, size_t(N) * 4);
        rt.ensure(m_offsets, size_t(nb + 1) * 4);
        rt.zero("memset_output", m_out.f(), size_t(N) * 4);
        bucketize(rt, ew("cluster_bucketize", double(N), double(nb), 1, 1), {{"rows", N}, {"buckets", nb}}, N, nb,
                  fn::ClusterBucket{targets, m_cutoffsDev.i(), nb - 1}, m_perm.i(), m_offsets.i());
        std::vector<int32_t> off(size_t(nb) + 1, 0);
        {   // host-side counts serve dry runs; a real run overwrites them with the device's
            int64_t run = 0;
            off[0] = 0;
            for (int b = 0; b < nb; ++b) {
                int64_t lo = b == 0 ? 0 : m_tails[size_t(b) - 1].lo;
                int64_t hi = b == 0 ? m_cutoffs[0] : m_tails[size_t(b) - 1].hi;
                run += hostCount(hostTargets, lo, hi);
                off[size_t(b) + 1] = int32_t(run);
            }
        }
        rt.download("memcpy_dtoh_offsets", off.data(), m_offsets.i(), off.size() * 4);
        for (size_t i = 0; i < m_tails.size(); ++i) {
            Tail& t = m_tails[i];
            t.count = off[i + 2] - off[i + 1];
            t.rows = m_perm.i() ? m_perm.i() + off[i + 1] : nullptr;
        }
        placeTails();
    }

    void forwardBucketedTails(Runtime& rt)
    {
        for (size_t i = 0; i < m_tails.size(); ++i) {
            Tail& t = m_tails[i];
            const int64_t osz = t.hi - t.lo;
            if (t.count == 0)
                continue;
            tailGemms(rt, t, i);
            {
                Scope sc(rt, t.name + "_logsoftmax", ScopeLevel::Op);
                logSoftmax(rt, t.logits, t.logp, t.count, osz);
            }
            Scope sc(rt, t.name + "_loss", ScopeLevel::Op);
            forEach(rt, ew("gather_forward", double(t.count), 0, 2, 1), {{"rows", t.count}}, t.count,
                    fn::GatherPick{t.logp, osz, t.rel, t.pick, false});
            forEach(rt, ew("index_copy", double(t.count), 0, 2, 1), {{"rows", t.count}}, t.count,
                    fn::IndexCopy{t.pick, t.rows, m_out.f()});
        }
    }

    void forwardFusedTails(Runtime& rt)
    {
        for (size_t i = 0; i < m_tails.size(); ++i) {
            Tail& t = m_tails[i];
            if (t.count == 0)
                continue;
            tailGemms(rt, t, i);
            Scope sc(rt, t.name + "_loss", ScopeLevel::Op);
            fusedLoss(rt, t.logits, t.count, t.hi - t.lo, t.rel, 1.f / float(m_N), m_out.f(), t.rows);
        }
    }

    Mode m_mode;
    bool m_bf16;   // fused_bf16: the head's and the tails' GEMMs in bfloat16
    int64_t m_vocab, m_d, m_headSize = 0, m_N = 0;
    std::vector<int64_t> m_cutoffs;
    std::vector<Tail> m_tails;
    const float* m_h = nullptr;
    const int32_t* m_targets = nullptr;
    Buffer m_cutoffsDev, m_headLogits, m_headLogp, m_headCol, m_out, m_perm, m_offsets, m_dh;
    Buffer m_tailRel, m_tailX, m_tailDx, m_tailProj, m_tailDproj, m_tailLogits, m_tailLogp, m_tailPick;   // arenas
};

}  // namespace

int64_t tailWidth(int64_t d, size_t i)
{
    int64_t w = d;
    for (size_t k = 0; k <= i; ++k)
        w /= 4;
    return w < 1 ? 1 : w;
}

const std::vector<std::string_view>& softmaxVariants()
{
    static const std::vector<std::string_view> v{"full", "adaptive", "bucketed", "fused", "fused_bf16"};
    return v;
}

std::string_view softmaxVariantSummary(std::string_view variant)
{
    if (variant == "full")
        return "logits over the whole vocabulary, log-softmax, NLL";
    if (variant == "adaptive")
        return "adaptive softmax as PyTorch runs it: per-cluster mask/nonzero/select, log-softmax, gather";
    if (variant == "bucketed")
        return "adaptive, tokens sorted by cluster once (one sync), contiguous per-cluster slices";
    if (variant == "fused")
        return "bucketed + fused online log-softmax/loss/gradient in place; backward is GEMMs only";
    if (variant == "fused_bf16")
        return "fused with its GEMMs in bfloat16 (fp32 sums): not exact, about 3 significant digits per input";
    return "";
}

std::unique_ptr<SoftmaxLayer> makeSoftmaxLayer(std::string_view variant, int64_t vocab, int64_t d,
                                               const std::vector<int64_t>& cutoffs)
{
    if (variant == "full")
        return std::make_unique<FullSoftmax>(vocab, d);
    Mode mode;
    const bool bf16 = variant == "fused_bf16";
    if (variant == "adaptive")
        mode = Mode::Framework;
    else if (variant == "bucketed")
        mode = Mode::Bucketed;
    else if (variant == "fused" || bf16)
        mode = Mode::Fused;
    else
        throw std::invalid_argument("unknown softmax variant '" + std::string(variant) +
                                    "' (full, adaptive, bucketed, fused, fused_bf16)");
    if (cutoffs.empty())
        throw std::invalid_argument("the " + std::string(variant) + " softmax needs at least one cutoff");
    int64_t prev = 0;
    for (int64_t c : cutoffs) {
        if (c <= prev || c >= vocab)
            throw std::invalid_argument("cutoffs must increase strictly within (0, vocab=" + std::to_string(vocab) +
                                        "), got " + std::to_string(c));
        prev = c;
    }
    if (cutoffs.size() > 15)
        throw std::invalid_argument("at most 15 tail clusters are supported");
    return std::make_unique<AdaptiveSoftmax>(mode, bf16, vocab, d, cutoffs);
}

}  // namespace wt::kernels
