// Plain value types shared by the storage writer, reader and everything above it.
// Times are nanoseconds on the run's clock, relative to RunInfo::originNs unless said otherwise.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace wt {

// Times a run may hold: |t| < 2^61 ns (73 years) for starts, ends and durations, so that any
// difference of two stored times fits in int64. The writer refuses others with a StorageError.
inline constexpr int64_t kMaxTimeNs = int64_t(1) << 61;
inline constexpr bool timeInRange(int64_t t) { return t > -kMaxTimeNs && t < kMaxTimeNs; }

// Sums of many durations (totals, breakdowns) saturate at the int64 limits instead of wrapping.
inline int64_t saturatingAdd(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return r;
}

enum class ActivityKind : uint8_t { Kernel = 0, Memcpy = 1, Memset = 2 };
enum class TrackKind : uint8_t { Kernel = 0, Memory = 1 };   // memory = memcpy + memset
enum class RunStatus : uint8_t { Writing, Complete, Interrupted, Failed, Incomplete };

std::string_view toString(ActivityKind kind);
std::string_view toString(TrackKind kind);
std::string_view toString(RunStatus status);
RunStatus runStatusFromString(std::string_view text);   // unknown -> Incomplete

// "ProfilerStep#551": the name PyTorch's profiler gives each step's range. The writer's stored
// per-step totals and analysis' step rules both use it.
bool isProfilerStep(std::string_view name);

struct RunInfo {
    int64_t id = 0;
    std::string name;
    std::string workload;            // gcn, transformer, or the imported trace's kind
    std::string variant;             // softmax variant, empty for imports
    std::string preset;
    std::string configJson = "{}";   // every size the workload ran with
    std::string backend;             // cupti | cpu | import | model
    std::string device;              // device name of device 0 ("CPU: ..." for the CPU tracer)
    std::string devicePropertiesJson = "{}";
    std::string startedAt;           // ISO 8601 UTC
    int64_t originNs = 0;            // clock value that relative times count from
    int64_t durationNs = 0;          // wall time of the capture or import span
    RunStatus status = RunStatus::Writing;
    int64_t droppedRecords = 0;
    std::string sourceFile;          // imports: the file it came from
    // Summary, filled in when the run is finished.
    int64_t kernels = 0;             // count of kernel activities
    int64_t kernelTimeNs = 0;        // sum of kernel durations
    int64_t busyNs = 0;              // union of kernel intervals, all devices together (kernels only)
    int64_t spanStartNs = 0;         // first kernel start (relative)
    int64_t spanEndNs = 0;           // last kernel end (relative)
};

struct DeviceInfo {
    int32_t id = 0;
    std::string name;
    std::string propertiesJson = "{}";
};

struct Track {
    int64_t id = 0;                  // global id, unique in the file
    int64_t runId = 0;
    int32_t deviceId = 0;
    int64_t stream = 0;
    TrackKind kind = TrackKind::Kernel;
    std::string name;                // e.g. "Stream 7"
    int64_t count = 0;               // activities on the track (after finish)
    int64_t maxDurationNs = 0;       // longest activity: bounds window queries
};

// Deepest scope nesting a run may hold (the writer refuses deeper, the reader refuses a tree
// that is deeper, has a cycle or names a missing parent).
inline constexpr int kMaxScopeDepth = 1024;

// A node of a run's scope tree: the same path in every step is one node; each execution
// of it is a ScopeInstance.
struct ScopeNode {
    int64_t id = 0;
    int64_t parentId = 0;            // 0 = root level
    uint32_t nameId = 0;
    uint32_t levelId = 0;            // "step", "phase", "layer", "op", "nvtx", "annotation"
    int32_t depth = 1;               // 1 = top level
};

struct ScopeInstance {
    int64_t id = 0;
    int64_t scopeId = 0;
    int64_t parentId = 0;            // enclosing instance, 0 = none
    int64_t startNs = 0;             // as recorded (host time for captures, the range's own time for imports)
    int64_t endNs = 0;
    int64_t threadId = 0;            // HostThread::id of the host thread it ran on; 0 = not recorded
                                     // (predicted runs, GPU-side annotations, older files)
    // The GPU span (first activity start to last activity end under it, children included)
    // is not stored: readers derive it from the activities they load anyway.
};

// A host thread of a run (schema version 4, table host_threads): the thread that ran CPU-side
// ranges (Kineto's CPU ops and annotations, Nsight's NVTX ranges) or API calls. API calls name
// their thread by `tid` (ApiCall::threadId), scope instances by `id`.
struct HostThread {
    int64_t id = 0;                  // per run, from 1
    int64_t pid = 0;                 // process id as the source gives it
    int64_t tid = 0;                 // OS thread id (what ApiCall::threadId holds)
    std::string name;                // thread name, "" when the source has none
    std::string processName;         // "" when the source has none
};

struct LaunchConfig {
    int32_t grid[3] = {0, 0, 0};
    int32_t block[3] = {0, 0, 0};
    int32_t registers = 0;           // per thread
    int32_t staticSmem = 0;          // bytes
    int32_t dynamicSmem = 0;         // bytes
    bool operator==(const LaunchConfig&) const = default;
};

struct Activity {
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t trackId = 0;
    ActivityKind kind = ActivityKind::Kernel;
    uint32_t nameId = 0;
    int64_t scopeInstanceId = 0;     // innermost scope instance, 0 = none
    int64_t correlationId = 0;
    LaunchConfig config;             // kernels only
    int64_t bytes = 0;               // memcpy/memset only
    int64_t seq = 0;                 // order of recording within the run (set by the writer)
};

struct ApiCall {
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t threadId = 0;
    uint32_t nameId = 0;
    int64_t correlationId = 0;
};

// What the workload knew about one launch (an op's device work): its cost figures and sizes.
// Captures of bundled workloads store one per launch; imports and older files have none.
struct LaunchFeatures {
    int64_t seq = 0;                 // order of the launch within the run (set by the writer)
    int64_t scopeInstanceId = 0;     // innermost scope instance (the op scope), 0 = none
    uint32_t nameId = 0;             // the op's name (as its kernels are named on the CPU)
    std::string kind;                // "kernel", "gemm", "memcpy", "memset"
    double flops = 0;
    double bytesRead = 0;
    double bytesWritten = 0;
    int64_t m = 0, n = 0, k = 0;     // GEMM shape, 0 for other launches
    int64_t batch = 0;               // batched GEMMs: matrices per launch
    uint32_t shapesId = 0;           // every size as text, e.g. "rows=512 cols=10000"
    int64_t correlationId = 0;       // CPU tracer: the activity's correlation id; CUPTI: external id
};

// Kernel time per (innermost scope, name, kind): the reduced form every breakdown starts from.
struct TotalRow {
    int64_t scopeId = 0;             // 0 = no scope
    uint32_t nameId = 0;
    ActivityKind kind = ActivityKind::Kernel;
    int64_t count = 0;
    int64_t timeNs = 0;
};

}  // namespace wt
