// A job of rank files (jobsummary.h) as tables (table.h): what `wheretime job DIR` prints (text,
// --csv, --json). The ranks table has one row per rank: its steps, kernel time, step kernel time
// (mean, median, standard deviation, coefficient of variation, the 95% interval's half width),
// its median against the job's and the straggler mark; with a layer, that layer's time per rank.
// The layers table has one row per layer over the ranks: mean, median, the fastest and the
// slowest rank.
#pragma once

#include "analysis/jobsummary.h"
#include "analysis/table.h"

#include <optional>
#include <string>

namespace wt {

// Columns: rank (none when the rank has no number), file (base name), run_id, run (hidden in
// text), rank_source (hidden), steps, kernels, kernel_time_ns, step_mean_ns, step_median_ns,
// step_stddev_ns, step_cv, step_ci_ns (none with fewer than 3 steps), vs_median (the rank's
// median step / the job's), straggler (1 or 0); with `layer`: layer_ns, layer_share (of the
// rank's kernel time), layer_per_step_ns (none without steps), layer_vs_median (layer_ns / the
// median of the ranks'). Notes: the straggler rule with its figures and the stragglers, duplicated
// ranks, ranks whose steps were not stored, how many files could not be read.
Table jobRanksTable(const JobSummary& job, const std::optional<std::string>& layer = std::nullopt);

// Columns: layer, ranks (having it), mean_ns, median_ns, min_ns, min_rank, max_ns, max_rank,
// max_vs_median (max / median); largest mean first, ties by name. min_rank and max_rank are the
// rank's number, or its file name for an unnumbered rank.
Table jobLayersTable(const JobSummary& job);

// Whether any rank has a layer of this name.
bool jobHasLayer(const JobSummary& job, const std::string& layer);

// The label of a rank in notes and the layers table: "3", or the file's base name.
std::string rankLabel(const RankSummary& rank);

}  // namespace wt
