#include "analysis/mlppredictor.h"

#include "analysis/jsonvalue.h"
#include "analysis/predictor.h"
#include "storage/json.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace wt {

std::array<double, MlpModel::kInputs> MlpModel::inputs(const LaunchSample& s, const DeviceSpec& cal)
{
    const CrossFeatures f = crossFeatures(s, cal);
    auto lg = [](double v) { return std::log1p(std::max(0.0, v)); };
    const double bytes = s.bytes();
    return {lg(f.computeNs), lg(f.memoryNs), lg(f.rowsNs), lg(double(s.m)), lg(double(s.n)), lg(double(s.k)),
            lg(double(s.batch)), lg(bytes > 0 ? s.flops / bytes : 0), s.kind == "gemm" ? 1.0 : 0.0,
            s.kind == "kernel" ? 1.0 : 0.0, s.kind == "memcpy" ? 1.0 : 0.0, s.kind == "memset" ? 1.0 : 0.0,
            lg(cal.fp32Flops / 1e9), lg(cal.memoryBytesPerS / 1e9), lg(cal.launchOverheadNs)};
}

MlpModel MlpModel::fit(const std::vector<const RunSamples*>& runs, const DeviceSpec& cal, uint64_t seed, int steps)
{
    // Distinct rows: the mean log time of the launches with the same inputs.
    std::map<std::array<double, kInputs>, std::pair<double, int64_t>> rows;
    for (const RunSamples* r : runs)
        for (const LaunchSample& s : r->launches)
            if (s.timeNs > 0) {
                auto& [sum, count] = rows[inputs(s, cal)];
                sum += std::log(double(s.timeNs) / rooflineNs(cal, s));
                ++count;
            }
    if (rows.empty())
        throw std::invalid_argument("no measured launches with op features to fit the MLP on");
    MlpModel m;
    m.overBound = true;
    m.samples = int64_t(rows.size());
    const double n = double(rows.size());
    std::vector<double> y;
    y.reserve(rows.size());
    for (const auto& [x, t] : rows) {
        for (int i = 0; i < kInputs; ++i)
            m.mean[size_t(i)] += x[size_t(i)] / n;
        y.push_back(t.first / double(t.second));
    }
    for (const auto& [x, t] : rows)
        for (int i = 0; i < kInputs; ++i)
            m.scale[size_t(i)] += (x[size_t(i)] - m.mean[size_t(i)]) * (x[size_t(i)] - m.mean[size_t(i)]) / n;
    for (double& v : m.scale)
        v = v > 1e-12 ? std::sqrt(v) : 0;   // a constant input (one device) reads 0
    double ys = 0;
    m.yMin = m.yMax = y.front();
    for (double v : y) {
        m.yMean += v / n;
        m.yMin = std::min(m.yMin, v);
        m.yMax = std::max(m.yMax, v);
    }
    for (double v : y)
        ys += (v - m.yMean) * (v - m.yMean) / n;
    m.yScale = ys > 1e-12 ? std::sqrt(ys) : 1.0;
    std::vector<double> x;
    x.reserve(rows.size() * kInputs);
    for (const auto& [in, t] : rows)
        for (int i = 0; i < kInputs; ++i)
            x.push_back(m.scale[size_t(i)] > 0 ? (in[size_t(i)] - m.mean[size_t(i)]) / m.scale[size_t(i)] : 0.0);
    for (double& v : y)
        v = (v - m.yMean) / m.yScale;
    m.net = Mlp({kInputs, kHidden, kHidden, 1}, seed);
    Mlp::TrainOptions o;
    o.batch = kBatch;
    o.seed = seed;
    o.epochs = std::max(1, int(double(steps) * kBatch / n));
    m.net.train(x, y, o);
    return m;
}

double MlpModel::predictNs(const LaunchSample& s, const DeviceSpec& cal) const
{
    const auto in = inputs(s, cal);
    std::array<double, kInputs> x {};
    for (int i = 0; i < kInputs; ++i)
        x[size_t(i)] = scale[size_t(i)] > 0 ? (in[size_t(i)] - mean[size_t(i)]) / scale[size_t(i)] : 0.0;
    const double y = std::clamp(net.forward(x.data()) * yScale + yMean, yMin - 1, yMax + 1);
    return overBound ? rooflineNs(cal, s) * std::exp(y) : std::exp(y);
}

std::string MlpModel::toJson() const
{
    auto list = [](const auto& values) {
        std::string out = "[";
        for (size_t i = 0; i < values.size(); ++i)
            out += (i ? "," : "") + json::number(values[i]);
        return out + "]";
    };
    std::string sizes = "[";
    for (size_t i = 0; i < net.sizes().size(); ++i)
        sizes += (i ? "," : "") + std::to_string(net.sizes()[i]);
    return "{\"sizes\":" + sizes + "],\"mean\":" + list(mean) + ",\"scale\":" + list(scale) +
           ",\"y_mean\":" + json::number(yMean) + ",\"y_scale\":" + json::number(yScale) + ",\"y_min\":" +
           json::number(yMin) + ",\"y_max\":" + json::number(yMax) + ",\"samples\":" + std::to_string(samples) +
           ",\"target\":" + json::quote(overBound ? "log_time_over_bound" : "log_time") +
           ",\"parameters\":" + list(net.parameters()) + "}";
}

MlpModel MlpModel::fromJson(const JsonValue& value)
{
    const JsonValue& o = value.expectObject();
    auto numbers = [&](const char* key) {
        std::vector<double> out;
        for (const JsonValue& v : o.requiredArray(key).items()) {
            if (v.type() != JsonValue::Type::Number)
                throw JsonError("mlp." + std::string(key) + ": not a list of numbers");
            out.push_back(v.number());
        }
        return out;
    };
    MlpModel m;
    std::vector<int> sizes;
    for (double v : numbers("sizes"))
        sizes.push_back(int(v));
    if (sizes.empty() || sizes.front() != kInputs)
        throw JsonError("mlp.sizes: the first is the " + std::to_string(kInputs) + " inputs");
    const std::vector<double> mean = numbers("mean"), scale = numbers("scale");
    if (mean.size() != size_t(kInputs) || scale.size() != size_t(kInputs))
        throw JsonError("mlp.mean, mlp.scale: " + std::to_string(kInputs) + " values each");
    std::copy(mean.begin(), mean.end(), m.mean.begin());
    std::copy(scale.begin(), scale.end(), m.scale.begin());
    m.yMean = o.requiredNumber("y_mean");
    m.yScale = o.requiredNumber("y_scale");
    m.yMin = o.requiredNumber("y_min");
    m.yMax = o.requiredNumber("y_max");
    m.samples = int64_t(o.requiredNumber("samples"));
    const std::string target = o.optionalString("target").value_or("log_time");
    if (target != "log_time" && target != "log_time_over_bound")
        throw JsonError("mlp.target: log_time or log_time_over_bound, not '" + target + "'");
    m.overBound = target == "log_time_over_bound";
    std::string why;
    auto net = Mlp::fromJsonSizesAndParameters(sizes, numbers("parameters"), &why);
    if (!net)
        throw JsonError(why);
    m.net = std::move(*net);
    return m;
}

}  // namespace wt
