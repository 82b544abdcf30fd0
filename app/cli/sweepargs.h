// The --sweep options of `capture` and `predict`, read into the one sweep plan
// (kernels/sweepplan.h) against the command's --variant, --preset and --set; a malformed sweep
// is a usage error with the plan's message. Header-only: included by the commands that link kernels/.
#pragma once

#include "app/cli/args.h"
#include "kernels/sweepplan.h"

#include <string>
#include <utility>
#include <vector>

namespace wt::cli {

inline kernels::SweepPlan sweepPlanOf(Args& args, const std::vector<std::pair<std::string, std::string>>& overrides)
{
    kernels::SweepFixed fixed;
    fixed.variant = args.value("--variant").has_value();
    fixed.preset = args.value("--preset").has_value();
    for (const auto& [key, value] : overrides)
        fixed.setKeys.push_back(key);
    try {
        return kernels::parseSweepPlan(args.values("--sweep"), fixed);
    } catch (const kernels::SweepPlanError& e) {
        throw UsageError(e.what());
    }
}

}  // namespace wt::cli
