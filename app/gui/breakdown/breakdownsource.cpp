#include "breakdownsource.h"

#include "analysis/kernelcategory.h"
#include "app/gui/core/displayname.h"
#include "app/gui/core/layerpalette.h"
#include "app/gui/core/windowedrun.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <QStringList>

#include <algorithm>
#include <climits>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace wt::gui {

QString groupByLabel(GroupBy groupBy)
{
    return QString::fromLatin1(toString(groupBy).data(), qsizetype(toString(groupBy).size()));
}


bool isScopeGrouping(GroupBy groupBy)
{
    return groupBy != GroupBy::Kernel && groupBy != GroupBy::Kind && groupBy != GroupBy::Category;
}


namespace {

std::vector<PieSlice> colored(const BreakdownResult& result, std::vector<Slice> slices)
{
    std::vector<PieSlice> out;
    out.reserve(slices.size());
    // The chart's names as distinct short names (render/shortname.h); the tooltip names in full.
    QStringList names;
    for (const Slice& s : slices)
        names << QString::fromStdString(s.name);
    const QStringList labels = distinctNames(names);
    for (Slice& s : slices) {
        PieSlice p;
        static_cast<Slice&>(p) = std::move(s);
        p.label = labels[qsizetype(out.size())];
        p.color = p.filteredOut ? kFilteredOutColor : p.other ? kOtherColor : result.rows[p.members.front()].color;
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace

std::vector<PieSlice> pieSlices(const BreakdownResult& result, double threshold)
{
    return colored(result, thresholdSlices(result.rows, threshold));
}

std::vector<PieSlice> topSlices(const BreakdownResult& result, size_t maxCount)
{
    return colored(result, wt::topSlices(result.rows, maxCount));
}

bool matchesNameFilter(const BreakdownRow& row, const QString& text)
{
    return text.isEmpty() || QString::fromStdString(row.name).contains(text, Qt::CaseInsensitive) ||
           QString::fromStdString(row.path).contains(text, Qt::CaseInsensitive);
}

namespace {

template <typename Rule>
std::vector<PieSlice> filtered(const BreakdownResult& result, const QString& filter, Rule rule)
{
    std::vector<size_t> kept;
    for (size_t i = 0; i < result.rows.size(); ++i)
        if (matchesNameFilter(result.rows[i], filter))
            kept.push_back(i);
    const GroupAt keptAt = [&](size_t i) -> const Group& { return result.rows[kept[i]]; };
    const GroupAt all = [&](size_t i) -> const Group& { return result.rows[i]; };
    return colored(result, filteredSlices(rule(kept.size(), keptAt), kept, result.rows.size(), all));
}

}  // namespace

std::vector<PieSlice> pieSlices(const BreakdownResult& result, double threshold, const QString& filter)
{
    if (filter.isEmpty())
        return pieSlices(result, threshold);
    return filtered(result, filter, [&](size_t n, const GroupAt& g) { return thresholdSlices(n, g, threshold); });
}

std::vector<PieSlice> topSlices(const BreakdownResult& result, size_t maxCount, const QString& filter)
{
    if (filter.isEmpty())
        return topSlices(result, maxCount);
    return filtered(result, filter, [&](size_t n, const GroupAt& g) { return wt::topSlices(n, g, maxCount); });
}

std::shared_ptr<BreakdownSource> BreakdownSource::load(const std::string& path, int64_t runId)
{
    auto s = std::make_shared<BreakdownSource>();
    Database db(path, OpenMode::ReadOnly);
    Reader reader(db);
    s->m_profile = RunProfile::load(reader, runId);
    s->m_stats = computeRunStats(*s->m_profile, BreakdownOptions{});
    s->m_palette = layerPalette(s->m_profile->tree);
    return s;
}

std::shared_ptr<BreakdownSource> BreakdownSource::load(std::shared_ptr<const RunData> run)
{
    // The profile came with the run: nothing is read again.
    auto s = std::make_shared<BreakdownSource>();
    s->m_profile = run->profile;
    s->m_stats = computeRunStats(*s->m_profile, BreakdownOptions{});
    s->m_palette = run->palette;
    s->m_data = std::move(run);
    return s;
}

std::shared_ptr<BreakdownSource> BreakdownSource::loadStored(const RunData& overview)
{
    auto s = std::make_shared<BreakdownSource>();
    s->m_profile = overview.profile;
    s->m_stats = computeRunStats(*s->m_profile, BreakdownOptions{});
    s->m_palette = overview.palette;
    return s;
}

std::shared_ptr<BreakdownSource> BreakdownSource::loadStored(std::shared_ptr<const RunData> overview)
{
    auto s = loadStored(*overview);
    if (!overview->filePath.isEmpty())
        s->m_rangeOverview = std::move(overview);
    return s;
}

int64_t BreakdownSource::scopeOf(uint32_t node) const
{
    return node < tree().nodes().size() ? tree().nodes()[node].id : 0;
}

std::string BreakdownSource::keyOf(const BreakdownLevel& level, ActivityKind kind, uint32_t node, uint32_t nameId) const
{
    // A category filter lets memcpy and memset through as well (analysis's Grouper).
    const bool categoryFilter = std::any_of(level.filters.begin(), level.filters.end(),
                                            [](const GroupFilter& f) { return f.first == GroupBy::Category; });
    if (!countsKind(level.groupBy, kind) && !categoryFilter)
        return {};
    const int64_t scope = scopeOf(node);
    if (!passesFilters(kind, scope, nameId, tree(), strings(), level.filters))
        return {};
    return groupKey(kind, scope, nameId, tree(), strings(), level.groupBy, level.depth);
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
        // A scope has no kernel name, kind or category of its own.
        if (!isScopeGrouping(level.groupBy))
            return {};
        for (const auto& [g, want] : level.filters)
            if (!isScopeGrouping(g))
                return {};
        // A scope above the grouping's level (a layer when grouping by op) is no one group of
        // it: a layer named like one of its ops must not select that op.
        const uint32_t node = m_data->instances.node[sel.index];
        const char* lvl = level.groupBy == GroupBy::Op ? "op" : level.groupBy == GroupBy::Layer ? "layer"
                          : level.groupBy == GroupBy::Phase ? "phase" : nullptr;
        if (lvl && tree().hasLevel(lvl) && tree().ancestorAtLevel(scopeOf(node), lvl) == 0)
            return {};
        return keyOf(level, ActivityKind::Kernel, node, 0);
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
    if (isScopeGrouping(level.groupBy)) {
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
            double o = overlap(run.instances.gpuStart(i), run.instances.gpuEnd(i));
            if (o > bestOverlap) {
                bestOverlap = o;
                best = Selection{Selection::Scope, 0, i};
            }
            if (run.instances.gpuStart(i) < firstStart) {
                firstStart = run.instances.gpuStart(i);
                first = i;
            }
        }
        if (best.kind == Selection::None && first != kNone)
            best = Selection{Selection::Scope, 0, first};
        return best;
    }
    // Kernel names, kinds and categories: the longest matching activity, preferring the view.
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
    std::vector<GroupFilter> scopeFilters;
    std::vector<std::string> nameFilters, kindFilters, categoryFilters;
    for (const auto& [by, want] : level.filters) {
        if (by == GroupBy::Kernel)
            nameFilters.push_back(want);
        else if (by == GroupBy::Kind)
            kindFilters.push_back(want);
        else if (by == GroupBy::Category)
            categoryFilters.push_back(want);
        else
            scopeFilters.emplace_back(by, want);
    }
    const bool scopeGroup = isScopeGrouping(level.groupBy);
    const bool categoryGroup = level.groupBy == GroupBy::Category;
    // Scope condition: per node, the filters and the key exactly as analysis applies them.
    if (scopeGroup || !scopeFilters.empty()) {
        g.anyScope = false;
        auto nodeOk = [&](int64_t scopeId) {
            if (!passesFilters(ActivityKind::Kernel, scopeId, 0, tree(), strings(), scopeFilters))
                return false;
            return !scopeGroup || keySet.count(scopeGroupKey(tree(), scopeId, level.groupBy, level.depth)) != 0;
        };
        g.nodes.resize(m_data->nodes.size());
        for (size_t n = 0; n < g.nodes.size(); ++n)
            g.nodes[n] = nodeOk(scopeOf(uint32_t(n))) ? 1 : 0;
        g.noScope = nodeOk(0);
    }
    // A category (as the group or as a filter) is a condition on the (kind, name) pair. The
    // selection keeps names and kinds apart, so it takes the pairs the run has (its stored
    // totals): the names whose category matches for a kind they occur with, and those kinds.
    const bool byCategory = categoryGroup || !categoryFilters.empty();
    std::unordered_set<uint32_t> categoryNames;
    uint8_t categoryKinds = 0;
    if (byCategory) {
        std::unordered_map<uint64_t, bool> seen;
        for (const TotalRow& t : totals()) {
            const uint64_t k = uint64_t(t.nameId) << 8 | uint64_t(t.kind);
            auto it = seen.find(k);
            if (it == seen.end()) {
                const std::string cat = categoryKey(t.kind, t.nameId, tree(), strings());
                bool ok = !categoryGroup || keySet.count(cat) != 0;
                for (const std::string& want : categoryFilters)
                    ok = ok && cat == want;
                it = seen.emplace(k, ok).first;
            }
            if (it->second) {
                categoryNames.insert(t.nameId);
                categoryKinds |= uint8_t(1u << uint8_t(t.kind));
            }
        }
    }
    // Name condition: the ids whose name passes the name filters (and is a key).
    if (level.groupBy == GroupBy::Kernel || !nameFilters.empty() || byCategory) {
        g.anyName = false;
        for (const auto& [id, name] : strings()) {
            bool ok = level.groupBy != GroupBy::Kernel || keySet.count(name) != 0;
            for (const std::string& want : nameFilters)
                ok = ok && name == want;
            if (byCategory)
                ok = ok && categoryNames.count(id) != 0;
            if (ok)
                g.nameIds.push_back(id);
        }
        std::sort(g.nameIds.begin(), g.nameIds.end());
    }
    // Kinds: grouping by kind or category counts every activity, any other grouping only
    // kernels (a category filter lets every kind through, as analysis's Grouper does).
    g.kinds = 0;
    for (ActivityKind kind : {ActivityKind::Kernel, ActivityKind::Memcpy, ActivityKind::Memset}) {
        const std::string name(toString(kind));
        bool ok = level.groupBy == GroupBy::Kind ? keySet.count(name) != 0
                                                 : countsKind(level.groupBy, kind) || !categoryFilters.empty();
        for (const std::string& want : kindFilters)
            ok = ok && name == want;
        if (byCategory)
            ok = ok && (categoryKinds >> uint8_t(kind) & 1u) != 0;
        if (ok)
            g.kinds |= uint8_t(1u << uint8_t(kind));
    }
    return g;
}

QRgb BreakdownSource::groupColor(GroupBy groupBy, const std::string& name) const
{
    // Layers take the run's palette (one colour each, the timeline's); categories their fixed
    // colours; other groups their name's colour (an op named as a layer shares its colour).
    return groupBy == GroupBy::Category ? LayerPalette::categoryColor(name) : m_palette.color(name);
}

BreakdownResult BreakdownSource::adapt(const BreakdownLevel& level, const Breakdown& b, double t0, double t1) const
{
    BreakdownResult out;
    out.level = level;
    out.range = b.range.has_value();
    out.rangeStartNs = t0;
    out.rangeEndNs = t1;
    out.totalNs = b.totalNs;
    out.rows.reserve(b.groups.size());
    for (const Group& g : b.groups) {
        BreakdownRow r;
        static_cast<Group&>(r) = g;
        r.color = groupColor(level.groupBy, g.name);
        out.rows.push_back(std::move(r));
    }
    return out;
}

BreakdownResult BreakdownSource::compute(const BreakdownLevel& level) const
{
    if (!m_data)
        return adapt(level, computeBreakdown(*m_profile, level), 0, 0);
    const ActivityView view = m_data->activities();
    return adapt(level, computeBreakdown(*m_profile, level, &view), 0, 0);
}

BreakdownResult BreakdownSource::computeRange(const BreakdownLevel& level, double t0, double t1) const
{
    if (t1 < t0)
        std::swap(t0, t1);
    if (!m_data && m_rangeOverview) {
        // Over the memory cap: the activities of the range's chunks only, read now (this runs
        // on the view's worker). They are the full run's there, so the figures are the same.
        const RunData& ov = *m_rangeOverview;
        const int64_t a = int64_t(std::floor(t0)), b = int64_t(std::ceil(t1));
        std::shared_ptr<const RunData> part = loadRangeRun(ov.filePath.toStdString(), ov.run.id, ov, a, std::max(b, a + 1));
        const ActivityView view = part->activities();
        return adapt(level, computeBreakdown(*m_profile, level, &view, TimeRange::fromDouble(t0, t1)), t0, t1);
    }
    if (!m_data) {
        BreakdownResult r = adapt(level, Breakdown{}, t0, t1);
        r.range = true;
        return r;
    }
    const ActivityView view = m_data->activities();
    return adapt(level, computeBreakdown(*m_profile, level, &view, TimeRange::fromDouble(t0, t1)), t0, t1);
}

}  // namespace wt::gui
