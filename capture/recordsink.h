// Where tracers put their records. Tracers call it on the workload's thread (and CUPTI's
// buffer thread); a background thread writes the records through the storage Writer, so
// tracing never waits for the disk. The queue is bounded: when it is full, activities and
// API calls are dropped and counted (like CUPTI's own dropped records); scope and name
// definitions are never dropped.
//
// Durability: commit() (the capture calls it at every step boundary) makes everything queued
// before it durable in the file; while records wait uncommitted, the writer thread also commits
// at least once a second. A capture killed with SIGKILL loses at most the step in progress.
//
// Ids handed out here are local to the sink (names, scope nodes, scope instances); the
// writer thread maps them to the file's ids. Scope instance ids start at 1; 0 means none.
#pragma once

#include "storage/types.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

namespace wt {
class Writer;
}

namespace wt::capture {

struct ActivityRecord {
    int32_t device = 0;
    int64_t stream = 0;
    ActivityKind kind = ActivityKind::Kernel;
    int64_t startNs = 0;            // relative to the run's origin
    int64_t endNs = 0;
    uint32_t name = 0;              // from RecordSink::name()
    int64_t scopeInstance = 0;      // from RecordSink::beginScope(), 0 = none
    int64_t correlationId = 0;
    LaunchConfig config;
    int64_t bytes = 0;
};

// The op features of one launch (kernels::OpLaunch), for the launches table.
struct LaunchRecord {
    int64_t scopeInstance = 0;      // from RecordSink::beginScope(), 0 = none
    uint32_t name = 0;              // from RecordSink::name()
    uint32_t shapes = 0;            // from RecordSink::name(): the sizes as text
    const char* kind = "kernel";    // a static string (kernels::launchKindName)
    double flops = 0, bytesRead = 0, bytesWritten = 0;
    int64_t m = 0, n = 0, k = 0, batch = 0;
    int64_t correlationId = 0;
};

struct ApiRecord {
    int64_t threadId = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    uint32_t name = 0;
    int64_t correlationId = 0;
};

class RecordSink {
public:
    static constexpr size_t kDefaultMaxQueued = 1 << 21;
    // The writer thread wakes per kWakeBatch records, on kick() and on drain(): never on a
    // timer, so a short step is not interrupted by it (on 2 cores a woken thread stalls
    // OpenBLAS's spinning workers).
    static constexpr size_t kWakeBatch = 4096;

    // The writer must have begun its run; the sink uses it only from its own thread until
    // close() returns.
    explicit RecordSink(Writer& writer, size_t maxQueued = kDefaultMaxQueued);
    virtual ~RecordSink();
    RecordSink(const RecordSink&) = delete;
    RecordSink& operator=(const RecordSink&) = delete;

    // Virtual: the CUDA plugin's tracer (capture/cudaplugin.h) calls them through the vtable, so
    // it needs none of the sink's or storage's code.
    virtual uint32_t name(std::string_view text);
    virtual int64_t scopeNode(int64_t parentNode, std::string_view name, std::string_view level);
    // The instance is recorded on the calling thread (a host_threads row per thread, its OS tid
    // and name), unless setHostThreads(false).
    virtual int64_t beginScope(int64_t node, int64_t parentInstance, int64_t startNs);
    virtual void endScope(int64_t instance, int64_t endNs);
    virtual void activity(const ActivityRecord& record);
    virtual void apiCall(const ApiRecord& record);
    virtual void launch(const LaunchRecord& record);
    virtual void device(const DeviceInfo& info);

    // Whether scope instances name the thread that began them (default: yes, a capture's scopes
    // are on host time on the capturing thread). A predicted run's clock is the model's: off.
    // Set before the first beginScope.
    void setHostThreads(bool on) { m_recordThreads = on; }

    // Lets the writer thread write what is queued now (between steps); does not wait.
    void kick();
    // kick(), and commit what is queued now as one commit point (a step boundary); does not wait.
    void commit();
    // Commits made so far: commit() points and the timed ones (for tests and benchmarks).
    int64_t commits() const { return m_commits.load(); }

    int64_t dropped() const { return m_dropped.load(); }
    int64_t activities() const { return m_activities.load(); }
    // Waits until every queued record is written. Throws StorageError when the writer failed.
    void drain();
    // drain(), then stops the thread; the Writer is the caller's again.
    void close();
    // Set when the writer thread failed (disk full, ...): the one-line reason.
    bool failed() const { return m_failed.load(); }
    std::string error() const;

private:
    struct NameDef { uint32_t local; std::string text; };
    struct NodeDef { int64_t local, parent; std::string name, level; };
    struct Begin { int64_t local, node, parent, startNs, thread; };   // thread: HostThread::id, 0 = none
    struct ThreadDef { HostThread thread; };
    struct End { int64_t local, endNs; };
    struct CommitMark {};
    using Record = std::variant<NameDef, NodeDef, Begin, End, ThreadDef, ActivityRecord, ApiRecord, LaunchRecord, DeviceInfo, CommitMark>;

    void push(Record&& r, bool droppable);
    void run();
    void write(Record& r);

    Writer& m_writer;
    size_t m_maxQueued;
    std::mutex m_mutex;                    // guards the queue and the id tables below
    std::condition_variable m_wake, m_idle;
    std::vector<Record> m_queue;
    bool m_stop = false;
    bool m_busy = false;
    bool m_kicked = false;
    std::thread m_thread;
    bool m_recordThreads = true;
    std::unordered_map<int64_t, int64_t> m_threadIds;   // OS tid -> HostThread::id (under m_mutex)
    std::atomic<int64_t> m_dropped{0}, m_activities{0}, m_commits{0};
    std::atomic<bool> m_failed{false};
    std::string m_error;

    // Producer side (under m_mutex). Names are looked up by string_view: no allocation per op.
    struct ViewHash {
        using is_transparent = void;
        size_t operator()(std::string_view v) const { return std::hash<std::string_view>()(v); }
    };
    std::unordered_map<std::string, uint32_t, ViewHash, std::equal_to<>> m_names;
    std::unordered_map<std::string, int64_t> m_nodes;   // key: parent id + '\0' + name
    int64_t m_nextInstance = 1;

    // Writer side (writer thread only).
    std::vector<uint32_t> m_nameIds;       // local -> file
    std::vector<int64_t> m_nodeIds;        // local -> file
    std::vector<int64_t> m_instanceIds;    // local -> file
    std::unordered_map<uint64_t, int64_t> m_tracks;
    bool m_uncommitted = false;            // rows written since the last commit
    std::chrono::steady_clock::time_point m_lastCommit = std::chrono::steady_clock::now();
    bool m_idleWait = false;   // the writer sleeps without a deadline: the next record wakes it
    void commitNow();
};

}  // namespace wt::capture
