// Time on the GPU, per device and per step: busy (the union of kernel intervals), idle (span
// minus busy), communication time (the union of communication kernels, by kernelcategory.h),
// the part of it overlapped by other kernels on the same device, and the exposed rest. One
// sweep over intervals sorted by start (each track already is; tracks are merged, not
// re-sorted), so a run of millions of kernels costs a few passes over its columns.
#pragma once

#include "analysis/activityview.h"
#include "analysis/runprofile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wt {

// The figures of one set of kernels (a device's, a step's). Times in ns on the run's clock.
struct GpuTime {
    int64_t kernels = 0;
    int64_t kernelTimeNs = 0;     // sum of kernel durations
    int64_t startNs = 0;          // first kernel start
    int64_t endNs = 0;            // last kernel end
    int64_t spanNs = 0;           // endNs - startNs (0 without kernels)
    int64_t busyNs = 0;           // union of kernel intervals
    int64_t idleNs = 0;           // spanNs - busyNs
    int64_t commNs = 0;           // union of communication kernel intervals
    int64_t commOverlapNs = 0;    // of commNs, the time some non-communication kernel also ran
    int64_t commExposedNs() const { return commNs - commOverlapNs; }
};

struct DeviceTime {
    int32_t deviceId = 0;
    std::string name;             // the device's name as stored ("GPU 0", "NVIDIA H100 ...")
    GpuTime time;
};

// One step: the outermost scope instances at level "step" (captures' steps, imports' steps
// recognised on import). Instances of one step scope that overlap in time (the ranks of one
// job running step N together) are one step.
struct StepTime {
    std::string name;             // the step scope's name ("step", "ProfilerStep#551")
    int64_t index = 0;            // 0-based, in start order
    GpuTime time;                 // the kernels under the step, on every device
};

// Per device, every device that ran a kernel (by id; names from profile.devices).
std::vector<DeviceTime> computeDeviceTimes(const RunProfile& profile, const ActivityView& activities);
// Per step, in order of the first kernel start; steps without kernels are left out.
// Needs activities.instanceParent (steps are found through the instance tree).
std::vector<StepTime> computeStepTimes(const RunProfile& profile, const ActivityView& activities);

// The per-device stacked bar of the GUI, left to right: compute only (busy without
// communication), communication overlapped by compute, exposed communication, idle. The
// parts sum to time.spanNs.
struct BarSegment {
    const char* label;            // "compute", "overlapped communication", "exposed communication", "idle"
    int64_t ns;
};
std::vector<BarSegment> deviceBarSegments(const GpuTime& time);

// The sweeps themselves, over intervals sorted by start (exposed for tests and benchmarks).
struct Interval {
    int64_t startNs;
    int64_t endNs;
};
// Disjoint, sorted union of sorted intervals.
std::vector<Interval> unionOf(const std::vector<Interval>& sorted);
int64_t lengthOf(const std::vector<Interval>& disjoint);
// Length of the intersection of two disjoint sorted lists.
int64_t overlapOf(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace wt
