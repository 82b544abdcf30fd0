// Per-rank (per-device) step figures of a run: the straggler question of a distributed job.
// Each device's steps are the step scope instances that ran kernels on it; a step's time on a
// device is its GPU span there (first kernel start to last kernel end under the step instance,
// on that device). A step scope is a scope at level "step"; in a run without that level (a
// Kineto import whose steps were not recognised) a top-level scope named "ProfilerStep#N".
// Ranks imported as one run (`wheretime import --one-run`) are its devices.
#pragma once

#include "analysis/activityview.h"
#include "analysis/scopetree.h"
#include "storage/types.h"

#include <string>
#include <vector>

namespace wt {

class Reader;

struct RankStats {
    int32_t deviceId = 0;
    std::string device;                  // the device's name ("rank 1: GPU 1")
    int64_t steps = 0;                   // step instances with kernels on this device
    int64_t meanStepNs = 0;              // mean GPU span of those steps
    std::string slowestStep;             // name of the longest ("ProfilerStep#552"; "step #3" when names repeat)
    int64_t slowestStepNs = 0;
    int64_t kernels = 0;                 // kernels on the device
    int64_t kernelTimeNs = 0;            // kernel time on the device (all kernels, in steps or not)
    bool straggler = false;              // the device with the largest mean step time (when >1 device has steps)
};

// One row per device of `devices` that ran a kernel (in that order; a Kineto trace lists every
// GPU of its machine, most of which ran nothing). trackDevice[k] is the device id of
// view.tracks[k]; instanceParent[i] is the parent instance index of instance i (kNoInstance =
// top level), parallel to view.instanceNode.
std::vector<RankStats> computeRankStats(const ActivityView& view, const std::vector<int32_t>& trackDevice,
                                        const std::vector<uint32_t>& instanceParent, const ScopeTree& tree,
                                        const std::vector<DeviceInfo>& devices);

// The same, read from a stored run (the CLI's `stats --group-by device`, tests).
std::vector<RankStats> computeRankStats(const Reader& reader, int64_t runId, const ScopeTree& tree);

// The step rule above, for one node of the tree (a position in tree.nodes()).
bool isStepNode(const ScopeTree& tree, uint32_t position);

}  // namespace wt
