#include "breakdown.h"

#include "storage/reader.h"

#include <algorithm>
#include <map>

namespace wt {

std::optional<GroupBy> groupByFromString(std::string_view text)
{
    if (text == "scope") return GroupBy::Scope;
    if (text == "layer") return GroupBy::Layer;
    if (text == "phase") return GroupBy::Phase;
    if (text == "op") return GroupBy::Op;
    if (text == "kernel") return GroupBy::Kernel;
    if (text == "kind") return GroupBy::Kind;
    return std::nullopt;
}

std::string_view toString(GroupBy g)
{
    switch (g) {
    case GroupBy::Scope: return "scope";
    case GroupBy::Layer: return "layer";
    case GroupBy::Phase: return "phase";
    case GroupBy::Op: return "op";
    case GroupBy::Kernel: return "kernel";
    case GroupBy::Kind: return "kind";
    }
    return "layer";
}

namespace {

// Per-grouping key of a scope node, cached: trees are small, totals rows many.
struct KeyCache {
    const ScopeTree& tree;
    GroupBy groupBy;
    int depth;
    bool treeHasLevel;
    std::unordered_map<int64_t, std::string> keys;

    std::string compute(int64_t scopeId) const
    {
        if (scopeId == 0 || !tree.contains(scopeId))
            return kNoScope;
        switch (groupBy) {
        case GroupBy::Scope:
            return tree.path(scopeId, depth);
        case GroupBy::Layer:
        case GroupBy::Phase: {
            const char* lvl = groupBy == GroupBy::Layer ? "layer" : "phase";
            if (!treeHasLevel)   // imports: top-level ranges play the part of layers and phases
                return tree.path(scopeId, 1);
            int64_t a = tree.ancestorAtLevel(scopeId, lvl);
            return a ? tree.name(a) : std::string(groupBy == GroupBy::Layer ? "(no layer)" : "(no phase)");
        }
        case GroupBy::Op: {
            int64_t a = treeHasLevel ? tree.ancestorAtLevel(scopeId, "op") : scopeId;
            return a ? tree.name(a) : tree.name(scopeId);
        }
        default:
            return {};
        }
    }

