// What a time range holds: kernel time by layer and the top kernels by time, each kernel's
// time clipped to the range. Backs the details panel of a range selection.
#pragma once

#include "rundata.h"

#include <QString>

#include <vector>

namespace wt::gui {

struct RangeEntry {
    QString name;
    int64_t timeNs = 0;    // kernel time inside the range
    int64_t count = 0;     // kernels overlapping the range
    QRgb color = 0;
};

struct RangeSummary {
    double startNs = 0;
    double endNs = 0;
    int64_t kernels = 0;
    int64_t kernelTimeNs = 0;
    std::vector<RangeEntry> layers;    // largest first
    std::vector<RangeEntry> kernelsByName;   // largest first, at most maxKernels
};

RangeSummary summarizeRange(const RunData& run, double t0, double t1, size_t maxKernels = 10);

}  // namespace wt::gui
