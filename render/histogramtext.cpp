#include "histogramtext.h"

#include "render/tablewriter.h"
#include "render/textformat.h"

#include <algorithm>
#include <cmath>

namespace wt::render {
namespace {

bool allNone(const Table& t, size_t c)
{
    for (const auto& r : t.rows)
        if (!isNone(r[c]))
            return false;
    return true;
}

std::string bar(double value, double max, size_t width, char ch)
{
    if (value <= 0 || max <= 0)
        return {};
    const size_t n = std::max<size_t>(1, size_t(std::lround(value / max * double(width))));
    return std::string(std::min(n, width), ch);
}

}  // namespace

Table histogramTextTable(const Table& bins, size_t barWidth)
{
    const size_t lo = bins.column("lo_ns"), hi = bins.column("hi_ns");
    Table out;
    out.id = bins.id;
    out.notes = bins.notes;
    out.add("range", "duration", Unit::Text);
    std::vector<size_t> kept;
    for (size_t c = 0; c < bins.columns.size(); ++c) {
        if (c == lo || c == hi || !bins.columns[c].inText)
            continue;
        if (bins.columns[c].id.find("per_step") != std::string::npos && allNone(bins, c))
            continue;
        kept.push_back(c);
        out.columns.push_back(bins.columns[c]);
    }
    // Bars: the count column, or an overlay's two sides (per step when both have steps).
    std::vector<std::pair<size_t, char>> bars;
    if (size_t c = bins.column("count"); c != Table::npos) {
        bars.emplace_back(c, '#');
    } else {
        const size_t bs = bins.column("base_per_step"), os = bins.column("other_per_step");
        const bool perStep = bs != Table::npos && os != Table::npos && !allNone(bins, bs) && !allNone(bins, os);
        if (size_t c = perStep ? bs : bins.column("base_count"); c != Table::npos)
            bars.emplace_back(c, '#');
        if (size_t c = perStep ? os : bins.column("other_count"); c != Table::npos)
            bars.emplace_back(c, '=');
    }
    double max = 0;
    for (const auto& r : bins.rows)
        for (const auto& [c, ch] : bars)
            max = std::max(max, numberOf(r[c]));
    for (size_t b = 0; b < bars.size(); ++b)
        out.add(bars.size() == 1 ? "bar" : "bar_" + std::to_string(b), bars.size() == 1 ? "" : (b == 0 ? "BASE" : "OTHER"),
                Unit::Text);
    for (const auto& r : bins.rows) {
        std::vector<Cell>& o = out.addRow();
        size_t at = 0;
        if (lo != Table::npos && hi != Table::npos)
            o[at] = formatDuration(numberOf(r[lo])) + " .. " + formatDuration(numberOf(r[hi]));
        ++at;
        for (size_t c : kept) {
            // Counts per step are fractions: at most two decimals read better than every digit.
            if (bins.columns[c].id.find("per_step") != std::string::npos && !isNone(r[c]))
                o[at++] = std::round(numberOf(r[c]) * 100.0) / 100.0;
            else
                o[at++] = r[c];
        }
        for (const auto& [c, ch] : bars)
            o[at++] = bar(numberOf(r[c]), max, barWidth, ch);
    }
    return out;
}

std::string histogramText(const Table& bins, size_t barWidth)
{
    return text(histogramTextTable(bins, barWidth));
}

}  // namespace wt::render
