// A run's summary as Markdown: metadata, the totals `wheretime stats` prints, and the time
// share by layer, phase and the top kernels (all from BreakdownSource, so from analysis/).
#pragma once

#include "breakdownsource.h"
#include "analysis/table.h"

#include <QString>

namespace wt::gui {

// "| name | time | share | count | mean |" table of the largest maxRows rows (rest summed).
QString markdownTable(const BreakdownResult& result, size_t maxRows);
// Metadata table of the run (workload, variant, device, date, dropped records, totals).
QString markdownMetadata(const BreakdownSource& source);
// The text columns of an analysis table (analysis/table.h) as a Markdown table: the titles,
// the writer's cell text (render::cellText), numbers right-aligned.
QString markdownOf(const Table& table);
// Time on the GPU per device (analysis devicesTable: busy, idle, span, compute, communication
// and memory with their overlapped and exposed parts; docs/definitions.md) as a Markdown
// table; empty without the run's activities (a BreakdownSource without RunData).
QString markdownDeviceTable(const BreakdownSource& source);
// Title, metadata, the device table and the layer / phase / top-kernel tables.
QString runSummaryMarkdown(const BreakdownSource& source, size_t maxRows = 15);
// Escapes Markdown table metacharacters (| and line breaks) of a cell.
QString markdownCell(const QString& text);

}  // namespace wt::gui
