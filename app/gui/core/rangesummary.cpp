#include "rangesummary.h"

#include "layerpalette.h"
#include "drawlist.h"
#include "timelinelayout.h"

#include <algorithm>
#include <unordered_map>

namespace wt::gui {

RangeSummary summarizeRange(const RunData& run, double t0, double t1, size_t maxKernels)
{
    RangeSummary s;
    if (t1 < t0)
        std::swap(t0, t1);
    s.startNs = t0;
    s.endNs = t1;
    std::vector<RangeEntry> layers(run.layerNames.size());
    std::unordered_map<uint32_t, RangeEntry> byName;
    for (const TrackData& t : run.tracks) {
        if (t.kind != TrackKind::Kernel)
            continue;
        TrackSequence seq{&run, &t};
        size_t i = lowerBoundStart(seq, 0, t.size(), t0 - double(t.maxDurationNs) - 1);
        size_t end = lowerBoundStart(seq, i, t.size(), t1);
        for (; i < end; ++i) {
            double a = std::max(double(t.startNs[i]), t0), b = std::min(double(t.endNs(i)), t1);
            if (b <= a && !(t.durationNs[i] == 0 && double(t.startNs[i]) >= t0))
                continue;
            int64_t in = int64_t(std::max(0.0, b - a));
            ++s.kernels;
            s.kernelTimeNs += in;
            RangeEntry& l = layers[run.layerOf(t, i)];
            l.timeNs += in;
            ++l.count;
            RangeEntry& k = byName[t.nameId[i]];
            k.timeNs += in;
            ++k.count;
        }
    }
    for (size_t i = 0; i < layers.size(); ++i)
        if (layers[i].count > 0) {
            layers[i].name = run.layerNames[i];
            layers[i].color = i == 0 ? LayerPalette::neutral() : LayerPalette::color(run.layerNames[i].toStdString());
            s.layers.push_back(layers[i]);
        }
    auto bigger = [](const RangeEntry& a, const RangeEntry& b) {
        return a.timeNs != b.timeNs ? a.timeNs > b.timeNs : a.name < b.name;
    };
    for (auto& [id, e] : byName) {
        e.name = run.name(id);
        e.color = id < run.nameColors.size() ? run.nameColors[id] : LayerPalette::neutral();
        s.kernelsByName.push_back(e);
    }
    std::sort(s.layers.begin(), s.layers.end(), bigger);
    std::sort(s.kernelsByName.begin(), s.kernelsByName.end(), bigger);
    if (s.kernelsByName.size() > maxKernels)
        s.kernelsByName.resize(maxKernels);
    return s;
}

}  // namespace wt::gui
