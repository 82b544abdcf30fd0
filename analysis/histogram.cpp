#include "histogram.h"

#include "analysis/compare.h"
#include "analysis/runprofile.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>
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

namespace {

// Calls fn(instance) for every instance of the group (the one walk histogramInstances and
// computeHistogram share).
template <class Fn>
void forEachInstance(const ActivityView& view, const ScopeTree& tree, const Strings& strings, const HistogramGroup& group, Fn&& fn)
{
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
                fn(HistogramInstance{kScopeInstanceTrack, uint32_t(i), start[i], end[i] - start[i]});
        return;
    }
    const GroupBy by = group.level.groupBy;
    if (group.level.filters.empty() && by != GroupBy::Kind && by != GroupBy::Category) {
        // Fast path (no filters; kernels only, countsKind): the key depends on the name id alone
        // (kernel) or on the scope node alone (scope groupings), so it is resolved once per
        // name id or tree node through groupKey, the rule the Grouper applies, and an activity
        // costs a table read.
        const bool byName = by == GroupBy::Kernel;
        std::vector<uint8_t> ok;   // by name id, or by tree position + 1 (0: no scope)
        if (byName) {
            uint32_t maxId = 0;
            for (const auto& [id, text] : strings)
                maxId = std::max(maxId, id);
            ok.resize(size_t(maxId) + 2, 0);
            for (size_t id = 0; id < ok.size(); ++id)
                ok[id] = groupKey(ActivityKind::Kernel, 0, uint32_t(id), tree, strings, by) == group.key;
        } else {
            const auto& nodes = tree.nodes();
            ok.resize(nodes.size() + 1, 0);
            ok[0] = groupKey(ActivityKind::Kernel, 0, 0, tree, strings, by, group.level.depth) == group.key;
            for (size_t n = 0; n < nodes.size(); ++n)
                ok[n + 1] = groupKey(ActivityKind::Kernel, nodes[n].id, 0, tree, strings, by, group.level.depth) == group.key;
        }
        const bool unnamedOk = byName && groupKey(ActivityKind::Kernel, 0, 0xffffffffu, tree, strings, by) == group.key;
        for (size_t ti = 0; ti < view.tracks.size(); ++ti) {
            const TrackActivities& t = view.tracks[ti];
            for (size_t i = 0; i < t.size; ++i) {
                if (t.kind && ActivityKind(t.kind[i]) != ActivityKind::Kernel)
                    continue;
                bool take;
                if (byName) {
                    const uint32_t id = t.nameId[i];
                    take = id < ok.size() ? ok[id] != 0 : unnamedOk;
                } else {
                    const uint32_t node = view.nodeOf(t, i);
                    take = ok[node < ok.size() - 1 ? size_t(node) + 1 : 0] != 0;
                }
                if (take)
                    fn(HistogramInstance{uint32_t(ti), uint32_t(i), t.startNs[i], int64_t(t.durationNs[i])});
            }
        }
        return;
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
                fn(HistogramInstance{uint32_t(ti), uint32_t(i), t.startNs[i], int64_t(t.durationNs[i])});
        }
    }
}

// Longest first; ties by start, then track and index (a stable order).
bool slower(const HistogramInstance& a, const HistogramInstance& b)
{
    if (a.durationNs != b.durationNs)
        return a.durationNs > b.durationNs;
    if (a.startNs != b.startNs)
        return a.startNs < b.startNs;
    if (a.track != b.track)
        return a.track < b.track;
    return a.index < b.index;
}

