#include "compare.h"

#include "analysis/runprofile.h"
#include "analysis/variants.h"

#include "storage/activitychunk.h"
#include "storage/reader.h"
#include "storage/stepmerge.h"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

namespace wt {

std::optional<ComparePer> comparePerFromString(std::string_view text)
{
    if (text == "step") return ComparePer::Step;
    if (text == "run") return ComparePer::Run;
    return std::nullopt;
}

std::string_view toString(ComparePer per)
{
    return per == ComparePer::Step ? "step" : "run";
}

std::string_view toString(KernelChange change)
{
    switch (change) {
    case KernelChange::Unchanged: return "unchanged";
    case KernelChange::Changed: return "changed";
    case KernelChange::Removed: return "removed";
    case KernelChange::Added: return "added";
    case KernelChange::Swapped: return "swapped";
    case KernelChange::Moved: return "moved";
    }
    return "unchanged";
}

std::vector<KernelChangeTotal> changeTotals(const KernelDiff& diff)
{
    std::vector<KernelChangeTotal> out;
    for (KernelChange c : {KernelChange::Unchanged, KernelChange::Changed, KernelChange::Removed, KernelChange::Added,
                           KernelChange::Swapped, KernelChange::Moved})
        out.push_back({c, 0, 0, 0, 0});
    for (const KernelDiffRow& r : diff.rows) {
        KernelChangeTotal& t = out[size_t(r.change)];
        ++t.rows;
        t.baseNs += r.base.present ? r.base.ns : 0;
        t.otherNs += r.other.present ? r.other.ns : 0;
        t.deltaNs += r.deltaNs;
    }
    return out;
}

int CompareGroup::presentIn() const
{
    return int(std::count_if(cells.begin(), cells.end(), [](const CompareCell& c) { return c.present; }));
}

namespace {

const std::string& stringOf(const std::unordered_map<uint32_t, std::string>& strings, uint32_t id)
{
    static const std::string none;
    auto it = strings.find(id);
    return it == strings.end() ? none : it->second;
}

std::string runLabel(const CompareRunSummary& r)
{
    std::string s = "run " + std::to_string(r.info.id);
    if (!r.file.empty())
        s += " of " + r.file;
    return s;
}

// A stored totals row's key: (scope, kernel name, kind).
struct RowKey {
    int64_t scope;
    uint32_t name;
    uint8_t kind;
    bool operator==(const RowKey& o) const { return scope == o.scope && name == o.name && kind == o.kind; }
};
struct RowKeyHash {
    size_t operator()(const RowKey& k) const
    {
        return std::hash<int64_t>()(k.scope * 1000003 + (int64_t(k.name) << 3) + k.kind);
    }
};

// As comparetable's run tags: "BASE", "OTHER" of two, "#3" of more.
std::string sideName(size_t i, size_t n)
{
    return i == 0 ? "BASE" : n == 2 ? "OTHER" : "#" + std::to_string(i + 1);
}

std::string runLabel(const CompareRun& r)
{
    std::string s = "run " + std::to_string(r.info.id);
    if (!r.file.empty())
        s += " of " + r.file;
    return s;
}

ComparePer choosePer(const std::vector<CompareRunSummary>& runs, std::optional<ComparePer> asked, std::vector<std::string>& notes)
{
    const CompareRunSummary* without = nullptr;
    for (const CompareRunSummary& r : runs)
        if (r.steps <= 0 && !without)
            without = &r;
    if (asked == ComparePer::Step && without)
        throw CompareError("per step needs steps in every run; " + runLabel(*without) + " has none (compare per run)");
    ComparePer per = asked.value_or(without ? ComparePer::Run : ComparePer::Step);
    if (per == ComparePer::Step) {
        std::string counts;
        for (const CompareRunSummary& r : runs)
            counts += (counts.empty() ? "" : ", ") + std::to_string(r.steps);
        notes.push_back("per step: each run's time divided by its step count (the mean of its steps: " + counts + ")");
    } else if (without && !asked) {
        notes.push_back("per run: whole-run totals (" + runLabel(*without) + " has no steps)");
    } else {
        notes.push_back("per run: whole-run totals");
    }
    return per;
}

void fillCell(CompareCell& c, int64_t totalNs, int64_t totalCount, double divisor)
{
    c.present = true;
    c.totalNs += totalNs;
    c.totalCount += totalCount;
    c.ns = double(c.totalNs) / divisor;
    c.count = double(c.totalCount) / divisor;
}

std::optional<double> ratioOf(const CompareCell& base, const CompareCell& other)
{
    if (!base.present || base.ns <= 0)
        return std::nullopt;
    return other.ns / base.ns;
}

// The change in % of BASE: computed here only, so the CLI, the GUI's table and its delta chart
// say the same number. Unset where BASE has no time (as the ratio).
std::optional<double> percentOf(const CompareCell& base, double deltaNs)
{
    if (!base.present || base.ns <= 0)
        return std::nullopt;
    return 100.0 * deltaNs / base.ns;
}

double divisorOf(ComparePer per, int64_t steps)
{
    return per == ComparePer::Step && steps > 0 ? double(steps) : 1.0;
}

CompareRunSummary summaryOf(const CompareRun& r)
{
    CompareRunSummary s;
    s.file = r.file;
    s.info = r.info;
    s.steps = r.steps;
    return s;
}

// Removes balanced <...> and (...) lists.
std::string withoutLists(std::string_view name)
{
    std::string out;
    int angle = 0, paren = 0;
    for (char c : name) {
        if (c == '<') { ++angle; continue; }
        if (c == '>' && angle > 0) { --angle; continue; }
        if (c == '(') { ++paren; continue; }
        if (c == ')' && paren > 0) { --paren; continue; }
        if (angle == 0 && paren == 0)
            out += c;
    }
    return out;
}

}  // namespace

std::string kernelStem(std::string_view name)
{
    std::string bare = withoutLists(name);
    std::string out;
    bool inDigits = false;
    for (char c : bare) {
        bool digit = c >= '0' && c <= '9';
        if (digit && !inDigits)
            out += '#';
        else if (!digit)
            out += c;
        inDigits = digit;
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == '_'))
        out.pop_back();
    return out;
}

