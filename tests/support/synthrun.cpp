#include "synthrun.h"

#include <algorithm>
#include <array>
#include <random>
#include <vector>

namespace wt::synth {

namespace {

constexpr int64_t kMaxLagNs = 2'000'000;

struct OpSpec {
    const char* op;
    std::array<const char*, 3> kernels;   // launched in turn; nullptr ends the list
    int64_t meanNs;                       // typical kernel duration
};

const OpSpec kOps[] = {
    {"qkv_proj", {"sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", nullptr, nullptr}, 42000},
    {"attention", {"flash_fwd_kernel", "softmax_warp_forward", "elementwise_kernel<128, 4>"}, 30000},
    {"out_proj", {"ampere_sgemm_128x64_nn", nullptr, nullptr}, 21000},
    {"layer_norm", {"vectorized_layer_norm_kernel", nullptr, nullptr}, 6000},
    {"ffn_up", {"sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize256x128x32_cublas", "gelu_kernel", nullptr}, 60000},
    {"ffn_down", {"ampere_sgemm_128x128_nt", nullptr, nullptr}, 55000},
    {"residual", {"vectorized_elementwise_kernel<4, AddFunctor<float>>", nullptr, nullptr}, 4000},
};

const OpSpec kEmbeddingOps[] = {
    {"lookup", {"indexSelectLargeIndex", nullptr, nullptr}, 9000},
};

const OpSpec kSoftmaxOps[] = {
    {"head_gemm", {"ampere_sgemm_128x64_tn", nullptr, nullptr}, 180000},
    {"cluster_select", {"index_kernel", "reduce_kernel<512, 1>", nullptr}, 12000},
    {"tail_gemm", {"ampere_sgemm_64x64_nn", "ampere_sgemm_128x64_nn", nullptr}, 90000},
    {"log_softmax", {"cunn_SoftMaxForward<4, float>", nullptr, nullptr}, 70000},
    {"nll_loss", {"nll_loss_forward_reduce_cuda_kernel_2d", "scatter_gather_elementwise_kernel", nullptr}, 8000},
};

const OpSpec kUpdateOps[] = {
    {"sgd", {"multi_tensor_apply_kernel", nullptr, nullptr}, 15000},
};

}  // namespace

Result generate(Writer& writer, const Options& o)
{
    std::mt19937_64 rng(o.seed);
    std::lognormal_distribution<double> jitter(0.0, 0.35);
    std::uniform_int_distribution<int64_t> gapDist(800, 4000);   // launch gaps, ns

    RunInfo info;
    info.name = o.name;
    info.workload = "synthetic";
    info.variant = "adaptive";
    info.preset = "bench";
    info.backend = "model";
    info.device = "Synthetic GPU";
    info.startedAt = "2026-01-01T00:00:00Z";
    info.configJson = "{\"kernels\":" + std::to_string(o.kernels) + ",\"streams\":" + std::to_string(o.streams) + "}";
    Result res;
    res.runId = writer.beginRun(info);
    writer.addDevice(DeviceInfo{0, "Synthetic GPU", "{\"sm_count\":132}"});
    std::vector<int64_t> tracks;
    for (int s = 0; s < std::max(1, o.streams); ++s)
        tracks.push_back(writer.addTrack(0, 7 + s, TrackKind::Kernel));
    int64_t memTrack = writer.addTrack(0, 7, TrackKind::Memory);
    uint32_t memcpyName = writer.intern("[CUDA memcpy HtoD]");
    const uint32_t launchName = o.apiCalls ? writer.intern("cudaLaunchKernel") : 0;

    std::vector<std::string> layerNames{"embedding"};
    for (int l = 0; l < o.layers; ++l)
        layerNames.push_back("decoder." + std::to_string(l));
    layerNames.push_back("softmax");

    // Scope nodes (one per path) and interned kernel names, created once.
    int64_t stepScope = writer.addScope(0, "step", "step");
    const char* phases[] = {"forward", "backward", "update"};
    struct LayerNodes { int64_t layer; std::vector<int64_t> ops; std::vector<std::vector<uint32_t>> names; const OpSpec* spec; size_t nOps; };
    std::vector<std::vector<LayerNodes>> nodes(3);
    int64_t phaseScopes[3] = {};
    for (int p = 0; p < 3; ++p) {
        int64_t phase = phaseScopes[p] = writer.addScope(stepScope, phases[p], "phase");
        for (size_t l = 0; l < layerNames.size(); ++l) {
            LayerNodes ln;
            ln.layer = writer.addScope(phase, layerNames[l], "layer");
            if (p == 2) { ln.spec = kUpdateOps; ln.nOps = std::size(kUpdateOps); }
            else if (l == 0) { ln.spec = kEmbeddingOps; ln.nOps = std::size(kEmbeddingOps); }
            else if (l + 1 == layerNames.size()) { ln.spec = kSoftmaxOps; ln.nOps = std::size(kSoftmaxOps); }
            else { ln.spec = kOps; ln.nOps = std::size(kOps); }
            for (size_t k = 0; k < ln.nOps; ++k) {
                ln.ops.push_back(writer.addScope(ln.layer, ln.spec[k].op, "op"));
                std::vector<uint32_t> names;
                for (const char* kn : ln.spec[k].kernels)
                    if (kn)
                        names.push_back(writer.intern(p == 1 ? std::string(kn) + "_backward" : std::string(kn)));
                ln.names.push_back(names);
            }
            nodes[p].push_back(std::move(ln));
        }
    }

    // Without scopes, instances are neither written nor named (raw activity insert rate).
    auto begin = [&](int64_t scope, int64_t parent, int64_t at) { return o.scopes ? writer.beginScopeInstance(scope, parent, at) : 0; };
    auto end = [&](int64_t inst, int64_t at) {
        if (o.scopes) {
            writer.endScopeInstance(inst, at);
            res.scopeInstances++;
        }
    };
    std::vector<int64_t> streamCursor(tracks.size(), 0);
    int64_t host = 0;
    int64_t correlation = 0;
    while (res.kernels < o.kernels) {
        int64_t stepInst = begin(stepScope, 0, host);
        for (int p = 0; p < 3 && res.kernels < o.kernels; ++p) {
            int64_t phaseInst = begin(phaseScopes[p], stepInst, host);
            size_t nLayers = nodes[p].size();
            for (size_t li = 0; li < nLayers && res.kernels < o.kernels; ++li) {
                size_t l = p == 1 ? nLayers - 1 - li : li;   // backward runs the layers in reverse
                LayerNodes& ln = nodes[p][l];
                int64_t layerInst = begin(ln.layer, phaseInst, host);
                for (size_t k = 0; k < ln.nOps && res.kernels < o.kernels; ++k) {
                    int64_t opInst = begin(ln.ops[k], layerInst, host);
                    size_t s = (l + k) % tracks.size();
                    for (uint32_t nameId : ln.names[k]) {
                        if (res.kernels >= o.kernels)
                            break;
                        host += gapDist(rng);
                        const int64_t launchAt = host;   // before the launch queue's wait below
                        Activity a;
                        a.trackId = tracks[s];
                        a.startNs = std::max(host + 3000, streamCursor[s] + 1000);
                        int64_t mean = ln.spec[k].meanNs * (p == 1 ? 2 : 1);
                        a.endNs = a.startNs + std::max<int64_t>(1000, int64_t(double(mean) * o.durationScale * jitter(rng)));
                        streamCursor[s] = a.endNs;
                        // The launch queue is bounded (as CUDA's is): the host waits once a
                        // stream is more than kMaxLagNs behind, so steps and layers do not
                        // smear over each other without limit.
                        host = std::max(host, streamCursor[s] - kMaxLagNs);
                        a.nameId = nameId;
                        a.scopeInstanceId = opInst;
                        a.correlationId = ++correlation;
                        a.config.grid[0] = int32_t(1 + (nameId * 37) % 1024);
                        a.config.grid[1] = 1 + int32_t(nameId % 4);
                        a.config.grid[2] = 1;
                        a.config.block[0] = 128 << (nameId % 3);
                        a.config.block[1] = 1;
                        a.config.block[2] = 1;
                        a.config.registers = 32 + int32_t(nameId % 5) * 16;
                        a.config.staticSmem = int32_t(nameId % 4) * 4096;
                        writer.addActivity(a);
                        if (o.apiCalls) {   // the host's launch, at the host time before the kernel
                            writer.addApiCall(ApiCall{launchAt, launchAt + 700, 1 + int64_t(s % 2), launchName, a.correlationId});
                            ++res.apiCalls;
                        }
                        res.kernelTimeNs += a.endNs - a.startNs;
                        ++res.kernels;
                        if (o.memcpyEvery > 0 && res.kernels % o.memcpyEvery == 0) {
                            Activity m;
                            m.trackId = memTrack;
                            m.kind = ActivityKind::Memcpy;
                            m.startNs = a.startNs;
                            m.endNs = a.startNs + 2500;
                            m.nameId = memcpyName;
                            m.scopeInstanceId = opInst;
                            m.bytes = 1 << 20;
                            writer.addActivity(m);
                            ++res.memcpys;
                        }
                    }
                    end(opInst, host + 500);
                }
                end(layerInst, host + 700);
            }
            end(phaseInst, host + 900);
        }
        end(stepInst, host + 1000);
    }
    for (const auto& [key, value] : o.metadata)
        writer.setMetadata(key, value);
    int64_t last = *std::max_element(streamCursor.begin(), streamCursor.end());
    writer.finishRun(RunStatus::Complete, std::max(last, host));
    return res;
}

}  // namespace wt::synth
