// The per-launch MLP of Justus et al. 2018: the features of a launch and of the device in, the
// logarithm of its time out (analysis/mlp.h: two tanh layers of 32; Adam). Inputs, each
// standardized on the training set: log(1 + x) of the launch's compute, memory and rows time on
// the calibration (CrossFeatures), of its GEMM m, n, k and batch and of its arithmetic intensity
// (FLOPs per byte); its launch kind one-hot (gemm, kernel, memcpy, memset); the calibration's
// log peak, bandwidth and fixed cost (constant on one device: they matter when runs of several
// calibrations are fitted together). Each distinct input row is one training row with the mean
// log time of its launches (3 steps of identical ops count once). A prediction is clamped to the
// trained range of log times widened by e (a factor 2.7), so it never overflows.
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
    double yMean = 0, yScale = 1, yMin = 0, yMax = 0;  // of log(time ns)
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
