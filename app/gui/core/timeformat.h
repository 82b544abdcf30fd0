// Durations and time-ruler ticks with adaptive units (ns, us, ms, s).
#pragma once

#include "timemapping.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace wt::gui {

// wt::formatDuration (render/textformat.h, the CLI's formatter too) as a QString:
// "950 ns", "12.50 us", "3.200 ms", "906.8 ms", "1.234 s".
QString formatDuration(double ns);

struct Tick {
    double timeNs = 0;   // relative to the run's origin
    double x = 0;        // pixel in the mapping
    bool major = false;  // labelled
    QString label;
};

// Ticks of the ruler: major steps of 1, 2 or 5 x 10^k ns at least minMajorPx apart, labelled
// relative to originNs in the unit that suits the step, with 5 minor ticks.
std::vector<Tick> rulerTicks(const TimeMapping& mapping, double originNs, double minMajorPx = 90);

// The timeline's ruler, from the run's time 0. Deep in a long run the labels from 0 would need
// many digits ("540950 us"): then, as Perfetto does, the ruler has an offset (the major tick at
// or before the window's start, labelled with the digits the step needs: "540.950 ms") and
// its ticks are labelled relative to it ("+2 us"). Plain labels while they fit 4 digits.
struct Ruler {
    std::vector<Tick> ticks;       // timeNs from time 0; labels relative to offsetNs
    bool hasOffset = false;
    double offsetNs = 0;
    QString offsetLabel;           // "540.950 ms"; empty without an offset
};
Ruler timeRuler(const TimeMapping& mapping, double minMajorPx = 90);
// A time from 0 written with the decimals a resolution of stepNs needs: (540950000, 2000) -> "540.950 ms".
QString formatTimeAt(double ns, double stepNs);
// The major tick step rulerTicks would use, in ns.
double tickStepNs(double nsPerPx, double minMajorPx);

// The unit of a chart's time axis: the largest that keeps maxNs at 1 or more (ns per unit).
struct TimeUnit {
    double ns;
    const char* name;
};
TimeUnit unitFor(double maxNs);

}  // namespace wt::gui
