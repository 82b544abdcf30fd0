// The tables of runs side by side (analysis/variants.h, analysis/table.h): what `wheretime
// variants` prints (text, --csv, --json rows), what the variants view lists under its charts,
// and what its exports and the report's variants.csv / variants-ops.csv write.
//   variantsTable     one row per run (variant): the layer's forward, backward, update and
//                     total kernel time per step, its share of the step, the step's kernel
//                     time and wall time, and the speedups against the baseline
//   variantOpsTable   one row per op of the layer (the stacking order of the op bars), one
//                     column per run: the op's time per step in that run
#pragma once

#include "analysis/table.h"
#include "analysis/variants.h"

#include <string>

namespace wt {

// Columns: <setting> (the differing setting's value; the column id is the setting, "variant"
// when nothing differs, "value" when the setting is not a valid column id), baseline ("yes" on
// the baseline's row, else "no"), run, name, file, steps, forward_ns, backward_ns, update_ns,
// layer_ns, share, step_ns, step_wall_ns, speedup, forward_speedup, backward_speedup,
// step_speedup (none where undefined), speedup_low, speedup_high, verdict (the layer's speedup
// interval and verdict against the baseline; none on the baseline's row), step_speedup_low,
// step_speedup_high, step_verdict (CSV/JSON only). Notes: what differs, the layer, the baseline, and
// analysis's notes.
Table variantsTable(const VariantsTable& t);

// Columns: op, then per run "<value>_ns" (the value made a column id: lower case, other
// characters '_'; "run<ID>_ns" where two values would give one id) titled by the value; none
// where the run has no such op.
Table variantOpsTable(const VariantsTable& t);

// The id of variantsTable's first column.
std::string variantsValueColumn(const VariantsTable& t);

}  // namespace wt
