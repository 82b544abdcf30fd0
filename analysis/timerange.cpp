#include "timerange.h"

#include <cmath>

namespace wt {

TimeRange TimeRange::fromDouble(double t0, double t1)
{
    if (t1 < t0)
        std::swap(t0, t1);
    return TimeRange{int64_t(std::floor(t0)), int64_t(std::ceil(t1))};
}

}  // namespace wt
