#include "breakdownsource.h"

#include "app/gui/core/layerpalette.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <QStringList>

#include <algorithm>
#include <climits>
#include <unordered_set>

namespace wt::gui {

std::optional<GroupBy> drillTarget(GroupBy groupBy)
{
    switch (groupBy) {
    case GroupBy::Phase: return GroupBy::Layer;
    case GroupBy::Layer: return GroupBy::Op;
    case GroupBy::Op: return GroupBy::Kernel;
    default: return std::nullopt;   // kernel names are leaves; kinds and scope paths do not drill
    }
}

QString groupByLabel(GroupBy groupBy)
{
    return QString::fromLatin1(toString(groupBy).data(), qsizetype(toString(groupBy).size()));
}

QRgb groupColor(const std::string& name)
{
    if (name == kNoScope || name == "(no layer)" || name == "(no phase)" || name.empty())
        return LayerPalette::neutral();
    return LayerPalette::color(name);
}

namespace {

// Rows for which intoOther(index, row) holds merge into one "other" slice (last); the rest
// become one slice each, in order.
template <typename IntoOther>
std::vector<PieSlice> slicesWithOther(const BreakdownResult& result, IntoOther intoOther)
{
    std::vector<PieSlice> out;
    PieSlice other;
    other.other = true;
    other.color = kOtherColor;
    for (size_t i = 0; i < result.rows.size(); ++i) {
        const BreakdownRow& r = result.rows[i];
        if (intoOther(i, r)) {
            other.timeNs += r.timeNs;
            other.share += r.share;
            other.members.push_back(i);
            continue;
        }
        PieSlice s;
        s.label = QString::fromStdString(r.name);
        s.path = r.path;
        s.timeNs = r.timeNs;
        s.share = r.share;
        s.color = r.color;
        s.members = {i};
        out.push_back(std::move(s));
    }
    if (!other.members.empty()) {
        other.label = QStringLiteral("other (%1)").arg(other.members.size());
        out.push_back(std::move(other));
    }
    return out;
}

}  // namespace

std::vector<PieSlice> pieSlices(const BreakdownResult& result, double threshold)
{
    return slicesWithOther(result, [&](size_t, const BreakdownRow& r) { return r.share < threshold; });
}

std::vector<PieSlice> topSlices(const BreakdownResult& result, size_t maxCount)
{
    const bool all = result.rows.size() <= maxCount;
    return slicesWithOther(result, [&](size_t i, const BreakdownRow&) { return !all && i + 1 >= maxCount; });
}

std::shared_ptr<BreakdownSource> BreakdownSource::load(const std::string& path, int64_t runId)
{
    auto s = std::make_shared<BreakdownSource>();
    Database db(path, OpenMode::ReadOnly);
    Reader reader(db);
    // The same call `wheretime stats` makes: run summary and the default (layer) breakdown.
    s->m_stats = computeRunStats(reader, runId, BreakdownOptions{});
    s->m_tree = ScopeTree::load(reader, runId);
    s->m_strings = reader.strings();
    s->m_totals = reader.totals(runId);
    return s;
}

std::shared_ptr<BreakdownSource> BreakdownSource::load(std::shared_ptr<const RunData> run)
{
    auto s = load(run->filePath.toStdString(), run->run.id);
    s->m_nodeScope.reserve(run->nodes.size());
    for (const ScopeNodeData& n : run->nodes)
        s->m_nodeScope.push_back(n.id);
    s->m_data = std::move(run);
    return s;
}

namespace {

// Calls fn(kind, node, nameId, durationNs) for every activity of the run, or every activity
// overlapping [t0, t1) with its time clipped to the range (the rule of summarizeRange, so a
// range's breakdown and the details panel agree). node = RunData node index, kNone = no scope.
template <class Fn>
void forEachActivity(const RunData& run, bool range, double t0, double t1, Fn&& fn)
{
    for (const TrackData& t : run.tracks) {
        const bool memory = t.kind != TrackKind::Kernel;
        auto visit = [&](size_t i, int64_t dur) {
            ActivityKind kind = memory ? ActivityKind(t.activityKind[i]) : ActivityKind::Kernel;
            uint32_t inst = t.instance[i];
            uint32_t node = inst == kNone ? kNone : run.instances.node[inst];
            fn(kind, node, t.nameId[i], dur);
        };
        if (!range) {
            for (size_t i = 0; i < t.size(); ++i)
                visit(i, int64_t(t.durationNs[i]));
            continue;
        }
        // Starts are sorted; nothing starting before t0 - longest can reach into the range.
        auto first = std::lower_bound(t.startNs.begin(), t.startNs.end(), t0 - double(t.maxDurationNs) - 1,
                                      [](int64_t s, double v) { return double(s) < v; });
        auto last = std::lower_bound(first, t.startNs.end(), t1, [](int64_t s, double v) { return double(s) < v; });
        size_t i = size_t(first - t.startNs.begin()), end = size_t(last - t.startNs.begin());
        for (; i < end; ++i) {
            double a = std::max(double(t.startNs[i]), t0), b = std::min(double(t.endNs(i)), t1);
            if (b <= a && !(t.durationNs[i] == 0 && double(t.startNs[i]) >= t0))
                continue;
            visit(i, int64_t(std::max(0.0, b - a)));
        }
    }
}

// Group index (or -1 = filtered out) of an activity, cached per scope node and per name so
// that millions of activities cost a few array reads each. Keys come from wt::groupKey, the
// function computeBreakdown groups and filters with.
class GroupIndexer {
public:
    GroupIndexer(const ScopeTree& tree, const std::unordered_map<uint32_t, std::string>& strings,
                 const std::vector<int64_t>& nodeScope, const BreakdownLevel& level)
        : m_tree(tree), m_strings(strings), m_nodeScope(nodeScope), m_level(level),
          m_node(nodeScope.size() + 1, kUnknown)
    {
        for (const auto& [g, want] : level.filters) {
            if (g == GroupBy::Kernel)
                m_nameFilter.push_back(want);
            else if (g == GroupBy::Kind)
                m_kindFilter.push_back(want);
            else
                m_scopeFilter.emplace_back(g, want);
        }
    }