    const std::string& get(int64_t scopeId)
    {
        auto it = keys.find(scopeId);
        if (it == keys.end())
            it = keys.emplace(scopeId, compute(scopeId)).first;
        return it->second;
    }
};

bool hasLevelFor(const ScopeTree& tree, GroupBy g)
{
    switch (g) {
    case GroupBy::Layer: return tree.hasLevel("layer");
    case GroupBy::Phase: return tree.hasLevel("phase");
    case GroupBy::Op: return tree.hasLevel("op");
    default: return true;
    }
}

std::string nameOf(uint32_t id, const std::unordered_map<uint32_t, std::string>& strings)
{
    auto it = strings.find(id);
    return it == strings.end() ? std::string("(unnamed)") : it->second;
}

}  // namespace

std::string groupKey(const TotalRow& row, const ScopeTree& tree, const std::unordered_map<uint32_t, std::string>& strings,
                     GroupBy groupBy, int depth)
{
    if (groupBy == GroupBy::Kernel)
        return nameOf(row.nameId, strings);
    if (groupBy == GroupBy::Kind)
        return std::string(toString(row.kind));
    KeyCache cache{tree, groupBy, depth, hasLevelFor(tree, groupBy), {}};
    return cache.compute(row.scopeId);
}

Breakdown computeBreakdown(const std::vector<TotalRow>& totals, const ScopeTree& tree,
                           const std::unordered_map<uint32_t, std::string>& strings, const BreakdownOptions& options)
{
    Breakdown out;
    out.groupBy = options.groupBy;
    out.depth = options.depth;
    bool allKinds = options.groupBy == GroupBy::Kind;

    std::vector<KeyCache> filterCaches;
    for (auto& [g, key] : options.filters) {
        // A scope-path filter names its own depth: "step/backward" is the path at depth 2.
        int depth = g == GroupBy::Scope ? int(std::count(key.begin(), key.end(), '/')) + 1 : options.depth;
        filterCaches.push_back(KeyCache{tree, g, depth, hasLevelFor(tree, g), {}});
    }
    KeyCache cache{tree, options.groupBy, options.depth, hasLevelFor(tree, options.groupBy), {}};

    std::unordered_map<std::string, Group> groups;
    for (const TotalRow& row : totals) {
        if (!allKinds && row.kind != ActivityKind::Kernel)
            continue;
        bool pass = true;
        for (size_t i = 0; i < options.filters.size() && pass; ++i) {
            GroupBy g = options.filters[i].first;
            const std::string& want = options.filters[i].second;
            if (g == GroupBy::Kernel)
                pass = nameOf(row.nameId, strings) == want;
            else if (g == GroupBy::Kind)
                pass = toString(row.kind) == want;
            else
                pass = filterCaches[i].get(row.scopeId) == want;
        }
        if (!pass)
            continue;
        std::string key;
        if (options.groupBy == GroupBy::Kernel)
            key = nameOf(row.nameId, strings);
        else if (options.groupBy == GroupBy::Kind)
            key = std::string(toString(row.kind));
        else
            key = cache.get(row.scopeId);
        Group& g = groups[key];
        if (g.path.empty()) {
            g.path = key;
            size_t slash = options.groupBy == GroupBy::Scope ? key.rfind('/') : std::string::npos;
            g.name = slash == std::string::npos ? key : key.substr(slash + 1);
        }
        // Saturating (types.h): totals of a damaged or extreme file must not wrap.
        g.timeNs = saturatingAdd(g.timeNs, row.timeNs);
        g.count = saturatingAdd(g.count, row.count);
        out.totalNs = saturatingAdd(out.totalNs, row.timeNs);
    }
    out.groups.reserve(groups.size());
    for (auto& [k, g] : groups) {
        g.share = out.totalNs > 0 ? double(g.timeNs) / double(out.totalNs) : 0.0;
        out.groups.push_back(std::move(g));
    }
    std::sort(out.groups.begin(), out.groups.end(), [](const Group& a, const Group& b) {
        return a.timeNs != b.timeNs ? a.timeNs > b.timeNs : a.path < b.path;
    });
    return out;
}

std::vector<TotalRow> totalsOf(const std::vector<Activity>& activities, const std::unordered_map<int64_t, int64_t>& instanceScope)
{
    struct Key {
        int64_t scope;
        uint32_t name;
        uint8_t kind;
        bool operator<(const Key& o) const { return std::tie(scope, name, kind) < std::tie(o.scope, o.name, o.kind); }
    };
    std::map<Key, TotalRow> rows;
    for (const Activity& a : activities) {
        int64_t scope = 0;
        if (auto it = instanceScope.find(a.scopeInstanceId); it != instanceScope.end())
            scope = it->second;
        TotalRow& r = rows[Key{scope, a.nameId, uint8_t(a.kind)}];
        r.scopeId = scope;
        r.nameId = a.nameId;
        r.kind = a.kind;
        r.count += 1;
        r.timeNs = saturatingAdd(r.timeNs, a.endNs - a.startNs);
    }
    std::vector<TotalRow> out;
    out.reserve(rows.size());
    for (auto& [k, r] : rows)
        out.push_back(r);
    return out;
}

RunStats computeRunStats(const Reader& reader, int64_t runId, const BreakdownOptions& options)
{
    RunStats s;
    s.run = reader.run(runId);
    s.kernels = s.run.kernels;
    s.kernelTimeNs = s.run.kernelTimeNs;
    s.busyNs = s.run.busyNs;
    s.spanNs = s.run.spanEndNs - s.run.spanStartNs;
    ScopeTree tree = ScopeTree::load(reader, runId);
    s.breakdown = computeBreakdown(reader.totals(runId), tree, reader.strings(), options);
    return s;
}

}  // namespace wt