namespace {

// The outermost scopes at level "step" (captures' steps).
std::vector<int64_t> outerStepScopes(const ScopeTree& tree)
{
    std::vector<int64_t> stepScopes;
    for (const ScopeNode& n : tree.nodes()) {
        if (tree.level(n.id) != "step")
            continue;
        bool outer = true;
        for (int64_t p = n.parentId; p != 0 && tree.contains(p); p = tree.node(p).parentId)
            if (tree.level(p) == "step")
                outer = false;
        if (outer)
            stepScopes.push_back(n.id);
    }
    return stepScopes;
}

}  // namespace

int64_t countSteps(const Reader& reader, int64_t runId, const ScopeTree& tree)
{
    return countSteps(reader, runId, tree, std::nullopt);
}

int64_t countSteps(const Reader& reader, int64_t runId, const ScopeTree& tree, std::optional<int64_t> storedSteps)
{
    // Captures: the instances of the outermost "step" scopes.
    // Instances of one step scope that overlap in time (ranks of a job) are one step.
    const std::vector<int64_t> stepScopes = outerStepScopes(tree);
    if (!stepScopes.empty()) {
        if (storedSteps)
            return *storedSteps;
        if (auto stored = reader.stepTotals(runId, false))
            return stored->stepCount;
        // Runs without stored step totals (older files, a run being written): its instances.
        const std::unordered_set<int64_t> isStep(stepScopes.begin(), stepScopes.end());
        std::vector<StepSpan> spans;
        for (const ScopeInstance& in : reader.scopeInstances(runId))
            if (isStep.count(in.scopeId))
                spans.push_back({in.scopeId, in.startNs, std::max(in.endNs, in.startNs)});
        size_t count = 0;
        mergeOverlappingSteps(spans, count);
        return int64_t(count);
    }
    // Imports: one range per profiler step (the ranks of one job share them, so count names).
    std::set<std::string> names;
    for (const ScopeNode& n : tree.nodes()) {
        if (!isProfilerStep(tree.name(n.id)))
            continue;
        bool outer = true;
        for (int64_t p = n.parentId; p != 0 && tree.contains(p); p = tree.node(p).parentId)
            if (isProfilerStep(tree.name(p)))
                outer = false;
        if (outer)
            names.insert(tree.name(n.id));
    }
    return int64_t(names.size());
}

