// An op kind the fit has not seen, priced by its roofline: the bound of its launch on the
// device (max of FLOPs / peak, bytes / bandwidth, exps / exp rate, plus the fixed cost per
// launch: analysis/costmodel.h, rooflineTerms) times the fitted efficiency of its class, the
// measured time over the bound of the training launches of that class. A class is the term that
// bounds the launch (flop, mem, exp, launch), split by whether the op works row by row (its
// shapes name rows, T or M: the softmax and norm kernels) or element by element; a class needs
// launches of kMinOps op names (one op's efficiency is that op's, not a class's), else the
// bound's class without the split, else every kernel's. The ratio is the time-weighted median
// over the class's launches: robust to a preempted launch, and the large launches, which make up
// the step, count most. So an unseen kernel is priced at what kernels bound like it achieved,
// not at near zero.
#pragma once

#include "analysis/costmodel.h"
#include "analysis/opfeatures.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wt {

struct RooflineClasses {
    static constexpr int kMinOps = 2;     // op names a class needs
    struct Class { double ratio = 1; int64_t samples = 0; int ops = 0; };
    std::map<std::string, Class> byKey;   // "mem/rows", "mem", ..., "*"

    // The class keys of a launch, most specific first: "exp/rows", "exp", "*".
    static std::vector<std::string> keysOf(const LaunchSample& s, const DeviceSpec& calibration);
    // Fits on kernel launches (kind "kernel") with their (median) times in ns.
    static RooflineClasses fit(const std::vector<LaunchSample>& launches, const std::vector<double>& timeNs,
                               const DeviceSpec& calibration);
    // The class that prices the launch; nullptr when there is none (no kernel in the fit).
    const Class* classFor(const LaunchSample& s, const DeviceSpec& calibration) const;
    std::optional<double> predictNs(const LaunchSample& s, const DeviceSpec& calibration) const;

    std::string toJson() const;
    static RooflineClasses fromJson(const class JsonValue& array);
};

}  // namespace wt
