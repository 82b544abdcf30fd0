// The per-step totals of one run as one blob (table step_totals, schema version 3): per step in
// time order, its per-(scope, name, kind) rows sorted by scope, name, kind, as varints with
// deltas; a step whose keys are those of the step before (the usual case: every step runs the
// same code) stores only its counts and times. A million rows (a 1M-kernel capture: 3677 steps of ~272 rows) decode in a few
// milliseconds, where as many SQLite rows take a quarter of a second to step through.
#pragma once

#include "types.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace wt {

class StepTotalsBlob {
public:
    // Each step's rows must be sorted by (scopeId, nameId, kind).
    static std::string encode(const std::vector<std::vector<TotalRow>>& steps);
    // Appends one step to a blob being encoded (encode is these, step by step); `previous` is
    // the step before (empty for the first): a step with the same keys stores only the figures.
    static void appendStep(std::string& out, const std::vector<TotalRow>& rows, const std::vector<TotalRow>& previous);
    // Throws StorageError when the blob does not hold exactly `steps` steps.
    static std::vector<std::vector<TotalRow>> decode(std::string_view blob, size_t steps);
    // The same, one step at a time into one reused buffer (step index, its rows): readers that
    // reduce each step (a job of many ranks) allocate nothing per step. Throws like decode.
    static void forEachStep(std::string_view blob, size_t steps,
                            const std::function<void(size_t, const std::vector<TotalRow>&)>& fn);
};

}  // namespace wt
