#include "writer.h"

#include "activitychunk.h"
#include "apicallchunk.h"
#include "instancechunk.h"
#include "launchconfigs.h"
#include "runoverview.h"
#include "scopelanes.h"
#include "statement.h"
#include "stepmerge.h"
#include "steptotalsblob.h"
#include "storageerror.h"
#include "varint.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <cerrno>
#include <csignal>
#include <unistd.h>
#include <tuple>
#include <climits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace wt {

namespace {

struct PairHash {
    size_t operator()(const std::pair<int64_t, std::string>& k) const
    {
        return std::hash<int64_t>()(k.first) * 1000003u ^ std::hash<std::string>()(k.second);
    }
};

struct ConfigHash {
    size_t operator()(const LaunchConfig& c) const
    {
        size_t h = 1469598103934665603ull;
        auto mix = [&](int32_t v) { h = (h ^ uint32_t(v)) * 1099511628211ull; };
        for (int i = 0; i < 3; ++i) { mix(c.grid[i]); mix(c.block[i]); }
        mix(c.registers); mix(c.staticSmem); mix(c.dynamicSmem);
        return h;
    }
};

struct TotalKey {
    int64_t scopeId;
    uint32_t nameId;
    uint8_t kind;
    bool operator==(const TotalKey&) const = default;
};
struct TotalKeyHash {
    size_t operator()(const TotalKey& k) const { return (std::hash<int64_t>()(k.scopeId) * 31 + k.nameId) * 7 + k.kind; }
};

std::string hostName()
{
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return buf;
}

// Kernel totals and spans of one run, fed activity by activity. Written at every commit (only
// the totals that changed since the last one), so a run whose writer dies reads with the
// summary of what it committed.
struct Summary {
    struct Total {
        int64_t count = 0, timeNs = 0;
        bool dirty = false;
        uint32_t row = 0;            // its index in rowKeys
    };
    std::unordered_map<TotalKey, Total, TotalKeyHash> totals;
    std::vector<TotalRow> rowKeys;                               // scope, name, kind of each total, by row
    std::vector<TotalKey> dirty;                                 // changed since the last write
    std::vector<std::pair<int64_t, int64_t>> fresh;              // kernel intervals since the last fold
    std::vector<std::pair<int64_t, int64_t>> merged;             // disjoint and sorted: the union so far
    int64_t mergedNs = 0;
    int64_t kernels = 0, kernelTime = 0, spanStart = INT64_MAX, spanEnd = INT64_MIN;
    bool overflowed = false;                                     // a sum saturated

    // start and end are within +-kMaxTimeNs (the writer checks), so end - start cannot overflow;
    // the sums of many durations can, and saturate (the writer refuses such a run).
    // Returns the total's row.
    uint32_t add(int64_t scopeId, uint32_t nameId, uint8_t kind, int64_t start, int64_t end)
    {
        TotalKey key{scopeId, nameId, kind};
        auto [it, isNew] = totals.try_emplace(key);
        Total& t = it->second;
        if (isNew) {
            t.row = uint32_t(rowKeys.size());
            TotalRow k;
            k.scopeId = scopeId;
            k.nameId = nameId;
            k.kind = ActivityKind(kind);
            rowKeys.push_back(k);
        }
        if (!t.dirty) {
            t.dirty = true;
            dirty.push_back(key);
        }
        t.count += 1;
        int64_t sum = saturatingAdd(t.timeNs, end - start);
        overflowed |= sum == INT64_MAX;
        t.timeNs = sum;
        if (kind != uint8_t(ActivityKind::Kernel))
            return t.row;
        ++kernels;
        kernelTime = saturatingAdd(kernelTime, end - start);
        overflowed |= kernelTime == INT64_MAX;
        spanStart = std::min(spanStart, start);
        spanEnd = std::max(spanEnd, end);
        // Consecutive kernels that touch or overlap merge here already: less memory at the end.
        if (!fresh.empty() && start >= fresh.back().first && start <= fresh.back().second)
            fresh.back().second = std::max(fresh.back().second, end);
        else
            fresh.emplace_back(start, end);
        return t.row;
    }

    // Folds the fresh intervals into the union. Captures append in time order, so usually only
    // the fresh ones are sorted; out-of-order ones re-merge the tail of the union they reach into.
    void fold()
    {
        if (fresh.empty())
            return;
        std::sort(fresh.begin(), fresh.end());
        auto pos = std::lower_bound(merged.begin(), merged.end(), fresh.front().first,
                                    [](const std::pair<int64_t, int64_t>& iv, int64_t s) { return iv.second < s; });
        std::vector<std::pair<int64_t, int64_t>> all;
        all.reserve(size_t(merged.end() - pos) + fresh.size());
        for (auto it = pos; it != merged.end(); ++it)
            mergedNs -= it->second - it->first;
        std::merge(pos, merged.end(), fresh.begin(), fresh.end(), std::back_inserter(all));
        merged.erase(pos, merged.end());
        for (auto [s, e] : all) {
            if (!merged.empty() && s <= merged.back().second) {
                if (e > merged.back().second) {
                    mergedNs += e - merged.back().second;
                    merged.back().second = e;
                }
            } else {
                merged.emplace_back(s, e);
                mergedNs += e - s;
            }
        }
        fresh.clear();
    }

