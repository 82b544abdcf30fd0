#include "histogram.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace wt {

std::string_view toString(HistogramOf of)
{
    return of == HistogramOf::Scopes ? "scopes" : "kernels";
}

int64_t logBinEdge(int i, int binsPerDecade)
{
    if (i <= 0)
        return 1;
    const int b = std::max(binsPerDecade, 1);
    if (i % b == 0) {   // a power of ten: exact
        int64_t p = 1;
        for (int k = 0; k < i / b; ++k)
            p = p > std::numeric_limits<int64_t>::max() / 10 ? std::numeric_limits<int64_t>::max() : p * 10;
        return p;
    }
    // Irrational edges: ceil, then settle the integer against the edge in long double (an
    // integer never lies on an irrational edge, so the comparison only has to be precise).
    const long double e = (long double)i / (long double)b;
    if (e >= 18.9L)
        return std::numeric_limits<int64_t>::max();
    auto below = [&](int64_t n) { return std::log10((long double)n) < e; };
    int64_t c = int64_t(std::ceil(std::pow(10.0L, e)));
    while (c > 1 && !below(c - 1))
        --c;
    while (below(c))
        ++c;
    return c;
}

int logBinIndex(int64_t durationNs, int binsPerDecade)
{
    if (durationNs < 1)
        return 0;
    const int b = std::max(binsPerDecade, 1);
    int i = int(std::floor(std::log10((double)durationNs) * b));
    while (i > 0 && logBinEdge(i, b) > durationNs)
        --i;
    while (logBinEdge(i + 1, b) <= durationNs)
        ++i;
    return i;
}

int Histogram::binOf(int64_t durationNs) const
{
    if (bins.empty() || durationNs < bins.front().loNs || durationNs >= bins.back().hiNs)
        return -1;
    auto it = std::upper_bound(bins.begin(), bins.end(), durationNs, [](int64_t d, const HistogramBin& b) { return d < b.loNs; });
    return int(it - bins.begin()) - 1;
}

std::optional<double> Histogram::perStep(size_t bin) const
{
    if (steps <= 0 || bin >= bins.size())
        return std::nullopt;
    return double(bins[bin].count) / double(steps);
}

namespace {

bool isScopeGrouping(GroupBy g)
{
    return g != GroupBy::Kernel && g != GroupBy::Kind && g != GroupBy::Category;
}

// Per tree node: the key of the group the node's instances are instances of under a scope
// grouping (or steps), nullopt when its instances are none of the grouping's instances (a
// layer's op under layer grouping: its kernels belong to the layer, its instance does not).
std::vector<std::optional<std::string>> nodeKeys(const ScopeTree& tree, const HistogramGroup& group)
{
    const auto& nodes = tree.nodes();
    std::vector<std::optional<std::string>> out(nodes.size());
    std::vector<uint8_t> hasChild(nodes.size(), 0);
    for (const ScopeNode& n : nodes)
        if (uint32_t p = tree.indexOf(n.parentId); p < nodes.size())
            hasChild[p] = 1;
    const GroupLevel& level = group.level;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const ScopeNode& n = nodes[i];
        const int64_t id = n.id;
        bool member = false;
        if (group.steps) {
            member = tree.isStep(id);
        } else {
            switch (level.groupBy) {
            case GroupBy::Layer:
                member = layerScope(tree, id) == id;
                break;
            case GroupBy::Phase:
                member = (tree.hasLevel("phase") ? tree.ancestorAtLevel(id, "phase") : tree.ancestorBelowSteps(id, 1)) == id;
                break;
            case GroupBy::Op:
                member = tree.hasLevel("op") ? tree.level(id) == "op" : !tree.isStep(id);
                break;
            case GroupBy::Scope:
                // The scopes whose path at the depth is their own path: those at the depth, and
                // shallower leaves (whose kernels carry their full path as the key).
                member = n.depth == level.depth || (n.depth < level.depth && !hasChild[i]);
                break;
            default:
                break;
            }
        }
        if (member)
            out[i] = group.steps || level.groupBy != GroupBy::Scope ? tree.name(id) : tree.path(id, level.depth);
    }
    return out;
}