std::vector<std::vector<TotalRow>> readStepTotals(const Reader& reader, int64_t runId, const ScopeTree& tree)
{
    // The step nodes, by countSteps' rule: the outermost "step"-level scopes, else the outermost
    // profiler-step ranges (keyed by name: the ranks of one job share their steps).
    std::unordered_map<int64_t, bool> isStepNode;
    bool byLevel = false;
    for (const ScopeNode& n : tree.nodes())
        byLevel |= tree.level(n.id) == "step";
    for (const ScopeNode& n : tree.nodes()) {
        auto stepLike = [&](int64_t id) { return byLevel ? tree.level(id) == "step" : isProfilerStep(tree.name(id)); };
        if (!stepLike(n.id))
            continue;
        bool outer = true;
        for (int64_t p = n.parentId; p != 0 && tree.contains(p); p = tree.node(p).parentId)
            if (stepLike(p))
                outer = false;
        if (outer)
            isStepNode[n.id] = true;
    }
    if (isStepNode.empty())
        return {};

    const std::vector<ScopeInstance> instances = reader.scopeInstances(runId);
    // Instance id -> position: ids are dense per run (a range), so a vector does; a hash map
    // only for sparse ids.
    int64_t minId = INT64_MAX, maxId = INT64_MIN;
    for (const ScopeInstance& in : instances) {
        minId = std::min(minId, in.id);
        maxId = std::max(maxId, in.id);
    }
    const bool dense = !instances.empty() && uint64_t(maxId - minId) < 2 * uint64_t(instances.size()) + 16;
    std::vector<size_t> byId(dense ? size_t(maxId - minId + 1) : 0, SIZE_MAX);
    std::unordered_map<int64_t, size_t> sparse;
    for (size_t i = 0; i < instances.size(); ++i) {
        if (dense)
            byId[size_t(instances[i].id - minId)] = i;
        else
            sparse.emplace(instances[i].id, i);
    }
    auto indexOf = [&](int64_t id) -> size_t {
        if (dense)
            return id < minId || id > maxId ? SIZE_MAX : byId[size_t(id - minId)];
        auto it = sparse.find(id);
        return it == sparse.end() ? SIZE_MAX : it->second;
    };
    // The step each instance lies in (-1: none), found once per instance by its parents.
    std::vector<int64_t> stepOf(instances.size(), -2);
    struct StepKey {
        int64_t start;
        std::string name;   // imports: the step's name; captures: empty (one instance, one step)
        int64_t instance;
        int64_t scopeId = 0, end = 0;   // by level: the instance's scope and end (merged by overlap)
    };
    std::vector<StepKey> stepKeys;   // in order of discovery
    std::unordered_map<std::string, int64_t> stepByName;
    std::unordered_map<int64_t, int64_t> stepByInstance;
    std::vector<size_t> path;   // reused: one walk per instance not yet resolved
    auto stepIndex = [&](size_t i) -> int64_t {
        path.clear();
        int64_t found = -1;
        for (size_t at = i;;) {
            if (stepOf[at] != -2) {
                found = stepOf[at];
                break;
            }
            path.push_back(at);
            const size_t up = instances[at].parentId ? indexOf(instances[at].parentId) : SIZE_MAX;
            if (up == SIZE_MAX)
                break;
            at = up;
        }
        // Resolve the collected path from the top down.
        for (size_t k = path.size(); k-- > 0;) {
            const size_t at = path[k];
            if (found < 0 && isStepNode.count(instances[at].scopeId)) {
                const ScopeInstance& in = instances[at];
                if (byLevel) {
                    auto [it, isNew] = stepByInstance.try_emplace(in.id, int64_t(stepKeys.size()));
                    if (isNew)
                        stepKeys.push_back({in.startNs, {}, in.id, in.scopeId, std::max(in.endNs, in.startNs)});
                    found = it->second;
                } else {
                    const std::string& name = tree.name(in.scopeId);
                    auto [it, isNew] = stepByName.try_emplace(name, int64_t(stepKeys.size()));
                    if (isNew)
                        stepKeys.push_back({in.startNs, name, in.id});
                    else
                        stepKeys[size_t(it->second)].start = std::min(stepKeys[size_t(it->second)].start, in.startNs);
                    found = it->second;
                }
            }
            stepOf[at] = found;
        }
        return stepOf[i];
    };
    for (size_t i = 0; i < instances.size(); ++i)
        stepIndex(i);
    if (stepKeys.empty())
        return {};
    if (byLevel) {
        // Instances of one step scope that overlap in time are one step (storage/stepmerge.h).
        std::vector<StepSpan> spans;
        spans.reserve(stepKeys.size());
        for (const StepKey& k : stepKeys)
            spans.push_back({k.scopeId, k.start, k.end});
        size_t count = 0;
        const std::vector<uint32_t> mergedOf = mergeOverlappingSteps(spans, count);
        std::vector<StepKey> merged(count, StepKey{INT64_MAX, {}, INT64_MAX});
        for (size_t k = 0; k < stepKeys.size(); ++k) {
            StepKey& m = merged[mergedOf[k]];
            m.start = std::min(m.start, stepKeys[k].start);
            m.instance = std::min(m.instance, stepKeys[k].instance);
        }
        for (int64_t& st : stepOf)
            if (st >= 0)
                st = int64_t(mergedOf[size_t(st)]);
        stepKeys = std::move(merged);
    }

    // Every activity becomes (step, row, duration), a row being one (scope, name, kind): rows are
    // numbered through a small list per scope (a scope holds few kernel names), found once per
    // instance, so the hot loop has no hash lookup. Then the entries are bucketed by step and
    // each step's rows summed in a dense scratch array.
    struct RowOf {
        uint32_t name;
        uint8_t kind;
        uint32_t row;
    };
    std::vector<std::vector<RowOf>> rowsOfSlot;     // per scope slot
    std::unordered_map<int64_t, uint32_t> slotOfScope;
    std::vector<TotalRow> rowKeys;                  // per row: scope, name, kind
    std::vector<int32_t> slotOfInstance(instances.size(), -1);
    struct Entry {
        uint32_t step;
        uint32_t row;
        int64_t ns;
    };
    std::vector<Entry> entries;
    int64_t lastInstance = 0;
    size_t lastIndex = SIZE_MAX;
    reader.forEachActivityBlock(runId, [&](const Track&, const StoredActivity* rows, size_t count) {
        for (size_t r = 0; r < count; ++r) {
            const StoredActivity& a = rows[r];
            if (!a.scopeInstanceId)
                continue;
            if (a.scopeInstanceId != lastInstance) {
                lastInstance = a.scopeInstanceId;
                lastIndex = indexOf(a.scopeInstanceId);
            }
            if (lastIndex == SIZE_MAX)
                continue;
            const int64_t step = stepOf[lastIndex];
            if (step < 0)
                continue;
            int32_t& slot = slotOfInstance[lastIndex];
            if (slot < 0) {
                auto [it, isNew] = slotOfScope.try_emplace(instances[lastIndex].scopeId, uint32_t(rowsOfSlot.size()));
                if (isNew)
                    rowsOfSlot.emplace_back();
                slot = int32_t(it->second);
            }
            std::vector<RowOf>& list = rowsOfSlot[size_t(slot)];
            uint32_t row = UINT32_MAX;
            for (const RowOf& ro : list)
                if (ro.name == a.nameId && ro.kind == a.kind) {
                    row = ro.row;
                    break;
                }
            if (row == UINT32_MAX) {
                row = uint32_t(rowKeys.size());
                list.push_back({a.nameId, a.kind, row});
                TotalRow key;
                key.scopeId = instances[lastIndex].scopeId;
                key.nameId = a.nameId;
                key.kind = ActivityKind(a.kind);
                rowKeys.push_back(key);
            }
            entries.push_back({uint32_t(step), row, a.durationNs});
        }
        return true;
    });
    // Bucket by step (counting sort), then sum each step's rows.
    std::vector<size_t> start(stepKeys.size() + 1, 0);
    for (const Entry& e : entries)
        ++start[e.step + 1];
    for (size_t i = 1; i < start.size(); ++i)
        start[i] += start[i - 1];
    std::vector<Entry> byStep(entries.size());
    {
        std::vector<size_t> at(start.begin(), start.end() - 1);
        for (const Entry& e : entries)
            byStep[at[e.step]++] = e;
    }
    entries.clear();
    entries.shrink_to_fit();

    std::vector<size_t> order(stepKeys.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::tie(stepKeys[a].start, stepKeys[a].instance) < std::tie(stepKeys[b].start, stepKeys[b].instance);
    });
    std::vector<int64_t> timeOf(rowKeys.size(), 0), countOf(rowKeys.size(), 0);
    std::vector<uint32_t> touched;
    std::vector<std::vector<TotalRow>> out;
    out.reserve(order.size());
    for (size_t step : order) {
        touched.clear();
        for (size_t k = start[step]; k < start[step + 1]; ++k) {
            const Entry& e = byStep[k];
            if (countOf[e.row]++ == 0)
                touched.push_back(e.row);
            timeOf[e.row] += e.ns;
        }
        std::vector<TotalRow> rows;
        rows.reserve(touched.size());
        for (uint32_t row : touched) {
            TotalRow t = rowKeys[row];
            t.count = countOf[row];
            t.timeNs = timeOf[row];
            rows.push_back(t);
            countOf[row] = timeOf[row] = 0;
        }
        // A fixed order, so sums are the same from one load to the next.
        std::sort(rows.begin(), rows.end(), [](const TotalRow& a, const TotalRow& b) {
            return std::tie(a.scopeId, a.nameId, a.kind) < std::tie(b.scopeId, b.nameId, b.kind);
        });
        out.push_back(std::move(rows));
    }
    return out;
}

