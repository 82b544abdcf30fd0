// Training-curve benchmark: does each workload and softmax variant learn with the default
// learning rate? Prints the loss curve (mean over windows of steps) of every run next to the
// data's unigram entropy (the floor for independent Zipf tokens) and says whether the loss came
// within --within (default 5%) of it, and whether it ever went non-finite or rose far above its
// start. Exit status 1 when any run failed those checks.
// usage: bench_training [--workload gcn|transformer|all] [--preset small] [--variant V|all]
//                       [--steps 100] [--every 10] [--within 0.05] [--set KEY=VALUE]... [--seed N]
//                       [--verbose]
#include "kernels/model.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace wt::kernels;

int main(int argc, char** argv)
{
    std::string workload = "all", preset = "small", variant = "all";
    int steps = 100, every = 10;
    double within = 0.05;
    bool verbose = false;   // every step's loss on stderr
    uint64_t seed = 1;
    std::vector<std::pair<std::string, std::string>> overrides;
    for (int i = 1; i < argc; ++i) {
        auto next = [&]() -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_training: %s needs a value\n", argv[i]);
                std::exit(2);
            }
            return argv[++i];
        };
        if (!std::strcmp(argv[i], "--workload")) workload = next();
        else if (!std::strcmp(argv[i], "--preset")) preset = next();
        else if (!std::strcmp(argv[i], "--variant")) variant = next();
        else if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(next());
        else if (!std::strcmp(argv[i], "--every")) every = std::atoi(next());
        else if (!std::strcmp(argv[i], "--within")) within = std::atof(next());
        else if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(next(), nullptr, 10);
        else if (!std::strcmp(argv[i], "--set")) overrides.push_back(parseOverride(next()));
        else if (!std::strcmp(argv[i], "--verbose")) verbose = true;
        else {
            std::fprintf(stderr, "usage: bench_training [--workload gcn|transformer|all] [--preset P] [--variant V|all]\n"
                                 "                      [--steps N] [--every K] [--within F] [--set KEY=VALUE]... [--seed N]\n");
            return 2;
        }
    }
    if (steps < 1 || every < 1) {
        std::fprintf(stderr, "bench_training: --steps and --every must be positive\n");
        return 2;
    }
    std::vector<std::string> ws, vs;
    for (const auto& w : workloads())
        if (workload == "all" || workload == w.name)
            ws.push_back(w.name);
    for (const auto& v : variants())
        if (variant == "all" || variant == v)
            vs.push_back(v);
    if (ws.empty() || vs.empty()) {
        std::fprintf(stderr, "bench_training: unknown workload or variant\n");
        return 2;
    }
    bool allOk = true;
    for (const auto& w : ws) {
        for (const auto& v : vs) {
            std::unique_ptr<Model> m;
            try {
                m = Model::create(w, preset, v, overrides, BackendKind::Cpu, seed);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "bench_training: %s\n", e.what());
                return 2;
            }
            const double floor = m->unigramEntropy();
            std::printf("%s %s %s  lr %g  tokens/step %lld  unigram entropy %.4f  ln(V) %.4f\n", w.c_str(),
                        preset.c_str(), v.c_str(), m->config().lr, (long long)(m->config().batch * m->config().seq),
                        floor, std::log(double(m->config().vocab)));
            auto t0 = std::chrono::steady_clock::now();
            std::vector<float> loss;
            bool finite = true;
            for (int s = 0; s < steps; ++s) {
                loss.push_back(m->step());
                finite = finite && std::isfinite(loss.back());
                if (verbose) {
                    std::fprintf(stderr, "step %d loss %.4f\n", s + 1, double(loss.back()));
                    std::fflush(stderr);
                }
                if (!finite)
                    break;
            }
            double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf("  steps      mean loss\n");
            double windowMean = 0, maxWindow = 0;
            for (size_t s = 0; s < loss.size(); s += size_t(every)) {
                size_t e = std::min(loss.size(), s + size_t(every));
                double sum = 0;
                for (size_t k = s; k < e; ++k)
                    sum += loss[k];
                windowMean = sum / double(e - s);
                maxWindow = std::max(maxWindow, windowMean);
                std::printf("  %4zu-%-4zu  %9.4f  (%+.1f%% of entropy)\n", s + 1, e, windowMean,
                            100.0 * (windowMean - floor) / floor);
            }
            const bool reached = finite && windowMean <= (1 + within) * floor;
            const bool stable = finite && maxWindow <= double(loss[0]) * 1.05;   // never far above the start
            std::printf("  first %.4f  last window %.4f  floor %.4f  %s  %s  (%.1f s, %.3f s/step)\n\n", double(loss[0]),
                        windowMean, floor, finite ? (stable ? "stable" : "ROSE") : "NON-FINITE",
                        reached ? "reached" : "NOT REACHED", secs, secs / double(loss.size()));
            std::fflush(stdout);
            allOk = allOk && reached && stable;
        }
    }
    return allOk ? 0 : 1;
}