    // replaceAll: the run's totals rows are rewritten (recovery); otherwise only changed ones.
    void write(sqlite3* db, int64_t runId, bool replaceAll)
    {
        fold();
        if (replaceAll) {
            Statement del(db, "DELETE FROM totals WHERE run_id=?");
            del.bind(1, runId).run();
        }
        Statement ins(db, "INSERT OR REPLACE INTO totals(run_id, scope_id, name_id, kind, count, time_ns) VALUES (?,?,?,?,?,?)");
        auto put = [&](const TotalKey& k, Total& v) {
            ins.bind(1, runId).bind(2, k.scopeId).bind(3, int64_t(k.nameId)).bind(4, int64_t(k.kind)).bind(5, v.count)
                .bind(6, v.timeNs).run();
            v.dirty = false;
        };
        if (replaceAll) {
            for (auto& [k, v] : totals)
                put(k, v);
        } else {
            for (const TotalKey& k : dirty)
                put(k, totals[k]);
        }
        dirty.clear();
        Statement up(db, "UPDATE runs SET kernels=?, kernel_time_ns=?, busy_ns=?, span_start_ns=?, span_end_ns=? WHERE id=?");
        up.bind(1, kernels).bind(2, kernelTime).bind(3, mergedNs).bind(4, kernels ? spanStart : int64_t(0))
            .bind(5, kernels ? spanEnd : int64_t(0)).bind(6, runId).run();
    }
};

// The per-step totals of one run (compare's noise samples, table step_totals), fed as scopes,
// instances and activities arrive, so reading them back is one indexed query instead of a pass
// over the instances and activities. Which scopes are steps is known only at the end (steps by
// level when any scope has level "step", else the outermost ProfilerStep#N ranges, one step per
// name: the rule of analysis' readStepTotals), so both candidates are followed until then.
// Activities of one step mostly arrive together: they are summed into dense per-row arrays (a
// row is a (scope, name, kind) of the run's Summary) and set aside as a segment when the step
// changes; a step's segments are merged at the end. No hash lookup per activity.
struct StepSummary {
    struct ScopeFlags {
        uint32_t nameId = 0;
        bool outerLevel = false, underLevel = false;   // level "step", none above / it or one above is
        bool outerName = false, underName = false;     // likewise for profiler-step names
    };
    struct Step {
        int64_t startNs;     // the earliest start of its instances
        int64_t instance;    // the first instance found: the tie-break of equal starts
        int64_t scopeId = 0; // level steps: the step scope and the instance's end (storage/stepmerge.h)
        int64_t endNs = 0;
    };
    // A segment's cells as varints (row, count, zigzag time: ~6 bytes a cell, a quarter of the
    // structs), so the memory held until the end follows the blob it becomes.
    struct Segment {
        int32_t byLevel, byName;   // the step under each rule (-1: none)
        std::string cells;
    };
    // Past this many bytes of segments the run's step totals are not stored (their blob would
    // near SQLite's 1 GB limit; readers then compute them from the instances and activities,
    // as for older files): what the writer holds for them stays bounded.
    static constexpr size_t kMaxSegmentBytes = 900u << 20;
    static size_t& segmentLimit()
    {
        static size_t limit = kMaxSegmentBytes;
        return limit;
    }
    size_t segmentBytes = 0;
    bool tooBig = false;
    std::unordered_map<int64_t, ScopeFlags> scopes;
    bool anyLevelStep = false;
    // Per instance (id - 1): its step under each rule; empty until an instance has one (a run
    // without steps, or without profiler-step names, holds nothing per instance for that rule).
    std::vector<int32_t> levelOf, nameOf;
    static int32_t at(const std::vector<int32_t>& v, int64_t id) { return size_t(id - 1) < v.size() ? v[size_t(id - 1)] : -1; }
    static void put(std::vector<int32_t>& v, int64_t id, int32_t step)
    {
        if (step < 0 && v.empty())
            return;
        v.resize(size_t(id - 1), -1);
        v.push_back(step);
    }
    std::vector<Step> levelSteps, nameSteps;
    std::unordered_map<uint32_t, int32_t> nameStep;   // profiler-step name -> its step
    int64_t stepInstances = 0;                // instances of outermost step-level scopes (countSteps)
    std::vector<Segment> segments;
    int32_t curLevel = -1, curName = -1;      // the step being summed
    std::vector<int64_t> count, time;         // per row, for the step being summed
    std::vector<uint32_t> touched;

    void addScope(int64_t id, int64_t parentId, uint32_t nameId, std::string_view name, std::string_view level)
    {
        ScopeFlags f;
        f.nameId = nameId;
        const ScopeFlags* parent = nullptr;
        if (auto it = scopes.find(parentId); parentId != 0 && it != scopes.end())
            parent = &it->second;
        const bool levelStep = level == "step", nameStepLike = isProfilerStep(name);
        f.outerLevel = levelStep && !(parent && parent->underLevel);
        f.underLevel = levelStep || (parent && parent->underLevel);
        f.outerName = nameStepLike && !(parent && parent->underName);
        f.underName = nameStepLike || (parent && parent->underName);
        anyLevelStep |= levelStep;
        scopes[id] = f;
    }

    // Instance `id` (ids are 1, 2, ...; a parent begins before its children).
    void addInstance(int64_t id, int64_t scopeId, int64_t parentInstance, int64_t startNs)
    {
        const ScopeFlags& f = scopes[scopeId];
        int32_t l = -1, n = -1;
        if (parentInstance > 0) {
            l = at(levelOf, parentInstance);
            n = at(nameOf, parentInstance);
        }
        if (f.outerLevel)
            ++stepInstances;
        if (l < 0 && f.outerLevel) {
            l = int32_t(levelSteps.size());
            levelSteps.push_back({startNs, id, scopeId, startNs});
        }
        if (n < 0 && f.outerName) {
            auto [it, isNew] = nameStep.try_emplace(f.nameId, int32_t(nameSteps.size()));
            if (isNew)
                nameSteps.push_back({startNs, id});
            else
                nameSteps[size_t(it->second)].startNs = std::min(nameSteps[size_t(it->second)].startNs, startNs);
            n = it->second;
        }
        put(levelOf, id, l);
        put(nameOf, id, n);
    }

    // Instance `id` ended: a level step's own instance keeps its end (overlapping ones merge).
    void endInstance(int64_t id, int64_t endNs)
    {
        if (id <= 0)
            return;
        const int32_t l = at(levelOf, id);
        if (l >= 0 && levelSteps[size_t(l)].instance == id)
            levelSteps[size_t(l)].endNs = std::max(endNs, levelSteps[size_t(l)].startNs);
    }

    // `row`: the activity's (scope, name, kind) row of the Summary.
    void addActivity(int64_t instance, uint32_t row, int64_t durationNs)
    {
        if (instance <= 0)
            return;
        const int32_t l = at(levelOf, instance), n = at(nameOf, instance);
        if ((l < 0 && n < 0) || tooBig)
            return;
        if (l != curLevel || n != curName) {
            setAside();
            curLevel = l;
            curName = n;
        }
        if (row >= count.size()) {
            count.resize(size_t(row) + 1 + count.size() / 2, 0);
            time.resize(count.size(), 0);
        }
        if (count[row]++ == 0)
            touched.push_back(row);
        time[row] += durationNs;   // the writer refuses runs whose total time overflows
    }

