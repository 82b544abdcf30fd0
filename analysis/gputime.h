// Time on the GPU, per device and per step, by the definitions of docs/definitions.md: busy
// (the union of kernels and memory operations: what HTA's temporal breakdown and Nsight's GPU
// utilization count as GPU work), idle (span minus busy), and three unions of the busy time
// by what ran: compute (kernels that are neither communication nor memory), communication
// (kernelcategory.h's `communication`) and memory (memcpy, memset and `memory` kernels), with
// the parts of communication and memory that compute overlaps. One sweep over intervals
// sorted by start (each track already is; tracks are merged, not re-sorted), so a run of
// millions of activities costs a few passes over its columns.
#pragma once

#include "analysis/activityview.h"
#include "analysis/runprofile.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace wt {

// What an activity counts as on the GPU: memcpy and memset activities are memory; a kernel
// is communication or memory by its category (kernelcategory.h), else compute.
enum class GpuWork : uint8_t { Compute = 0, Communication = 1, Memory = 2 };
GpuWork gpuWorkOf(ActivityKind kind, const std::string& category);

// The figures of one set of activities (a device's, a step's). Times in ns on the run's clock.
struct GpuTime {
    int64_t kernels = 0;
    int64_t memoryOps = 0;        // memcpy and memset activities
    int64_t kernelTimeNs = 0;     // sum of kernel durations (memory operations not counted)
    int64_t startNs = 0;          // first activity start (kernel or memory operation)
    int64_t endNs = 0;            // last activity end
    int64_t spanNs = 0;           // endNs - startNs (0 without activities)
    int64_t busyNs = 0;           // union of kernels and memory operations
    int64_t idleNs = 0;           // spanNs - busyNs: nothing ran
    int64_t computeNs = 0;        // union of compute kernels (HTA's compute time)
    int64_t commNs = 0;           // union of communication kernels
    int64_t commOverlapNs = 0;    // of commNs, the time some compute kernel also ran
    int64_t memoryNs = 0;         // union of memory operations and memory kernels
    int64_t memoryOverlapNs = 0;  // of memoryNs, the time some compute kernel also ran
    int64_t memoryExposedNs = 0;  // of memoryNs, the time neither compute nor communication ran
    // Communication that compute does not hide (memory may run beside it).
    int64_t commExposedNs() const { return commNs - commOverlapNs; }
    // HTA's non-compute time: busy without compute = exposed communication + exposed memory.
    int64_t nonComputeNs() const { return busyNs - computeNs; }
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
    GpuTime time;                 // the activities under the step, on every device
};

// Per device, every device that ran a kernel or a memory operation (by id; names from
// profile.devices).
std::vector<DeviceTime> computeDeviceTimes(const RunProfile& profile, const ActivityView& activities);
// Per step, in order of the first activity start; steps without activities are left out.
// Needs activities.instanceParent (steps are found through the instance tree).
std::vector<StepTime> computeStepTimes(const RunProfile& profile, const ActivityView& activities);

// The per-device stacked bar of the GUI and the report, left to right: compute without
// communication (memory under compute counts as compute, as in HTA), communication
// overlapped by compute, exposed communication, exposed memory, idle. The parts sum to
// time.spanNs; the first two are HTA's compute, the next two its non-compute.
struct BarSegment {
    const char* label;            // "compute", "overlapped communication", "exposed communication", "exposed memory", "idle"
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
// Time by which of three disjoint sorted lists cover it: result[m] is the time during which
// exactly the lists in bit mask m have an interval (bit 0 = a, 1 = b, 2 = c); result[0] = 0.
std::array<int64_t, 8> coverageOf(const std::vector<Interval>& a, const std::vector<Interval>& b,
                                  const std::vector<Interval>& c);

}  // namespace wt