// Streams instances: their durations (8 bytes each) and the K slowest in a heap, so a group
// of millions costs a push per instance and, mostly, one compare for the heap.
class Collector {
public:
    explicit Collector(size_t slowest) : m_k(slowest) {}
    void reserve(size_t n) { m_d.reserve(n); }
    void add(const HistogramInstance& in)
    {
        m_d.push_back(std::max<int64_t>(in.durationNs, 0));
        if (m_k == 0)
            return;
        if (m_heap.size() < m_k) {
            m_heap.push_back(in);
            std::push_heap(m_heap.begin(), m_heap.end(), slower);   // top: the least slow kept
        } else if (slower(in, m_heap.front())) {
            std::pop_heap(m_heap.begin(), m_heap.end(), slower);
            m_heap.back() = in;
            std::push_heap(m_heap.begin(), m_heap.end(), slower);
        }
    }
    Histogram finish(const HistogramOptions& options);

private:
    size_t m_k;
    std::vector<int64_t> m_d;
    std::vector<HistogramInstance> m_heap;
};

// The k0-th and k1-th smallest (0-based) of d, knowing the bins' counts: only the values of
// their bins are selected among (one pass over d, then nth_element within each bin).
std::pair<int64_t, int64_t> orderStatistics(const std::vector<int64_t>& d, const std::vector<HistogramBin>& bins, size_t k0, size_t k1)
{
    auto locate = [&](size_t k, size_t& before) {
        size_t b = 0;
        before = 0;
        while (b + 1 < bins.size() && before + size_t(bins[b].count) <= k)
            before += size_t(bins[b++].count);
        return b;
    };
    size_t before0 = 0, before1 = 0;
    const size_t b0 = locate(k0, before0), b1 = locate(k1, before1);
    std::vector<int64_t> in0, in1;
    in0.reserve(size_t(bins[b0].count));
    if (b1 != b0)
        in1.reserve(size_t(bins[b1].count));
    const int64_t lo0 = bins[b0].loNs, hi0 = bins[b0].hiNs, lo1 = bins[b1].loNs, hi1 = bins[b1].hiNs;
    for (int64_t v : d) {
        if (v >= lo0 && v < hi0)
            in0.push_back(v);
        else if (v >= lo1 && v < hi1)
            in1.push_back(v);
    }
    auto select = [](std::vector<int64_t>& v, size_t r) {
        std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(r), v.end());
        return v[r];
    };
    const int64_t v0 = select(in0, k0 - before0);
    // Both in one bin: the second from the same values (nth_element keeps them all).
    const int64_t v1 = b1 == b0 ? select(in0, k1 - before0) : select(in1, k1 - before1);
    return {v0, v1};
}

