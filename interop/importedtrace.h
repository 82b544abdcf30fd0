// The in-memory form every importer produces before anything is written: activities, API
// calls and host-side ranges (NVTX, CPU ops, annotations) with raw times on the source's clock
// (ns). Parsing fills it; writeTrace() resolves range nesting, attributes each activity to the
// innermost range open on its launching thread at launch time, and writes one run. Keeping the
// two phases apart lets benchmarks say whether parsing or writing costs the time.
#pragma once

#include "storage/types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wt {
class Writer;
}

namespace wt::interop {

// The largest time (and time span) an import accepts, in ns: about 146 years, so epoch times
// fit until 2116 and any sum or difference of two accepted times stays inside int64.
constexpr int64_t kMaxTimeNs = (int64_t(1) << 62) - 1;

// Names longer than this are cut at import (at a UTF-8 boundary) and end in
// "…[cut N bytes]": a 50 MB kernel name must not make every view slow.
constexpr size_t kMaxNameBytes = 4096;
constexpr char kCutMarkerPrefix[] = "\xE2\x80\xA6[cut ";   // "…[cut ", then N
constexpr char kCutMarkerSuffix[] = " bytes]";

// `text` (valid UTF-8) cut to at most kMaxNameBytes, the marker included, keeping as much as
// fits without splitting a UTF-8 sequence; N = the bytes dropped. Unchanged when it is not
// longer, so cutting twice is cutting once.
std::string cutName(std::string_view text);

// A name as it is stored: ill-formed UTF-8 replaced by U+FFFD (utf8::repaired()), then cut
// (cutName()). Applying it again changes nothing.
std::string storedName(std::string_view text);

// Strings of one imported trace (kernel, API, range names, levels) by dense index, stored as
// storedName() makes them: valid UTF-8 (the exports are JSON and CSV) of at most kMaxNameBytes.
class StringTable {
public:
    uint32_t intern(std::string_view text);
    const std::string& at(uint32_t id) const { return m_values[id]; }
    size_t size() const { return m_values.size(); }
    size_t cutCount() const { return m_cut; }           // distinct names that were cut
    size_t repairedCount() const { return m_repaired; } // distinct names that were not valid UTF-8

private:
    std::vector<std::string> m_values;
    std::unordered_map<std::string, uint32_t> m_index;
    size_t m_cut = 0;
    size_t m_repaired = 0;
};

struct ImportedTrace {
    std::string format;                       // "nsys", "kineto" or "chrome"
    std::string startedAt;                    // ISO 8601 UTC when known
    int64_t clockBaseNs = 0;                  // added to every raw time to get the source's absolute clock
    bool epochClock = false;                  // absolute times are ns since 1970 (startedAt derives from them)
    bool zeroAtClockBase = false;             // raw time 0 is the run's time 0 (a wheretime Chrome export)
    std::vector<DeviceInfo> devices;
    std::vector<std::pair<std::string, std::string>> metadata;
    StringTable strings;

    // A host range (or a GPU-side annotation when onGpu): becomes a scope instance.
    struct Range {
        int64_t startNs = 0;
        int64_t endNs = 0;
        int64_t thread = 0;                   // host thread; for onGpu: gpuLane(device, stream)
        uint32_t name = 0;
        uint32_t level = 0;
        bool onGpu = false;
        int64_t parent = -1;                  // index into ranges; -1 = computed from nesting
        bool parentGiven = false;             // parent came from the file (no nesting pass)
    };
    struct Activity {
        int64_t startNs = 0;
        int64_t endNs = 0;
        int32_t device = 0;
        int64_t stream = 0;
        ActivityKind kind = ActivityKind::Kernel;
        uint32_t name = 0;
        int64_t correlationId = 0;
        LaunchConfig config;
        int64_t bytes = 0;
        int64_t range = -1;                   // index into ranges when the file says; else attributed
    };
    struct Call {
        int64_t startNs = 0;
        int64_t endNs = 0;
        int64_t thread = 0;                   // lookup key, the same as Range::thread
        uint32_t name = 0;
        int64_t correlationId = 0;
        int64_t osThread = 0;                 // thread id as stored (ApiCall::threadId)
    };
    std::vector<Range> ranges;
    std::vector<Activity> activities;
    std::vector<Call> calls;
    // Host threads by thread key (Range::thread of host ranges, Call::thread): process and OS
    // thread ids and the names the source gives (Kineto's thread_name / process_name metadata,
    // Nsight's ThreadNames and PROCESSES). writeTrace() stores one HostThread per key that a
    // host range or call uses (a key missing here gets pid 0 and the call's OS thread id).
    struct Thread {
        int64_t pid = 0;
        int64_t tid = 0;
        std::string name;
        std::string processName;
    };
    std::unordered_map<int64_t, Thread> threads;
    // Ranges nested and activities attributed already (resolveRanges()): writeTrace() keeps
    // the parents and attributions as they are. Lets traces be merged (the ranks of one job)
    // after each was resolved on its own threads and correlation ids.
    bool resolved = false;
    // JSON: the slices (windows) its events were parsed in; 0 = one pass over the whole text.
    int64_t slices = 0;
    bool streamed = false;                    // JSON read as a stream (gzip: never inflated whole)

    // Counts of what the source held, for the import summary and tests.
    struct Counts {
        int64_t kernels = 0, memcpys = 0, memsets = 0, runtimeCalls = 0, ranges = 0;
        int64_t gpuAnnotations = 0;           // gpu_user_annotation spans (also those merged with their CPU twin)
        int64_t skippedRanges = 0;            // open-ended or non-range rows
        int64_t hostThreads = 0;              // threads with host ranges or calls (set by writeTrace)
    } counts;

    static int64_t gpuLane(int32_t device, int64_t stream) { return (int64_t(device) << 40) ^ stream; }
};

// Nests the ranges and attributes each activity (what writeTrace() does first), in place;
// sets `resolved`. Thread keys and correlation ids are not needed afterwards.
void resolveRanges(ImportedTrace& trace);

struct WriteResult {
    int64_t runId = 0;
    int64_t kernels = 0;
    int devices = 0;
    int64_t attributed = 0;                   // activities that got a scope instance
    int64_t hostThreads = 0;                  // host threads stored (HostThread rows)
    int64_t hostRanges = 0;                   // scope instances stored on a host thread
};

// Writes the trace as one run through `writer` (which must not be inside a run).
// info supplies name/sourceFile/etc.; workload, backend, originNs, device are set here.
// Throws ImportError (naming info.sourceFile and the event) before writing anything when a
// time is beyond ±kMaxTimeNs, the events span more than kMaxTimeNs, or the clock base puts
// them out of range. Names that were cut, and names that were not valid UTF-8, are counted in
// the run's metadata (import.names_cut, import.names_invalid_utf8).
WriteResult writeTrace(Writer& writer, ImportedTrace& trace, RunInfo info);

}  // namespace wt::interop
