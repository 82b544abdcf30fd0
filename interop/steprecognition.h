// Steps of an imported trace: host ranges (NVTX ranges, Kineto ops and annotations) whose name
// matches the step pattern get the level "step", so analysis sees them as a capture's steps
// (a step is never a layer: grouping.h). Runs on the parsed trace, before writeTrace().
#pragma once

#include "importedtrace.h"

#include <string>

namespace wt::interop {

// The default step pattern (ECMAScript, matched against the whole name, case-insensitive):
// PyTorch's `ProfilerStep#N`, and names like `step`, `step 12`, `Step_3`, `train_step`,
// `training step 4`, `iteration 7`, `iter_2`, `eval_step`.
inline constexpr const char* kDefaultStepPattern =
    R"((ProfilerStep#\d+)|((train|training|eval|evaluation|val|validation|test)[ _.:-]?)?(step|iteration|iter)([ _#:.-]*\d+)?)";

struct StepMarks {
    int64_t steps = 0;        // ranges marked as steps
    int64_t adopted = 0;      // top-level ranges of other threads placed under a step
};

// Marks the host ranges (and GPU annotations) whose whole name matches `pattern` (empty: the
// default) as steps. Then a range that is top-level on its own thread (PyTorch's autograd
// thread runs the backward pass outside the step's thread) and starts inside a step range of
// another thread of the same process gets that step as its parent, so its kernels count in the
// step. Throws ImportError (naming `file`) for a pattern that is not a valid regex.
StepMarks markSteps(ImportedTrace& trace, const std::string& pattern, const std::string& file);

}  // namespace wt::interop
