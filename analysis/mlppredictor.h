// The per-launch MLP of Justus et al. 2018: the features of a launch and of the device in, the
// logarithm of its time out (analysis/mlp.h: two tanh layers of 32; Adam). Inputs, each
// standardized on the training set: log(1 + x) of the launch's compute, memory and rows time on
// the calibration (CrossFeatures), of its GEMM m, n, k and batch and of its arithmetic intensity
// (FLOPs per byte); its launch kind one-hot (gemm, kernel, memcpy, memset); the calibration's
// log peak, bandwidth and fixed cost (constant on one device: they matter when runs of several
// calibrations are fitted together). Each distinct input row is one training row with the mean
// log time of its launches (3 steps of identical ops count once). A prediction is clamped to the
// trained range of log times widened by e (a factor 2.7), so it never overflows. The output is
// the log of the launch's time over its roofline bound on the calibration (rooflineNs: the larger
// of FLOPs / peak, bytes / bandwidth, exps / exp rate, plus the fixed cost), clamped the same way:
// an unseen kernel (block-sparse bert held out) then costs a slowdown the fit has seen over its
// own bound; the log of the time itself (stored MLPs before it) extrapolated them to 4-8x.
#pragma once

#include "analysis/costmodel.h"
#include "analysis/mlp.h"
#include "analysis/opfeatures.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace wt {

class JsonValue;

struct MlpModel {
    static constexpr int kInputs = 15;
    static constexpr int kHidden = 32;
    static constexpr int kSteps = 4000;   // Adam steps of one fit
    static constexpr int kBatch = 64;

    Mlp net;
    std::array<double, kInputs> mean {}, scale {};   // standardization of the inputs
    double yMean = 0, yScale = 1, yMin = 0, yMax = 0;  // of the target: log(time ns), or log(time / bound)
    // The target: log(time / the launch's roofline bound on the calibration) when set (fits since
    // issue 30 round 3: an input far outside the fit is priced at a trained slowdown over its
    // bound, not at a trained time), else log(time ns) (stored MLPs without "target").
    bool overBound = false;
    int64_t samples = 0;                               // distinct training rows

    static std::array<double, kInputs> inputs(const LaunchSample& s, const DeviceSpec& calibration);
    // Throws std::invalid_argument when no launch has a measured time.
    static MlpModel fit(const std::vector<const RunSamples*>& runs, const DeviceSpec& calibration, uint64_t seed,
                        int steps = kSteps);
    double predictNs(const LaunchSample& s, const DeviceSpec& calibration) const;

    std::string toJson() const;
    static MlpModel fromJson(const JsonValue& object);   // throws JsonError
};

}  // namespace wt
