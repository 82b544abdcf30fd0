#include "breakdown.h"

#include "analysis/activitystats.h"
#include "storage/reader.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace wt {

std::string groupKey(const TotalRow& row, const ScopeTree& tree, const Strings& strings, GroupBy groupBy, int depth)
{
    return groupKey(row.kind, row.scopeId, row.nameId, tree, strings, groupBy, depth);
}

namespace {

// Sums totals rows into groups (by the grouper's index), then shares and order.
Breakdown sumGroups(const std::vector<TotalRow>& totals, const ScopeTree& tree, Grouper& grouper)
{
    const GroupLevel& level = grouper.level();
    Breakdown out;
    out.groupBy = level.groupBy;
    out.depth = level.depth;
    out.filters = level.filters;
    std::vector<Group> groups;
    for (const TotalRow& row : totals) {
        const int32_t g = grouper.indexOfScope(row.kind, row.scopeId, row.nameId);
        if (g < 0)
            continue;
        if (size_t(g) >= groups.size())
            groups.resize(size_t(g) + 1);
        // Saturating (types.h): totals of a damaged or extreme file must not wrap.
        groups[size_t(g)].timeNs = saturatingAdd(groups[size_t(g)].timeNs, row.timeNs);
        groups[size_t(g)].count = saturatingAdd(groups[size_t(g)].count, row.count);
        out.totalNs = saturatingAdd(out.totalNs, row.timeNs);
    }
    (void)tree;
    for (size_t g = 0; g < groups.size(); ++g) {
        Group& gr = groups[g];
        if (gr.count == 0 && gr.timeNs == 0)
            continue;
        gr.path = grouper.keys()[g];
        gr.name = groupName(level.groupBy, gr.path);
        gr.share = out.totalNs > 0 ? double(gr.timeNs) / double(out.totalNs) : 0.0;
        gr.meanNs = gr.count > 0 ? double(gr.timeNs) / double(gr.count) : 0.0;
        out.groups.push_back(std::move(gr));
    }
    std::sort(out.groups.begin(), out.groups.end(), [](const Group& a, const Group& b) {
        return a.timeNs != b.timeNs ? a.timeNs > b.timeNs : a.path < b.path;
    });
    return out;
}

}  // namespace

Breakdown computeBreakdown(const std::vector<TotalRow>& totals, const ScopeTree& tree, const Strings& strings,
                           const GroupLevel& level)
{
    Grouper grouper(tree, strings, level);
    return sumGroups(totals, tree, grouper);
}

Breakdown computeBreakdown(const std::vector<TotalRow>& totals, const ScopeTree& tree, const Strings& strings,
                           const BreakdownOptions& options)
{
    return computeBreakdown(totals, tree, strings, options.level());
}

Breakdown computeBreakdown(const RunProfile& profile, const GroupLevel& level, const ActivityView* activities,
                           const std::optional<TimeRange>& range)
{
    std::optional<TimeRange> r;
    if (range && activities)
        r = range->normalized();
    Grouper grouper(profile.tree, profile.strings, level);
    Breakdown out = r ? sumGroups(rangeTotals(*activities, profile.tree, *r), profile.tree, grouper)
                      : sumGroups(profile.totals, profile.tree, grouper);
    out.range = r;
    if (!r && !profile.launchCosts.empty()) {
        std::unordered_map<std::string, Group*> byPath;
        for (Group& g : out.groups)
            byPath.emplace(g.path, &g);
        for (const LaunchCost& c : profile.launchCosts) {
            const int32_t g = grouper.indexOfScope(c.kind, c.scopeId, c.nameId);
            if (g < 0)
                continue;
            auto it = byPath.find(grouper.keys()[size_t(g)]);
            if (it == byPath.end())
                continue;   // a launch whose activities were not recorded (no time, no row)
            it->second->hasCost = true;
            it->second->flops += c.flops;
            it->second->bytes += c.bytes;
        }
    }
    if (!activities)
        return out;
    const std::vector<Distribution> dist = distributions(*activities, grouper, r);
    std::unordered_map<std::string, const Distribution*> byKey;
    for (size_t g = 0; g < dist.size(); ++g)
        if (dist[g].count > 0)
            byKey.emplace(grouper.keys()[g], &dist[g]);
    for (Group& g : out.groups)
        if (auto it = byKey.find(g.path); it != byKey.end()) {
            g.hasDistribution = true;
            g.medianNs = it->second->medianNs;
            g.minNs = it->second->minNs;
            g.maxNs = it->second->maxNs;
        }
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

namespace {

// Groups for which intoOther(index, group) holds merge into one 'other' slice (last); the
// rest become one slice each, in order.
template <typename IntoOther>
std::vector<Slice> slicesWithOther(size_t count, const GroupAt& group, IntoOther intoOther)
{
    std::vector<Slice> out;
    Slice other;
    other.other = true;
    for (size_t i = 0; i < count; ++i) {
        const Group& g = group(i);
        if (intoOther(i, g)) {
            other.timeNs += g.timeNs;
            other.share += g.share;
            other.members.push_back(i);
            continue;
        }
        out.push_back(Slice{g.name, g.path, g.timeNs, g.share, false, {i}});
    }
    if (other.members.size() == 1) {
        // One group is no merge: it keeps its name (a legend saying "other (1)" where the
        // table names the layer hides what it is).
        const size_t i = other.members.front();
        const Group& g = group(i);
        out.push_back(Slice{g.name, g.path, g.timeNs, g.share, false, {i}});
    } else if (!other.members.empty()) {
        other.name = "other (" + std::to_string(other.members.size()) + ")";
        out.push_back(std::move(other));
    }
    return out;
}

}  // namespace

std::vector<Slice> thresholdSlices(size_t count, const GroupAt& group, double threshold)
{
    return slicesWithOther(count, group, [&](size_t, const Group& g) { return g.share < threshold; });
}

std::vector<Slice> topSlices(size_t count, const GroupAt& group, size_t maxCount)
{
    const bool all = count <= maxCount;
    return slicesWithOther(count, group, [&](size_t i, const Group&) { return !all && i + 1 >= maxCount; });
}

std::vector<Slice> filteredSlices(std::vector<Slice> slices, const std::vector<size_t>& kept, size_t count,
                                  const GroupAt& group)
{
    std::vector<bool> isKept(count, false);
    for (Slice& s : slices)
        for (size_t& m : s.members) {
            m = kept.at(m);
            isKept[m] = true;
        }
    Slice rest;
    rest.other = rest.filteredOut = true;
    for (size_t i = 0; i < count; ++i) {
        if (isKept[i])
            continue;
        const Group& g = group(i);
        rest.timeNs += g.timeNs;
        rest.share += g.share;
        rest.members.push_back(i);
    }
    if (!rest.members.empty()) {
        rest.name = "filtered out (" + std::to_string(rest.members.size()) + ")";
        slices.push_back(std::move(rest));
    }
    return slices;
}

RunStats computeRunStats(const RunProfile& profile, const BreakdownOptions& options)
{
    RunStats s;
    s.run = profile.run;
    s.kernels = s.run.kernels;
    s.kernelTimeNs = s.run.kernelTimeNs;
    s.kernelBusyNs = s.run.busyNs;
    s.kernelSpanNs = s.run.spanEndNs - s.run.spanStartNs;
    s.breakdown = computeBreakdown(profile, options.level());
    return s;
}

RunStats computeRunStats(const Reader& reader, int64_t runId, const BreakdownOptions& options)
{
    return computeRunStats(*RunProfile::load(reader, runId), options);
}

}  // namespace wt
