// The CPU side of an imported run (schema version 4): its host threads grouped by process,
// the ranges recorded on each thread (Kineto's CPU ops and annotations, Nsight's NVTX ranges)
// as lanes by nesting depth on that thread, on host time, and the thread's API call rows
// (RunData::apiRows, joined by OS thread id). The timeline draws them above the GPU rows; the
// GPU lanes keep the same ranges projected onto their kernels.
#pragma once

#include "rundata.h"

#include <cstdint>
#include <vector>

namespace wt::gui {

// A scope instance recorded on a host thread, as the loader hands it over.
struct HostInstance {
    uint32_t instance = 0;     // index into RunData::instances
    int64_t threadId = 0;      // HostThread::id
    int64_t startNs = 0;       // host time, as recorded
    int64_t endNs = 0;
};

// Fills run.hostProcesses, hostThreads, hostLanes, hostLaneOf and hostPosOf from the stored
// threads and the instances on them, and gives each thread its API rows (apiRows must be
// loaded). Nesting depth is counted per thread from 1 (a range inside another on the same
// thread is one deeper), so the lanes of a thread read depth 1, 2, ... without gaps. API rows
// whose thread is not stored get a thread of their own (pid 0). Does nothing for a run
// without host threads (predicted runs, older files): their API rows stay as they are.
void loadHostRows(const std::vector<HostThread>& threads, std::vector<HostInstance>& items, RunData& run);

// The innermost range open at time t on the host thread of API row `apiRow` (an instance
// index), kNone when none is (or the run has no host lanes).
uint32_t hostRangeAt(const RunData& run, uint32_t apiRow, int64_t t);

// foldRow's view of a host lane.
struct HostLaneSequence {
    const RunData* run;
    const HostLaneData* lane;
    size_t size() const { return lane->size(); }
    int64_t start(size_t i) const { return lane->startNs[i]; }
    int64_t end(size_t i) const { return lane->endNs(i); }
    int64_t maxDuration() const { return lane->maxDurationNs; }
    QRgb color(size_t i) const { return run->instanceColor(lane->items[i]); }
    const FoldIndex& foldIndex() const { return lane->index; }
};

// Row labels, what identifies the row first (the gutter cuts them at the right):
// "pid 4037 · python3.8", "thread 4037 (python3.8)" or "python3 · tid 8391",
// "depth 2 · op" / "depth 1 · annotation / op", "API calls" / "API calls nested 1".
QString hostProcessLabel(const HostProcessData& process);
QString hostThreadLabel(const HostThreadData& thread);
QString hostLaneLabel(const HostLaneData& lane);
QString hostApiLabel(const ApiRowData& row);

}  // namespace wt::gui
