#include "rangesummary.h"

namespace wt::gui {

wt::RangeSummary summarizeRange(const RunData& run, double t0, double t1, size_t maxKernels)
{
    return wt::summarizeRange(*run.profile, run.activities(), TimeRange::fromDouble(t0, t1), maxKernels);
}

}  // namespace wt::gui