    void setAside()
    {
        if (touched.empty())
            return;
        Segment seg{curLevel, curName, {}};
        for (uint32_t row : touched) {
            varint::put(seg.cells, row);
            varint::put(seg.cells, uint64_t(count[row]));
            varint::put(seg.cells, varint::zigzag(time[row]));
            count[row] = time[row] = 0;
        }
        touched.clear();
        segmentBytes += seg.cells.size() + sizeof(Segment);
        segments.push_back(std::move(seg));
        if (segmentBytes > segmentLimit()) {
            tooBig = true;
            std::vector<Segment>().swap(segments);
        }
    }

    // Writes the run's step_totals row: steps numbered in time order, each step's rows sorted.
    void write(sqlite3* db, int64_t runId, const std::vector<TotalRow>& rowKeys)
    {
        setAside();
        if (tooBig)
            return;
        const bool byLevel = anyLevelStep;
        // Level steps: instances of one step scope overlapping in time are one step.
        std::vector<uint32_t> mergedOf;
        std::vector<Step> merged;
        if (byLevel) {
            std::vector<StepSpan> spans;
            spans.reserve(levelSteps.size());
            for (const Step& st : levelSteps)
                spans.push_back({st.scopeId, st.startNs, st.endNs});
            size_t count = 0;
            mergedOf = mergeOverlappingSteps(spans, count);
            merged.assign(count, Step{INT64_MAX, INT64_MAX});
            for (size_t i = 0; i < levelSteps.size(); ++i) {
                Step& m = merged[mergedOf[i]];
                m.startNs = std::min(m.startNs, levelSteps[i].startNs);
                m.instance = std::min(m.instance, levelSteps[i].instance);
            }
        }
        const std::vector<Step>& steps = byLevel ? merged : nameSteps;
        std::vector<int32_t> order(steps.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = int32_t(i);
        std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
            return std::tie(steps[size_t(a)].startNs, steps[size_t(a)].instance) <
                   std::tie(steps[size_t(b)].startNs, steps[size_t(b)].instance);
        });
        std::vector<int64_t> position(steps.size());
        for (size_t i = 0; i < order.size(); ++i)
            position[size_t(order[i])] = int64_t(i);
        // The segments of each step, in step order.
        std::vector<std::pair<int64_t, size_t>> bySegment;
        for (size_t i = 0; i < segments.size(); ++i) {
            const int32_t st = byLevel ? (segments[i].byLevel >= 0 ? int32_t(mergedOf[size_t(segments[i].byLevel)]) : -1)
                                       : segments[i].byName;
            if (st >= 0)
                bySegment.emplace_back(position[size_t(st)], i);
        }
        std::stable_sort(bySegment.begin(), bySegment.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::string blob;
        blob.reserve(segments.size() * 16 + steps.size());
        std::vector<TotalRow> rows, previous;   // reused: one step at a time goes into the blob
        size_t k = 0;
        for (int64_t step = 0; step < int64_t(steps.size()); ++step) {
            for (; k < bySegment.size() && bySegment[k].first == step; ++k) {
                const std::string& cells = segments[bySegment[k].second].cells;
                varint::Cursor c{reinterpret_cast<const uint8_t*>(cells.data()), reinterpret_cast<const uint8_t*>(cells.data()) + cells.size()};
                while (c.p != c.end) {
                    const uint32_t row = uint32_t(c.next());
                    const int64_t n = int64_t(c.next()), ns = varint::unzigzag(c.next());
                    if (count[row] == 0)
                        touched.push_back(row);
                    count[row] += n;
                    time[row] += ns;
                }
            }
            rows.clear();
            for (uint32_t row : touched) {
                TotalRow t = rowKeys[row];
                t.count = count[row];
                t.timeNs = time[row];
                rows.push_back(t);
                count[row] = time[row] = 0;
            }
            touched.clear();
            std::sort(rows.begin(), rows.end(), [](const TotalRow& a, const TotalRow& b) {
                return std::tie(a.scopeId, a.nameId, a.kind) < std::tie(b.scopeId, b.nameId, b.kind);
            });
            StepTotalsBlob::appendStep(blob, rows, previous);
            std::swap(rows, previous);
        }
        std::vector<Segment>().swap(segments);
        if (blob.size() >= size_t(sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1)))
            return;   // too big to store: as tooBig
        Statement ins(db, "INSERT OR REPLACE INTO step_totals(run_id, steps, step_instances, data) VALUES (?,?,?,?)");
        ins.bind(1, runId).bind(2, int64_t(steps.size())).bind(3, stepInstances).bindBlobNoCopy(4, blob.data(), blob.size()).run();
    }
};

}  // namespace

struct Writer::Impl {
    Database& db;
    sqlite3* h;
    int64_t runId = 0;
    bool inRun = false;
    bool inTransaction = false;
    bool externalTransaction = false;   // the caller holds a transaction: never begin or commit
    int64_t rowsInBatch = 0;
    int64_t batchRows = kBatchRows;
    int64_t seq = 0;
    std::chrono::steady_clock::time_point lastCommit = std::chrono::steady_clock::now();

    std::unique_ptr<Statement> insString, insDevice, insTrack, insScope, insInstanceChunk, insConfig, insChunk, insApiChunk, insMeta, insLaunch, insThread;
    int64_t launchSeq = 0;

    std::unordered_map<std::string, uint32_t> strings;
    uint32_t nextString = 1;
    bool stringsLoaded = false;
    std::unordered_map<LaunchConfig, int64_t, ConfigHash> configs;
    bool configsLoaded = false;

    struct TrackKey {
        int32_t device;
        int64_t stream;
        TrackKind kind;
        bool operator==(const TrackKey&) const = default;
    };
    struct TrackKeyHash {
        size_t operator()(const TrackKey& k) const { return (size_t(k.device) * 1000003u) ^ size_t(k.stream) * 31 ^ size_t(k.kind); }
    };
    struct TrackState {
        int64_t count = 0, maxDuration = 0;
        std::vector<StoredActivity> pending;   // the chunk being filled
        int64_t openRow = 0;                   // its row when committed while not full (rewritten as it grows)
        bool dirty = false;                    // count changed since the last commit
    };
    std::unordered_map<TrackKey, int64_t, TrackKeyHash> tracks;
    std::unordered_map<int64_t, TrackState> trackState;

