// The range figures of the details panel: analysis's summarizeRange (kernel count and time,
// time by layer, top kernels, each kernel clipped to the range) over the loaded run. No
// figure is computed here; the view adds colours (LayerPalette::groupColor).
#pragma once

#include "rundata.h"

#include "analysis/rangesummary.h"

namespace wt::gui {

// [t0, t1) in ns relative to the run origin, either order; fractional ends widen to whole ns.
wt::RangeSummary summarizeRange(const RunData& run, double t0, double t1, size_t maxKernels = 10);

}  // namespace wt::gui
