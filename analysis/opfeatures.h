// Op features of a run (the launches table, schema version 2) joined with what was measured:
// one LaunchSample per launch with its scope, layer, op kind, FLOPs, bytes, GEMM shape and
// measured time (the predictor's training data). The FLOPs and bytes of breakdown groups come
// with the breakdown (RunProfile::launchCosts, Group::flops). Runs without features (imports,
// older files) give none.
#pragma once

#include "analysis/grouping.h"
#include "analysis/runprofile.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace wt {

class Reader;

struct LaunchSample {
    int64_t scopeId = 0;          // innermost scope node (the op scope)
    int64_t stepInstance = 0;     // the step-level scope instance it ran in (0: none)
    std::string name;             // op name, e.g. "sgemm_nt", "glu_forward"
    std::string kind;             // "kernel", "gemm", "memcpy", "memset"
    std::string layer;            // layer key (the layer rule of grouping.h)
    std::string path;             // full scope path
    double flops = 0, bytesRead = 0, bytesWritten = 0;
    int64_t m = 0, n = 0, k = 0, batch = 0;
    std::string shapes;
    // Measured time of the launch's activities (CPU: the one activity with its correlation id;
    // otherwise the kernels of its scope instance when it is the instance's only launch);
    // negative when no activity could be matched.
    int64_t timeNs = -1;
    // The bytes of the largest launch of its run (markRunContext; 0: not known). Beyond a core's
    // cache the step streams through memory, and its small launches find their data evicted and
    // the pool's threads elsewhere: the same 8-byte loss readback takes 60 ns in a tiny run and
    // 0.3-1.3 us in a small one (docs/prediction.md, corpus F).
    double runMaxBytes = 0;
    double bytes() const { return bytesRead + bytesWritten; }
};

// Sets every launch's runMaxBytes to the largest bytes() among them (the launches of one run).
void markRunContext(std::vector<LaunchSample>& launches);

struct RunSamples {
    RunInfo run;
    int64_t steps = 0;            // step scope instances
    std::vector<LaunchSample> launches;
    // The run's repeat tag (`capture --repeat`: metadata repeat_id); runs with one tag are repeats
    // of one configuration, which evaluate() holds out and compares as one. Empty: untagged.
    std::string repeatId;
};

// The exps (exp, log, erf: the transcendental calls) of one launch by its op's definition
// (kernels/opsmath.h, bertops.h): the product of its shapes' sizes x the op's calls per element;
// 0 for ops without any (GEMMs, copies, gathers).
double transcendentals(const LaunchSample& s);
// Whether the launch ran as a plain scalar loop on the CPU: its shapes carry "scalar=1"
// (kernels/launch.h, loopDims), as captured, not from its op name.
bool isScalarLoop(const LaunchSample& s);

// Loads the launches of a run with their measured times. Empty launches: the run has no features.
RunSamples loadRunSamples(const Reader& reader, int64_t runId);

}  // namespace wt