    std::unordered_map<std::pair<int64_t, std::string>, int64_t, PairHash> scopes;
    std::unordered_map<int64_t, int> scopeDepth;

    // Scope instances of this run, indexed by id - instanceBase (ids are per run, from 1).
    static constexpr int64_t instanceBase = 1;
    std::vector<ScopeInstance> pendingInstances;   // ended, in the chunk being filled
    std::vector<ApiCall> pendingApiCalls;
    int64_t openInstanceRow = 0, openApiRow = 0;   // rows of the chunks being filled, once committed
    std::unique_ptr<Statement> updChunk, updInstanceChunk, updApiChunk;
    // Per instance only its scope (as an index into instScopes: 4 bytes, what activities need
    // to the end); what writing it needs (parent, start, thread) only while it is open.
    struct OpenInstance {
        int64_t parent, start, thread;
    };
    std::vector<uint32_t> instScope;                       // per instance: index into instScopes
    std::vector<int64_t> instScopes;                       // scope ids of this run's instances
    std::unordered_map<int64_t, uint32_t> instScopeIndex;  // scope id -> index into instScopes
    std::unordered_map<size_t, OpenInstance> openInstances;   // by instance index: begun, not ended
    std::unordered_set<int64_t> hostThreads;       // HostThread ids added in this run

    Summary summary;
    StepSummary steps;
    bool stepTable = true;   // false while migrating from version 0 (the table comes with version 3)
    bool overviewTable = true;   // false while migrating from versions before 5

    explicit Impl(Database& d) : db(d), h(d.handle()) {}

    void ensureTransaction()
    {
        if (externalTransaction || inTransaction)
            return;
        db.begin();
        inTransaction = true;
    }

    void commitOwned()
    {
        if (inTransaction && !externalTransaction) {
            db.commit();
            inTransaction = false;
        }
    }

    void rollbackOwned()
    {
        if (inTransaction && !externalTransaction) {
            db.rollback();
            inTransaction = false;
        }
    }

    // Writes the chunk being filled. Not full (final = false): the row is written, or rewritten
    // when it was written at an earlier commit, and the chunk keeps filling, so frequent commits
    // do not make small chunks. final: the chunk is done.
    void flushTrack(int64_t trackId, TrackState& st, bool final)
    {
        if (!st.pending.empty()) {
            ChunkHeader hdr;
            std::string blob = ActivityChunk::encode(st.pending, hdr);
            if (st.openRow) {
                updChunk->bind(1, hdr.startNs).bind(2, hdr.endNs).bind(3, hdr.firstSeq).bind(4, hdr.count)
                    .bindBlobNoCopy(5, blob.data(), blob.size()).bind(6, st.openRow).run();
            } else {
                insChunk->bind(1, trackId).bind(2, hdr.startNs).bind(3, hdr.endNs).bind(4, hdr.firstSeq).bind(5, hdr.count)
                    .bindBlobNoCopy(6, blob.data(), blob.size()).run();
                st.openRow = sqlite3_last_insert_rowid(h);
            }
        }
        if (final) {
            st.pending.clear();
            st.openRow = 0;
        }
    }

    void flushApiCalls(bool final)
    {
        if (!pendingApiCalls.empty()) {
            int64_t first = INT64_MAX, last = INT64_MIN;
            for (const ApiCall& c : pendingApiCalls) {
                first = std::min(first, c.startNs);
                last = std::max(last, c.endNs);
            }
            std::string blob = ApiCallChunk::encode(pendingApiCalls);
            if (openApiRow) {
                updApiChunk->bind(1, first).bind(2, last).bind(3, int64_t(pendingApiCalls.size()))
                    .bindBlobNoCopy(4, blob.data(), blob.size()).bind(5, openApiRow).run();
            } else {
                insApiChunk->bind(1, runId).bind(2, first).bind(3, last).bind(4, int64_t(pendingApiCalls.size()))
                    .bindBlobNoCopy(5, blob.data(), blob.size()).run();
                openApiRow = sqlite3_last_insert_rowid(h);
            }
        }
        if (final) {
            pendingApiCalls.clear();
            openApiRow = 0;
        }
    }

    void flushAll(bool final)
    {
        for (auto& [id, st] : trackState)
            flushTrack(id, st, final);
        flushInstances(final);
        flushApiCalls(final);
    }

    // A commit point: everything added so far (chunks being filled included) and the run's
    // summary of it become durable together. A writer killed later loses only what follows.
    void commitPoint()
    {
        if (externalTransaction || !inRun)
            return;
        ensureTransaction();
        flushAll(false);
        writeTrackCounts();
        summary.write(h, runId, false);
        commitOwned();
        rowsInBatch = 0;
        lastCommit = std::chrono::steady_clock::now();
    }

    void writeTrackCounts()
    {
        Statement tr(h, "UPDATE tracks SET count=?, max_duration_ns=? WHERE id=?");
        for (auto& [id, st] : trackState)
            if (st.dirty) {
                tr.bind(1, st.count).bind(2, st.maxDuration).bind(3, id).run();
                st.dirty = false;
            }
    }

    // Commits every kBatchRows rows, and at least once a second while rows keep coming, so a
    // reader in another process sees the run grow and a kill loses little.
    void countRows(int64_t n)
    {
        if (externalTransaction)
            return;
        rowsInBatch += n;
        if (rowsInBatch >= batchRows ||
            ((rowsInBatch & 1023) == 0 && std::chrono::steady_clock::now() - lastCommit >= std::chrono::seconds(1)))
            commitPoint();
    }

    void loadStrings()
    {
        if (stringsLoaded)
            return;
        Statement s(h, "SELECT id, value FROM strings");
        while (s.step()) {
            uint32_t id = uint32_t(s.int64(0));
            strings.emplace(s.text(1), id);
            nextString = std::max(nextString, id + 1);
        }
        stringsLoaded = true;
    }

    void loadConfigs()
    {
        if (configsLoaded)
            return;
        forEachLaunchConfig(h, [&](int64_t id, const LaunchConfig& c) { configs.emplace(c, id); });
        configsLoaded = true;
    }