CompareRun loadCompareRun(const Reader& reader, int64_t runId, std::string file, CategoriesPtr categories, bool stepSamples,
                          bool stepWall)
{
    CompareRun r;
    r.file = std::move(file);
    r.info = reader.run(runId);
    r.totals = reader.totals(runId);
    const auto& all = reader.strings();
    for (const TotalRow& t : r.totals)
        r.strings.emplace(t.nameId, stringOf(all, t.nameId));

    std::vector<ScopeNode> nodes = reader.scopes(runId);
    std::unordered_map<uint32_t, std::string> names;
    for (const ScopeNode& n : nodes)
        for (uint32_t id : {n.nameId, n.levelId})
            names.emplace(id, stringOf(all, id));
    const auto metadata = reader.metadata(runId);
    ScopeTree asStored(nodes, names);
    // Runs finished by a writer of schema version 3 have their step count and per-step totals
    // stored; others (older files, recovered runs) get them from their instances and activities.
    std::optional<Reader::StepTotals> stored = reader.stepTotals(runId, stepSamples);
    r.steps = countSteps(reader, runId, asStored, stored ? std::optional<int64_t>(stored->stepCount) : std::nullopt);
    if (stepSamples && r.steps > 0)
        r.stepTotals = stored ? std::move(stored->steps) : readStepTotals(reader, runId, asStored);
    // A capture's step wall time: the mean span of its step scopes (host clock), what a step
    // took, without the time between steps (writing its records, the tracer's bookkeeping).
    // Reads every scope instance: only where asked (variants), not for compare's figures.
    if (stepWall && r.steps > 0 && r.info.backend != "import") {
        const std::vector<int64_t> stepScopes = outerStepScopes(asStored);
        int64_t spans = 0, count = 0;
        for (const ScopeInstance& in : reader.scopeInstances(runId))
            if (std::find(stepScopes.begin(), stepScopes.end(), in.scopeId) != stepScopes.end() && in.endNs > in.startNs) {
                spans += in.endNs - in.startNs;
                ++count;
            }
        if (count > 0)
            r.stepWallNs = double(spans) / double(count);
    }
    // Steps of different runs match by structure, not by number: profiler-step names
    // (ProfilerStep#551) and numbered names of imported steps (`step 12`) fold, digit runs to
    // '*'. A capture's steps share one name already.
    bool folded = false;
    for (const ScopeNode& n : nodes) {
        std::string& name = names[n.nameId];
        const bool step = isProfilerStep(name) || (names[n.levelId] == "step" && r.info.backend == "import");
        if (!step || name == kImportStepName)
            continue;
        std::string out;
        for (size_t i = 0; i < name.size(); ++i) {
            const bool digit = name[i] >= '0' && name[i] <= '9';
            if (!digit)
                out += name[i];
            else if (i == 0 || !(name[i - 1] >= '0' && name[i - 1] <= '9'))
                out += '*';
        }
        if (out != name) {
            name = std::move(out);
            folded = true;
        }
    }
    r.tree = folded ? ScopeTree(nodes, names) : std::move(asStored);
    applyRunSettings(r.tree, metadata);
    if (categories)
        r.tree.setCategories(std::move(categories));
    return r;
}

std::vector<int64_t> repeatsOf(const Reader& reader, int64_t runId)
{
    auto tagOf = [&](int64_t id) -> std::string {
        for (const auto& [k, v] : reader.metadata(id))
            if (k == kRepeatIdKey)
                return v;
        return {};
    };
    const std::string tag = tagOf(runId);
    if (tag.empty())
        return {runId};
    std::vector<int64_t> out;
    for (const RunInfo& r : reader.runs())
        if (r.id == runId || tagOf(r.id) == tag)
            out.push_back(r.id);
    std::sort(out.begin(), out.end());
    return out;
}

