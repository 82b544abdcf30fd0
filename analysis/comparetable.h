// The figures of a comparison as analysis tables (analysis/table.h): the compare table (one row
// per group, then the total), the kernel-level diff of a layer, and the runs compared. These are
// the only places their columns, ids and cells are made: `wheretime compare` renders them with
// render/ (text, --csv, the rows of --json), the GUI's CompareModel and KernelDiffModel adapt
// them, and the report writes their CSV, so all three write the same bytes. Column ids and
// shapes: docs/compare.md.
#pragma once

#include "analysis/compare.h"
#include "analysis/table.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace wt {

// The path (and name) of the compare table's last row: every group together.
inline constexpr const char* kCompareTotal = "(total)";

// "BASE"; "OTHER" when two runs are compared; "#2", "#3", ... with more (index 0 is BASE).
std::string compareRunTag(size_t index, size_t runCount);
// The id of a per-run column: compareColumn("ns", 0) = "ns_1" (BASE), ("delta_ns", 2) = "delta_ns_3".
std::string compareColumn(std::string_view stem, size_t index);
// "BASE only", "OTHER only" (two runs), "only in BASE #3" (more); empty when in every run.
std::string onlyInLabel(const CompareGroup& group);

// Table "compare": one row per group in the comparison's order (largest change first), then the
// total row (path kCompareTotal). Columns, for runs k = 1 (BASE) .. N and OTHERs j = 2 .. N:
//   name, path                    the group (path is the key it is matched by; text shows path)
//   ns_k                          time in run k, per step or per run; none where absent
//   delta_ns_j, delta_pct_j       against BASE (absent counts as 0 ns); % unset where BASE has none
//   ratio_j                       run j / BASE; unset where BASE has none
//   count_k                       activities in run k (per step: may be fractional; CSV/JSON only)
//   note                          "BASE only", "only in BASE #3"; empty when in every run
//   per                           "step" or "run" on every row (CSV/JSON only)
// Per run, times and counts are integers; per step, the mean of the steps (reals). Notes: how it
// was compared (the comparison's notes).
Table compareTable(const Comparison& comparison);

// Table "compare_runs": the runs compared, BASE first: file, id, name, workload, variant,
// backend, device, status, steps (0 = no steps).
Table compareRunsTable(const std::vector<CompareRunSummary>& runs);

// Table "kernel_diff": one row per kernel diff row, in the diff's order (largest |delta| first):
//   change                        unchanged, changed, moved, swapped, added, removed
//   op                            the op it ran in (BASE's; OTHER's when added)
//   other_op                      OTHER's op of a moved kernel; none otherwise
//   base_ns, other_ns             time per step or per run (per step: the mean of the samples);
//                                 none on the side it is absent from
//   delta_ns, delta_pct, ratio    OTHER against BASE (% and ratio unset where BASE has none)
//   pm_ns                         half the width of Welch's 95% interval of delta_ns (text: ±)
//   verdict                       slower, faster, within_noise, not_enough_samples (Holm over the rows)
//   base_count, other_count       launches
//   kernel                        "name", "BASE -> OTHER" (swapped), "-> name", "name ->"
//   base_name, other_name         the names apart (CSV/JSON only; none where absent)
//   similar_names                 1 when a swap's names differ only in template arguments or numbers
//   base_samples, other_samples   n of each side's samples (CSV/JSON only; none where not read)
//   base_stddev_ns, other_stddev_ns   their standard deviations (CSV/JSON only)
//   ci_low_ns, ci_high_ns, p_adj  the interval of delta_ns and Holm's adjusted p (CSV/JSON only)
//   per                           "step" or "run" (CSV/JSON only)
// Notes: the diff's notes, then how the noise was judged (where there are samples). The totals
// of both runs and the rows by change, as sentences, are render's (render/comparetext.h:
// addKernelDiffNotes), figures being formatted only there.
Table kernelDiffTable(const KernelDiff& diff);

}  // namespace wt
