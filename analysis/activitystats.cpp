#include "activitystats.h"

#include <algorithm>
#include <unordered_map>

namespace wt {

std::vector<TotalRow> rangeTotals(const ActivityView& view, const ScopeTree& tree, const TimeRange& range)
{
    std::vector<TotalRow> out;
    std::unordered_map<uint64_t, size_t> index;
    const auto& nodes = tree.nodes();
    forEachClipped(view, range, [&](const TrackActivities& t, size_t i, int64_t dur) {
        const uint32_t node = view.nodeOf(t, i);
        const bool scoped = node < nodes.size();
        const ActivityKind kind = t.kindAt(i);
        const uint64_t key = (uint64_t(scoped ? node + 1 : 0) << 34) | (uint64_t(t.nameId[i]) << 2) | uint64_t(kind);
        auto [it, added] = index.emplace(key, out.size());
        if (added) {
            TotalRow r;
            r.scopeId = scoped ? nodes[node].id : 0;
            r.nameId = t.nameId[i];
            r.kind = kind;
            out.push_back(r);
        }
        TotalRow& r = out[it->second];
        r.count += 1;
        r.timeNs += dur;
    });
    return out;
}

std::vector<Distribution> distributions(const ActivityView& view, Grouper& grouper, const std::optional<TimeRange>& range)
{
    std::vector<std::vector<int64_t>> durations;
    forEachClipped(view, range, [&](const TrackActivities& t, size_t i, int64_t dur) {
        const int32_t g = grouper.indexOf(t.kindAt(i), view.nodeOf(t, i), t.nameId[i]);
        if (g < 0)
            return;
        if (size_t(g) >= durations.size())
            durations.resize(size_t(g) + 1);
        durations[size_t(g)].push_back(dur);
    });
    std::vector<Distribution> out(grouper.keys().size());
    for (size_t g = 0; g < durations.size(); ++g) {
        std::vector<int64_t>& d = durations[g];
        if (d.empty())
            continue;
        Distribution& s = out[g];
        s.count = int64_t(d.size());
        for (int64_t v : d)
            s.timeNs += v;
        s.meanNs = double(s.timeNs) / double(s.count);
        auto [mn, mx] = std::minmax_element(d.begin(), d.end());
        s.minNs = *mn;
        s.maxNs = *mx;
        auto mid = d.begin() + std::ptrdiff_t((d.size() - 1) / 2);
        std::nth_element(d.begin(), mid, d.end());
        s.medianNs = *mid;
    }
    return out;
}

int64_t kernelTimeUnder(const ActivityView& view, uint32_t instance)
{
    const size_t n = view.instanceCount;
    if (!view.instanceParent || instance >= n)
        return 0;
    // Whether each instance lies under `instance`, resolved up the parent chain once per
    // instance (1 yes, 0 no, -1 not yet), in any instance order.
    std::vector<int8_t> under(n, -1);
    under[instance] = 1;
    std::vector<uint32_t> chain;
    for (size_t i = 0; i < n; ++i) {
        chain.clear();
        uint32_t at = uint32_t(i);
        while (at < n && under[at] < 0 && chain.size() <= n) {
            chain.push_back(at);
            at = view.instanceParent[at];
        }
        const int8_t v = at < n && under[at] == 1 ? 1 : 0;
        for (uint32_t c : chain)
            under[c] = v;
    }
    int64_t sum = 0;
    for (const TrackActivities& t : view.tracks)
        for (size_t i = 0; i < t.size; ++i)
            if (t.kindAt(i) == ActivityKind::Kernel && t.instance[i] < n && under[t.instance[i]] == 1)
                sum = saturatingAdd(sum, int64_t(t.durationNs[i]));
    return sum;
}

}  // namespace wt
