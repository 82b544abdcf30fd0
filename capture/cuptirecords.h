// The record handling of the CUPTI tracer, free of CUPTI so that it is tested without a GPU
// (tests/capture/tst_cuptirecords.cpp feeds it synthetic CUPTI-like records).
//
// Threads: beginLaunch() and flush() come from the thread running the model; kernel(),
// memory(), api(), external() and cuptiDropped() from CUPTI's buffer callbacks (any thread).
//
// Attribution: around every launch of an op the tracer pushes the id that beginLaunch()
// returned as CUPTI's external correlation id; CUPTI's EXTERNAL_CORRELATION records map each
// API call's correlation id to it, and a device record carries the correlation id of the API
// call that made it. So a device record finds its launch: the op's name and the innermost
// scope instance. Correlation entries (also those of API calls that make no device record:
// cudaGetLastError, cuBLAS's set-up calls, ...) and launches are kept until the flush after
// the one they arrived before (records of a step can straddle a flush), then erased: the
// tables hold at most two steps' worth, however long the capture.
//
// Records that a forced flush left incomplete (start or end 0, or end before start) are
// dropped and counted in dropped(), with the records CUPTI itself dropped.
#pragma once

#include "capture/recordsink.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace wt::capture {

class CuptiRecords {
public:
    // One kernel as CUPTI reports it (times on CUPTI's clock, not yet relative to the origin).
    struct Kernel {
        int32_t device = 0;
        int64_t stream = 0;
        uint64_t startNs = 0, endNs = 0;
        std::string_view rawName;    // CUPTI's (mangled) name; copied
        uint32_t correlation = 0;
        LaunchConfig config;
    };
    struct Memory {                  // memcpy or memset
        ActivityKind kind = ActivityKind::Memcpy;
        int32_t device = 0;
        int64_t stream = 0;
        uint64_t startNs = 0, endNs = 0;
        std::string_view name;       // e.g. "[CUDA memcpy HtoD]"
        uint32_t correlation = 0;
        int64_t bytes = 0;
    };
    struct Api {
        int64_t threadId = 0;
        uint64_t startNs = 0, endNs = 0;
        std::string_view name;
        uint32_t correlation = 0;
    };

    explicit CuptiRecords(RecordSink& sink) : m_sink(sink) {}
    void setOrigin(int64_t originNs) { m_origin = originNs; }

    // Model thread: a launch of `opName` in scope instance `scopeInstance` (0 = none); returns
    // the external correlation id to push around it (never 0).
    uint64_t beginLaunch(int64_t scopeInstance, std::string_view opName);

    // Buffer thread.
    void kernel(const Kernel& k);
    void memory(const Memory& m);
    void api(const Api& a);
    void external(uint32_t correlation, uint64_t externalId);
    void cuptiDropped(int64_t count);

    // Model thread, after a step synchronized and CUPTI flushed: attribute what arrived, hand it
    // to the sink, and forget correlations and launches older than the previous flush.
    void flush();

    // Records CUPTI dropped plus incomplete records dropped here.
    int64_t dropped() const;
    int64_t incomplete() const;
    // Readable kernel name -> the raw names stored under it (only where the two differ).
    std::map<std::string, std::set<std::string>> rawNames() const;
    // Table sizes, for tests: correlation entries and launches held.
    size_t correlationsHeld() const;
    size_t launchesHeld() const { return m_launches[0].size() + m_launches[1].size(); }

private:
    struct Pending {
        ActivityRecord record;
        uint32_t correlation = 0;
        uint32_t raw = kNoRaw;       // index into m_raws for kernels
    };
    struct Raw {
        std::string raw;
        bool own = false;            // one of ours: named by its op
        uint32_t demangledName = 0;  // sink name id of the demangled name
        std::string demangled;
    };
    struct Launch {
        int64_t scopeInstance = 0;
        uint32_t op = 0;             // index into m_ops
    };
    static constexpr uint32_t kNoRaw = ~0u;
    bool complete(uint64_t startNs, uint64_t endNs);   // counts the incomplete; under m_mutex
    const Launch* findLaunch(uint64_t externalId) const;

    RecordSink& m_sink;
    int64_t m_origin = 0;

    mutable std::mutex m_mutex;      // guards the buffer-thread side below
    std::vector<Pending> m_pending;
    std::vector<ApiRecord> m_api;
    // correlation id -> external id; [0] since the last flush, [1] the flush before.
    std::unordered_map<uint32_t, uint64_t> m_external[2];
    struct ViewHash {
        using is_transparent = void;
        size_t operator()(std::string_view v) const { return std::hash<std::string_view>()(v); }
    };
    std::unordered_map<std::string, uint32_t, ViewHash, std::equal_to<>> m_rawIndex;
    std::vector<Raw> m_raws;
    int64_t m_cuptiDropped = 0;
    int64_t m_incomplete = 0;

    // Model thread only.
    uint64_t m_nextLaunch = 1;
    std::unordered_map<uint64_t, Launch> m_launches[2];   // external id -> launch; like m_external
    std::unordered_map<std::string, uint32_t, ViewHash, std::equal_to<>> m_opIndex;
    std::vector<std::string> m_ops;
    std::vector<uint32_t> m_opNames;                      // sink name id per op
    std::unordered_set<uint64_t> m_namePairs;             // (op + 1) << 32 | raw already noted
    std::map<std::string, std::set<std::string>> m_rawNames;
};

}  // namespace wt::capture