// The GPU span of every scope instance (first kernel start, last kernel end, children
// included); start > end for an instance without kernels.
void instanceSpans(const ActivityView& view, const std::vector<uint8_t>& wanted, std::vector<int64_t>& start, std::vector<int64_t>& end)
{
    const size_t n = view.instanceCount;
    start.assign(n, std::numeric_limits<int64_t>::max());
    end.assign(n, std::numeric_limits<int64_t>::min());
    for (const TrackActivities& t : view.tracks)
        for (size_t i = 0; i < t.size; ++i) {
            if (t.kindAt(i) != ActivityKind::Kernel)
                continue;
            const int64_t s = t.startNs[i], e = s + int64_t(t.durationNs[i]);
            // Up the chain (a few levels); bounded so a malformed parent cycle cannot hang.
            size_t guard = 0;
            for (uint32_t at = t.instance[i]; at < n && guard < 256; ++guard) {
                if (wanted[at]) {
                    start[at] = std::min(start[at], s);
                    end[at] = std::max(end[at], e);
                }
                at = view.instanceParent ? view.instanceParent[at] : kNoInstance;
            }
        }
}

int editDistance(std::string_view a, std::string_view b)
{
    std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        prev[j] = int(j);
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = int(i);
        for (size_t j = 1; j <= b.size(); ++j) {
            const int sub = prev[j - 1] + (std::tolower((unsigned char)a[i - 1]) == std::tolower((unsigned char)b[j - 1]) ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower((unsigned char)c));
    return out;
}

}  // namespace

std::vector<HistogramInstance> histogramInstances(const ActivityView& view, const ScopeTree& tree, const Strings& strings,
                                                  const HistogramGroup& group)
{
    std::vector<HistogramInstance> out;
    if (group.steps || group.of == HistogramOf::Scopes) {
        if (!group.steps && !isScopeGrouping(group.level.groupBy))
            throw std::invalid_argument("a " + std::string(toString(group.level.groupBy)) + " group has no scope instances");
        const auto keys = nodeKeys(tree, group);
        const bool anyStep = group.steps && group.key.empty();
        std::vector<uint8_t> wanted(view.instanceCount, 0);
        for (size_t i = 0; i < view.instanceCount; ++i) {
            const uint32_t node = view.instanceNode[i];
            wanted[i] = node < keys.size() && keys[node] && (anyStep || *keys[node] == group.key);
        }
        std::vector<int64_t> start, end;
        instanceSpans(view, wanted, start, end);
        for (size_t i = 0; i < view.instanceCount; ++i)
            if (wanted[i] && start[i] <= end[i])
                out.push_back({kScopeInstanceTrack, uint32_t(i), start[i], end[i] - start[i]});
        return out;
    }
    Grouper grouper(tree, strings, group.level);
    std::vector<int8_t> target;   // by group index: 1 = the wanted key (one compare per group)
    for (size_t ti = 0; ti < view.tracks.size(); ++ti) {
        const TrackActivities& t = view.tracks[ti];
        for (size_t i = 0; i < t.size; ++i) {
            const int32_t g = grouper.indexOf(t.kindAt(i), view.nodeOf(t, i), t.nameId[i]);
            if (g < 0)
                continue;
            if (size_t(g) >= target.size()) {
                const size_t from = target.size();
                target.resize(grouper.keys().size());
                for (size_t k = from; k < target.size(); ++k)
                    target[k] = grouper.keys()[k] == group.key ? 1 : 0;
            }
            if (target[size_t(g)])
                out.push_back({uint32_t(ti), uint32_t(i), t.startNs[i], int64_t(t.durationNs[i])});
        }
    }
    return out;
}

std::vector<std::string> histogramKeys(const ActivityView& view, const ScopeTree& tree, const Strings& strings,
                                       const HistogramGroup& group)
{
    std::set<std::string> keys;
    if (group.steps || group.of == HistogramOf::Scopes) {
        if (!group.steps && !isScopeGrouping(group.level.groupBy))
            return {};
        const auto byNode = nodeKeys(tree, group);
        for (size_t i = 0; i < view.instanceCount; ++i)
            if (const uint32_t node = view.instanceNode[i]; node < byNode.size() && byNode[node])
                keys.insert(*byNode[node]);
        return {keys.begin(), keys.end()};
    }
    Grouper grouper(tree, strings, group.level);
    std::vector<uint8_t> seen;
    for (const TrackActivities& t : view.tracks)
        for (size_t i = 0; i < t.size; ++i) {
            const int32_t g = grouper.indexOf(t.kindAt(i), view.nodeOf(t, i), t.nameId[i]);
            if (g < 0)
                continue;
            if (size_t(g) >= seen.size())
                seen.resize(size_t(g) + 1, 0);
            seen[size_t(g)] = 1;
        }
    for (size_t g = 0; g < seen.size(); ++g)
        if (seen[g])
            keys.insert(grouper.keys()[g]);
    return {keys.begin(), keys.end()};
}