    int32_t indexOf(ActivityKind kind, uint32_t node, uint32_t nameId)
    {
        if (m_level.groupBy != GroupBy::Kind && kind != ActivityKind::Kernel)
            return -1;
        // Scope-dependent part: filters on layer/phase/op/scope, and the key when grouping by one.
        int32_t& byNode = m_node[node == kNone ? 0 : size_t(node) + 1];
        if (byNode == kUnknown)
            byNode = computeNode(node);
        if (byNode == -1)
            return -1;
        if (!m_nameFilter.empty() || m_level.groupBy == GroupBy::Kernel) {
            if (nameId >= m_name.size())
                m_name.resize(size_t(nameId) + 1, kUnknown);
            int32_t& byName = m_name[nameId];
            if (byName == kUnknown)
                byName = computeName(nameId);
            if (byName == -1)
                return -1;
            if (m_level.groupBy == GroupBy::Kernel)
                return byName;
        }
        for (const std::string& k : m_kindFilter)
            if (k != toString(kind))
                return -1;
        if (m_level.groupBy == GroupBy::Kind)
            return groupIndex(std::string(toString(kind)));
        return byNode;
    }

    std::vector<std::string> keys;   // group index -> key

private:
    static constexpr int32_t kUnknown = -2;

    TotalRow row(uint32_t node, uint32_t nameId) const
    {
        TotalRow r;
        r.scopeId = node == kNone ? 0 : m_nodeScope[node];
        r.nameId = nameId;
        return r;
    }

    static bool scopeFilter(GroupBy g) { return g != GroupBy::Kernel && g != GroupBy::Kind; }

    int32_t computeNode(uint32_t node)
    {
        TotalRow r = row(node, 0);
        for (const auto& [g, want] : m_scopeFilter)
            if (groupKey(r, m_tree, m_strings, g, 3) != want)
                return -1;
        return scopeFilter(m_level.groupBy) ? groupIndex(groupKey(r, m_tree, m_strings, m_level.groupBy, 3)) : 0;
    }

    int32_t computeName(uint32_t nameId)
    {
        auto it = m_strings.find(nameId);
        const std::string name = it == m_strings.end() ? std::string("(unnamed)") : it->second;
        for (const std::string& want : m_nameFilter)
            if (name != want)
                return -1;
        return m_level.groupBy == GroupBy::Kernel ? groupIndex(name) : 0;
    }

    int32_t groupIndex(const std::string& key)
    {
        auto [it, added] = m_index.emplace(key, int32_t(keys.size()));
        if (added)
            keys.push_back(key);
        return it->second;
    }

