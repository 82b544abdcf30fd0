// A histogram (histogram.h) as tables (table.h), what `wheretime stats --histogram` writes
// (text, --csv, --json), the details panel's histogram draws and the compare view overlays:
// the bins, the group's summary (n, min, median, p95, max) and its slowest instances.
#pragma once

#include "analysis/histogram.h"
#include "analysis/table.h"

namespace wt {

// One row per bin, ascending: lo_ns, hi_ns ([lo, hi)), count, share (of n), per_step (count /
// the run's steps; none without steps).
Table histogramTable(const Histogram& h);
// One row: group, instances ("kernels" or "scopes"), count, total_ns, mean_ns, min_ns,
// median_ns, p95_ns, max_ns, steps, bins_per_decade (none for the figures of an empty group).
Table histogramSummaryTable(const Histogram& h);
// The slowest instances, longest first: rank (1-based), start_ns, duration_ns, end_ns, name
// (the kernel's, or the scope's), path (scope path), device_id, then CSV/JSON only: track
// (ActivityView track position; none for a scope instance) and index (position in the track,
// or the scope instance index): where a view jumps to.
Table histogramSlowestTable(const Histogram& h, const ActivityView& view, const ScopeTree& tree, const Strings& strings);
// BASE's and OTHER's histograms of one group on common bins (both anchored at powers of ten;
// the bins from the lower minimum to the higher maximum, at BASE's bins per decade): lo_ns,
// hi_ns, base_count, other_count, base_per_step, other_per_step (counts over each run's steps:
// two runs of different step counts compare per step). Empty when both are empty.
Table histogramOverlayTable(const Histogram& base, const Histogram& other);

}  // namespace wt