std::vector<std::string> nearKeys(const std::vector<std::string>& keys, std::string_view wanted, size_t max)
{
    const std::string w = lower(wanted);
    std::vector<std::pair<int, const std::string*>> scored;
    for (const std::string& k : keys) {
        const std::string lk = lower(k);
        // A substring either way ranks first (shorter keys first), then the edit distance.
        const bool sub = !w.empty() && (lk.find(w) != std::string::npos || w.find(lk) != std::string::npos);
        const int score = sub ? -100000 + int(std::min<size_t>(k.size(), 90000)) : editDistance(lk, w);
        scored.emplace_back(score, &k);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (size_t i = 0; i < scored.size() && out.size() < max; ++i)
        out.push_back(*scored[i].second);
    return out;
}

Histogram histogramOf(std::vector<HistogramInstance> instances, const HistogramOptions& options)
{
    Histogram h;
    h.binsPerDecade = std::clamp(options.binsPerDecade, 1, 100);
    h.steps = std::max<int64_t>(options.steps, 0);
    h.count = int64_t(instances.size());
    if (instances.empty())
        return h;
    const size_t n = instances.size();
    std::vector<int64_t> d(n);
    int64_t minNs = std::numeric_limits<int64_t>::max(), maxNs = 0, minPositive = std::numeric_limits<int64_t>::max();
    for (size_t i = 0; i < n; ++i) {
        const int64_t v = std::max<int64_t>(instances[i].durationNs, 0);
        d[i] = v;
        minNs = std::min(minNs, v);
        maxNs = std::max(maxNs, v);
        if (v > 0)
            minPositive = std::min(minPositive, v);
        h.totalNs = h.totalNs > std::numeric_limits<int64_t>::max() - v ? std::numeric_limits<int64_t>::max() : h.totalNs + v;
    }
    h.minNs = minNs;
    h.maxNs = maxNs;
    h.meanNs = double(h.totalNs) / double(n);

    // Bins: [0, 1) for zero durations, then the log bins from the minimum's to the maximum's.
    std::vector<int64_t> edges;
    if (minNs == 0)
        edges.push_back(0);
    if (maxNs > 0) {
        // With zero durations the log bins start at 1 ns, so the bins stay contiguous.
        const int first = minNs == 0 ? 0 : logBinIndex(minPositive, h.binsPerDecade);
        const int last = logBinIndex(maxNs, h.binsPerDecade);
        for (int i = first; i <= last + 1; ++i) {
            const int64_t e = logBinEdge(i, h.binsPerDecade);
            if (edges.empty() || e > edges.back())
                edges.push_back(e);
        }
    } else {
        edges.push_back(1);
    }
    h.bins.resize(edges.size() - 1);
    for (size_t b = 0; b + 1 < edges.size(); ++b)
        h.bins[b] = {edges[b], edges[b + 1], 0};
    for (int64_t v : d) {
        // At most ~190 edges: a binary search of a few compares per instance.
        const size_t b = size_t(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) - 1;
        ++h.bins[b].count;
    }

    // Lower median and the nearest-rank p95 (order statistics, no full sort).
    const size_t mid = (n - 1) / 2;
    const size_t p95 = size_t(std::ceil(0.95 * double(n))) - 1;
    std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(p95), d.end());
    h.p95Ns = d[p95];
    std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(mid), d.begin() + std::ptrdiff_t(p95) + 1);
    h.medianNs = d[mid];

    // The N slowest: longest first, ties by start, then track and index (a stable order).
    auto slower = [](const HistogramInstance& a, const HistogramInstance& b) {
        if (a.durationNs != b.durationNs)
            return a.durationNs > b.durationNs;
        if (a.startNs != b.startNs)
            return a.startNs < b.startNs;
        if (a.track != b.track)
            return a.track < b.track;
        return a.index < b.index;
    };
    const size_t k = std::min(options.slowest, n);
    std::partial_sort(instances.begin(), instances.begin() + std::ptrdiff_t(k), instances.end(), slower);
    h.slowest.assign(instances.begin(), instances.begin() + std::ptrdiff_t(k));
    return h;
}

Histogram computeHistogram(const ActivityView& view, const ScopeTree& tree, const Strings& strings, const HistogramGroup& group,
                           const HistogramOptions& options)
{
    Histogram h = histogramOf(histogramInstances(view, tree, strings, group), options);
    h.group = group;
    if (group.steps)
        h.group.of = HistogramOf::Scopes;
    return h;
}

}  // namespace wt
