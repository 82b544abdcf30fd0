// wheretime workloads: the bundled LM workloads, their presets, softmax variants and sizes;
// with a WORKLOAD, its effective config, its ops for one step, or timed CPU/CUDA steps.
#include "app/cli/command.h"
#include "capture/cudaplugin.h"
#include "kernels/layertimer.h"
#include "kernels/model.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime workloads [--json]\n"
    "       wheretime workloads WORKLOAD [--preset P] [--variant V] [--set KEY=VALUE]... [--seed N]\n"
    "                           [--backend cpu|cuda] [--config | --ops [--csv] | --run N]\n\n"
    "Without WORKLOAD: lists workloads, presets, softmax variants and the sizes each workload takes.\n"
    "With WORKLOAD (gcn, transformer, bert, groupbert):\n"
    "  --preset P     paper, small (default) or tiny\n"
    "  --variant V    softmax variant: full, adaptive (default), bucketed, fused\n"
    "  --set K=V      override a size, e.g. --set hidden=512 --set cutoffs=2000,10000\n"
    "  --config       print the effective config as JSON (default)\n"
    "  --ops          list one step's launches (scope path, name, shapes, GFLOP, MB read/written),\n"
    "                 one line per launch of the next step, in order\n"
    "                 without running them; --csv for one row per launch\n"
    "  --run N        run N training steps; prints loss and time per step, the data's unigram\n"
    "                 entropy (the loss floor for independent Zipf tokens) and the time share per\n"
    "                 layer of the last N-1 steps: forward + backward per layer, the update phase\n"
    "                 (SGD, clipping, loss read-back) apart (CPU: wall time of each op)\n";

std::string quote(const std::string& s)
{
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            o += '\\';
        o += c;
    }
    return o + "\"";
}

int listAll(bool json)
{
    using namespace wt::kernels;
    if (json) {
        std::cout << "{\"workloads\":[";
        bool first = true;
        for (const auto& w : workloads()) {
            std::cout << (first ? "" : ",") << "{\"name\":" << quote(w.name) << ",\"summary\":" << quote(w.summary)
                      << ",\"sizes\":[";
            for (size_t i = 0; i < w.sizes.size(); ++i)
                std::cout << (i ? "," : "") << "{\"key\":" << quote(w.sizes[i].key)
                          << ",\"summary\":" << quote(w.sizes[i].summary) << "}";
            std::cout << "]}";
            first = false;
        }
        std::cout << "],\"presets\":[";
        for (size_t i = 0; i < presets().size(); ++i)
            std::cout << (i ? "," : "") << "{\"name\":" << quote(presets()[i])
                      << ",\"summary\":" << quote(presetSummary(presets()[i])) << "}";
        std::cout << "],\"variants\":[";
        auto vs = variants();
        for (size_t i = 0; i < vs.size(); ++i)
            std::cout << (i ? "," : "") << "{\"name\":" << quote(vs[i]) << ",\"summary\":" << quote(variantSummary(vs[i]))
                      << "}";
        std::cout << "],\"cuda\":" << (capture::cudaUsable(nullptr) ? "true" : "false") << "}\n";
        return 0;
    }
    std::cout << "workloads:\n";
    for (const auto& w : workloads()) {
        std::printf("  %-12s %s\n", w.name.c_str(), w.summary.c_str());
        for (const auto& k : w.sizes)
            std::printf("      %-10s %s\n", k.key.c_str(), k.summary.c_str());
    }
    std::cout << "presets:\n";
    for (const auto& p : presets())
        std::printf("  %-12s %s\n", p.c_str(), presetSummary(p).c_str());
    std::cout << "softmax variants:\n";
    for (const auto& v : variants())
        std::printf("  %-12s %s\n", v.c_str(), variantSummary(v).c_str());
    std::string why;
    std::cout << "cuda: " << (capture::cudaUsable(&why) ? "available" : "not available (" + why + ")") << "\n";
    return 0;
}

