#include "analysis/opfeatures.h"

#include <algorithm>

#include "analysis/compare.h"
#include "storage/reader.h"

#include <cstdlib>
#include <unordered_map>

namespace wt {

namespace {

// Calls per element of the ops that have any (erf counts as one).
double transcendentalsPerElement(const std::string& op)
{
    static const std::unordered_map<std::string, double> table = {
        {"log_softmax_forward", 1},    {"log_softmax_backward", 1},      {"fused_logsoftmax_loss_grad", 1},
        {"causal_softmax_forward", 1}, {"attention_softmax_forward", 1}, {"glu_forward", 1},
        {"glu_backward", 1},           {"gelu_forward", 1},              {"gelu_backward", 2},
    };
    auto it = table.find(op);
    return it == table.end() ? 0.0 : it->second;
}

// "T=1024 C=256": the product of the sizes (0 without any).
double elementsOf(const std::string& shapes)
{
    double e = 1;
    bool any = false;
    size_t at = 0;
    while (at < shapes.size()) {
        const size_t eq = shapes.find('=', at);
        if (eq == std::string::npos)
            break;
        size_t end = shapes.find(' ', eq);
        if (end == std::string::npos)
            end = shapes.size();
        e *= std::strtod(shapes.c_str() + eq + 1, nullptr);
        any = true;
        at = end + 1;
    }
    return any ? e : 0;
}

}  // namespace

double transcendentals(const LaunchSample& s)
{
    const double per = transcendentalsPerElement(s.name);
    return per > 0 ? per * elementsOf(s.shapes) : 0.0;
}

bool isScalarLoop(const LaunchSample& s)
{
    static const std::string tag = "scalar=1";
    for (size_t at = s.shapes.find(tag); at != std::string::npos; at = s.shapes.find(tag, at + 1))
        if ((at == 0 || s.shapes[at - 1] == ' ') && (at + tag.size() == s.shapes.size() || s.shapes[at + tag.size()] == ' '))
            return true;
    return false;
}

RunSamples loadRunSamples(const Reader& reader, int64_t runId)
{
    RunSamples out;
    out.run = reader.run(runId);
    for (const auto& [key, value] : reader.metadata(runId))
        if (key == kRepeatIdKey)
            out.repeatId = value;
    std::vector<LaunchFeatures> launches = reader.launches(runId);
    const ScopeTree tree = ScopeTree::load(reader, runId);
    const std::vector<ScopeInstance> instances = reader.scopeInstances(runId);
    std::unordered_map<int64_t, size_t> instanceIndex;
    instanceIndex.reserve(instances.size());
    for (size_t i = 0; i < instances.size(); ++i)
        instanceIndex.emplace(instances[i].id, i);
    for (const ScopeInstance& si : instances)
        if (si.parentId == 0 && tree.contains(si.scopeId) && tree.level(si.scopeId) == "step")
            ++out.steps;
    if (launches.empty())
        return out;

    // Measured time per correlation id and per scope instance.
    std::unordered_map<int64_t, int64_t> byCorrelation, byInstance;
    reader.forEachActivity(runId, [&](const Activity& a) {
        const int64_t d = a.endNs - a.startNs;
        if (a.correlationId)
            byCorrelation[a.correlationId] += d;
        if (a.scopeInstanceId)
            byInstance[a.scopeInstanceId] += d;
        return true;
    });
    std::unordered_map<int64_t, int> launchesPerInstance;
    for (const LaunchFeatures& l : launches)
        ++launchesPerInstance[l.scopeInstanceId];
    const bool cpu = out.run.backend == "cpu";

    std::unordered_map<int64_t, std::string> pathOf, layerOf;
    out.launches.reserve(launches.size());
    for (const LaunchFeatures& l : launches) {
        LaunchSample s;
        auto ii = instanceIndex.find(l.scopeInstanceId);
        if (ii != instanceIndex.end()) {
            s.scopeId = instances[ii->second].scopeId;
            // Walk up to the step instance.
            size_t at = ii->second;
            for (int guard = 0; guard < kMaxScopeDepth; ++guard) {
                const ScopeInstance& si = instances[at];
                if (si.parentId == 0) {
                    s.stepInstance = si.id;
                    break;
                }
                auto up = instanceIndex.find(si.parentId);
                if (up == instanceIndex.end())
                    break;
                at = up->second;
            }
        }
        s.name = reader.string(l.nameId);
        s.kind = l.kind;
        s.flops = l.flops;
        s.bytesRead = l.bytesRead;
        s.bytesWritten = l.bytesWritten;
        s.m = l.m, s.n = l.n, s.k = l.k, s.batch = l.batch;
        s.shapes = l.shapesId ? reader.string(l.shapesId) : std::string();
        if (s.scopeId && tree.contains(s.scopeId)) {
            auto [pit, pnew] = pathOf.try_emplace(s.scopeId);
            if (pnew) {
                pit->second = tree.path(s.scopeId);
                layerOf[s.scopeId] = layerKey(tree, s.scopeId);
            }
            s.path = pit->second;
            s.layer = layerOf[s.scopeId];
        }
        if (cpu && l.correlationId) {
            auto c = byCorrelation.find(l.correlationId);
            if (c != byCorrelation.end())
                s.timeNs = c->second;
        } else if (launchesPerInstance[l.scopeInstanceId] == 1) {
            auto c = byInstance.find(l.scopeInstanceId);
            if (c != byInstance.end())
                s.timeNs = c->second;
        }
        out.launches.push_back(std::move(s));
    }
    markRunContext(out.launches);
    return out;
}

void markRunContext(std::vector<LaunchSample>& launches)
{
    double most = 0;
    for (const LaunchSample& s : launches)
        most = std::max(most, s.bytes());
    for (LaunchSample& s : launches)
        s.runMaxBytes = most;
}

}  // namespace wt
