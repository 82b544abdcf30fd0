// Durations and time-ruler ticks with adaptive units (ns, us, ms, s).
#pragma once

#include "timemapping.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace wt::gui {

// wt::formatDuration (analysis/duration.h, the CLI's formatter too) as a QString:
// "950 ns", "12.50 us", "3.200 ms", "906.8 ms", "1.234 s".
QString formatDuration(double ns);

struct Tick {
    double timeNs = 0;   // relative to the run's origin
    double x = 0;        // pixel in the mapping
    bool major = false;  // labelled
    QString label;
};

// Ticks of the ruler: major steps of 1, 2 or 5 x 10^k ns at least minMajorPx apart, labelled
// relative to the run start (originNs) in the unit that suits the step, with 5 minor ticks.
std::vector<Tick> rulerTicks(const TimeMapping& mapping, double originNs, double minMajorPx = 90);
// The major tick step rulerTicks would use, in ns.
double tickStepNs(double nsPerPx, double minMajorPx);

// The unit of a chart's time axis: the largest that keeps maxNs at 1 or more (ns per unit).
struct TimeUnit {
    double ns;
    const char* name;
};
TimeUnit unitFor(double maxNs);

}  // namespace wt::gui
