// The kernel diff said in sentences, from its figures: analysis/comparetable.h's kernelDiffTable
// carries the figures (and the diff's own notes); these two lines go above the table where people
// read it (`wheretime compare --kernels`, the GUI's compare view, the report's markdown).
#pragma once

#include "analysis/compare.h"
#include "analysis/table.h"

#include <string>

namespace wt {

// "BASE 1.000 us, OTHER 900 ns: -100 ns (-10.0%)": both runs' totals inside the filters and the
// change (the % where BASE has time); with the total's interval "-100 ns ± 12 ns (-10.0%),
// faster" (the half width and the verdict).
std::string kernelDiffTotals(const KernelDiff& diff);

// "3 changed (1.200 us), 2 swapped (-500 ns)": the kinds of change that have rows, with their
// change of time (changeTotals).
std::string kernelChangeSummary(const KernelDiff& diff);

// Appends kernelDiffTotals and "kernels: " + kernelChangeSummary to the table's notes.
void addKernelDiffNotes(Table& table, const KernelDiff& diff);

}  // namespace wt