    int64_t configId(const LaunchConfig& c)
    {
        static const LaunchConfig none;
        if (c == none)
            return 0;
        loadConfigs();
        auto it = configs.find(c);
        if (it != configs.end())
            return it->second;
        insConfig->bind(1, int64_t(c.grid[0])).bind(2, int64_t(c.grid[1])).bind(3, int64_t(c.grid[2]))
            .bind(4, int64_t(c.block[0])).bind(5, int64_t(c.block[1])).bind(6, int64_t(c.block[2]))
            .bind(7, int64_t(c.registers)).bind(8, int64_t(c.staticSmem)).bind(9, int64_t(c.dynamicSmem)).run();
        int64_t id = sqlite3_last_insert_rowid(h);
        configs.emplace(c, id);
        return id;
    }

    size_t instanceIndex(int64_t id, const char* what) const
    {
        if (id < instanceBase || size_t(id - instanceBase) >= instScope.size())
            throw StorageError(std::string(what) + ": unknown scope instance " + std::to_string(id));
        return size_t(id - instanceBase);
    }

    int64_t scopeOfInstance(size_t i) const { return instScopes[instScope[i]]; }

    // Instance i (open) ends at endNs.
    void writeInstance(size_t i, int64_t endNs)
    {
        auto it = openInstances.find(i);
        const OpenInstance o = it->second;
        openInstances.erase(it);
        pendingInstances.push_back(ScopeInstance{instanceBase + int64_t(i), scopeOfInstance(i), o.parent, o.start, endNs, o.thread});
        if (pendingInstances.size() >= InstanceChunk::kMaxInstances)
            flushInstances(true);
        countRows(1);
    }

    void flushInstances(bool final)
    {
        if (!pendingInstances.empty()) {
            int64_t first = INT64_MAX, last = INT64_MIN;
            for (const ScopeInstance& si : pendingInstances) {
                first = std::min(first, si.id);
                last = std::max(last, si.id);
            }
            std::string blob = InstanceChunk::encode(pendingInstances);
            if (openInstanceRow) {
                updInstanceChunk->bind(1, first).bind(2, last).bind(3, int64_t(pendingInstances.size()))
                    .bindBlobNoCopy(4, blob.data(), blob.size()).bind(5, openInstanceRow).run();
            } else {
                insInstanceChunk->bind(1, runId).bind(2, first).bind(3, last).bind(4, int64_t(pendingInstances.size()))
                    .bindBlobNoCopy(5, blob.data(), blob.size()).run();
                openInstanceRow = sqlite3_last_insert_rowid(h);
            }
        }
        if (final) {
            pendingInstances.clear();
            openInstanceRow = 0;
        }
    }

    void requireRun(const char* what) const
    {
        if (!inRun)
            throw StorageError(std::string(what) + ": no run is being written");
    }

    void reset()
    {
        inRun = false;
        launchSeq = 0;
        tracks.clear();
        trackState.clear();
        scopes.clear();
        scopeDepth.clear();
        std::vector<uint32_t>().swap(instScope);
        instScopes.clear();
        instScopeIndex.clear();
        openInstances.clear();
        hostThreads.clear();
        pendingInstances.clear();
        pendingApiCalls.clear();
        openInstanceRow = openApiRow = 0;
        summary = Summary{};
        steps = StepSummary{};
        seq = 0;
        rowsInBatch = 0;
    }

    void forgetCaches()
    {
        stringsLoaded = false;
        strings.clear();
        nextString = 1;
        configsLoaded = false;
        configs.clear();
    }
};

