// A histogram's bins (analysis/histogramtable.h: histogramTable or histogramOverlayTable) as
// text: one line per bin with its range in readable durations ("1.00 us .. 1.26 us"), its
// figures, and a bar of '#' scaled to the fullest bin (a bin with instances has at least one
// '#'), written by the one writer (tablewriter.h) as a table. What `wheretime stats
// --histogram` prints; CSV and JSON write the bins table itself.
#pragma once

#include "analysis/table.h"

#include <cstddef>
#include <string>

namespace wt::render {

// The text table of a bins table: columns range, then those of `bins` other than lo_ns and
// hi_ns (as the writer renders them; per-step columns left out when every cell is none), then
// bar (by the count column; an overlay: one bar per side, BASE '#', OTHER '=', by per-step
// counts when both sides have them).
Table histogramTextTable(const Table& bins, size_t barWidth = 40);
std::string histogramText(const Table& bins, size_t barWidth = 40);

}  // namespace wt::render
