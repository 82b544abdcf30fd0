#include "analysis/gemmefficiency.h"

#include "analysis/jsonvalue.h"
#include "storage/json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace wt {

namespace {

constexpr int64_t kTileRows = 8, kTileCols = 32;   // smallGemm's AVX-512 register tile
// Ridge on the shape terms, relative to the summed weight: a few shapes cannot pin eight
// coefficients, and an unpinned one would swing a prediction far from the fit's shapes.
constexpr double kRidge = 1e-3;

double log2Of(int64_t v) { return std::log2(double(std::max<int64_t>(v, 1))); }

// Solves the n x n system a x = b by Gaussian elimination with pivoting; false when singular.
bool solveDense(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>& x)
{
    const size_t n = b.size();
    for (size_t c = 0; c < n; ++c) {
        size_t p = c;
        for (size_t r = c + 1; r < n; ++r)
            if (std::fabs(a[r][c]) > std::fabs(a[p][c]))
                p = r;
        if (std::fabs(a[p][c]) < 1e-12)
            return false;
        std::swap(a[p], a[c]);
        std::swap(b[p], b[c]);
        for (size_t r = c + 1; r < n; ++r) {
            const double f = a[r][c] / a[c][c];
            for (size_t k = c; k < n; ++k)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    x.assign(n, 0.0);
    for (size_t r = n; r-- > 0;) {
        double s = b[r];
        for (size_t k = r + 1; k < n; ++k)
            s -= a[r][k] * x[k];
        x[r] = s / a[r][r];
    }
    return true;
}

// The fixed cost and the FLOPs term of a GEMM on the device (ns).
std::pair<double, double> terms(const LaunchSample& s, const DeviceSpec& cal)
{
    const RooflineTerms t = rooflineTerms(cal, s);
    return {t.launchNs, t.flopsNs};
}

}  // namespace

double GemmEfficiency::fullTileShare(int64_t m, int64_t n)
{
    if (m <= 0 || n <= 0)
        return 0;
    const double tiles = double((m + kTileRows - 1) / kTileRows) * double((n + kTileCols - 1) / kTileCols);
    return double(m / kTileRows) * double(n / kTileCols) / tiles;
}

std::array<double, GemmEfficiency::kFeatures> GemmEfficiency::features(const LaunchSample& s)
{
    // "sgemm_nt", "sgemm_batched_tn", "bf16gemm_nn": the last two letters after '_'.
    bool ta = false, tb = false;
    const size_t us = s.name.rfind('_');
    if (us != std::string::npos && s.name.size() - us == 3) {
        ta = s.name[us + 1] == 't';
        tb = s.name[us + 2] == 't';
    }
    return {1.0, log2Of(s.m), log2Of(s.n), log2Of(s.k), log2Of(s.batch), fullTileShare(s.m, s.n), ta ? 1.0 : 0.0, tb ? 1.0 : 0.0};
}

std::optional<GemmEfficiency> GemmEfficiency::fit(const std::vector<LaunchSample>& launches, const std::vector<double>& timeNs,
                                                  const DeviceSpec& cal)
{
    // One row per distinct shape (name, m, n, k, batch): the median of its times, weighted by
    // its total time, so a shape launched 135 times per run counts as its share of the step.
    struct Shape { LaunchSample s; std::vector<double> t; };
    std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>, Shape> shapes;
    for (size_t i = 0; i < launches.size(); ++i) {
        const LaunchSample& s = launches[i];
        if (s.kind != "gemm" || !(s.flops > 0) || !(timeNs[i] > 0))
            continue;
        Shape& sh = shapes[{s.name, s.m, s.n, s.k, s.batch}];
        sh.s = s;
        sh.t.push_back(timeNs[i]);
    }
    if (int(shapes.size()) < kMinShapes)
        return std::nullopt;
    std::vector<std::vector<double>> ata(kFeatures, std::vector<double>(kFeatures, 0.0));
    std::vector<double> atb(kFeatures, 0.0);
    double weightSum = 0;
    GemmEfficiency g;
    g.lo.fill(std::numeric_limits<double>::infinity());
    g.hi.fill(-std::numeric_limits<double>::infinity());
    g.minLogSlowdown = std::numeric_limits<double>::infinity();
    g.maxLogSlowdown = -std::numeric_limits<double>::infinity();
    for (auto& [key, sh] : shapes) {
        std::sort(sh.t.begin(), sh.t.end());
        const size_t n = sh.t.size();
        const double t = n % 2 ? sh.t[n / 2] : 0.5 * (sh.t[n / 2 - 1] + sh.t[n / 2]);
        const auto [launchNs, flopsNs] = terms(sh.s, cal);
        if (!(flopsNs > 0))
            continue;
        // The time beyond the fixed cost; a launch measured under it is taken at a tenth of its time.
        const double y = std::log(std::max(t - launchNs, 0.1 * t) / flopsNs);
        const double w = t * double(n);
        const auto x = features(sh.s);
        for (int r = 0; r < kFeatures; ++r) {
            g.lo[size_t(r)] = std::min(g.lo[size_t(r)], x[size_t(r)]);
            g.hi[size_t(r)] = std::max(g.hi[size_t(r)], x[size_t(r)]);
            atb[size_t(r)] += w * x[size_t(r)] * y;
            for (int c = 0; c < kFeatures; ++c)
                ata[size_t(r)][size_t(c)] += w * x[size_t(r)] * x[size_t(c)];
        }
        weightSum += w;
        g.minLogSlowdown = std::min(g.minLogSlowdown, y);
        g.maxLogSlowdown = std::max(g.maxLogSlowdown, y);
        ++g.samples;
    }
    if (g.samples < kMinShapes)
        return std::nullopt;
    for (int r = 1; r < kFeatures; ++r)
        ata[size_t(r)][size_t(r)] += kRidge * weightSum;
    std::vector<double> x;
    if (!solveDense(ata, atb, x))
        return std::nullopt;
    for (int r = 0; r < kFeatures; ++r)
        g.beta[size_t(r)] = x[size_t(r)];
    return g;
}

double GemmEfficiency::slowdown(const LaunchSample& s) const
{
    const auto x = features(s);
    double y = 0;
    for (int r = 0; r < kFeatures; ++r)
        y += beta[size_t(r)] * std::clamp(x[size_t(r)], lo[size_t(r)], hi[size_t(r)]);
    return std::exp(std::clamp(y, minLogSlowdown, maxLogSlowdown));
}

double GemmEfficiency::predictNs(const LaunchSample& s, const DeviceSpec& cal) const
{
    const auto [launchNs, flopsNs] = terms(s, cal);
    return launchNs + flopsNs * slowdown(s);
}

std::string GemmEfficiency::toJson() const
{
    auto list = [](const std::array<double, kFeatures>& v) {
        std::string out = "[";
        for (int r = 0; r < kFeatures; ++r)
            out += (r ? "," : "") + json::number(v[size_t(r)]);
        return out + "]";
    };
    return "{\"beta\":" + list(beta) + ",\"lo\":" + list(lo) + ",\"hi\":" + list(hi) + ",\"min_log_slowdown\":" + json::number(minLogSlowdown) + ",\"max_log_slowdown\":" +
           json::number(maxLogSlowdown) + ",\"samples\":" + std::to_string(samples) + "}";
}

std::optional<GemmEfficiency> GemmEfficiency::fromJson(const JsonValue& value)
{
    const JsonValue& o = value.expectObject();
    auto list = [&](const char* key, std::array<double, kFeatures>& out) {
        const JsonValue& b = o.requiredArray(key);
        if (b.items().size() != size_t(kFeatures))
            throw JsonError(b.path() + ": " + std::to_string(kFeatures) + " numbers, not " + std::to_string(b.items().size()));
        for (int r = 0; r < kFeatures; ++r) {
            const JsonValue& v = b.items()[size_t(r)];
            if (v.type() != JsonValue::Type::Number)
                throw JsonError(v.path() + ": a " + JsonValue::typeName(v.type()) + ", not a number");
            out[size_t(r)] = v.number();
        }
    };
    GemmEfficiency g;
    list("beta", g.beta);
    list("lo", g.lo);
    list("hi", g.hi);
    g.minLogSlowdown = o.requiredNumber("min_log_slowdown");
    g.maxLogSlowdown = o.requiredNumber("max_log_slowdown");
    g.samples = int64_t(o.requiredNumber("samples"));
    if (g.minLogSlowdown > g.maxLogSlowdown)
        throw JsonError(o.path() + ": min_log_slowdown above max_log_slowdown");
    return g;
}

}  // namespace wt
