#include "compare.h"

#include "analysis/runprofile.h"

#include "storage/reader.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

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

// "ProfilerStep#551": the name PyTorch's profiler gives each step's range.
bool isProfilerStep(std::string_view name)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix)
        return false;
    return std::all_of(name.begin() + prefix.size(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

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
    // Captures: the instances of the outermost "step" scopes.
    const std::vector<int64_t> stepScopes = outerStepScopes(tree);
    if (!stepScopes.empty())
        return reader.countScopeInstances(runId, stepScopes);
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

CompareRun loadCompareRun(const Reader& reader, int64_t runId, std::string file, CategoriesPtr categories)
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
    r.steps = countSteps(reader, runId, asStored);
    // A capture's step wall time: the mean span of its step scopes (host clock), what a step
    // took, without the time between steps (writing its records, the tracer's bookkeeping).
    if (r.steps > 0 && r.info.backend != "import") {
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

Comparison compareRuns(const std::vector<const CompareRun*>& runs, const CompareOptions& options)
{
    if (runs.empty())
        throw CompareError("no runs to compare");
    Comparison out;
    bool allScoped = std::all_of(runs.begin(), runs.end(), [](const CompareRun* r) { return r->hasScopes(); });
    out.groupBy = options.groupBy.value_or(allScoped ? GroupBy::Layer : GroupBy::Kernel);
    out.depth = options.depth;
    out.filters = options.filters;
    for (const CompareRun* r : runs)
        out.runs.push_back(summaryOf(*r));
    if (!options.groupBy && !allScoped)
        out.notes.push_back("grouped by kernel name: not every run has scopes");
    out.per = choosePer(out.runs, options.per, out.notes);

    BreakdownOptions bo;
    bo.groupBy = out.groupBy;
    bo.depth = options.depth;
    bo.filters = options.filters;
    const size_t n = runs.size();
    std::unordered_map<std::string, size_t> index;
    for (size_t i = 0; i < n; ++i) {
        Breakdown b = computeBreakdown(runs[i]->totals, runs[i]->tree, runs[i]->strings, bo);
        double divisor = divisorOf(out.per, runs[i]->steps);
        CompareRunSummary& s = out.runs[i];
        for (Group& g : b.groups) {
            auto [it, isNew] = index.try_emplace(g.path, out.groups.size());
            if (isNew) {
                CompareGroup cg;
                cg.name = std::move(g.name);
                cg.path = g.path;
                cg.cells.resize(n);
                out.groups.push_back(std::move(cg));
            }
            fillCell(out.groups[it->second].cells[i], g.timeNs, g.count, divisor);
            s.total.totalCount += g.count;
        }
        s.total.present = true;
        s.total.totalNs = b.totalNs;
        s.total.ns = double(b.totalNs) / divisor;
        s.total.count = double(s.total.totalCount) / divisor;
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
    for (int side = 0; side < 2; ++side) {
        const CompareRun& r = *runs[side];
        double divisor = divisorOf(out.per, r.steps);
        BreakdownOptions bo;
        bo.groupBy = options.within;
        bo.filters = options.filters;
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
    return out;
}

}  // namespace wt