    const ScopeTree& m_tree;
    const std::unordered_map<uint32_t, std::string>& m_strings;
    const std::vector<int64_t>& m_nodeScope;
    const BreakdownLevel& m_level;
    std::vector<int32_t> m_node;   // [0] = no scope, [n + 1] = node n
    std::vector<int32_t> m_name;
    std::vector<std::string> m_nameFilter;
    std::vector<std::string> m_kindFilter;
    std::vector<std::pair<GroupBy, std::string>> m_scopeFilter;
    std::unordered_map<std::string, int32_t> m_index;
};

}  // namespace

std::unordered_map<std::string, GroupStats> BreakdownSource::distributions(const BreakdownLevel& level, bool range,
                                                                           double t0, double t1) const
{
    std::unordered_map<std::string, GroupStats> out;
    if (!m_data)
        return out;
    GroupIndexer indexer(m_tree, m_strings, m_nodeScope, level);
    std::vector<std::vector<int64_t>> durations;
    forEachActivity(*m_data, range, t0, t1, [&](ActivityKind kind, uint32_t node, uint32_t nameId, int64_t dur) {
        int32_t g = indexer.indexOf(kind, node, nameId);
        if (g < 0)
            return;
        if (size_t(g) >= durations.size())
            durations.resize(size_t(g) + 1);
        durations[size_t(g)].push_back(dur);
    });
    for (size_t g = 0; g < durations.size(); ++g) {
        std::vector<int64_t>& d = durations[g];
        if (d.empty())
            continue;
        GroupStats s;
        s.count = int64_t(d.size());
        auto [mn, mx] = std::minmax_element(d.begin(), d.end());
        s.minNs = *mn;
        s.maxNs = *mx;
        auto mid = d.begin() + std::ptrdiff_t((d.size() - 1) / 2);
        std::nth_element(d.begin(), mid, d.end());
        s.medianNs = *mid;
        out.emplace(indexer.keys[g], s);
    }
    return out;
}

std::vector<TotalRow> BreakdownSource::rangeTotals(double t0, double t1) const
{
    std::vector<TotalRow> out;
    if (!m_data)
        return out;
    std::unordered_map<uint64_t, size_t> index;
    forEachActivity(*m_data, true, t0, t1, [&](ActivityKind kind, uint32_t node, uint32_t nameId, int64_t dur) {
        uint64_t key = (uint64_t(node == kNone ? 0 : node + 1) << 34) | (uint64_t(nameId) << 2) | uint64_t(kind);
        auto [it, added] = index.emplace(key, out.size());
        if (added) {
            TotalRow r;
            r.scopeId = node == kNone ? 0 : m_nodeScope[node];
            r.nameId = nameId;
            r.kind = kind;
            out.push_back(r);
        }
        TotalRow& r = out[it->second];
        r.count += 1;
        r.timeNs += dur;
    });
    return out;
}

std::string BreakdownSource::keyOf(const BreakdownLevel& level, ActivityKind kind, uint32_t node, uint32_t nameId) const
{
    if (level.groupBy != GroupBy::Kind && kind != ActivityKind::Kernel)
        return {};
    TotalRow r;
    r.scopeId = node == kNone || node >= m_nodeScope.size() ? 0 : m_nodeScope[node];
    r.nameId = nameId;
    r.kind = kind;
    for (const auto& [g, want] : level.filters)
        if (groupKey(r, m_tree, m_strings, g, 3) != want)
            return {};
    return groupKey(r, m_tree, m_strings, level.groupBy, 3);
}

std::string BreakdownSource::keyOfSelection(const BreakdownLevel& level, const Selection& sel) const
{
    if (!m_data)
        return {};
    if (sel.kind == Selection::Activity && sel.track < m_data->tracks.size()) {
        const TrackData& t = m_data->tracks[sel.track];
        if (sel.index >= t.size())
            return {};
        ActivityKind kind = t.kind == TrackKind::Kernel ? ActivityKind::Kernel : ActivityKind(t.activityKind[sel.index]);
        uint32_t inst = t.instance[sel.index];
        return keyOf(level, kind, inst == kNone ? kNone : m_data->instances.node[inst], t.nameId[sel.index]);
    }
    if (sel.kind == Selection::Scope && sel.index < m_data->instances.size()) {
        if (level.groupBy == GroupBy::Kernel || level.groupBy == GroupBy::Kind)
            return {};
        for (const auto& [g, want] : level.filters)
            if (g == GroupBy::Kernel || g == GroupBy::Kind)
                return {};
        return keyOf(level, ActivityKind::Kernel, m_data->instances.node[sel.index], 0);
    }
    return {};
}

Selection BreakdownSource::representative(const BreakdownLevel& level, const std::string& key, double view0,
                                          double view1) const
{
    Selection best;
    if (!m_data || key.empty())
        return best;
    const RunData& run = *m_data;
    auto overlap = [&](int64_t a, int64_t b) { return std::min(double(b), view1) - std::max(double(a), view0); };
    if (level.groupBy != GroupBy::Kernel && level.groupBy != GroupBy::Kind) {
        // Nodes whose key matches; the shallowest of them stand for the group (a layer's own
        // scope rather than its ops).
        std::vector<char> match(run.nodes.size(), 0);
        int minDepth = INT32_MAX;
        for (uint32_t n = 0; n < run.nodes.size(); ++n)
            if (keyOf(level, ActivityKind::Kernel, n, 0) == key) {
                match[n] = 1;
                minDepth = std::min(minDepth, run.nodes[n].depth);
            }
        double bestOverlap = 0;
        int64_t firstStart = INT64_MAX;
        uint32_t first = kNone;
        for (uint32_t i = 0; i < run.instances.size(); ++i) {
            uint32_t n = run.instances.node[i];
            if (!match[n] || run.nodes[n].depth != minDepth || !run.instances.hasSpan(i))
                continue;
            double o = overlap(run.instances.gpuStartNs[i], run.instances.gpuEndNs[i]);
            if (o > bestOverlap) {
                bestOverlap = o;
                best = Selection{Selection::Scope, 0, i};
            }
            if (run.instances.gpuStartNs[i] < firstStart) {
                firstStart = run.instances.gpuStartNs[i];
                first = i;
            }
        }
        if (best.kind == Selection::None && first != kNone)
            best = Selection{Selection::Scope, 0, first};
        return best;
    }
    // Kernel names and kinds: the longest matching activity, preferring the view.
    std::unordered_map<uint64_t, bool> cache;
    double bestInView = -1;
    int64_t bestAny = -1;
    Selection any;
    for (uint32_t ti = 0; ti < run.tracks.size(); ++ti) {
        const TrackData& t = run.tracks[ti];
        for (uint32_t i = 0; i < t.size(); ++i) {
            ActivityKind kind = t.kind == TrackKind::Kernel ? ActivityKind::Kernel : ActivityKind(t.activityKind[i]);
            uint32_t inst = t.instance[i];
            uint32_t node = inst == kNone ? kNone : run.instances.node[inst];
            uint64_t ck = (uint64_t(node) << 32 ^ uint64_t(t.nameId[i]) << 2) ^ uint64_t(kind);
            auto it = cache.find(ck);
            if (it == cache.end())
                it = cache.emplace(ck, keyOf(level, kind, node, t.nameId[i]) == key).first;
            if (!it->second)
                continue;
            double o = overlap(t.startNs[i], t.endNs(i));
            if (o >= 0 && o > bestInView) {
                bestInView = o;
                best = Selection{Selection::Activity, ti, i};
            }
            if (int64_t(t.durationNs[i]) > bestAny) {
                bestAny = t.durationNs[i];
                any = Selection{Selection::Activity, ti, i};
            }
        }
    }
    return best.kind != Selection::None ? best : any;
}

QString BreakdownSource::groupLabel(const BreakdownLevel& level, const std::vector<std::string>& keys)
{
    QStringList parts;
    for (const auto& [g, want] : level.filters)
        parts << groupByLabel(g) + QLatin1Char(' ') + QString::fromStdString(want);
    if (!keys.empty()) {
        QString last = groupByLabel(level.groupBy) + QLatin1Char(' ') + QString::fromStdString(keys.front());
        if (keys.size() > 1)
            last += QStringLiteral(" + %1 more").arg(keys.size() - 1);
        parts << last;
    }
    return parts.join(QStringLiteral(" \u203a "));
}

GroupSelection BreakdownSource::groupSelection(const BreakdownLevel& level, const std::vector<std::string>& keys) const
{
    GroupSelection g;
    if (!m_data || keys.empty())
        return g;
    g.label = groupLabel(level, keys);
    const std::unordered_set<std::string> keySet(keys.begin(), keys.end());
    std::vector<std::pair<GroupBy, std::string>> scopeFilters;
    std::vector<std::string> nameFilters, kindFilters;
    for (const auto& [by, want] : level.filters) {
        if (by == GroupBy::Kernel)
            nameFilters.push_back(want);
        else if (by == GroupBy::Kind)
            kindFilters.push_back(want);
        else
            scopeFilters.emplace_back(by, want);
    }
    const bool scopeGroup = level.groupBy != GroupBy::Kernel && level.groupBy != GroupBy::Kind;
    const int depth = BreakdownOptions{}.depth;
    // Scope condition: per node, the filters and the key exactly as computeBreakdown applies
    // them (a scope-path filter names its own depth).
    if (scopeGroup || !scopeFilters.empty()) {
        g.anyScope = false;
        auto nodeOk = [&](int64_t scopeId) {
            TotalRow r;
            r.scopeId = scopeId;
            for (const auto& [by, want] : scopeFilters) {
                const int d = by == GroupBy::Scope ? int(std::count(want.begin(), want.end(), '/')) + 1 : depth;
                if (groupKey(r, m_tree, m_strings, by, d) != want)
                    return false;
            }
            return !scopeGroup || keySet.count(groupKey(r, m_tree, m_strings, level.groupBy, depth)) != 0;
        };
        g.nodes.resize(m_data->nodes.size());
        for (size_t n = 0; n < g.nodes.size(); ++n)
            g.nodes[n] = nodeOk(n < m_nodeScope.size() ? m_nodeScope[n] : 0) ? 1 : 0;
        g.noScope = nodeOk(0);
    }
    // Name condition: the ids whose name passes the name filters (and is a key).
    if (level.groupBy == GroupBy::Kernel || !nameFilters.empty()) {
        g.anyName = false;
        for (const auto& [id, name] : m_strings) {
            bool ok = level.groupBy != GroupBy::Kernel || keySet.count(name) != 0;
            for (const std::string& want : nameFilters)
                ok = ok && name == want;
            if (ok)
                g.nameIds.push_back(id);
        }
        std::sort(g.nameIds.begin(), g.nameIds.end());
    }
    // Kinds: grouping by kind counts every activity, any other grouping only kernels.
    g.kinds = 0;
    for (ActivityKind kind : {ActivityKind::Kernel, ActivityKind::Memcpy, ActivityKind::Memset}) {
        const std::string name(toString(kind));
        bool ok = level.groupBy == GroupBy::Kind ? keySet.count(name) != 0 : kind == ActivityKind::Kernel;
        for (const std::string& want : kindFilters)
            ok = ok && name == want;
        if (ok)
            g.kinds |= uint8_t(1u << uint8_t(kind));
    }
    return g;
}

BreakdownResult BreakdownSource::finish(const BreakdownLevel& level, const Breakdown& b, bool range, double t0,
                                        double t1) const
{
    BreakdownResult out;
    out.level = level;
    out.range = range;
    out.rangeStartNs = t0;
    out.rangeEndNs = t1;
    out.totalNs = b.totalNs;
    auto dist = distributions(level, range, t0, t1);
    out.rows.reserve(b.groups.size());
    for (const Group& g : b.groups) {
        BreakdownRow r;
        r.name = g.name;
        r.path = g.path;
        r.timeNs = g.timeNs;
        r.share = g.share;
        r.count = g.count;
        r.meanNs = g.count > 0 ? double(g.timeNs) / double(g.count) : 0.0;
        r.color = groupColor(g.name);
        if (auto it = dist.find(g.path); it != dist.end()) {
            r.hasStats = true;
            r.stats = it->second;
        }
        out.rows.push_back(std::move(r));
    }
    return out;
}

static BreakdownOptions optionsOf(const BreakdownLevel& level)
{
    BreakdownOptions o;
    o.groupBy = level.groupBy;
    o.filters = level.filters;
    return o;
}

BreakdownResult BreakdownSource::compute(const BreakdownLevel& level) const
{
    Breakdown b = computeBreakdown(m_totals, m_tree, m_strings, optionsOf(level));
    return finish(level, b, false, 0, 0);
}

BreakdownResult BreakdownSource::computeRange(const BreakdownLevel& level, double t0, double t1) const
{
    if (t1 < t0)
        std::swap(t0, t1);
    Breakdown b = computeBreakdown(rangeTotals(t0, t1), m_tree, m_strings, optionsOf(level));
    return finish(level, b, true, t0, t1);
}

}  // namespace wt::gui