void checkRepeats(const CompareSide& runs, std::string_view side)
{
    for (size_t i = 0; i < runs.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (runs[i]->info.id == runs[j]->info.id && runs[i]->file == runs[j]->file)
                throw CompareError(std::string(side) + " names " + runLabel(*runs[i]) + " twice: each repeat is one run");
    if (runs.size() < 2)
        return;
    std::vector<const RunInfo*> infos;
    for (const CompareRun* r : runs)
        infos.push_back(&r->info);
    std::string what;
    for (const SettingDifference& d : differingSettings(infos)) {
        if (d.key == "seed")   // the data drawn, not the configuration measured
            continue;
        what += (what.empty() ? "" : "; ") + d.key + " differs (";
        for (size_t i = 0; i < d.values.size(); ++i)
            what += (i ? ", " : "") + (d.values[i].empty() ? std::string("none") : d.values[i]) + " in " + runLabel(*runs[i]);
        what += ")";
    }
    if (!what.empty())
        throw CompareError("the runs of " + std::string(side) + " are not repeats of one configuration: " + what);
}

Comparison compareRuns(const std::vector<const CompareRun*>& runs, const CompareOptions& options)
{
    std::vector<CompareSide> sides;
    for (const CompareRun* r : runs)
        sides.push_back({r});
    return compareSides(sides, options);
}

namespace {

// The Welch test of every OTHER against BASE, the groups of each OTHER under Holm's control.
void testNoise(Comparison& out)
{
    const size_t n = out.runs.size();
    for (CompareGroup& g : out.groups) {
        g.interval.assign(n, std::nullopt);
        g.adjustedP.assign(n, 1.0);
        g.verdict.assign(n, Verdict::WithinNoise);
    }
    for (size_t j = 1; j < n; ++j) {
        std::vector<double> p;
        std::vector<size_t> tested;
        for (size_t k = 0; k < out.groups.size(); ++k) {
            CompareGroup& g = out.groups[k];
            g.interval[j] = welchInterval(g.cells[0].stats, g.cells[j].stats);
            if (g.interval[j]) {
                p.push_back(g.interval[j]->p);
                tested.push_back(k);
            }
        }
        const std::vector<double> adjusted = holmAdjust(p);
        for (size_t t = 0; t < tested.size(); ++t)
            out.groups[tested[t]].adjustedP[j] = adjusted[t];
        for (CompareGroup& g : out.groups)
            g.verdict[j] = verdictOf(g.interval[j], g.adjustedP[j]);
        CompareRunSummary& r = out.runs[j];
        r.interval = welchInterval(out.runs[0].total.stats, r.total.stats);
        r.verdict = verdictOf(r.interval, r.interval ? r.interval->p : 1.0);
    }
    out.runs[0].interval.reset();
    out.runs[0].verdict = Verdict::WithinNoise;
}

}  // namespace

namespace {

// Per step of a run, the time of each key a stored totals row maps to (keyOf: none for a row
// outside every key, e.g. outside the filters), and of all keyed rows together. keyOf runs once
// per distinct (scope, name, kind), not once per step.
struct KeyedStepSamples {
    std::unordered_map<std::string, std::vector<double>> byKey;
    std::vector<double> total;
};

template <class KeyOf>
KeyedStepSamples stepSamplesBy(const CompareRun& r, KeyOf&& keyOf)
{
    KeyedStepSamples out;
    const size_t steps = r.stepTotals.size();
    out.total.assign(steps, 0.0);
    std::unordered_map<RowKey, std::vector<double>*, RowKeyHash> slotOfRow;
    for (size_t s = 0; s < steps; ++s)
        for (const TotalRow& row : r.stepTotals[s]) {
            auto [it, isNew] = slotOfRow.try_emplace(RowKey{row.scopeId, row.nameId, uint8_t(row.kind)}, nullptr);
            if (isNew)
                if (std::optional<std::string> key = keyOf(row)) {
                    auto [kt, fresh] = out.byKey.try_emplace(std::move(*key));
                    if (fresh)
                        kt->second.assign(steps, 0.0);
                    it->second = &kt->second;   // unordered_map nodes are stable
                }
            if (!it->second)
                continue;
            (*it->second)[s] += double(row.timeNs);
            out.total[s] += double(row.timeNs);
        }
    return out;
}

// The group one stored totals row falls in at `options`: the breakdown of that row alone.
std::optional<std::string> groupOfRow(const CompareRun& r, const TotalRow& row, const BreakdownOptions& options)
{
    TotalRow one = row;
    one.timeNs = 1;   // a breakdown keeps groups with time
    one.count = 1;
    Breakdown b = computeBreakdown({one}, r.tree, r.strings, options);
    if (b.groups.empty())
        return std::nullopt;
    return b.groups.front().path;
}

}  // namespace

std::unordered_map<std::string, std::vector<double>> groupStepSamples(const CompareRun& run, const BreakdownOptions& options)
{
    return stepSamplesBy(run, [&](const TotalRow& row) { return groupOfRow(run, row, options); }).byKey;
}

Comparison compareSides(const std::vector<CompareSide>& sides, const CompareOptions& options)
{
    if (sides.empty())
        throw CompareError("no runs to compare");
    for (size_t i = 0; i < sides.size(); ++i) {
        if (sides[i].empty())
            throw CompareError("no runs in " + sideName(i, sides.size()));
        checkRepeats(sides[i], sideName(i, sides.size()));
    }
    Comparison out;
    bool allScoped = true;
    for (const CompareSide& side : sides)
        for (const CompareRun* r : side)
            allScoped &= r->hasScopes();
    out.groupBy = options.groupBy.value_or(allScoped ? GroupBy::Layer : GroupBy::Kernel);
    out.depth = options.depth;
    out.filters = options.filters;
    bool pooled = false;
    for (const CompareSide& side : sides) {
        CompareRunSummary s = summaryOf(*side.front());
        s.steps = 0;
        bool stepless = false;
        for (const CompareRun* r : side) {
            s.repeats.push_back({r->file, r->info.id, r->steps});
            s.steps += r->steps;
            stepless |= r->steps <= 0;
        }
        if (stepless)
            s.steps = 0;
        pooled |= side.size() > 1;
        out.runs.push_back(std::move(s));
    }
    if (!options.groupBy && !allScoped)
        out.notes.push_back("grouped by kernel name: not every run has scopes");
    out.per = choosePer(out.runs, options.per, out.notes);
    if (pooled)
        out.notes.push_back(out.per == ComparePer::Step
                                ? "repeats pooled: a side's time is its runs' time over their steps together"
                                : "repeats pooled: a side's time is the mean of its runs");

    BreakdownOptions bo;
    bo.groupBy = out.groupBy;
    bo.depth = options.depth;
    bo.filters = options.filters;
    const size_t n = sides.size();
    std::unordered_map<std::string, size_t> index;
    auto groupOf = [&](Group& g) -> CompareGroup& {
        auto [it, isNew] = index.try_emplace(g.path, out.groups.size());
        if (isNew) {
            CompareGroup cg;
            cg.name = g.name;
            cg.path = g.path;
            cg.cells.resize(n);
            out.groups.push_back(std::move(cg));
        }
        return out.groups[it->second];
    };
    // Per side, group index -> samples (zeros where a step or repeat lacks the group).
    std::vector<std::unordered_map<size_t, std::vector<double>>> samples(n);
    std::vector<std::vector<double>> totalSamples(n);
    for (size_t i = 0; i < n; ++i) {
        CompareRunSummary& s = out.runs[i];
        const double divisor = out.per == ComparePer::Step ? double(s.steps) : double(sides[i].size());
        // How many samples the side has: every step read of every repeat (a repeat whose steps
        // were not read gives none, so the side has no per-step samples), or one per repeat.
        size_t sampleCount = 0;
        bool stepsRead = true;
        for (const CompareRun* r : sides[i]) {
            stepsRead &= !r->stepTotals.empty();
            sampleCount += r->stepTotals.size();
        }
        if (out.per == ComparePer::Run)
            sampleCount = sides[i].size();
        else if (!stepsRead)
            sampleCount = 0;
        std::vector<double>& totals = totalSamples[i];
        totals.assign(sampleCount, 0.0);
        auto sampleOf = [&](size_t group) -> std::vector<double>& {
            auto [it, isNew] = samples[i].try_emplace(group);
            if (isNew)
                it->second.assign(sampleCount, 0.0);
            return it->second;
        };
        size_t sample = 0;
        for (const CompareRun* r : sides[i]) {
            Breakdown b = computeBreakdown(r->totals, r->tree, r->strings, bo);
            for (Group& g : b.groups) {
                CompareGroup& cg = groupOf(g);
                CompareCell& c = cg.cells[i];
                c.present = true;
                c.totalNs += g.timeNs;
                c.totalCount += g.count;
                s.total.totalCount += g.count;
                if (out.per == ComparePer::Run)
                    sampleOf(size_t(&cg - out.groups.data()))[sample] = double(g.timeNs);
            }
            s.total.totalNs += b.totalNs;
            if (out.per == ComparePer::Run) {
                totals[sample++] = double(b.totalNs);
            } else if (stepsRead) {
                // Each (scope, name, kind) row falls in one group (or none, outside the filters):
                // found once by the breakdown of that row alone, so a step costs a lookup per row
                // instead of a breakdown (thousands of steps).
                std::unordered_map<RowKey, int64_t, RowKeyHash> groupOfRow;
                for (const std::vector<TotalRow>& step : r->stepTotals) {
                    for (const TotalRow& row : step) {
                        auto [it, isNew] = groupOfRow.try_emplace(RowKey{row.scopeId, row.nameId, uint8_t(row.kind)}, -1);
                        if (isNew) {
                            TotalRow one = row;
                            one.timeNs = 1;   // a breakdown keeps groups with time
                            one.count = 1;
                            Breakdown b1 = computeBreakdown({one}, r->tree, r->strings, bo);
                            if (!b1.groups.empty())
                                it->second = int64_t(&groupOf(b1.groups.front()) - out.groups.data());
                        }
                        if (it->second < 0)
                            continue;
                        sampleOf(size_t(it->second))[sample] += double(row.timeNs);
                        totals[sample] += double(row.timeNs);
                    }
                    ++sample;
                }
            }
        }
        for (CompareGroup& g : out.groups) {
            CompareCell& c = g.cells[i];
            c.ns = double(c.totalNs) / divisor;
            c.count = double(c.totalCount) / divisor;
        }
        s.total.present = true;
        s.total.ns = double(s.total.totalNs) / divisor;
        s.total.count = double(s.total.totalCount) / divisor;
        s.total.stats = summarize(totals);
    }
    for (size_t i = 0; i < n; ++i)
        for (size_t k = 0; k < out.groups.size(); ++k) {
            auto it = samples[i].find(k);
            out.groups[k].cells[i].stats =
                it != samples[i].end() ? summarize(it->second) : summarize(std::vector<double>(totalSamples[i].size(), 0.0));
        }
    for (size_t i = 0; i < n; ++i) {
        out.runs[i].deltaNs = out.runs[i].total.ns - out.runs[0].total.ns;
        out.runs[i].deltaPct = percentOf(out.runs[0].total, out.runs[i].deltaNs);
        out.runs[i].ratio = ratioOf(out.runs[0].total, out.runs[i].total);
    }
    for (CompareGroup& g : out.groups) {
        g.deltaNs.resize(n);
        g.deltaPct.resize(n);
        g.ratio.resize(n);
        for (size_t i = 0; i < n; ++i) {
            g.deltaNs[i] = g.cells[i].ns - g.cells[0].ns;   // absent cells hold 0
            g.deltaPct[i] = percentOf(g.cells[0], g.deltaNs[i]);
            g.ratio[i] = ratioOf(g.cells[0], g.cells[i]);
            g.change = std::max(g.change, std::abs(g.deltaNs[i]));
        }
    }
    auto largest = [](const CompareGroup& g) {
        double m = 0;
        for (const CompareCell& c : g.cells)
            m = std::max(m, c.ns);
        return m;
    };
    std::sort(out.groups.begin(), out.groups.end(), [&](const CompareGroup& a, const CompareGroup& b) {
        if (a.change != b.change)
            return a.change > b.change;
        double la = largest(a), lb = largest(b);
        return la != lb ? la > lb : a.path < b.path;
    });
    testNoise(out);
    return out;
}

KernelDiff diffKernels(const CompareRun& base, const CompareRun& other, const KernelDiffOptions& options)
{
    // (Not scope paths: a path filter also takes the deeper paths under it, so the groups of a
    // depth would overlap where the tree is uneven.)
    if (options.within != GroupBy::Op && options.within != GroupBy::Layer && options.within != GroupBy::Phase)
        throw CompareError("kernels are matched inside ops, layers or phases, not by " + std::string(toString(options.within)));
    KernelDiff out;
    out.filters = options.filters;
    out.within = options.within;
    out.base = summaryOf(base);
    out.other = summaryOf(other);
    std::vector<CompareRunSummary> both{out.base, out.other};
    out.per = choosePer(both, options.per, out.notes);

    // (op, kernel name) -> row, for both runs: the op groups of each run, then the kernels of
    // each op, through the breakdown itself, so every figure equals `stats --within ...`.
    struct Key {
        std::string op, name;
        bool operator<(const Key& o) const { return std::tie(op, name) < std::tie(o.op, o.name); }
    };
    std::map<Key, KernelDiffRow> rows;
    const CompareRun* runs[2] = {&base, &other};
    CompareRunSummary* sums[2] = {&out.base, &out.other};
    BreakdownOptions bo;
    bo.groupBy = options.within;
    bo.filters = options.filters;
    // The samples: per step, one per step read (a row's key is "op \x1f kernel", the breakdowns
    // of that row alone, so they are the same groups as below); per run, the run's total.
    KeyedStepSamples samples[2];
    for (int side = 0; side < 2; ++side) {
        const CompareRun& r = *runs[side];
        if (out.per != ComparePer::Step)
            continue;
        samples[side] = stepSamplesBy(r, [&](const TotalRow& row) -> std::optional<std::string> {
            std::optional<std::string> op = groupOfRow(r, row, bo);
            if (!op)
                return std::nullopt;
            BreakdownOptions ko;
            ko.groupBy = GroupBy::Kernel;
            ko.filters = options.filters;
            ko.filters.emplace_back(options.within, *op);
            std::optional<std::string> kernel = groupOfRow(r, row, ko);
            if (!kernel)
                return std::nullopt;
            return *op + '\x1f' + *kernel;
        });
    }
    auto statsOf = [&](int side, const std::string& op, const std::string& kernel, const CompareCell& c) {
        if (out.per != ComparePer::Step)
            return summarize({double(c.totalNs)});
        const KeyedStepSamples& ks = samples[side];
        auto it = ks.byKey.find(op + '\x1f' + kernel);
        return it != ks.byKey.end() ? summarize(it->second) : summarize(std::vector<double>(ks.total.size(), 0.0));
    };
    for (int side = 0; side < 2; ++side) {
        const CompareRun& r = *runs[side];
        double divisor = divisorOf(out.per, r.steps);
        Breakdown ops = computeBreakdown(r.totals, r.tree, r.strings, bo);
        CompareCell& total = sums[side]->total;
        total.present = true;
        for (const Group& op : ops.groups) {
            BreakdownOptions ko;
            ko.groupBy = GroupBy::Kernel;
            ko.filters = options.filters;
            ko.filters.emplace_back(options.within, op.path);
            Breakdown ks = computeBreakdown(r.totals, r.tree, r.strings, ko);
            for (const Group& k : ks.groups) {
                KernelDiffRow& row = rows[Key{op.path, k.path}];
                row.op = op.path;
                (side == 0 ? row.baseName : row.otherName) = k.path;
                fillCell(side == 0 ? row.base : row.other, k.timeNs, k.count, divisor);
                fillCell(total, k.timeNs, k.count, divisor);
            }
        }
        total.stats = out.per == ComparePer::Step ? summarize(samples[side].total) : summarize({double(total.totalNs)});
    }
    // Each side's samples of every row, zeros where the kernel is absent (also for the side a
    // removed or added kernel lacks), before rows are paired: a pair takes each side's own.
    for (auto& [key, row] : rows) {
        row.base.stats = statsOf(0, key.op, key.name, row.base);
        row.other.stats = statsOf(1, key.op, key.name, row.other);
    }
    out.base.deltaNs = 0;
    out.base.deltaPct = percentOf(out.base.total, 0);
    out.base.ratio = ratioOf(out.base.total, out.base.total);
    out.other.deltaNs = out.other.total.ns - out.base.total.ns;
    out.other.deltaPct = percentOf(out.base.total, out.other.deltaNs);
    out.other.ratio = ratioOf(out.base.total, out.other.total);

    // Matched (op, name) first; then the one-sided kernels are paired: the same name in another
    // op (moved), then within one op names that differ only in template arguments or numbers,
    // then the rest of the op by time (swaps). Largest first at every stage.
    std::vector<KernelDiffRow> removed, added;
    auto finish = [&](KernelDiffRow& row) {
        row.deltaNs = row.other.ns - row.base.ns;
        row.deltaPct = percentOf(row.base, row.deltaNs);
        row.ratio = ratioOf(row.base, row.other);
        out.rows.push_back(std::move(row));
    };
    for (auto& [key, row] : rows) {
        row.otherOp = row.op;
        if (row.base.present && row.other.present) {
            bool same = row.base.totalNs == row.other.totalNs && row.base.totalCount == row.other.totalCount;
            row.change = same ? KernelChange::Unchanged : KernelChange::Changed;
            ++(same ? out.unchanged : out.changed);
            finish(row);
        } else {
            (row.base.present ? removed : added).push_back(std::move(row));
        }
    }
    auto byTime = [](const KernelDiffRow& a, const KernelDiffRow& b) {
        double ta = std::max(a.base.ns, a.other.ns), tb = std::max(b.base.ns, b.other.ns);
        if (ta != tb)
            return ta > tb;
        return std::tie(a.op, a.baseName, a.otherName) < std::tie(b.op, b.baseName, b.otherName);
    };
    std::sort(removed.begin(), removed.end(), byTime);
    std::sort(added.begin(), added.end(), byTime);
    std::vector<bool> usedR(removed.size()), usedA(added.size());
    auto pair = [&](size_t ri, size_t ai, KernelChange change, bool similar) {
        KernelDiffRow row;
        row.change = change;
        row.op = removed[ri].op;
        row.otherOp = added[ai].op;
        row.baseName = removed[ri].baseName;
        row.otherName = added[ai].otherName;
        row.similarNames = similar;
        row.base = removed[ri].base;
        row.other = added[ai].other;
        usedR[ri] = usedA[ai] = true;
        ++(change == KernelChange::Moved ? out.moved : out.swapped);
        finish(row);
    };
    auto pairEach = [&](auto&& matches, KernelChange change, bool similar) {
        for (size_t ri = 0; ri < removed.size(); ++ri) {
            if (usedR[ri])
                continue;
            for (size_t ai = 0; ai < added.size(); ++ai)
                if (!usedA[ai] && matches(removed[ri], added[ai])) {
                    pair(ri, ai, change, similar);
                    break;
                }
        }
    };
    pairEach([](const KernelDiffRow& r, const KernelDiffRow& a) { return r.baseName == a.otherName; }, KernelChange::Moved, false);
    std::unordered_map<std::string, std::string> stems;
    auto stemOf = [&](const std::string& name) -> const std::string& {
        auto it = stems.find(name);
        return it != stems.end() ? it->second : stems.emplace(name, kernelStem(name)).first->second;
    };
    pairEach([&](const KernelDiffRow& r, const KernelDiffRow& a) { return r.op == a.op && stemOf(r.baseName) == stemOf(a.otherName); },
             KernelChange::Swapped, true);
    pairEach([](const KernelDiffRow& r, const KernelDiffRow& a) { return r.op == a.op; }, KernelChange::Swapped, false);
    for (size_t ri = 0; ri < removed.size(); ++ri)
        if (!usedR[ri]) {
            removed[ri].change = KernelChange::Removed;
            ++out.removed;
            finish(removed[ri]);
        }
    for (size_t ai = 0; ai < added.size(); ++ai)
        if (!usedA[ai]) {
            added[ai].change = KernelChange::Added;
            ++out.added;
            finish(added[ai]);
        }
    std::sort(out.rows.begin(), out.rows.end(), [](const KernelDiffRow& a, const KernelDiffRow& b) {
        double da = std::abs(a.deltaNs), db = std::abs(b.deltaNs);
        if (da != db)
            return da > db;
        if (a.op != b.op)
            return a.op < b.op;
        return std::tie(a.baseName, a.otherName) < std::tie(b.baseName, b.otherName);
    });
    // Noise: every row tested (Welch), Holm over the rows tested; the total on its own.
    std::vector<double> p;
    std::vector<size_t> tested;
    for (size_t k = 0; k < out.rows.size(); ++k) {
        KernelDiffRow& row = out.rows[k];
        row.interval = welchInterval(row.base.stats, row.other.stats);
        if (row.interval) {
            p.push_back(row.interval->p);
            tested.push_back(k);
        }
    }
    const std::vector<double> adjusted = holmAdjust(p);
    for (size_t t = 0; t < tested.size(); ++t)
        out.rows[tested[t]].adjustedP = adjusted[t];
    for (KernelDiffRow& row : out.rows)
        row.verdict = verdictOf(row.interval, row.adjustedP);
    out.other.interval = welchInterval(out.base.total.stats, out.other.total.stats);
    out.other.verdict = verdictOf(out.other.interval, out.other.interval ? out.other.interval->p : 1.0);
    out.base.verdict = Verdict::WithinNoise;
    return out;
}

}  // namespace wt
