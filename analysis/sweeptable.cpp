#include "analysis/sweeptable.h"

#include <algorithm>
#include <cstdint>

namespace wt {

namespace {

bool validId(const std::string& id)
{
    if (id.empty())
        return false;
    for (char c : id)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    for (const char* taken : {kSweepSeriesColumn, kSweepLayerColumn, kSweepRunColumn, kSweepSourceColumn, kSweepLayerNsColumn,
                              kSweepShareColumn, kSweepStepNsColumn, kSweepPredictedNsColumn, kSweepPredictedRunColumn,
                              kSweepErrorColumn, kSweepRepeatsColumn, kSweepPmColumn, kSweepSamplesColumn, kSweepStddevColumn,
                              kSweepCiLowColumn, kSweepCiHighColumn, kSweepInsideColumn})
        if (id == taken)
            return false;
    return true;
}

std::string join(const std::vector<std::string>& v)
{
    std::string out;
    for (const std::string& s : v)
        out += (out.empty() ? "" : ",") + s;
    return out;
}

// The twin draws over the measured chart only on the same x axis.
bool sameAxis(const SweepTable& measured, const SweepTable* predicted)
{
    return predicted && predicted->numeric == measured.numeric && predicted->xKey == measured.xKey;
}

}  // namespace

bool sweepPredictionInside(const SweepPoint& measured, const SweepPoint& predicted)
{
    return measured.interval && predicted.ns >= measured.interval->low && predicted.ns <= measured.interval->high;
}

std::string sweepValueColumn(const SweepTable& t)
{
    return validId(t.xKey) ? t.xKey : std::string("value");
}

std::string sweepGroupColumn(const SweepTable& t)
{
    if (t.groupKey.empty())
        return {};
    return validId(t.groupKey) && t.groupKey != sweepValueColumn(t) ? t.groupKey : std::string("group");
}

Table sweepTable(const SweepTable& m, const SweepTable* predicted, const std::string& layer)
{
    if (!sameAxis(m, predicted))
        predicted = nullptr;
    const bool twin = predicted != nullptr;
    Table t;
    t.id = "sweep";
    t.add(kSweepSeriesColumn, "series", Unit::Text);
    t.add(kSweepLayerColumn, "layer", Unit::Text, false);   // in the series' name
    const std::string groupId = sweepGroupColumn(m);
    if (!groupId.empty())
        t.add(groupId, m.groupKey, Unit::Text, false);       // in the series' name
    const std::string valueId = sweepValueColumn(m);
    t.add(valueId, m.xKey, Unit::Text);
    t.add(kSweepRunColumn, "run", Unit::Count);
    t.add(kSweepRepeatsColumn, "repeats", Unit::Count, false);
    t.add(kSweepSourceColumn, "source", Unit::Text, twin);
    t.add(kSweepLayerNsColumn, "time", Unit::Ns);
    t.add(kSweepPmColumn, "\u00b1", Unit::Ns);
    t.add(kSweepSamplesColumn, "n", Unit::Count);
    t.add(kSweepStddevColumn, "stddev", Unit::Ns, false);
    t.add(kSweepCiLowColumn, "ci low", Unit::Ns, false);
    t.add(kSweepCiHighColumn, "ci high", Unit::Ns, false);
    t.add(kSweepShareColumn, "share", Unit::Share);
    t.add(kSweepStepNsColumn, "step", Unit::Ns);
    t.add(kSweepPredictedNsColumn, "predicted", Unit::Ns, twin);
    t.add(kSweepPredictedRunColumn, "predicted run", Unit::Count, false);
    t.add(kSweepErrorColumn, "error", Unit::Percent, twin);
    t.add(kSweepInsideColumn, "inside", Unit::Text, twin);

    const SweepInfo& s = m.sweep;
    t.notes.push_back("sweep " + s.id + ": " + s.workload + " " + s.preset + ", " + s.key + "=" + join(s.values) +
                      (s.key2.empty() ? "" : " x " + s.key2 + "=" + join(s.values2)) + ", " + std::to_string(s.runIds.size()) +
                      " runs" + (s.predicted() ? " (predicted, backend model)" : "") + "; kernel time per step");
    t.notes.insert(t.notes.end(), m.notes.begin(), m.notes.end());
    if (twin)
        t.notes.push_back("predicted twin: sweep " + predicted->sweep.id + " (" + std::to_string(predicted->sweep.runIds.size()) +
                          " runs, backend model): its time at each measured point (predicted) and its error against the "
                          "measured time (error), then its own points (source predicted)");

    auto addPoint = [&](const SweepSeries& se, const SweepPoint& p, bool isPredicted) -> std::vector<Cell>& {
        std::vector<Cell>& row = t.addRow();
        row[t.column(kSweepSeriesColumn)] = se.name;
        row[t.column(kSweepLayerColumn)] = se.layer;
        if (!groupId.empty())
            row[t.column(groupId)] = se.group;
        row[t.column(valueId)] = p.value;
        row[t.column(kSweepRunColumn)] = p.runId;
        row[t.column(kSweepSourceColumn)] = std::string(isPredicted ? "predicted" : "measured");
        if (p.present) {
            row[t.column(kSweepLayerNsColumn)] = p.ns;
            row[t.column(kSweepShareColumn)] = p.share;
        }
        row[t.column(kSweepStepNsColumn)] = p.stepNs;
        if (!p.repeatRunIds.empty())
            row[t.column(kSweepRepeatsColumn)] = int64_t(p.repeatRunIds.size());
        if (!isPredicted && p.present && p.stats.n > 0) {
            row[t.column(kSweepSamplesColumn)] = int64_t(p.stats.n);
            row[t.column(kSweepStddevColumn)] = p.stats.stddev;
            if (p.interval) {
                row[t.column(kSweepPmColumn)] = p.interval->halfWidth;
                row[t.column(kSweepCiLowColumn)] = p.interval->low;
                row[t.column(kSweepCiHighColumn)] = p.interval->high;
            }
        }
        return row;
    };
    int judged = 0, inside = 0;
    std::vector<const SweepSeries*> shown;
    for (const SweepSeries& se : m.series)
        if (layer.empty() || se.layer == layer)
            shown.push_back(&se);
    for (const SweepSeries* se : shown)
        for (const SweepPoint& p : se->points) {
            std::vector<Cell>& row = addPoint(*se, p, false);
            const SweepPoint* tp = twin && p.present ? findSweepPoint(*predicted, se->name, p.value) : nullptr;
            if (!tp)
                continue;
            row[t.column(kSweepPredictedNsColumn)] = tp->ns;
            row[t.column(kSweepPredictedRunColumn)] = tp->runId;
            if (p.ns > 0)
                row[t.column(kSweepErrorColumn)] = 100.0 * (tp->ns - p.ns) / p.ns;
            if (p.interval) {
                const bool in = sweepPredictionInside(p, *tp);
                row[t.column(kSweepInsideColumn)] = std::string(in ? "yes" : "no");
                ++judged;
                inside += in;
            }
        }
    // How the noise is judged, once above the table.
    size_t fewest = SIZE_MAX, most = 0;
    for (const SweepSeries* se : shown)
        for (const SweepPoint& p : se->points)
            if (p.present) {
                fewest = std::min(fewest, p.stats.n);
                most = std::max(most, p.stats.n);
            }
    if (most > 0)
        t.notes.push_back("noise: \u00b1 the 95% t interval of each point's mean per step over its samples (each step of each repeat: n = " +
                          (fewest == most ? std::to_string(most) : std::to_string(fewest) + " to " + std::to_string(most)) +
                          "); none with fewer than 3");
    if (twin && judged > 0)
        t.notes.push_back("prediction inside the measured 95% interval at " + std::to_string(inside) + " of " + std::to_string(judged) +
                          " points (inside)");
    else if (twin)
        t.notes.push_back("prediction inside: none, no measured point has 3 samples for an interval");
    if (!twin)
        return t;
    for (const SweepSeries* se : shown) {
        auto it = std::find_if(predicted->series.begin(), predicted->series.end(),
                               [&](const SweepSeries& ps) { return ps.name == se->name; });
        if (it == predicted->series.end())
            continue;
        for (const SweepPoint& p : it->points) {
            // A value the measured (non-numeric) axis does not have has no place on the chart.
            if (!p.present || (!m.numeric && std::find(m.xValues.begin(), m.xValues.end(), p.value) == m.xValues.end()))
                continue;
            addPoint(*it, p, true);
        }
    }
    return t;
}

}  // namespace wt
