// Appends runs to a Database. One Writer writes one run at a time:
//   beginRun -> (addDevice | addHostThread | addTrack | addScope | beginScopeInstance/endScopeInstance |
//                addScopeInstance | addActivity | addApiCall | setMetadata)* -> finishRun or discardRun.
// Rows go through prepared statements in batched transactions. Every commit (commit(), every
// kBatchRows rows, and at least once a second while rows come) makes the rows so far durable
// together with the run's summary of them (kernel totals per scope, busy time, span, per-track
// counts): a reader in another process sees the run grow, and a run whose writer is killed reads
// with everything it committed. A scope instance must be known (begun or added) before an
// activity names it; it is stored when it ends. Times must lie within +-kMaxTimeNs (types.h).
#pragma once

#include "database.h"
#include "types.h"

#include <memory>
#include <string_view>

namespace wt {

class Writer {
public:
    static constexpr int kBatchRows = 200000;

    explicit Writer(Database& db);
    ~Writer();   // an unfinished run is finished as failed
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    // Rows per committed batch (default kBatchRows); smaller makes a live run visible sooner.
    void setBatchRows(int64_t rows);

    int64_t beginRun(const RunInfo& info);
    int64_t runId() const;

    uint32_t intern(std::string_view text);
    void addDevice(const DeviceInfo& device);
    // Returns the existing track when (device, stream, kind) was added before in this run.
    int64_t addTrack(int32_t deviceId, int64_t stream, TrackKind kind, std::string_view name = {});
    // Returns the existing node when (parent, name) was added before in this run.
    int64_t addScope(int64_t parentId, std::string_view name, std::string_view level);

    // Captures: id at enter, row written at exit; on a host thread added before (0 = none).
    int64_t beginScopeInstance(int64_t scopeId, int64_t parentInstanceId, int64_t startNs, int64_t threadId = 0);
    void endScopeInstance(int64_t instanceId, int64_t endNs);
    // Imports: a whole instance at once, on a host thread added before (0 = none).
    int64_t addScopeInstance(int64_t scopeId, int64_t parentInstanceId, int64_t startNs, int64_t endNs, int64_t threadId = 0);
    // Imports that know how many instances they will add: room for them at once, instead of
    // the per-instance arrays doubling (their copies and fresh pages). Changes nothing stored.
    void reserveScopeInstances(size_t count);
    // A host thread of the run (schema version 4); its id must be new in the run, 1 to 2^31-1.
    void addHostThread(const HostThread& thread);

    void addActivity(const Activity& activity);
    void addApiCall(const ApiCall& call);
    // The op features of one launch (seq is assigned here, in call order).
    void addLaunch(const LaunchFeatures& launch);
    void setMetadata(std::string_view key, std::string_view value);
    void setDroppedRecords(int64_t dropped);

    // A commit point (captures call it at every step boundary): what was added so far is durable.
    // Inside a caller's transaction it does nothing (the caller commits).
    void commit();

    void finishRun(RunStatus status, int64_t durationNs);
    // Removes everything of the current run (a failed import leaves nothing behind).
    void discardRun();

    // Marks a run whose writer died incomplete; rebuilds its summary from its chunks when the
    // committed summary does not cover them (files of earlier versions).
    static void recoverRun(Database& db, int64_t runId);
    // The bytes of per-step totals (held while writing, ~6 a kernel) past which a run's are not
    // stored (readers compute them, as for older files); 0 restores the default (~900 MB,
    // under SQLite's 1 GB blob limit). Process-wide; for tests.
    static void setStepTotalsLimit(size_t bytes);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

}  // namespace wt

#ifndef WHERETIME_STORAGE_VERSION
#define WHERETIME_STORAGE_VERSION "0.1.0"
#endif
