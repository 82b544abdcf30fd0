#include "histogramtable.h"

#include <algorithm>

namespace wt {

Table histogramTable(const Histogram& h)
{
    Table t;
    t.id = "histogram";
    t.add("lo_ns", "from", Unit::Ns)
        .add("hi_ns", "to", Unit::Ns)
        .add("count", "count", Unit::Count)
        .add("share", "share", Unit::Share)
        .add("per_step", "per step", Unit::Number);
    for (size_t b = 0; b < h.bins.size(); ++b) {
        std::vector<Cell>& r = t.addRow();
        r[0] = h.bins[b].loNs;
        r[1] = h.bins[b].hiNs;
        r[2] = h.bins[b].count;
        r[3] = h.count ? double(h.bins[b].count) / double(h.count) : 0.0;
        if (auto s = h.perStep(b))
            r[4] = *s;
    }
    return t;
}

Table histogramSummaryTable(const Histogram& h)
{
    Table t;
    t.id = "histogram_summary";
    t.add("group", "group", Unit::Text)
        .add("instances", "of", Unit::Text)
        .add("count", "n", Unit::Count)
        .add("total_ns", "total", Unit::Ns)
        .add("mean_ns", "mean", Unit::Ns)
        .add("min_ns", "min", Unit::Ns)
        .add("median_ns", "median", Unit::Ns)
        .add("p95_ns", "p95", Unit::Ns)
        .add("max_ns", "max", Unit::Ns)
        .add("steps", "steps", Unit::Count)
        .add("bins_per_decade", "bins/decade", Unit::Count, false);
    std::vector<Cell>& r = t.addRow();
    r[0] = h.group.steps && h.group.key.empty() ? std::string("(every step)") : h.group.key;
    r[1] = std::string(toString(h.group.of));
    r[2] = h.count;
    r[3] = h.totalNs;
    if (h.count > 0) {
        r[4] = h.meanNs;
        r[5] = h.minNs;
        r[6] = h.medianNs;
        r[7] = h.p95Ns;
        r[8] = h.maxNs;
    }
    r[9] = h.steps;
    r[10] = int64_t(h.binsPerDecade);
    return t;
}

Table histogramSlowestTable(const Histogram& h, const ActivityView& view, const ScopeTree& tree, const Strings& strings)
{
    Table t;
    t.id = "histogram_slowest";
    t.add("rank", "#", Unit::Count)
        .add("start_ns", "start", Unit::Ns)
        .add("duration_ns", "duration", Unit::Ns)
        .add("end_ns", "end", Unit::Ns, false)
        .add("name", "name", Unit::Text)
        .add("path", "scope", Unit::Text)
        .add("device_id", "device", Unit::Count, false)
        .add("track", "track", Unit::Count, false)
        .add("index", "index", Unit::Count, false);
    const auto& nodes = tree.nodes();
    auto nameOf = [&](uint32_t id) {
        auto it = strings.find(id);
        return it == strings.end() ? std::string("(unnamed)") : it->second;
    };
    for (size_t k = 0; k < h.slowest.size(); ++k) {
        const HistogramInstance& in = h.slowest[k];
        std::vector<Cell>& r = t.addRow();
        r[0] = int64_t(k + 1);
        r[1] = in.startNs;
        r[2] = in.durationNs;
        r[3] = in.startNs + in.durationNs;
        uint32_t node = ScopeTree::kNoNode;
        if (in.track == kScopeInstanceTrack) {
            if (in.index < view.instanceCount)
                node = view.instanceNode[in.index];
            if (node < nodes.size())
                r[4] = tree.name(nodes[node].id);
            r[8] = int64_t(in.index);
        } else if (in.track < view.tracks.size() && in.index < view.tracks[in.track].size) {
            const TrackActivities& tr = view.tracks[in.track];
            node = view.nodeOf(tr, in.index);
            r[4] = nameOf(tr.nameId[in.index]);
            r[6] = int64_t(tr.deviceId);
            r[7] = int64_t(in.track);
            r[8] = int64_t(in.index);
        }
        r[5] = node < nodes.size() ? tree.path(nodes[node].id) : std::string(kNoScope);
    }
    return t;
}

Table histogramOverlayTable(const Histogram& base, const Histogram& other)
{
    Table t;
    t.id = "histogram_overlay";
    t.add("lo_ns", "from", Unit::Ns)
        .add("hi_ns", "to", Unit::Ns)
        .add("base_count", "BASE", Unit::Count)
        .add("other_count", "OTHER", Unit::Count)
        .add("base_per_step", "BASE per step", Unit::Number)
        .add("other_per_step", "OTHER per step", Unit::Number);
    const int bpd = base.count ? base.binsPerDecade : other.binsPerDecade;
    // The two histograms' instances again as bins of common edges: every bin of either is one
    // bin of the union when both have bpd bins per decade; otherwise (a caller's mix) each
    // side's bin counts where its lower edge falls.
    std::vector<HistogramInstance> edgesOf;
    for (const Histogram* h : {&base, &other})
        if (h->count > 0) {
            edgesOf.push_back({0, 0, 0, h->minNs});
            edgesOf.push_back({0, 0, 0, h->maxNs});
        }
    if (edgesOf.empty())
        return t;
    HistogramOptions o;
    o.binsPerDecade = bpd;
    o.slowest = 0;
    const Histogram frame = histogramOf(edgesOf, o);
    std::vector<int64_t> b(frame.bins.size(), 0), c(frame.bins.size(), 0);
    for (const HistogramBin& bin : base.bins)
        if (int i = frame.binOf(bin.loNs); i >= 0)
            b[size_t(i)] += bin.count;
    for (const HistogramBin& bin : other.bins)
        if (int i = frame.binOf(bin.loNs); i >= 0)
            c[size_t(i)] += bin.count;
    for (size_t i = 0; i < frame.bins.size(); ++i) {
        std::vector<Cell>& r = t.addRow();
        r[0] = frame.bins[i].loNs;
        r[1] = frame.bins[i].hiNs;
        r[2] = b[i];
        r[3] = c[i];
        if (base.steps > 0)
            r[4] = double(b[i]) / double(base.steps);
        if (other.steps > 0)
            r[5] = double(c[i]) / double(other.steps);
    }
    return t;
}

}  // namespace wt
