// GFLOP/s of OpenBLAS's sgemm and of the backend's own GEMMs (its dispatch: smallgemm.h or
// blockedgemm.h, batched products split over its pool) on the products of the bundled workloads, the two alternating call by call in one process so
// a shared machine's load weighs on both alike. Per shape and side: the best and the median of
// --rounds rounds, each round the best of --reps calls; and, with --cpu-time, the rate per
// second of the process's CPU time instead of the wall clock's (on one thread, the rate while
// the thread ran: what a loaded machine's time slicing leaves of the kernel's own speed).
// --bf16 compares the blocked fp32 GEMM with the bfloat16 one (bf16gemm.h, fused_bf16's) instead.
//
// A batched shape runs OpenBLAS once per item (on its own threads), ours as the backend's
// gemmBatched (--bf16 skips batched shapes). --cold writes a 64 MiB scratch buffer before every
// call (not timed), so the operands and C come from memory, as in a workload's step, where the
// ops between two products move far more than the caches hold; without it they stay in cache
// from the call before.
//
//   bench_gemm [--rounds 5] [--reps 3] [--threads N] [--cpu-time] [--cold] [--bf16] [--shapes SETS]
//   SETS: square,gcn,gcn-small,transformer,narrow (default) and attention,layers-small,softmax-small,tails-small
//   bench_gemm --workload W [--steps 4] [--threads N] [--cpu-time] [--also OP,OP]
// --workload: the GEMMs inside a training step of workload W (small preset, adaptive): each
// product's time (wall clock, or the process's CPU time) as the step runs it, after the ops
// before it, per layer, product and shape, medians over --steps steps after a first one; the
// products of a layer and name summed at the end (what bench_roofline's rows hold). --also
// times the ops of those names too (col2im: the conv's gather of the product's columns), their
// rate in GB/s of the bytes the op's features count.
#include "kernels/backend.h"
#include "kernels/bf16gemm.h"
#include "kernels/blockedgemm.h"
#include "kernels/cpurows.h"
#include "kernels/model.h"
#include "kernels/observer.h"
#include "kernels/runtime.h"
#include "kernels/smallgemm.h"

#include <cblas.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