Writer::Writer(Database& db) : d(std::make_unique<Impl>(db))
{
    if (db.readOnly())
        throw StorageError(db.path() + ": opened read-only; cannot write a run");
    auto* h = db.handle();
    d->externalTransaction = !sqlite3_get_autocommit(h);
    {
        Statement t(h, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='step_totals'");
        d->stepTable = t.step() && t.int64(0) > 0;
    }
    {
        Statement t(h, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='overviews'");
        d->overviewTable = t.step() && t.int64(0) > 0;
    }
    d->insString = std::make_unique<Statement>(h, "INSERT INTO strings(id, value) VALUES (?, ?)");
    d->insDevice = std::make_unique<Statement>(h, "INSERT OR REPLACE INTO devices(run_id, id, name, properties) VALUES (?,?,?,?)");
    d->insTrack = std::make_unique<Statement>(h, "INSERT INTO tracks(run_id, device_id, stream, kind, name) VALUES (?,?,?,?,?)");
    d->insScope = std::make_unique<Statement>(h, "INSERT INTO scopes(run_id, parent_id, name_id, level_id, depth) VALUES (?,?,?,?,?)");
    d->insInstanceChunk = std::make_unique<Statement>(h, "INSERT INTO scope_instance_chunks(run_id, first_id, last_id, count, data) VALUES (?,?,?,?,?)");
    d->insConfig = std::make_unique<Statement>(h, "INSERT INTO launch_configs(grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_smem, dynamic_smem) VALUES (?,?,?,?,?,?,?,?,?)");
    d->insChunk = std::make_unique<Statement>(h, "INSERT INTO activity_chunks(track_id, start_ns, end_ns, first_seq, count, data) VALUES (?,?,?,?,?,?)");
    d->insApiChunk = std::make_unique<Statement>(h, "INSERT INTO api_call_chunks(run_id, start_ns, end_ns, count, data) VALUES (?,?,?,?,?)");
    d->insMeta = std::make_unique<Statement>(h, "INSERT OR REPLACE INTO metadata(run_id, key, value) VALUES (?,?,?)");
    d->updChunk = std::make_unique<Statement>(h, "UPDATE activity_chunks SET start_ns=?, end_ns=?, first_seq=?, count=?, data=? WHERE id=?");
    d->updInstanceChunk = std::make_unique<Statement>(h, "UPDATE scope_instance_chunks SET first_id=?, last_id=?, count=?, data=? WHERE id=?");
    d->updApiChunk = std::make_unique<Statement>(h, "UPDATE api_call_chunks SET start_ns=?, end_ns=?, count=?, data=? WHERE id=?");
}

Writer::~Writer()
{
    try {
        if (d->inRun)
            finishRun(RunStatus::Failed, 0);
        else
            d->commitOwned();
    } catch (...) {
        d->rollbackOwned();
    }
}

int64_t Writer::runId() const { return d->runId; }

void Writer::commit()
{
    d->requireRun("commit");
    try {
        d->commitPoint();
    } catch (...) {
        d->rollbackOwned();
        throw;
    }
}

void Writer::setBatchRows(int64_t rows) { d->batchRows = std::max<int64_t>(1, rows); }

int64_t Writer::beginRun(const RunInfo& info)
{
    if (d->inRun)
        throw StorageError("beginRun: a run is already being written");
    d->reset();
    d->ensureTransaction();
    try {
        // One writer per file at a time: two interleaved runs would fight over the batches.
        {
            Statement s(d->h, "SELECT id, writer_pid, writer_host FROM runs WHERE status='writing'");
            std::string host = hostName();
            while (s.step()) {
                pid_t pid = pid_t(s.int64(1));
                bool alive = pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
                if (s.textView(2) != host || alive)
                    throw StorageError(d->db.path() + ": another capture or import (run " + std::to_string(s.int64(0)) +
                                       ") is writing to this file");
            }
        }
        Statement s(d->h, "INSERT INTO runs(name, workload, variant, preset, config, backend, device, device_properties, "
                          "started_at, origin_ns, duration_ns, status, dropped_records, source_file, writer_pid, writer_host) "
                          "VALUES (?,?,?,?,?,?,?,?,?,?,?,'writing',?,?,?,?)");
        s.bind(1, info.name).bind(2, info.workload).bind(3, info.variant).bind(4, info.preset)
            .bind(5, info.configJson.empty() ? std::string_view("{}") : std::string_view(info.configJson))
            .bind(6, info.backend).bind(7, info.device)
            .bind(8, info.devicePropertiesJson.empty() ? std::string_view("{}") : std::string_view(info.devicePropertiesJson))
            .bind(9, info.startedAt).bind(10, info.originNs).bind(11, info.durationNs).bind(12, info.droppedRecords)
            .bind(13, info.sourceFile).bind(14, int64_t(::getpid())).bind(15, hostName());
        s.run();
        d->runId = sqlite3_last_insert_rowid(d->h);
        // Make the run visible to readers at once (status 'writing').
        d->commitOwned();
        d->lastCommit = std::chrono::steady_clock::now();
        d->ensureTransaction();
    } catch (...) {
        d->rollbackOwned();
        throw;
    }
    d->inRun = true;
    return d->runId;
}

uint32_t Writer::intern(std::string_view text)
{
    d->loadStrings();
    auto it = d->strings.find(std::string(text));
    if (it != d->strings.end())
        return it->second;
    d->ensureTransaction();
    uint32_t id = d->nextString++;
    d->insString->bind(1, int64_t(id)).bind(2, text).run();
    d->strings.emplace(std::string(text), id);
    return id;
}

void Writer::addDevice(const DeviceInfo& device)
{
    d->requireRun("addDevice");
    d->ensureTransaction();
    d->insDevice->bind(1, d->runId).bind(2, int64_t(device.id)).bind(3, device.name)
        .bind(4, device.propertiesJson.empty() ? std::string_view("{}") : std::string_view(device.propertiesJson)).run();
}

void Writer::addHostThread(const HostThread& thread)
{
    d->requireRun("addHostThread");
    if (thread.id <= 0 || thread.id > INT32_MAX)
        throw StorageError("addHostThread: thread id " + std::to_string(thread.id) + " is out of range (1 to 2^31-1)");
    if (!d->hostThreads.insert(thread.id).second)
        throw StorageError("addHostThread: thread " + std::to_string(thread.id) + " was added before");
    d->ensureTransaction();
    // Prepared on first use: the v0 -> v1 migration writes through a Writer before the table exists.
    if (!d->insThread)
        d->insThread = std::make_unique<Statement>(d->h, "INSERT INTO host_threads(run_id, id, pid, tid, name, process_name) VALUES (?,?,?,?,?,?)");
    d->insThread->bind(1, d->runId).bind(2, thread.id).bind(3, thread.pid).bind(4, thread.tid)
        .bind(5, thread.name).bind(6, thread.processName).run();
}

int64_t Writer::addTrack(int32_t deviceId, int64_t stream, TrackKind kind, std::string_view name)
{
    d->requireRun("addTrack");
    Impl::TrackKey key{deviceId, stream, kind};
    auto it = d->tracks.find(key);
    if (it != d->tracks.end())
        return it->second;
    std::string label = name.empty() ? (kind == TrackKind::Kernel ? "Stream " : "Memory, stream ") + std::to_string(stream)
                                     : std::string(name);
    d->ensureTransaction();
    d->insTrack->bind(1, d->runId).bind(2, int64_t(deviceId)).bind(3, stream).bind(4, toString(kind)).bind(5, label).run();
    int64_t id = sqlite3_last_insert_rowid(d->h);
    d->tracks.emplace(key, id);
    d->trackState[id];
    return id;
}

int64_t Writer::addScope(int64_t parentId, std::string_view name, std::string_view level)
{
    d->requireRun("addScope");
    auto key = std::make_pair(parentId, std::string(name));
    auto it = d->scopes.find(key);
    if (it != d->scopes.end())
        return it->second;
    int depth = 1;
    if (parentId != 0) {
        auto pd = d->scopeDepth.find(parentId);
        if (pd == d->scopeDepth.end())
            throw StorageError("addScope: unknown parent scope " + std::to_string(parentId));
        depth = pd->second + 1;
        if (depth > kMaxScopeDepth)
            throw StorageError("addScope: scopes nested deeper than " + std::to_string(kMaxScopeDepth) + " levels ('" +
                               std::string(name.substr(0, 80)) + "')");
    }
    uint32_t nameId = intern(name);
    uint32_t levelId = intern(level);
    d->ensureTransaction();
    d->insScope->bind(1, d->runId).bind(2, parentId).bind(3, nameId).bind(4, levelId).bind(5, int64_t(depth)).run();
    int64_t id = sqlite3_last_insert_rowid(d->h);
    d->scopes.emplace(std::move(key), id);
    d->scopeDepth.emplace(id, depth);
    d->steps.addScope(id, parentId, nameId, name, level);
    return id;
}

int64_t Writer::beginScopeInstance(int64_t scopeId, int64_t parentInstanceId, int64_t startNs, int64_t threadId)
{
    d->requireRun("beginScopeInstance");
    if (threadId != 0 && !d->hostThreads.count(threadId))
        throw StorageError("beginScopeInstance: unknown host thread " + std::to_string(threadId));
    if (!d->scopeDepth.count(scopeId))
        throw StorageError("beginScopeInstance: unknown scope " + std::to_string(scopeId));
    if (parentInstanceId != 0)
        d->instanceIndex(parentInstanceId, "beginScopeInstance");
    if (!timeInRange(startNs))
        throw StorageError("scope instance starts at " + std::to_string(startNs) + " ns, out of the range a run can hold (+-2^61 ns)");
    const size_t index = d->instScope.size();
    int64_t id = d->instanceBase + int64_t(index);
    auto [sc, fresh] = d->instScopeIndex.try_emplace(scopeId, uint32_t(d->instScopes.size()));
    if (fresh)
        d->instScopes.push_back(scopeId);
    d->instScope.push_back(sc->second);
    d->openInstances.emplace(index, Impl::OpenInstance{parentInstanceId, startNs, threadId});
    d->steps.addInstance(id, scopeId, parentInstanceId, startNs);
    return id;
}

void Writer::endScopeInstance(int64_t instanceId, int64_t endNs)
{
    d->requireRun("endScopeInstance");
    size_t i = d->instanceIndex(instanceId, "endScopeInstance");
    if (!d->openInstances.count(i))
        throw StorageError("endScopeInstance: instance " + std::to_string(instanceId) + " already ended");
    if (!timeInRange(endNs))
        throw StorageError("scope instance ends at " + std::to_string(endNs) + " ns, out of the range a run can hold (+-2^61 ns)");
    d->ensureTransaction();
    d->writeInstance(i, endNs);
    d->steps.endInstance(instanceId, endNs);
}

void Writer::reserveScopeInstances(size_t count)
{
    d->requireRun("reserveScopeInstances");
    const size_t n = d->instScope.size() + count;
    d->instScope.reserve(n);   // the one per-instance array kept while writing (open ones are in a map)
}

int64_t Writer::addScopeInstance(int64_t scopeId, int64_t parentInstanceId, int64_t startNs, int64_t endNs, int64_t threadId)
{
    if (threadId != 0 && !d->hostThreads.count(threadId))
        throw StorageError("addScopeInstance: unknown host thread " + std::to_string(threadId));
    int64_t id = beginScopeInstance(scopeId, parentInstanceId, startNs, threadId);
    endScopeInstance(id, endNs);
    return id;
}

void Writer::addActivity(const Activity& a)
{
    d->requireRun("addActivity");
    int64_t scopeId = 0;
    if (a.scopeInstanceId != 0)
        scopeId = d->scopeOfInstance(d->instanceIndex(a.scopeInstanceId, "addActivity"));
    auto ts = d->trackState.find(a.trackId);
    if (ts == d->trackState.end())
        throw StorageError("addActivity: unknown track " + std::to_string(a.trackId));
    // Out-of-range times would overflow every difference and sum taken of them later.
    if (!timeInRange(a.startNs) || !timeInRange(a.endNs))
        throw StorageError("activity time out of the range a run can hold (+-2^61 ns): start " + std::to_string(a.startNs) +
                           " ns, end " + std::to_string(a.endNs) + " ns");
    int64_t duration = std::max<int64_t>(0, a.endNs - a.startNs);
    Impl::TrackState& st = ts->second;
    st.count += 1;
    st.dirty = true;
    st.maxDuration = std::max(st.maxDuration, duration);
    const uint32_t row = d->summary.add(scopeId, a.nameId, uint8_t(a.kind), a.startNs, a.startNs + duration);
    if (d->summary.overflowed)
        throw StorageError("the run's total activity time overflows 64-bit nanoseconds");
    d->steps.addActivity(a.scopeInstanceId, row, duration);
    d->ensureTransaction();
    st.pending.push_back(StoredActivity{a.startNs, duration, a.scopeInstanceId, a.correlationId, a.bytes, d->seq++,
                                        d->configId(a.config), a.nameId, uint8_t(a.kind)});
    if (st.pending.size() >= ActivityChunk::kMaxActivities)
        d->flushTrack(a.trackId, st, true);
    d->countRows(1);
}

void Writer::addApiCall(const ApiCall& c)
{
    d->requireRun("addApiCall");
    if (!timeInRange(c.startNs) || !timeInRange(c.endNs))
        throw StorageError("API call time out of the range a run can hold (+-2^61 ns): start " + std::to_string(c.startNs) +
                           " ns, end " + std::to_string(c.endNs) + " ns");
    d->ensureTransaction();
    ApiCall call = c;
    call.endNs = std::max(c.startNs, c.endNs);
    d->pendingApiCalls.push_back(call);
    if (d->pendingApiCalls.size() >= ApiCallChunk::kMaxCalls)
        d->flushApiCalls(true);
    d->countRows(1);
}

void Writer::addLaunch(const LaunchFeatures& l)
{
    d->requireRun("addLaunch");
    d->ensureTransaction();
    if (!d->insLaunch)   // prepared on first use: a migration's Writer runs before the table exists
        d->insLaunch = std::make_unique<Statement>(
            d->h, "INSERT INTO launches(run_id, seq, scope_instance_id, name_id, kind, flops, bytes_read, bytes_written, m, n, "
                  "k, batch, shapes_id, correlation_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    d->insLaunch->bind(1, d->runId)
        .bind(2, ++d->launchSeq)
        .bind(3, l.scopeInstanceId)
        .bind(4, int64_t(l.nameId))
        .bind(5, l.kind)
        .bind(6, l.flops)
        .bind(7, l.bytesRead)
        .bind(8, l.bytesWritten)
        .bind(9, l.m)
        .bind(10, l.n)
        .bind(11, l.k)
        .bind(12, l.batch)
        .bind(13, int64_t(l.shapesId))
        .bind(14, l.correlationId)
        .run();
    d->countRows(1);
}

void Writer::setMetadata(std::string_view key, std::string_view value)
{
    d->requireRun("setMetadata");
    d->ensureTransaction();
    d->insMeta->bind(1, d->runId).bind(2, key).bind(3, value).run();
}

void Writer::setDroppedRecords(int64_t dropped)
{
    d->requireRun("setDroppedRecords");
    d->ensureTransaction();
    Statement s(d->h, "UPDATE runs SET dropped_records=? WHERE id=?");
    s.bind(1, dropped).bind(2, d->runId).run();
}

void Writer::setStepTotalsLimit(size_t bytes) { StepSummary::segmentLimit() = bytes > 0 ? bytes : StepSummary::kMaxSegmentBytes; }

void Writer::finishRun(RunStatus status, int64_t durationNs)
{
    d->requireRun("finishRun");
    try {
        d->ensureTransaction();
        d->flushAll(true);
        // Instances never ended (interrupted capture) end where they started.
        std::vector<std::pair<size_t, int64_t>> neverEnded;
        for (const auto& [i, o] : d->openInstances)
            neverEnded.emplace_back(i, o.start);
        std::sort(neverEnded.begin(), neverEnded.end());
        for (const auto& [i, start] : neverEnded)
            d->writeInstance(i, start);
        d->writeTrackCounts();
        d->summary.write(d->h, d->runId, false);
        if (d->stepTable)
            d->steps.write(d->h, d->runId, d->summary.rowKeys);
        d->flushInstances(true);
        d->flushApiCalls(true);
        Statement r(d->h, "UPDATE runs SET status=?, duration_ns=?, writer_pid=0 WHERE id=?");
        r.bind(1, toString(status)).bind(2, durationNs).bind(3, d->runId).run();
        d->commitOwned();
    } catch (...) {
        d->rollbackOwned();
        d->reset();
        throw;
    }
    const int64_t run = d->runId;
    d->reset();
    // The level-of-detail summary, in its own transaction after the data (inside a caller's
    // transaction: in that one): a kill or a failure here loses nothing committed, and what
    // is missing is computed later, outside any open (summarybackfill.h).
    if (d->overviewTable) {
        try {
            ScopeLaneSet lanes;
            const RunOverview ov = computeRunOverview(d->db, run, &lanes);
            storeRunOverview(d->db, run, ov, &lanes);
        } catch (const StorageError&) {
        }
    }
}

void Writer::discardRun()
{
    if (!d->inRun)
        return;
    if (d->externalTransaction) {
        // The caller rolls its transaction back; nothing of the run was committed.
        d->reset();
        d->forgetCaches();
        return;
    }
    d->rollbackOwned();
    int64_t run = d->runId;
    d->reset();
    d->forgetCaches();
    d->db.begin();
    try {
        const char* sqls[] = {
            "DELETE FROM activity_chunks WHERE track_id IN (SELECT id FROM tracks WHERE run_id=?1)",
            "DELETE FROM tracks WHERE run_id=?1", "DELETE FROM scope_instance_chunks WHERE run_id=?1",
            "DELETE FROM scopes WHERE run_id=?1", "DELETE FROM api_call_chunks WHERE run_id=?1",
            "DELETE FROM metadata WHERE run_id=?1", "DELETE FROM totals WHERE run_id=?1",
            "DELETE FROM launches WHERE run_id=?1",
            "DELETE FROM step_totals WHERE run_id=?1", "DELETE FROM host_threads WHERE run_id=?1",
            "DELETE FROM overview_rows WHERE run_id=?1", "DELETE FROM overviews WHERE run_id=?1",
            "DELETE FROM scope_lane_chunks WHERE run_id=?1", "DELETE FROM scope_lanes WHERE run_id=?1",
            "DELETE FROM scope_lane_sets WHERE run_id=?1",
            "DELETE FROM devices WHERE run_id=?1", "DELETE FROM runs WHERE id=?1"};
        for (const char* sql : sqls) {
            Statement s(d->h, sql);
            s.bind(1, run).run();
        }
        d->db.commit();
    } catch (...) {
        d->db.rollback();
        throw;
    }
}

void Writer::recoverRun(Database& db, int64_t runId)
{
    sqlite3* h = db.handle();
    db.begin();
    try {
        // A writer of this version commits the summary with every commit: when the per-track
        // counts match the committed chunks, the run's summary is already that of its data.
        {
            Statement s(h, "SELECT (SELECT coalesce(sum(count), 0) FROM tracks WHERE run_id=?1) = "
                           "(SELECT coalesce(sum(c.count), 0) FROM activity_chunks c JOIN tracks t ON c.track_id=t.id "
                           "WHERE t.run_id=?1)");
            s.bind(1, runId);
            if (s.step() && s.int64(0) == 1) {
                Statement r(h, "UPDATE runs SET status='incomplete', writer_pid=0 WHERE id=?");
                r.bind(1, runId).run();
                db.commit();
                return;
            }
        }
        std::unordered_map<int64_t, int64_t> instScope;
        {
            Statement s(h, "SELECT data FROM scope_instance_chunks WHERE run_id=?");
            s.bind(1, runId);
            std::vector<ScopeInstance> rows;
            while (s.step())
                InstanceChunk::decode(s.blob(0), rows);
            for (const ScopeInstance& si : rows)
                instScope[si.id] = si.scopeId;
        }
        Summary summary;
        std::vector<StoredActivity> rows;
        Statement tracks(h, "SELECT id FROM tracks WHERE run_id=?");
        tracks.bind(1, runId);
        Statement trackUpdate(h, "UPDATE tracks SET count=?, max_duration_ns=? WHERE id=?");
        while (tracks.step()) {
            int64_t trackId = tracks.int64(0);
            Statement s(h, "SELECT start_ns, end_ns, first_seq, count, data FROM activity_chunks WHERE track_id=? ORDER BY start_ns");
            s.bind(1, trackId);
            int64_t count = 0, maxDuration = 0;
            while (s.step()) {
                ChunkHeader hdr{s.int64(0), s.int64(1), s.int64(2), s.int64(3)};
                rows.clear();
                ActivityChunk::decode(s.blob(4), hdr, rows);
                for (const StoredActivity& r : rows) {
                    auto it = instScope.find(r.scopeInstanceId);
                    summary.add(it == instScope.end() ? 0 : it->second, r.nameId, r.kind, r.startNs, r.startNs + r.durationNs);
                    maxDuration = std::max(maxDuration, r.durationNs);
                }
                count += int64_t(rows.size());
            }
            trackUpdate.bind(1, count).bind(2, maxDuration).bind(3, trackId).run();
        }
        summary.write(h, runId, true);
        Statement r(h, "UPDATE runs SET status='incomplete', writer_pid=0 WHERE id=?");
        r.bind(1, runId).run();
        db.commit();
    } catch (...) {
        db.rollback();
        throw;
    }
}

}  // namespace wt
