// The figures of a loaded run that the details panel shows beside the timeline and that cost a
// pass over every activity: time on the GPU per device and per step (analysis/gputime.h) and
// the ranks' steps (analysis/rankstats.h), the launch latency (analysis/launchlatency.h). Computed by analysis/ on a worker thread (an
// AsyncJob of the panel) after the run loaded, so neither the load nor the GUI thread waits
// for them.
#pragma once

#include "rundata.h"

#include "analysis/gputime.h"
#include "analysis/launchlatency.h"
#include "analysis/rankstats.h"

#include <memory>
#include <vector>

namespace wt::gui {

struct RunFigures {
    std::vector<DeviceTime> devices;   // computeDeviceTimes
    std::vector<StepTime> steps;       // computeStepTimes (a step on several ranks once)
    std::vector<RankStats> ranks;      // computeRankStats: the devices that ran a kernel
    std::vector<LaunchLatency> launchLatency;   // the run, then each device (stats --json launch_latency)
};

// Reads only the immutable run: safe on any thread.
std::shared_ptr<const RunFigures> computeRunFigures(const RunData& run);

}  // namespace wt::gui