int runWorkloads(Args& args)
{
    using namespace wt::kernels;
    args.parse({"--preset", "--variant", "--set", "--seed", "--backend", "--run"},
               {"--json", "--config", "--ops", "--csv"});
    if (args.positionals().empty())
        return listAll(args.flag("--json"));
    if (args.positionals().size() != 1)
        throw UsageError("expected at most one WORKLOAD");
    std::vector<std::pair<std::string, std::string>> overrides;
    try {
        for (const auto& s : args.values("--set"))
            overrides.push_back(parseOverride(s));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    std::string backend = args.value("--backend", "cpu");
    if (backend != "cpu" && backend != "cuda")
        throw UsageError("--backend must be cpu or cuda");
    long long steps = args.integer("--run", 0);
    if (args.value("--run") && steps < 1)
        throw UsageError("--run needs at least 1 step");
    long long seed = args.integer("--seed", 1);
    // The CUDA model is in the CUDA plugin, which only `capture` loads; a step's ops are the
    // same on both backends, so --config and --ops list them from the CPU model.
    if (backend == "cuda" && args.value("--run"))
        throw UsageError("--backend cuda --run: time CUDA steps with `wheretime capture --backend cuda --no-trace`");
    backend = "cpu";
    std::unique_ptr<Model> model;
    try {
        model = Model::create(args.positionals()[0], args.value("--preset", "small"), args.value("--variant", "adaptive"),
                              overrides, backend == "cuda" ? BackendKind::Cuda : BackendKind::Cpu, uint64_t(seed));
    } catch (const SizeError& e) {
        return fail(e.what());
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    if (args.flag("--ops")) {
        auto ops = model->listOps();
        if (args.flag("--csv")) {
            std::cout << "scope,name,shapes,flops,bytes_read,bytes_written,kind\n";
            for (const auto& o : ops)
                std::cout << o.scope << ',' << o.name << ",\"" << o.shapes << "\"," << o.flops << ',' << o.bytesRead
                          << ',' << o.bytesWritten << ',' << launchKindName(o.kind) << '\n';
            return 0;
        }
        double f = 0, r = 0, w = 0;
        for (const auto& o : ops) {
            std::printf("%-48s %-28s %-36s %10.4f GF %9.2f MB %9.2f MB\n", o.scope.c_str(), o.name.c_str(),
                        o.shapes.c_str(), o.flops / 1e9, o.bytesRead / 1e6, o.bytesWritten / 1e6);
            f += o.flops, r += o.bytesRead, w += o.bytesWritten;
        }
        std::printf("%zu launches, %.3f GFLOP, %.1f MB read, %.1f MB written\n", ops.size(), f / 1e9, r / 1e6, w / 1e6);
        return 0;
    }
    if (steps > 0) {
        LayerTimer timer;
        model->setObserver(&timer);
        model->prepare();
        std::printf("%s on %s\n", model->configJson().c_str(), model->deviceName().c_str());
        std::printf("data unigram entropy %.4f nats (ln vocab %.4f)\n", model->unigramEntropy(),
                    std::log(double(model->config().vocab)));
        double total = 0;
        for (long long i = 0; i < steps; ++i) {
            if (i == 1)
                timer.reset();   // the first step allocates activations
            auto t0 = std::chrono::steady_clock::now();
            float loss = model->step();
            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (i > 0 || steps == 1)
                total += s;
            std::printf("step %lld  loss %.4f  %.3f s\n", i + 1, double(loss), s);
        }
        long timed = steps > 1 ? steps - 1 : 1;
        const double sum = timer.totalSeconds();
        std::printf("\nmean step %.3f s over %ld step(s); op time per layer, forward + backward (share of all op "
                    "time):\n",
                    total / double(timed), timed);
        std::multimap<double, std::string, std::greater<>> byTime;
        for (auto& [l, s] : timer.secondsPerLayer())
            byTime.emplace(s, l);
        byTime.emplace(timer.updateSeconds(), "(update phase)");
        for (auto& [s, l] : byTime)
            std::printf("  %-14s %9.3f s/step %6.1f%%\n", l.c_str(), s / double(timed), sum > 0 ? 100.0 * s / sum : 0.0);
        std::multimap<double, std::string, std::greater<>> ops;
        for (auto& [o, s] : timer.secondsPerOp())
            ops.emplace(s, o);
        std::printf("\nlargest ops (layer/op:launch):\n");
        int shown = 0;
        for (auto& [s, o] : ops) {
            if (shown++ == 12)
                break;
            std::printf("  %-56s %9.4f s/step %6.1f%%\n", o.c_str(), s / double(timed), sum > 0 ? 100.0 * s / sum : 0.0);
        }
        return 0;
    }
    std::cout << model->configJson() << "\n";
    return 0;
}

const RegisterCommand reg{{"workloads", "list the bundled LM workloads; show a config, its ops, or run steps", kUsage,
                           runWorkloads}};

}  // namespace
}  // namespace wt::cli