double now(bool cpuTime)
{
    timespec t{};
    clock_gettime(cpuTime ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

struct Shape {
    std::string set;
    const char* name;
    bool ta, tb;
    int M, N, K;
    int batch = 1;
};

const Shape kShapes[] = {
    {"square", "1024^3 nn", false, false, 1024, 1024, 1024},
    {"square", "1024^3 nt", false, true, 1024, 1024, 1024},
    {"square", "1024^3 tn", true, false, 1024, 1024, 1024},
    {"square", "1024^3 tt", true, true, 1024, 1024, 1024},
    {"gcn", "logits nt 4096x10002x512", false, true, 4096, 10002, 512},
    {"gcn", "dh nn 4096x512x10002", false, false, 4096, 512, 10002},
    {"gcn", "dW tn 10002x512x4096", true, false, 10002, 512, 4096},
    {"gcn-small", "logits nt 1024x10002x256", false, true, 1024, 10002, 256},
    {"gcn-small", "dh nn 1024x256x10002", false, false, 1024, 256, 10002},
    {"gcn-small", "dW tn 10002x256x1024", true, false, 10002, 256, 1024},
    {"transformer", "head nt 2048x8000x256", false, true, 2048, 8000, 256},
    // Narrow products, where a 32-column tile is mostly padding: which side the dispatch takes.
    {"narrow", "nn 4096x8x4096", false, false, 4096, 8, 4096},
    {"narrow", "nn 4096x16x4096", false, false, 4096, 16, 4096},
    {"narrow", "nt 2048x40x600", false, true, 2048, 40, 600},
    {"narrow", "tn 8x4096x4096", true, false, 8, 4096, 4096},
    {"narrow", "nn 4x4096x10002", false, false, 4, 4096, 10002},
    // The small presets' attention items (16 heads x batch 1 in the Transformer, x 2 in BERT).
    {"attention", "batched nt 128x128x64 x16", false, true, 128, 128, 64, 16},
    {"attention", "batched nn 128x64x128 x16", false, false, 128, 64, 128, 16},
    {"attention", "batched tn 128x64x128 x16", true, false, 128, 64, 128, 16},
    {"attention", "batched nt 128x128x64 x32", false, true, 128, 128, 64, 32},
    // The Transformer's decoder layers (512 tokens) and BERT's encoder (1,024 tokens), small.
    {"layers-small", "decoder tn 768x256x512", true, false, 768, 256, 512},
    {"layers-small", "decoder tn 1024x256x512", true, false, 1024, 256, 512},
    {"layers-small", "decoder tn 256x1024x512", true, false, 256, 1024, 512},
    {"layers-small", "decoder tn 256x256x512", true, false, 256, 256, 512},
    {"layers-small", "decoder nt 512x768x256", false, true, 512, 768, 256},
    {"layers-small", "decoder nn 512x256x1024", false, false, 512, 256, 1024},
    {"layers-small", "encoder tn 768x256x1024", true, false, 768, 256, 1024},
    {"layers-small", "encoder tn 256x256x1024", true, false, 256, 256, 1024},
    {"layers-small", "encoder nt 1024x1024x256", false, true, 1024, 1024, 256},
    {"layers-small", "encoder nn 1024x1024x256", false, false, 1024, 1024, 256},
    {"layers-small", "gcn conv tn 512x1024x1024", true, false, 512, 1024, 1024},
    {"layers-small", "gcn conv nn 1024x1024x512", false, false, 1024, 1024, 512},
    // The softmax heads and tails of the small presets: the Transformer's (512 tokens, hidden
    // 256, head 10,003) and BERT's (152 masked tokens, head 4,002, tails of 8,000 x 64).
    {"softmax-small", "transformer head nt 512x10003x256", false, true, 512, 10003, 256},
    {"softmax-small", "transformer head nn 512x256x10003", false, false, 512, 256, 10003},
    {"softmax-small", "transformer head tn 10003x256x512", true, false, 10003, 256, 512},
    {"softmax-small", "transformer tail nn 39x16x40000", false, false, 39, 16, 40000},
    {"softmax-small", "transformer tail nt 39x40000x16", false, true, 39, 40000, 16},
    {"softmax-small", "transformer tail tn 40000x16x39", true, false, 40000, 16, 39},
    {"softmax-small", "bert head nt 152x4002x256", false, true, 152, 4002, 256},
    {"softmax-small", "bert head nn 152x256x4002", false, false, 152, 256, 4002},
    {"softmax-small", "bert head tn 4002x256x152", true, false, 4002, 256, 152},
    {"softmax-small", "bert tail nn 14x64x8000", false, false, 14, 64, 8000},
    {"softmax-small", "bert tail nt 14x8000x64", false, true, 14, 8000, 64},
    {"softmax-small", "bert tail tn 8000x64x14", true, false, 8000, 64, 14},
    // The Transformer small's other tail shapes (2 and 3: 40,000 and 10,000 words, projections
    // of 4 and 64), a cluster of 39 tokens.
    {"tails-small", "transformer tail nt 39x40000x4", false, true, 39, 40000, 4},
    {"tails-small", "transformer tail nn 39x4x40000", false, false, 39, 4, 40000},
    {"tails-small", "transformer tail tn 40000x4x39", true, false, 40000, 4, 39},
    {"tails-small", "transformer tail nt 39x10000x64", false, true, 39, 10000, 64},
    {"tails-small", "transformer tail nn 39x64x10000", false, false, 39, 64, 10000},
    {"tails-small", "transformer tail tn 10000x64x39", true, false, 10000, 64, 39},
};

// Times each GEMM launch of a step where the step runs it: the name, shape and layer of a launch
// (layer numbers folded: decoder.* for every decoder layer), its time in microseconds.
class GemmTimer final : public wt::kernels::Observer {
public:
    explicit GemmTimer(bool cpuTime) : m_cpuTime(cpuTime) {}
    bool on = false;
    std::set<std::string> also;                      // other ops to time (--also)
    std::map<std::string, std::vector<double>> us;   // "layer op shape" -> per launch
    std::map<std::string, double> flops;             // per launch of that key
    std::map<std::string, double> sumUs, sumFlops;   // "layer op" -> over all launches
    void scopeEnter(std::string_view name, wt::kernels::ScopeLevel level) override
    {
        if (level != wt::kernels::ScopeLevel::Layer)
            return;
        m_layer.assign(name);
        for (char& c : m_layer)
            if (c >= '0' && c <= '9')
                c = '*';
        m_layer.erase(std::unique(m_layer.begin(), m_layer.end(), [](char a, char b) { return a == '*' && b == '*'; }),
                      m_layer.end());
    }
    void scopeExit() override {}
    void launchBegin(const wt::kernels::OpLaunch& op) override
    {
        m_gemm = op.kind == wt::kernels::LaunchKind::Gemm || also.count(std::string(op.name));
        if (!m_gemm)
            return;
        m_key = m_layer + " " + std::string(op.name);
        m_shape = op.dims ? op.dims->str() : std::string();
        m_flops = op.kind == wt::kernels::LaunchKind::Gemm ? op.flops : op.bytes;   // --also: bytes (GB/s)
        m_t0 = now(m_cpuTime);
    }
    void launchEnd() override
    {
        if (!m_gemm || !on)
            return;
        const double t = (now(m_cpuTime) - m_t0) * 1e6;
        us[m_key + " " + m_shape].push_back(t);
        flops[m_key + " " + m_shape] = m_flops;
        sumUs[m_key] += t;
        sumFlops[m_key] += m_flops;
    }

private:
    bool m_cpuTime;
    bool m_gemm = false;
    std::string m_layer, m_key, m_shape;
    double m_flops = 0, m_t0 = 0;
};

int runWorkload(const std::string& workload, int steps, bool cpuTime, const std::set<std::string>& also)
{
    using namespace wt::kernels;
    std::unique_ptr<Model> model;
    try {
        model = Model::create(workload, "small", "adaptive", {}, BackendKind::Cpu, 1);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_gemm: %s\n", e.what());
        return 2;
    }
    model->prepare();
    GemmTimer timer(cpuTime);
    timer.also = also;
    model->setObserver(&timer);
    model->step();   // the first step touches every buffer
    timer.on = true;
    for (int s = 0; s < steps; ++s)
        model->step();
    std::printf("%s small adaptive, %d steps after a first, pool %d threads, %s time; per launch: median (best)\n"
                "| layer op shape | launches a step | us | GFLOP/s (--also ops: GB/s) |\n| --- | --- | --- | --- |\n",
                workload.c_str(), steps, cpu::threads(), cpuTime ? "CPU" : "wall");
    std::vector<std::pair<double, std::string>> rows;
    for (auto& [key, v] : timer.us) {
        std::sort(v.begin(), v.end());
        const double med = v[v.size() / 2], f = timer.flops[key];
        char line[512];
        std::snprintf(line, sizeof line, "| %s | %.2g | %.0f (%.0f) | %.0f (%.0f) |", key.c_str(), double(v.size()) / steps, med,
                      v.front(), f / med * 1e-3, f / v.front() * 1e-3);
        rows.push_back({-med * double(v.size()), line});
    }
    std::sort(rows.begin(), rows.end());
    for (auto& r : rows)
        std::printf("%s\n", r.second.c_str());
    std::printf("\n| layer op | us a step | GFLOP/s |\n| --- | --- | --- |\n");
    for (auto& [key, t] : timer.sumUs)
        std::printf("| %s | %.0f | %.0f |\n", key.c_str(), t / steps, timer.sumFlops[key] / t * 1e-3);
    return 0;
}

int usage(const char* why)
{
    std::fprintf(stderr, "bench_gemm: %s\nusage: bench_gemm [--rounds N] [--reps N] [--threads N] [--cpu-time] [--cold] [--bf16] [--shapes square,gcn,gcn-small,transformer,narrow,attention,layers-small,softmax-small,tails-small]\n       bench_gemm --workload gcn|transformer|bert [--steps N] [--threads N] [--cpu-time] [--also OP,OP]\n", why);
    return 2;
}

}  // namespace

int main(int argc, char** argv)
{
    int rounds = 5, reps = 3, threads = 0;
    bool cpuTime = false, bf16 = false, cold = false;
    int steps = 4;
    std::string sets = "square,gcn,gcn-small,transformer,narrow", workload;
    std::set<std::string> also;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cpu-time") {
            cpuTime = true;
            continue;
        }
        if (a == "--cold") {
            cold = true;
            continue;
        }
        if (a == "--bf16") {
            bf16 = true;
            continue;
        }
        if ((a == "--rounds" || a == "--reps" || a == "--shapes" || a == "--threads" || a == "--workload" ||
             a == "--steps" || a == "--also") && i + 1 < argc) {
            const std::string v = argv[++i];
            if (a == "--also") {
                for (size_t p = 0; p <= v.size();) {
                    const size_t q = std::min(v.find(',', p), v.size());
                    if (q > p)
                        also.insert(v.substr(p, q - p));
                    p = q + 1;
                }
            } else if (a == "--shapes")
                sets = v;
            else if (a == "--workload")
                workload = v;
            else {
                const int n = std::atoi(v.c_str());
                if (n < 1)
                    return usage("--rounds, --reps and --threads take a positive integer");
                (a == "--rounds" ? rounds : a == "--reps" ? reps : a == "--steps" ? steps : threads) = n;
            }
        } else
            return usage(("unknown argument " + a).c_str());
    }
    if (!wt::kernels::cpu::blockedGemmAvailable())
        return usage("no AVX-512F on this CPU (or WHERETIME_SMALL_GEMM=0): nothing to compare");
    if (threads > 0) {   // both sides on the same number of threads
        wt::kernels::cpu::setThreads(threads);
        openblas_set_num_threads(threads);
    }
    if (!workload.empty())
        return runWorkload(workload, steps, cpuTime, also);
    if (!also.empty())
        return usage("--also goes with --workload");
    std::printf("threads %d (pool), OpenBLAS %d, %d rounds of the best of %d calls, %s time%s\n",
                wt::kernels::cpu::threads(), openblas_get_num_threads(), rounds, reps, cpuTime ? "CPU" : "wall",
                cold ? ", operands and C evicted before each call" : "");
    std::vector<float> scratch(cold ? size_t(16) << 20 : 0);
    const auto evict = [&] {   // 64 MiB written: past the 32 MiB L3
        for (size_t i = 0; i < scratch.size(); i += 16)
            scratch[i] += 1.f;
    };
    {
        // The register tile's own rate, everything in L1 and L2: smallGemm's 128 x 64 x 128 on
        // the calling thread, best of 200 by the wall clock (short enough to run between a loaded
        // machine's switches; the CPU-time clock is too coarse for 8 us).
        const int m = 128, n = 64, k = 128;
        std::vector<float> a(size_t(m) * k, 0.5f), b(size_t(k) * n, 0.25f), c(size_t(m) * n);
        double best = 1e30;
        for (int r = 0; r < 201; ++r) {
            const double t0 = now(false);
            wt::kernels::cpu::smallGemm(false, false, m, n, k, 1.f, a.data(), k, b.data(), n, 0.f, c.data(), n);
            if (r > 0)
                best = std::min(best, now(false) - t0);
        }
        std::printf("in-cache tile (smallGemm 128x64x128, one thread): %.0f GFLOP/s\n", 2.0 * m * n * k / best * 1e-9);
    }
    const auto backend = wt::kernels::makeCpuBackend();
    if (bf16)
        std::printf("bf16 GEMM on %s\n| shape | fp32 blocked GFLOP/s best / median | bf16 GFLOP/s best / median | bf16 / fp32 (medians) |\n| --- | --- | --- | --- |\n",
                    wt::kernels::cpu::bf16Native() ? "vdpbf16ps" : "the portable path (no AVX512-BF16)");
    else
        std::printf("| shape | OpenBLAS GFLOP/s best / median | ours GFLOP/s best / median | ours / OpenBLAS (medians) |\n| --- | --- | --- | --- |\n");
    for (const Shape& s : kShapes) {
        if (("," + sets + ",").find("," + s.set + ",") == std::string::npos || (bf16 && s.batch > 1))
            continue;
        const int lda = s.ta ? s.M : s.K, ldb = s.tb ? s.K : s.N;
        const int64_t sA = int64_t(s.M) * s.K, sB = int64_t(s.K) * s.N, sC = int64_t(s.M) * s.N;
        std::vector<float> A(size_t(sA * s.batch)), B(size_t(sB * s.batch)), C(size_t(sC * s.batch));
        uint32_t x = 12345;
        for (auto* v : {&A, &B})
            for (float& f : *v) {
                x = x * 1664525u + 1013904223u;
                f = float(x >> 8) / float(1u << 24) - 0.5f;
            }
        const double flop = 2.0 * s.M * double(s.N) * s.K * s.batch;
        std::vector<double> rate[2];
        for (int r = 0; r < rounds; ++r)
            for (int side = 0; side < 2; ++side) {
                double best = 1e30;
                for (int k = 0; k <= reps; ++k) {   // the first call warms up
                    if (cold)
                        evict();
                    const double t0 = now(cpuTime);
                    if (bf16 && side == 0)
                        wt::kernels::cpu::blockedGemm(s.ta, s.tb, s.M, s.N, s.K, 1.f, A.data(), lda, B.data(), ldb, 0.f,
                                                      C.data(), s.N);
                    else if (bf16)
                        wt::kernels::cpu::gemmBf16(s.ta, s.tb, s.M, s.N, s.K, 1.f, A.data(), lda, B.data(), ldb, 0.f,
                                                   C.data(), s.N);
                    else if (side == 0)
                        for (int i = 0; i < s.batch; ++i)
                            cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans,
                                        s.M, s.N, s.K, 1.f, A.data() + i * sA, lda, B.data() + i * sB, ldb, 0.f,
                                        C.data() + i * sC, s.N);
                    else if (s.batch > 1)
                        backend->gemmBatched(s.ta, s.tb, s.M, s.N, s.K, 1.f, A.data(), lda, sA, B.data(), ldb, sB, 0.f,
                                             C.data(), s.N, sC, s.batch);
                    else
                        backend->gemm(s.ta, s.tb, s.M, s.N, s.K, 1.f, A.data(), lda, B.data(), ldb, 0.f, C.data(), s.N);
                    if (k > 0)
                        best = std::min(best, now(cpuTime) - t0);
                }
                rate[side].push_back(flop / best * 1e-9);
            }
        double med[2], top[2];
        for (int side = 0; side < 2; ++side) {
            std::sort(rate[side].begin(), rate[side].end());
            med[side] = rate[side][rate[side].size() / 2];
            top[side] = rate[side].back();
        }
        std::printf("| %s %s | %.0f / %.0f | %.0f / %.0f | %.2fx |\n", s.set.c_str(), s.name, top[0], med[0], top[1], med[1],
                    med[1] / med[0]);
        std::fflush(stdout);
    }
    return 0;
}
