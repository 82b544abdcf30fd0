// A GEMM's time from its shape, for GEMMs no op-kind class covers (an op scope or a size the
// fit has not seen): time = the device's fixed cost per launch + FLOPs / peak x slowdown(shape),
// with log(slowdown) (1 / efficiency) linear in the shape's features: log2 of m, n, k and batch,
// the share of the 8 x 32 register tiles of C that are full (kernels/smallgemm.h and
// blockedgemm.h run 8-row, 32-column tiles: a 152-row or 14-column product pays for padding),
// and the transposes of A and B. Efficiency rises with k (the tile's loads amortized over more
// multiply-adds) and with the full tiles; the fit says by how much on the device at hand.
// Fitted by least squares on the log, weighted by time (the large GEMMs, which make up the step,
// count most), a little ridge on the shape terms so few shapes cannot blow them up; a prediction
// is clamped to the slowdowns seen in the fit, each feature to its range in the fit. The features are in the units of the device's
// calibration (peak, fixed cost), so the model carries to another device with its calibration.
#pragma once

#include "analysis/costmodel.h"
#include "analysis/opfeatures.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wt {

struct GemmEfficiency {
    static constexpr int kFeatures = 8;   // 1, log2 m, n, k, batch, full tiles, ta, tb
    static constexpr int kMinShapes = 3;  // fewer distinct shapes: no model
    std::array<double, kFeatures> beta {};   // log(slowdown) = beta . features
    double minLogSlowdown = 0, maxLogSlowdown = 0;   // the range seen in the fit
    // Each feature's range in the fit: a shape beyond it (a 33,278-row vocabulary head when the
    // fit's largest m was 1,024) is taken at the edge, not extrapolated along the log-linear line.
    std::array<double, kFeatures> lo {}, hi {};
    int64_t samples = 0;                  // distinct shapes fitted on

    // The shape's features (GEMM launches: kind "gemm", m/n/k/batch set; the transposes from the
    // op name's last two letters, "sgemm_nt": A as is, B transposed).
    static std::array<double, kFeatures> features(const LaunchSample& s);
    // The share (0..1] of the 8 x 32 tiles of an m x n C that are full.
    static double fullTileShare(int64_t m, int64_t n);
    // Fits on GEMM launches with their (median) times in ns; nullopt with fewer than kMinShapes
    // distinct shapes with FLOPs.
    static std::optional<GemmEfficiency> fit(const std::vector<LaunchSample>& launches, const std::vector<double>& timeNs,
                                             const DeviceSpec& calibration);
    double slowdown(const LaunchSample& s) const;   // time beyond the fixed cost / (FLOPs / peak)
    double predictNs(const LaunchSample& s, const DeviceSpec& calibration) const;

    std::string toJson() const;
    static std::optional<GemmEfficiency> fromJson(const class JsonValue& object);
};

}  // namespace wt