Histogram Collector::finish(const HistogramOptions& options)
{
    Histogram h;
    h.binsPerDecade = std::clamp(options.binsPerDecade, 1, 100);
    h.steps = std::max<int64_t>(options.steps, 0);
    h.count = int64_t(m_d.size());
    std::sort_heap(m_heap.begin(), m_heap.end(), slower);   // longest first
    h.slowest = std::move(m_heap);
    if (m_d.empty())
        return h;
    const int bpd = h.binsPerDecade;

    // Every distinct edge of the log bins from 1 ns up (at most 19 decades), and per power of
    // two the bin holding it: a duration's bin is then that of its highest bit, stepped up at
    // most a few edges (a binary octave spans log10(2) * B ~ 0.3 B bins).
    std::vector<int64_t> edges{1};
    for (int i = 1;; ++i) {
        const int64_t e = logBinEdge(i, bpd);
        if (e > edges.back())
            edges.push_back(e);
        if (e == std::numeric_limits<int64_t>::max())
            break;
    }
    int octaveBin[64];
    for (int k = 0, b = 0; k < 63; ++k) {
        const int64_t p = int64_t(1) << k;
        while (size_t(b) + 1 < edges.size() && edges[size_t(b) + 1] <= p)
            ++b;
        octaveBin[k] = b;
    }
    octaveBin[63] = int(edges.size()) - 1;
    std::vector<int64_t> counts(edges.size(), 0);   // counts[b]: [edges[b], edges[b + 1])
    int64_t zeros = 0, minNs = std::numeric_limits<int64_t>::max(), maxNs = 0, total = 0;
    for (int64_t v : m_d) {
        minNs = std::min(minNs, v);
        maxNs = std::max(maxNs, v);
        total = total > std::numeric_limits<int64_t>::max() - v ? std::numeric_limits<int64_t>::max() : total + v;
        if (v == 0) {
            ++zeros;
            continue;
        }
        size_t b = size_t(octaveBin[63 - std::countl_zero(uint64_t(v))]);
        while (b + 1 < edges.size() && edges[b + 1] <= v)
            ++b;
        ++counts[b];
    }
    h.minNs = minNs;
    h.maxNs = maxNs;
    h.totalNs = total;
    h.meanNs = double(total) / double(m_d.size());

    // The bins from the minimum's to the maximum's (from 1 ns when there are zeros, after [0, 1)).
    auto binOfValue = [&](int64_t v) {
        size_t b = size_t(octaveBin[63 - std::countl_zero(uint64_t(v))]);
        while (b + 1 < edges.size() && edges[b + 1] <= v)
            ++b;
        return b;
    };
    if (zeros > 0)
        h.bins.push_back({0, 1, zeros});
    if (maxNs > 0) {
        const size_t first = zeros > 0 ? 0 : binOfValue(minNs), last = binOfValue(maxNs);
        for (size_t b = first; b <= last; ++b)
            h.bins.push_back({edges[b], b + 1 < edges.size() ? edges[b + 1] : std::numeric_limits<int64_t>::max(), counts[b]});
    }

    // Lower median and the nearest-rank p95, exact, selected within their bins.
    const size_t n = m_d.size();
    std::tie(h.medianNs, h.p95Ns) = orderStatistics(m_d, h.bins, (n - 1) / 2, size_t(std::ceil(0.95 * double(n))) - 1);
    return h;
}

}  // namespace

std::vector<HistogramInstance> histogramInstances(const ActivityView& view, const ScopeTree& tree, const Strings& strings,
                                                  const HistogramGroup& group)
{
    std::vector<HistogramInstance> out;
    forEachInstance(view, tree, strings, group, [&](const HistogramInstance& in) { out.push_back(in); });
    return out;
}

std::vector<uint8_t> histogramNodes(const ScopeTree& tree, const HistogramGroup& group)
{
    if (!group.steps && (group.of != HistogramOf::Scopes || !isScopeGrouping(group.level.groupBy)))
        return {};
    const auto keys = nodeKeys(tree, group);
    const bool anyStep = group.steps && group.key.empty();
    std::vector<uint8_t> out(keys.size(), 0);
    for (size_t i = 0; i < keys.size(); ++i)
        out[i] = keys[i] && (anyStep || *keys[i] == group.key);
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

Histogram histogramOf(const std::vector<HistogramInstance>& instances, const HistogramOptions& options)
{
    Collector c(options.slowest);
    c.reserve(instances.size());
    for (const HistogramInstance& in : instances)
        c.add(in);
    return c.finish(options);
}

Histogram computeHistogram(const ActivityView& view, const ScopeTree& tree, const Strings& strings, const HistogramGroup& group,
                           const HistogramOptions& options)
{
    Collector c(options.slowest);
    forEachInstance(view, tree, strings, group, [&](const HistogramInstance& in) { c.add(in); });
    Histogram h = c.finish(options);
    h.group = group;
    if (group.steps)
        h.group.of = HistogramOf::Scopes;
    return h;
}

Histogram histogramOfRun(const Reader& reader, int64_t runId, const HistogramGroup& group, HistogramOptions options)
{
    auto profile = RunProfile::load(reader, runId, nullptr);
    const ActivityColumns columns = ActivityColumns::load(reader, runId, profile->tree);
    options.steps = countSteps(reader, runId, profile->tree);
    return computeHistogram(columns.view(), profile->tree, profile->strings, group, options);
}

}  // namespace wt
