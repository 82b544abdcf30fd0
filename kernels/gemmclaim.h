// The fp32 GEMMs' split over the backend's pool: units (panels, row tiles, batch items, tasks)
// claimed `grain` at a time from one counter by every thread until none is left. The pool's
// own parallelFor hands out at most 4 chunks a thread (a product of 32 panels: 8 chunks of 4,
// ~115 us each at 512 x 1,024 x 256), so the thread that finishes first waited up to a chunk
// for the other; claimed one grain at a time, the wait is a grain. Which thread runs a unit
// does not change its bits (each unit writes its own part of C, summed in one order).
#pragma once

#include "kernels/cpurows.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace wt::kernels::cpu {

// Runs body(lo, hi) over [0, units) in claims of `grain` units (the last one shorter), on every
// pool thread; inline when one claim covers it all.
template <typename Body>
void claimUnits(int64_t units, int64_t grain, const Body& body)
{
    grain = std::max<int64_t>(1, grain);
    const int64_t claims = (units + grain - 1) / grain;
    if (claims <= 1 || cpu::threads() == 1) {
        if (units > 0)
            body(int64_t(0), units);
        return;
    }
    std::atomic<int64_t> next{0};
    cpu::parallelFor(std::min<int64_t>(cpu::threads(), claims), 1, [&](int64_t, int64_t) {
        for (int64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < claims;)
            body(c * grain, std::min(units, (c + 1) * grain));
    });
}

}  // namespace wt::kernels::cpu
