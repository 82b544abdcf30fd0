// Reads runs back from a Database: the run list, a run's tracks, scope tree and instances,
// one track's activities in a time window (sorted by start), all activities of a run, API
// calls, metadata, and the per-(scope, name, kind) totals that breakdowns start from.
// Safe to use while another process writes the same file (WAL).
#pragma once

#include "database.h"
#include "runoverview.h"
#include "types.h"

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wt {

struct StoredActivity;

class Reader {
public:
    explicit Reader(Database& db);

    std::vector<RunInfo> runs() const;
    RunInfo run(int64_t runId) const;                 // throws StorageError when missing
    // Resolves "FILE:RUN" run selectors: a numeric id or a run name; empty = the newest run.
    int64_t resolveRun(const std::string& selector) const;

    std::vector<DeviceInfo> devices(int64_t runId) const;
    std::vector<Track> tracks(int64_t runId) const;
    // The scope tree and its instances are validated here, for every consumer: a cycle, a
    // missing parent or scope, a wrong depth or one over kMaxScopeDepth throws StorageError
    // ("FILE: run N is damaged (...)"), other runs of the file stay readable.
    std::vector<ScopeNode> scopes(int64_t runId) const;
    // Sorted by id. A run's ids are dense (1..n, as writers store them): each instance is placed
    // at id - first id, sized from the chunk index; other runs (a killed writer's holes) are
    // sorted. threads > 1 decodes the chunks on that many threads.
    std::vector<ScopeInstance> scopeInstances(int64_t runId, int threads = 1) const;
    // The bulk form of scopeInstances, for loaders that keep their own arrays: the same
    // instances, validated the same way, handed over as decoded blocks. `layout` is called first,
    // once. Dense ids (each of firstId .. firstId + count - 1 exactly once): blocks come in no
    // particular order and, with threads > 1, from several threads at once (the instance with id
    // x owns slot x - firstId, so writers of different instances never meet); anything else:
    // one block, sorted by id. A damaged run throws StorageError (possibly after some blocks).
    struct InstanceLayout {
        int64_t firstId = 0;
        size_t count = 0;
        bool dense = false;
    };
    void forEachScopeInstanceBlock(int64_t runId, const std::function<void(const InstanceLayout&)>& layout,
                                   const std::function<void(const ScopeInstance* rows, size_t count)>& fn,
                                   int threads = 1) const;
    // The instances with ids in [firstId, lastId], sorted by id, from the chunks whose id range
    // meets it (the windowed timeline reads the scopes of one time window's activities; a
    // run's ids follow host time). Not validated against the whole tree: a damaged chunk throws.
    std::vector<ScopeInstance> scopeInstancesBetween(int64_t runId, int64_t firstId, int64_t lastId) const;
    // The run's host threads by id (schema version 4); empty for captures and older files.
    // ScopeInstance::threadId names one of them (an id not among them reads as no thread).
    std::vector<HostThread> hostThreads(int64_t runId) const;
    // How many instances of the given scopes (a few, e.g. a run's step scopes) the run has,
    // without materializing the instances.
    int64_t countScopeInstances(int64_t runId, const std::vector<int64_t>& scopeIds) const;
    std::vector<TotalRow> totals(int64_t runId) const;
    // The per-step totals stored when the run was finished (schema version 3, table step_totals):
    // per step in time order, its per-(scope, name, kind) totals sorted by scope, name, kind
    // (withRows = false: the counts only).
    // Unset for runs without them (files migrated from version 2, recovered runs).
    struct StepTotals {
        int64_t stepInstances = 0;   // instances of the run's outermost "step"-level scopes
        int64_t stepCount = 0;       // its steps (overlapping instances of one step scope: one, storage/stepmerge.h)
        std::vector<std::vector<TotalRow>> steps;
    };
    std::optional<StepTotals> stepTotals(int64_t runId, bool withRows = true) const;
    // The same rows one step at a time (the buffer is reused: copy what you keep), for readers
    // that reduce each step; false (fn not called) for runs without stored step totals.
    bool forEachStepTotals(int64_t runId, const std::function<void(size_t step, const std::vector<TotalRow>& rows)>& fn) const;
    // The run's level-of-detail summary (schema version 5, storage/runoverview.h): unset for a
    // run being written, or one not yet given it (an older file opened read-only).
    std::optional<RunOverview> overview(int64_t runId) const { return readRunOverview(m_db, runId); }
    std::vector<ApiCall> apiCalls(int64_t runId) const;
    std::vector<std::pair<std::string, std::string>> metadata(int64_t runId) const;
    // The op features of a run's launches, in launch order; empty for runs without them
    // (imports, files written before schema version 2).
    std::vector<LaunchFeatures> launches(int64_t runId) const;
    int64_t countLaunches(int64_t runId) const;

    // Activities of one track that overlap [t0, t1), sorted by start.
    std::vector<Activity> activities(int64_t trackId, int64_t t0, int64_t t1) const;
    // Every activity of a run, track by track, each track sorted by start. Returns false from
    // the callback to stop early.
    void forEachActivity(int64_t runId, const std::function<bool(const Activity&)>& fn) const;
    // The bulk form of forEachActivity, for loaders that keep their own arrays (the GUI): the
    // same activities in the same order, handed over as decoded blocks (one chunk, or a whole
    // track when its chunks overlap) with launch configurations as ids (launchConfig()
    // resolves them). Skips building an Activity per row. Returns false to stop early.
    // threads > 1: chunks are decoded on another thread ahead of the callback, which still runs
    // on the calling thread, in order. `prepare`, when given, sees every block before `fn` does,
    // in the same order, on the decoding thread (the calling one when threads = 1): a loader
    // fills part of its arrays there, while `fn` fills others (never the same ones). After the
    // call returns, all that `prepare` wrote is visible to the caller.
    using BlockFn = std::function<void(const Track&, const StoredActivity* rows, size_t count)>;
    void forEachActivityBlock(int64_t runId,
                              const std::function<bool(const Track&, const StoredActivity* rows, size_t count)>& fn,
                              int threads = 1, const BlockFn& prepare = {}) const;
    // The launch configuration a StoredActivity::configId names (all zero for 0 or unknown).
    const LaunchConfig& launchConfig(int64_t configId) const { return config(configId); }

    // Forgets cached strings and launch configurations (after another writer added some).
    void refresh();

    // Interned strings, loaded once per Reader (and again by refresh()).
    const std::string& string(uint32_t id) const;
    const std::unordered_map<uint32_t, std::string>& strings() const;

    // A chunk of `trackId` that does not decode: rethrows the decoder's reason naming the file
    // and the track's run ("FILE: run N is damaged (corrupt activity chunk: ...)").
    [[noreturn]] static void damagedTrack(const Database& db, int64_t trackId, const std::string& what);

private:
    Database& m_db;
    mutable std::unordered_map<uint32_t, std::string> m_strings;
    mutable bool m_stringsLoaded = false;
    mutable std::unordered_map<int64_t, LaunchConfig> m_configs;
    mutable bool m_configsLoaded = false;
    const LaunchConfig& config(int64_t id) const;
    [[noreturn]] void damaged(int64_t runId, const std::string& what) const;
    void validateScopes(int64_t runId, const std::vector<ScopeNode>& nodes) const;
    void validateInstances(int64_t runId, const std::vector<ScopeInstance>& instances) const;
    void toActivity(const StoredActivity& stored, int64_t trackId, Activity& out) const;
};

}  // namespace wt
