#include "analysis/predictor.h"

#include "analysis/jsonvalue.h"
#include "storage/json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace wt {

namespace {

constexpr int kMaxColumns = 4;
// The weights of the fits: sample i weighs 1 / t_i^(2 gamma) in the squared error. gamma 1 is the
// relative error of each launch (what MAPE per launch measures); an op's classes weigh 1 / t_i
// (gamma 0.5) instead, so its large launches, which make up the layers' and steps' time, count
// more than its many tiny ones: on the prediction corpus (docs/prediction.md) that took the
// leave-one-run-out step error from 26.5% to 22.7% and leave-one-workload-out from 26.7% to
// 23.2%. The cross-kind feature model stays on relative error: weighted towards large launches it
// missed the block-sparse kernels (73.8% per step held out, against 21.3%).
constexpr double kClassGamma = 0.5;
constexpr double kFeatureGamma = 1.0;
using Matrix = std::array<std::array<double, kMaxColumns>, kMaxColumns>;
using Vector = std::array<double, kMaxColumns>;

// Solves the n x n system a x = b (n <= 4) by Gaussian elimination with pivoting; false when singular.
bool solve(int n, Matrix a, Vector b, Vector& x)
{
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (std::fabs(a[size_t(r)][size_t(c)]) > std::fabs(a[size_t(p)][size_t(c)]))
                p = r;
        if (std::fabs(a[size_t(p)][size_t(c)]) < 1e-12)
            return false;
        std::swap(a[size_t(p)], a[size_t(c)]);
        std::swap(b[size_t(p)], b[size_t(c)]);
        for (int r = c + 1; r < n; ++r) {
            double f = a[size_t(r)][size_t(c)] / a[size_t(c)][size_t(c)];
            for (int k = c; k < n; ++k)
                a[size_t(r)][size_t(k)] -= f * a[size_t(c)][size_t(k)];
            b[size_t(r)] -= f * b[size_t(c)];
        }
    }
    for (int r = n - 1; r >= 0; --r) {
        double s = b[size_t(r)];
        for (int k = r + 1; k < n; ++k)
            s -= a[size_t(r)][size_t(k)] * x[size_t(k)];
        x[size_t(r)] = s / a[size_t(r)][size_t(r)];
    }
    return true;
}

// Non-negative weighted least squares: minimizes sum ((x_i . c) - t_i)^2 / t_i^(2 gamma) over
// c >= 0, x_i = column(i, 0..cols-1), samples with t_i > 0 (gamma 1: relative error). Every non-empty subset of the
// columns is solved and the best non-negative solution kept (the optimum, for so few columns).
// The columns of A are scaled to unit norm first: times span 10^2..10^9 ns, and unscaled normal
// equations would lose the small terms. nullopt: no usable subset.
template <class Column>
std::optional<Vector> fitRelative(int cols, size_t n, const Column& column, const std::vector<double>& timeNs, double gamma)
{
    // Row i divided by s_i = t_i^gamma: against target t_i^(1-gamma).
    std::vector<double> scale(n), target(n);
    for (size_t i = 0; i < n; ++i)
        if (timeNs[i] > 0)
            scale[i] = std::pow(timeNs[i], gamma), target[i] = timeNs[i] / scale[i];
    Vector norm {};
    for (size_t i = 0; i < n; ++i)
        if (timeNs[i] > 0)
            for (int c = 0; c < cols; ++c)
                norm[size_t(c)] += (column(i, c) / scale[i]) * (column(i, c) / scale[i]);
    for (double& v : norm)
        v = std::sqrt(v);
    std::optional<Vector> best;
    double bestErr = std::numeric_limits<double>::infinity();
    for (int mask = 1; mask < (1 << cols); ++mask) {
        bool usable = true;
        for (int c = 0; c < cols; ++c)
            usable = usable && (!(mask & (1 << c)) || norm[size_t(c)] > 0);
        if (!usable)
            continue;   // a column that is zero everywhere
        std::array<int, kMaxColumns> pick {};
        int m = 0;
        for (int c = 0; c < cols; ++c)
            if (mask & (1 << c))
                pick[size_t(m++)] = c;
        auto a = [&](int r, size_t i) { return column(i, pick[size_t(r)]) / scale[i] / norm[size_t(pick[size_t(r)])]; };
        Matrix ata {};
        Vector atb {}, x {};
        for (size_t i = 0; i < n; ++i) {
            if (!(timeNs[i] > 0))
                continue;
            for (int r = 0; r < m; ++r) {
                atb[size_t(r)] += a(r, i) * target[i];
                for (int c = 0; c < m; ++c)
                    ata[size_t(r)][size_t(c)] += a(r, i) * a(c, i);
            }
        }
        if (!solve(m, ata, atb, x))
            continue;
        bool ok = true;
        for (int r = 0; r < m; ++r)
            ok = ok && x[size_t(r)] >= 0;
        if (!ok)
            continue;
        double err = 0;
        for (size_t i = 0; i < n; ++i) {
            if (!(timeNs[i] > 0))
                continue;
            double p = 0;
            for (int r = 0; r < m; ++r)
                p += x[size_t(r)] * a(r, i);
            err += (p - target[i]) * (p - target[i]);
        }
        if (err < bestErr) {
            bestErr = err;
            Vector coef {};
            for (int r = 0; r < m; ++r)
                coef[size_t(pick[size_t(r)])] = x[size_t(r)] / norm[size_t(pick[size_t(r)])];
            best = coef;
        }
    }
    return best;
}

std::string kindKey(const std::string& kind) { return "kind:" + kind; }

// The most specific class: the op name in its op scope ("sgemm_nt@conv_gemm"): one name (a
// GEMM, a copy) runs at very different shapes and efficiencies in different ops.
std::string scopedKey(const LaunchSample& s)
{
    const size_t slash = s.path.rfind('/');
    return s.name + "@" + (slash == std::string::npos ? s.path : s.path.substr(slash + 1));
}

// The run's regime (LaunchSample::runMaxBytes): "cold" when its largest launch moves more than a
// core's cache, "warm" otherwise, empty when not known. A class of the op in one regime comes
// before the op's class over both.
std::string regimeOf(const LaunchSample& s)
{
    if (!(s.runMaxBytes > 0))
        return {};
    return s.runMaxBytes > CostClass::kCacheBytes ? "cold" : "warm";
}
std::string inRegime(const std::string& key, const std::string& regime) { return key + "#" + regime; }

double ape(double predicted, double measured) { return std::fabs(predicted - measured) / measured * 100.0; }

double medianOf(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

std::optional<CostClass> fitCostClass(const std::string& key, const std::vector<double>& flops,
                                      const std::vector<double>& bytes, const std::vector<double>& timeNs)
{
    const size_t n = timeNs.size();
    if (n == 0)
        return std::nullopt;
    CostClass best;
    best.key = key;
    best.samples = int64_t(n);
    best.minWork = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < n; ++i) {
        best.minWork = std::min(best.minWork, flops[i] + bytes[i]);
        best.maxWork = std::max(best.maxWork, flops[i] + bytes[i]);
    }
    auto column = [&](size_t i, int c) {
        return c == 0 ? 1.0 : c == 1 ? flops[i] : c == 2 ? bytes[i] : std::max(0.0, bytes[i] - CostClass::kCacheBytes);
    };
    if (auto x = fitRelative(4, n, column, timeNs, kClassGamma)) {
        best.overheadNs = (*x)[0];
        best.nsPerFlop = (*x)[1];
        best.nsPerByte = (*x)[2];
        best.nsPerByteOut = (*x)[3];
    } else {   // no usable system (all times zero): the mean as overhead
        double s = 0;
        for (double t : timeNs)
            s += t;
        best.overheadNs = s / double(n);
    }
    return best;
}

const DeviceSpec& nominalUnits()
{
    static const DeviceSpec d = nominalCalibration();
    return d;
}

DeviceSpec nominalCalibration()
{
    DeviceSpec d;
    d.name = "nominal";
    d.title = "nominal units (no calibration)";
    d.kind = "cpu";
    d.fp32Flops = 1e9;
    d.memoryBytesPerS = 1e9;
    d.hostLinkBytesPerS = 1e9;
    d.launchOverheadNs = 1000;
    return d;
}

double rowsOf(const LaunchSample& s)
{
    if (s.kind == "gemm")
        return double(s.m) * double(std::max<int64_t>(s.batch, 1));
    // "rows=16 cols=64", "T=16 C=16": the first of rows, T, M.
    for (const char* key : {"rows=", "T=", "M="}) {
        size_t at = 0;
        const std::string k(key);
        while ((at = s.shapes.find(k, at)) != std::string::npos) {
            if (at == 0 || s.shapes[at - 1] == ' ') {
                try {
                    return std::stod(s.shapes.substr(at + k.size()));
                } catch (const std::exception&) {
                    return 0;
                }
            }
            at += k.size();
        }
    }
    return 0;
}

CrossFeatures crossFeatures(const LaunchSample& s, const DeviceSpec& cal)
{
    CrossFeatures f;
    const bool copy = s.kind == "memcpy";
    const double bw = copy && cal.hostLinkBytesPerS > 0 ? cal.hostLinkBytesPerS : cal.memoryBytesPerS;
    f.launchNs = cal.launchOverheadNs > 0 ? cal.launchOverheadNs : 1.0;
    f.computeNs = cal.fp32Flops > 0 ? s.flops / cal.fp32Flops * 1e9 : 0;
    f.memoryNs = bw > 0 ? (copy ? s.bytesRead : s.bytes()) / bw * 1e9 : 0;
    f.rowsNs = cal.fp32Flops > 0 ? rowsOf(s) * CrossFeatures::kRowFlops / cal.fp32Flops * 1e9 : 0;
    return f;
}

const FeatureModel::Weights* FeatureModel::weightsFor(const std::string& kind) const
{
    auto it = byKind.find(kind);
    if (it != byKind.end() && it->second.samples >= Predictor::kMinSamples)
        return &it->second;
    it = byKind.find("*");
    return it != byKind.end() ? &it->second : nullptr;
}

std::optional<double> FeatureModel::predictNs(const LaunchSample& s, const DeviceSpec& calibration) const
{
    const Weights* w = weightsFor(s.kind);
    if (!w)
        return std::nullopt;
    const CrossFeatures f = crossFeatures(s, calibration);
    double t = 0;
    for (int i = 0; i < CrossFeatures::kCount; ++i)
        t += w->w[size_t(i)] * f[i];
    return t;
}

namespace {

Predictor fitOn(const std::vector<const RunSamples*>& runs, const std::string& name,
                const std::optional<DeviceSpec>& calibration)
{
    struct Columns { std::vector<double> f, b, t; size_t scalar = 0; };
    struct FeatureColumns { std::vector<CrossFeatures> x; std::vector<double> t; };
    std::map<std::string, Columns> byKey;
    std::map<std::string, FeatureColumns> byKind;
    Predictor p;
    p.name = name;
    p.calibration = calibration;
    const DeviceSpec cal = calibration.value_or(nominalCalibration());
    // Every launch's target is the median time of the identical launches (same op in the same op
    // scope, same shapes and work) of the training runs: on a loaded machine one of them is now
    // and then preempted (2-10x), and weighted by 1 / t each slow sample pulled its class off its
    // quick twins. The median is robust to them; the mean (tried) followed them: on the two
    // corpora of docs/prediction.md the median took leave-one-run-out per step from 22.2% to
    // 18.7% and from 25.0% to 20.9%, the mean to 33.9% and 17.6%.
    std::map<std::string, std::vector<double>> identicalTimes;
    auto identity = [](const LaunchSample& s) {
        return scopedKey(s) + '\n' + s.shapes + '\n' + std::to_string(s.flops) + '\n' + std::to_string(s.bytes()) + '\n' +
               regimeOf(s);
    };
    for (const RunSamples* r : runs)
        for (const LaunchSample& s : r->launches)
            if (s.timeNs >= 0)
                identicalTimes[identity(s)].push_back(double(s.timeNs));
    std::map<std::string, double> identical;
    for (auto& [key, v] : identicalTimes) {
        std::sort(v.begin(), v.end());
        identical[key] = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    }
    // One launch of each distinct launch for the GEMM and kernel models (their targets: the medians).
    std::vector<LaunchSample> gemms, kernels;
    std::vector<double> gemmTimes, kernelTimes;
    std::map<std::string, bool> taken;
    for (const RunSamples* r : runs) {
        if (p.device.empty())
            p.device = r->run.device;
        for (const LaunchSample& s : r->launches) {
            if (s.timeNs < 0)
                continue;
            const std::string id = identity(s);
            const double t = identical[id];
            // Scalar loops stay in the kernel models (tried: apart from them, block-sparse bert held
            // out on corpus H went from 14.7% to 21.6% per step: the grouped convolution, flop-bound at
            // the scalar rate, is the flop-bound row kernel that prices the block-sparse products).
            if ((s.kind == "gemm" || s.kind == "kernel") && !std::exchange(taken[id], true)) {
                // Every identical launch counts once per run it ran in: its share of the steps.
                const size_t times = identicalTimes[id].size();
                for (size_t k = 0; k < times; ++k) {
                    (s.kind == "gemm" ? gemms : kernels).push_back(s);
                    (s.kind == "gemm" ? gemmTimes : kernelTimes).push_back(t);
                }
            }
            const std::string regime = regimeOf(s);
            std::vector<std::string> keys = {scopedKey(s), s.name, kindKey(s.kind), std::string("*")};
            if (!regime.empty())
                keys.insert(keys.end(), {inRegime(scopedKey(s), regime), inRegime(s.name, regime)});
            for (const std::string& key : keys) {
                Columns& c = byKey[key];
                c.f.push_back(s.flops);
                c.b.push_back(s.bytes());
                c.t.push_back(t);
                c.scalar += isScalarLoop(s) ? 1 : 0;
            }
            const CrossFeatures x = crossFeatures(s, cal);
            for (const std::string& kind : {s.kind, std::string("*")}) {
                FeatureColumns& c = byKind[kind];
                c.x.push_back(x);
                c.t.push_back(t);
            }
        }
    }
    if (byKey.empty())
        throw std::invalid_argument("no measured launches with op features to fit on (capture runs with this version)");
    for (auto& [key, c] : byKey)
        if (auto cls = fitCostClass(key, c.f, c.b, c.t)) {
            cls->scalarLoop = c.scalar == c.t.size();
            p.classes.emplace(key, *cls);
        }
    p.gemm = GemmEfficiency::fit(gemms, gemmTimes, cal);
    p.kernelClasses = RooflineClasses::fit(kernels, kernelTimes, cal);
    for (auto& [kind, samples] : byKind) {
        auto& c = samples;   // a plain reference: clang before 16 cannot capture a structured binding
        auto column = [&](size_t i, int j) { return c.x[i][j]; };
        if (auto w = fitRelative(CrossFeatures::kCount, c.t.size(), column, c.t, kFeatureGamma)) {
            FeatureModel::Weights weights;
            weights.w = *w;
            weights.samples = int64_t(c.t.size());
            p.features.byKind.emplace(kind, weights);
        }
    }
    return p;
}

}  // namespace

Predictor Predictor::fit(const std::vector<RunSamples>& runs, const std::string& name,
                         const std::optional<DeviceSpec>& calibration)
{
    std::vector<const RunSamples*> ptrs;
    for (const RunSamples& r : runs)
        ptrs.push_back(&r);
    return fitOn(ptrs, name, calibration);
}

Predictor Predictor::fitMlp(const std::vector<RunSamples>& runs, const std::string& name,
                            const std::optional<DeviceSpec>& calibration, uint64_t seed, int steps)
{
    std::vector<const RunSamples*> ptrs;
    Predictor p;
    p.name = name;
    p.calibration = calibration;
    for (const RunSamples& r : runs) {
        ptrs.push_back(&r);
        if (p.device.empty())
            p.device = r.run.device;
    }
    p.mlp = MlpModel::fit(ptrs, calibration.value_or(nominalCalibration()), seed, steps);
    return p;
}

const CostClass* Predictor::classFor(const LaunchSample& s) const
{
    if (mlp)
        return nullptr;
    const std::string regime = regimeOf(s);
    std::vector<std::pair<std::string, bool>> keys;   // (key, of the op name alone)
    if (!regime.empty())
        keys.push_back({inRegime(scopedKey(s), regime), false});
    keys.push_back({scopedKey(s), false});
    if (!regime.empty())
        keys.push_back({inRegime(s.name, regime), true});
    keys.push_back({s.name, true});
    for (const auto& [key, nameOnly] : keys) {
        // A GEMM of another op scope goes to the shape model: one op name's line through every
        // shape it was fitted on is a poor guess for a shape of another model.
        if (gemm && s.kind == "gemm" && nameOnly)
            break;
        auto it = classes.find(key);
        if (it != classes.end() && it->second.samples >= kMinSamples && it->second.covers(s.flops + s.bytes()))
            return &it->second;
    }
    if ((gemm && s.kind == "gemm") || (s.kind == "kernel" && !kernelClasses.byKey.empty()))
        return nullptr;
    if (features.weightsFor(s.kind))
        return nullptr;
    // A predictor stored before the feature model: the launch kind's class, else the global one.
    for (const std::string& key : {kindKey(s.kind), std::string("*")}) {
        auto it = classes.find(key);
        if (it != classes.end() && (it->second.samples >= kMinSamples || key == "*"))
            return &it->second;
    }
    return nullptr;
}

double Predictor::predictNs(const LaunchSample& s) const
{
    if (mlp)
        return mlp->predictNs(s, calibration.value_or(nominalCalibration()));
    const DeviceSpec& cal = calibration ? *calibration : nominalUnits();
    if (const CostClass* c = classFor(s)) {
        const double work = s.flops + s.bytes();
        // Smaller than every launch the class was fitted on (within its reach): the class's time at
        // its smallest work, scaled down with the work toward the device's fixed cost. A line
        // through a tiny and a small cluster has about the tiny cluster's time as its fixed cost,
        // which overprices a launch a quarter its size (transformer tiny's split_heads: 3.3 us
        // predicted from bert tiny's, 0.9 us measured; held out by workload on corpus E, 13.3 ->
        // 11.2% per step, docs/prediction.md).
        if (c->minWork > 0 && work < c->minWork) {
            const double launch = cal.launchOverheadNs;
            const double at = c->predictNs(s.flops * c->minWork / work, s.bytes() * c->minWork / work);
            return launch + std::max(0.0, at - launch) * work / c->minWork;
        }
        return c->predictNs(s.flops, s.bytes());
    }
    if (gemm && s.kind == "gemm" && s.flops > 0)
        return gemm->predictNs(s, cal);
    // A scalar loop no class covers (an op without a vectorized CPU path: "scalar=1" in its sizes)
    // at its roofline on the calibration, whose FLOP term is at the measured scalar-loop rate.
    // Neither model below describes one: the feature model's compute weight is fitted on
    // vectorized kernels' FLOPs, and the flop-bound kernels of a roofline class are the
    // block-sparse products at 4-8x their bound; the other scalar loops of the bundled workloads
    // are gathers of a few hundred elements. Held out by workload on corpus H, GroupBERT's grouped
    // convolution went from -96 to -98% to -38 to -58% (and +9%), its step error from 20.8% to 9.2%.
    if (s.kind == "kernel" && isScalarLoop(s) && cal.scalarFlops > 0)
        return rooflineNs(cal, s);
    // A kernel no class covers: the geometric mean of the feature model's estimate and its
    // roofline class's (either alone when the other has none). Each alone failed on one of the two
    // corpora of docs/prediction.md (the class missed corpus E's vectorized block-sparse kernels
    // by -67% to +59%, the feature model was 5x too fast on corpus D's scalar ones).
    if (s.kind == "kernel")
        if (auto t = kernelClasses.predictNs(s, cal)) {
            const std::optional<double> f = features.predictNs(s, cal);
            return f && *f > 0 ? std::sqrt(*t * *f) : *t;
        }
    return features.predictNs(s, calibration.value_or(nominalCalibration())).value_or(0.0);
}

Predictor Predictor::rescaledTo(const DeviceSpec& target) const
{
    if (!calibration)
        return *this;
    Predictor p = *this;
    const DeviceSpec& from = *calibration;
    auto ratio = [](double a, double b) { return a > 0 && b > 0 ? a / b : 1.0; };
    const double overhead = ratio(target.launchOverheadNs, from.launchOverheadNs);
    const double perFlop = ratio(from.fp32Flops, target.fp32Flops);
    const double perScalarFlop = ratio(flopPeak(from, false, true), flopPeak(target, false, true));
    const double perByte = ratio(from.memoryBytesPerS, target.memoryBytesPerS);
    for (auto& [key, c] : p.classes) {
        c.overheadNs *= overhead;
        c.nsPerFlop *= c.scalarLoop ? perScalarFlop : perFlop;
        c.nsPerByte *= perByte;
        c.nsPerByteOut *= perByte;
    }
    p.calibration = target;
    return p;
}

std::string Predictor::toJson() const
{
    std::string out = "{\"name\":" + json::quote(name) + ",\"device\":" + json::quote(device) +
                      ",\"form\":" + json::quote(mlp ? "mlp: log time from the launch's and the device's features"
                                                     : "overhead + ns_per_flop*flops + ns_per_byte*bytes") ;
    if (calibration)
        out += ",\n\"calibration\":" + wt::toJson(*calibration);
    if (mlp)
        out += ",\n\"mlp\":" + mlp->toJson();
    if (gemm)
        out += ",\n\"gemm\":" + gemm->toJson();
    if (!kernelClasses.byKey.empty())
        out += ",\n\"roofline_classes\":" + kernelClasses.toJson();
    out += ",\n\"features\":[";
    bool first = true;
    for (const auto& [kind, w] : features.byKind) {
        out += (first ? "" : ",");
        first = false;
        out += "\n{\"kind\":" + json::quote(kind) + ",\"launch\":" + json::number(w.w[0]) +
               ",\"compute\":" + json::number(w.w[1]) + ",\"memory\":" + json::number(w.w[2]) +
               ",\"rows\":" + json::number(w.w[3]) + ",\"samples\":" + std::to_string(w.samples) + "}";
    }
    out += "],\n\"classes\":[";
    first = true;
    for (const auto& [key, c] : classes) {
        out += (first ? "" : ",");
        first = false;
        out += "\n{\"key\":" + json::quote(key) + ",\"overhead_ns\":" + json::number(c.overheadNs) +
               ",\"ns_per_flop\":" + json::number(c.nsPerFlop) + ",\"ns_per_byte\":" + json::number(c.nsPerByte) +
               ",\"ns_per_byte_out\":" + json::number(c.nsPerByteOut) + ",\"min_work\":" + json::number(c.minWork) +
               ",\"max_work\":" + json::number(c.maxWork) + ",\"samples\":" + std::to_string(c.samples) +
               (c.scalarLoop ? ",\"scalar_loop\":1" : "") + "}";
    }
    return out + "]}";
}

std::optional<Predictor> Predictor::fromJson(const std::string& text, std::string* error)
{
    try {
        const JsonValue document = JsonValue::parse(text);
        const JsonValue& o = document.expectObject();
        Predictor p;
        p.name = o.optionalString("name").value_or("");
        p.device = o.optionalString("device").value_or("");
        if (const JsonValue* cal = o.find("calibration")) {
            std::string why;
            auto d = deviceFromJson(*cal, &why);
            if (!d)
                throw JsonError("calibration: " + why);
            p.calibration = *d;
        }
        if (const JsonValue* m = o.find("mlp"))
            p.mlp = MlpModel::fromJson(*m);
        // Absent in predictors stored before the GEMM shape model and the roofline classes.
        if (const JsonValue* g = o.find("gemm"))
            p.gemm = GemmEfficiency::fromJson(*g);
        if (o.find("roofline_classes"))
            p.kernelClasses = RooflineClasses::fromJson(o.requiredArray("roofline_classes"));
        if (o.find("features")) {
            for (const JsonValue& item : o.requiredArray("features").items()) {
                const JsonValue& obj = item.expectObject();
                FeatureModel::Weights w;
                int i = 0;
                for (const char* key : {"launch", "compute", "memory", "rows"}) {
                    w.w[size_t(i++)] = obj.requiredNumber(key);
                }
                w.samples = int64_t(obj.requiredNumber("samples"));
                p.features.byKind.emplace(obj.requiredString("kind"), w);
            }
        }
        for (const JsonValue& item : o.requiredArray("classes").items()) {
            const JsonValue& obj = item.expectObject();
            CostClass c;
            c.key = obj.requiredString("key");
            c.overheadNs = obj.requiredNumber("overhead_ns");
            c.nsPerFlop = obj.requiredNumber("ns_per_flop");
            c.nsPerByte = obj.requiredNumber("ns_per_byte");
            // Absent in predictors stored before the cache term and the ranges.
            c.nsPerByteOut = obj.optionalNumber("ns_per_byte_out").value_or(0);
            c.minWork = obj.optionalNumber("min_work").value_or(0);
            c.maxWork = obj.optionalNumber("max_work").value_or(0);
            c.samples = int64_t(obj.requiredNumber("samples"));
            c.scalarLoop = obj.optionalNumber("scalar_loop").value_or(0) != 0;   // absent before it: vectorized
            p.classes.emplace(c.key, c);
        }
        if (p.classes.empty() && !p.mlp)
            throw JsonError("classes: empty, a predictor has at least one");
        return p;
    } catch (const JsonError& e) {
        if (error)
            *error = e.what();
        return std::nullopt;
    }
}

const char* holdOutName(HoldOut h)
{
    switch (h) {
    case HoldOut::Run: return "run";
    case HoldOut::Workload: return "workload";
    case HoldOut::Preset: return "preset";
    case HoldOut::Variant: return "variant";
    }
    return "run";
}

const char* predictorKindName(PredictorKind k) { return k == PredictorKind::Mlp ? "mlp" : "regression"; }

std::optional<PredictorKind> parsePredictorKind(const std::string& text)
{
    for (PredictorKind k : {PredictorKind::Regression, PredictorKind::Mlp})
        if (text == predictorKindName(k))
            return k;
    return std::nullopt;
}

std::optional<HoldOut> parseHoldOut(const std::string& text)
{
    for (HoldOut h : {HoldOut::Run, HoldOut::Workload, HoldOut::Preset, HoldOut::Variant})
        if (text == holdOutName(h))
            return h;
    return std::nullopt;
}

std::string holdOutGroup(const RunSamples& r, HoldOut h)
{
    auto orNone = [](const std::string& v) { return v.empty() ? std::string("(none)") : v; };
    switch (h) {
    case HoldOut::Run:
        return "run " + std::to_string(r.run.id);
    case HoldOut::Workload: {
        // Block-sparse bert runs other kernels than dense bert: a workload of its own.
        if (r.run.workload == "bert") {
            try {
                const JsonValue config = JsonValue::parse(r.run.configJson);
                if (config.isObject())
                    if (auto density = config.optionalNumber("density"); density && *density < 1)
                        return "bert-blocksparse";
            } catch (const JsonError&) {
            }
        }
        return orNone(r.run.workload);
    }
    case HoldOut::Preset:
        return orNone(r.run.preset);
    case HoldOut::Variant:
        return orNone(r.run.variant);
    }
    return orNone(r.run.workload);
}

std::string configurationKey(const RunSamples& r)
{
    // A capture's configuration JSON names every size, the variant and the seed: two runs with
    // the same one on one device did the same launches (captured in separate calls, or by
    // `capture --repeat`). Runs without one (imports, synthetic runs) go by their repeat tag.
    const std::string& config = r.run.configJson;
    if (!config.empty() && config != "{}")
        return "config\n" + r.run.backend + '\n' + r.run.device + '\n' + r.run.workload + '\n' + config;
    return r.repeatId.empty() ? std::string() : "repeat\n" + r.repeatId;
}

Evaluation evaluate(const std::vector<RunSamples>& runs, const std::optional<DeviceSpec>& roofline)
{
    EvaluationOptions options;
    options.roofline = roofline;
    options.calibration = roofline;
    return evaluate(runs, options);
}


Evaluation evaluate(const std::vector<RunSamples>& runs, const EvaluationOptions& options)
{
    std::vector<size_t> usable;
    for (size_t i = 0; i < runs.size(); ++i) {
        bool any = false;
        for (const LaunchSample& s : runs[i].launches)
            any = any || s.timeNs >= 0;
        if (any)
            usable.push_back(i);
    }
    if (usable.size() < 2)
        throw std::invalid_argument("evaluation needs at least two measured runs with op features");
    // The units: the repeats of one configuration together, in order of first appearance. A
    // unit is held out whole (leave-one-run-out never fits on a repeat of the held-out run) and
    // compared as one: its measured figures are medians over the steps of all its repeats.
    std::vector<std::vector<size_t>> units;
    std::map<std::string, size_t> unitOfTag;
    for (size_t i : usable) {
        const std::string tag = configurationKey(runs[i]);
        auto it = tag.empty() ? unitOfTag.end() : unitOfTag.find(tag);
        if (it != unitOfTag.end()) {
            units[it->second].push_back(i);
        } else {
            if (!tag.empty())
                unitOfTag.emplace(tag, units.size());
            units.push_back({i});
        }
    }
    // The groups, in order of first appearance; a unit's group is its first run's.
    std::vector<std::string> groupOf(runs.size()), unitGroup(units.size()), order;
    for (size_t u = 0; u < units.size(); ++u) {
        unitGroup[u] = holdOutGroup(runs[units[u].front()], options.holdOut);
        for (size_t i : units[u])
            groupOf[i] = unitGroup[u];
        if (std::find(order.begin(), order.end(), unitGroup[u]) == order.end())
            order.push_back(unitGroup[u]);
    }
    if (order.size() < 2)
        throw std::invalid_argument(std::string("hold-out ") + holdOutName(options.holdOut) +
                                    " needs runs of at least two groups; every run is " + order.front());
    const std::optional<DeviceSpec>& roofline = options.roofline;
    Evaluation ev;
    ev.holdOut = options.holdOut;
    ev.model = options.model;
    ev.hasRoofline = roofline.has_value();
    std::vector<LayerError> layerErrors;
    int64_t layerPairs = 0;
    std::map<std::string, OpError> ops;
    for (const std::string& group : order) {
        // Fit on the runs of every other group: nothing of the held-out group reaches the fit.
        std::vector<const RunSamples*> train;
        double trainTime = 0, trainFlops = 0;
        for (size_t j : usable)
            if (groupOf[j] != group) {
                train.push_back(&runs[j]);
                for (const LaunchSample& s : runs[j].launches)
                    if (s.timeNs >= 0)
                        trainTime += double(s.timeNs), trainFlops += s.flops;
            }
        Predictor model;
        if (options.model == PredictorKind::Mlp) {
            model.calibration = options.calibration;
            model.mlp = MlpModel::fit(train, options.calibration.value_or(nominalCalibration()), options.seed, options.mlpSteps);
        } else {
            model = fitOn(train, "held-out", options.calibration);
        }
        const double nsPerFlop = trainFlops > 0 ? trainTime / trainFlops : 0;
        GroupEvaluation ge;
        ge.group = group;
        for (size_t u = 0; u < units.size(); ++u) {
            if (unitGroup[u] != group)
                continue;
            const RunSamples& first = runs[units[u].front()];
            // Per step of every repeat: the measured time of each layer and of the step (a
            // launch outside any step counts a share in each of its run's steps). The predictions
            // are the same for identical launches: their sums over the steps, per step.
            struct Sums { double model = 0, roof = 0, flops = 0; };
            std::map<std::string, Sums> predicted;
            Sums stepPredicted;
            std::map<std::string, std::vector<double>> layerSteps;   // per layer, one value per step
            std::vector<double> stepTotals;
            std::map<std::string, std::pair<double, double>> unitOps;   // per op name: measured, model (ns)
            double totalSteps = 0;
            // Per repeat: its steps' range in stepTotals and its predicted sums (for the per-run figures).
            struct RepeatPart { size_t base = 0, steps = 0; std::map<std::string, Sums> predicted; Sums step; };
            std::vector<RepeatPart> parts;
            for (size_t i : units[u]) {
                const RunSamples& r = runs[i];
                const size_t base = stepTotals.size();
                std::map<int64_t, size_t> stepIndex;
                size_t nSteps = size_t(std::max<int64_t>(r.steps, 1));
                for (const LaunchSample& s : r.launches)
                    if (s.timeNs >= 0 && s.stepInstance != 0 && stepIndex.emplace(s.stepInstance, stepIndex.size()).second)
                        nSteps = std::max(nSteps, stepIndex.size());
                totalSteps += double(nSteps);
                parts.push_back({base, nSteps, {}, {}});
                RepeatPart& part = parts.back();
                stepTotals.resize(base + nSteps, 0.0);
                for (auto& [layer, v] : layerSteps)
                    v.resize(base + nSteps, 0.0);
                for (const LaunchSample& s : r.launches) {
                    if (s.timeNs < 0)
                        continue;
                    const double measured = double(s.timeNs);
                    std::vector<double>& lv = layerSteps[s.layer];
                    lv.resize(base + nSteps, 0.0);
                    if (s.stepInstance != 0) {
                        const size_t at = base + stepIndex.at(s.stepInstance);
                        lv[at] += measured;
                        stepTotals[at] += measured;
                    } else {
                        for (size_t k = base; k < base + nSteps; ++k) {
                            lv[k] += measured / double(nSteps);
                            stepTotals[k] += measured / double(nSteps);
                        }
                    }
                    Sums one;
                    one.model = model.predictNs(s);
                    one.roof = roofline ? rooflineNs(*roofline, s) : 0;
                    one.flops = s.flops * nsPerFlop;
                    for (Sums* t : {&predicted[s.layer], &stepPredicted, &part.predicted[s.layer], &part.step}) {
                        t->model += one.model;
                        t->roof += one.roof;
                        t->flops += one.flops;
                    }
                    const std::string opKey = options.opsByGroup ? group + '\n' + s.name : s.name;
                    OpError& op = ops[opKey];
                    op.name = s.name;
                    op.group = options.opsByGroup ? group : std::string();
                    op.kind = s.kind;
                    ++op.launches;
                    op.byFeatures += model.classFor(s) ? 0 : 1;
                    unitOps[opKey].first += measured;
                    unitOps[opKey].second += one.model;
                }
            }
            // The op table's times per step of the unit (the mean over its repeats' steps).
            for (const auto& [name, t] : unitOps) {
                ops[name].measuredNs += t.first / totalSteps;
                ops[name].modelNs += t.second / totalSteps;
                ev.heldOutMeasuredNs += t.first / totalSteps;
            }
            RunEvaluation re;
            re.runId = first.run.id;
            re.name = first.run.name;
            re.group = group;
            re.repeats = int(units[u].size());
            re.measuredStepNs = medianOf(stepTotals);
            re.modelStepNs = stepPredicted.model / totalSteps;
            re.rooflineStepNs = stepPredicted.roof / totalSteps;
            re.flopsStepNs = stepPredicted.flops / totalSteps;
            for (const auto& [layer, v] : layerSteps) {
                const double measured = medianOf(v);
                if (!(measured > 0))
                    continue;
                const Sums& t = predicted[layer];
                const double modelNs = t.model / totalSteps, roofNs = t.roof / totalSteps, flopsNs = t.flops / totalSteps;
                re.layerMapeModel += ape(modelNs, measured);
                re.layerMapeRoofline += ape(roofNs, measured);
                re.layerMapeFlops += ape(flopsNs, measured);
                ++re.layers;
                LayerError le;
                le.runId = first.run.id;
                le.runName = first.run.name;
                le.group = group;
                le.layer = layer;
                le.measuredNs = measured;
                le.modelNs = modelNs;
                le.errorPct = (modelNs - measured) / measured * 100.0;
                le.stepShare = re.measuredStepNs > 0 ? measured / re.measuredStepNs : 0;
                ev.layers.push_back({first.run.id, group, layer, measured, modelNs, roofNs, flopsNs});
                layerErrors.push_back(std::move(le));
            }
            // The per-run figures: each repeat's own medians over its steps against its prediction,
            // and against the medians over the steps of its configuration's other repeats (the noise
            // floor: how far one run is from its siblings, which no predictor can be closer than).
            for (size_t q = 0; q < parts.size(); ++q) {
                const RepeatPart& part = parts[q];
                auto own = [&](const std::vector<double>& v) {
                    return medianOf(std::vector<double>(v.begin() + long(part.base), v.begin() + long(part.base + part.steps)));
                };
                auto others = [&](const std::vector<double>& v) {
                    std::vector<double> rest;
                    for (size_t k = 0; k < v.size(); ++k)
                        if (k < part.base || k >= part.base + part.steps)
                            rest.push_back(v[k]);
                    return medianOf(rest);
                };
                const double steps = double(part.steps), stepMeasured = own(stepTotals);
                if (stepMeasured > 0) {
                    ev.perRun.stepMapeModel += ape(part.step.model / steps, stepMeasured);
                    ev.perRun.stepMapeRoofline += ape(part.step.roof / steps, stepMeasured);
                    ev.perRun.stepMapeFlops += ape(part.step.flops / steps, stepMeasured);
                    ++ev.perRun.runs;
                    if (parts.size() > 1) {
                        ev.perRun.stepMapeRepeats += ape(stepMeasured, others(stepTotals));
                        ++ev.perRun.repeatRuns;
                    }
                }
                for (const auto& [layer, v] : layerSteps) {
                    const double measured = own(v);
                    if (!(measured > 0))
                        continue;
                    auto it = part.predicted.find(layer);
                    const Sums t = it == part.predicted.end() ? Sums {} : it->second;
                    ev.perRun.layerMapeModel += ape(t.model / steps, measured);
                    ev.perRun.layerMapeRoofline += ape(t.roof / steps, measured);
                    ev.perRun.layerMapeFlops += ape(t.flops / steps, measured);
                    ++ev.perRun.layers;
                    if (parts.size() > 1)
                        if (const double rest = others(v); rest > 0) {
                            ev.perRun.layerMapeRepeats += ape(measured, rest);
                            ++ev.perRun.repeatLayers;
                        }
                }
            }
            ev.layerMapeModel += re.layerMapeModel;
            ev.layerMapeRoofline += re.layerMapeRoofline;
            ev.layerMapeFlops += re.layerMapeFlops;
            ge.layerMapeModel += re.layerMapeModel;
            ge.layerMapeRoofline += re.layerMapeRoofline;
            ge.layerMapeFlops += re.layerMapeFlops;
            layerPairs += re.layers;
            ge.layers += re.layers;
            if (re.layers) {
                re.layerMapeModel /= re.layers;
                re.layerMapeRoofline /= re.layers;
                re.layerMapeFlops /= re.layers;
            }
            if (re.measuredStepNs > 0) {
                const double m = ape(re.modelStepNs, re.measuredStepNs), rf = ape(re.rooflineStepNs, re.measuredStepNs),
                             fl = ape(re.flopsStepNs, re.measuredStepNs);
                ev.stepMapeModel += m, ev.stepMapeRoofline += rf, ev.stepMapeFlops += fl;
                ge.stepMapeModel += m, ge.stepMapeRoofline += rf, ge.stepMapeFlops += fl;
            }
            ++ge.runs;
            ev.runs.push_back(re);
        }
        if (ge.runs) {
            ge.stepMapeModel /= ge.runs;
            ge.stepMapeRoofline /= ge.runs;
            ge.stepMapeFlops /= ge.runs;
        }
        if (ge.layers) {
            ge.layerMapeModel /= ge.layers;
            ge.layerMapeRoofline /= ge.layers;
            ge.layerMapeFlops /= ge.layers;
        }
        ev.groups.push_back(ge);
    }
    const double nRuns = double(ev.runs.size());
    ev.stepMapeModel /= nRuns;
    ev.stepMapeRoofline /= nRuns;
    ev.stepMapeFlops /= nRuns;
    if (layerPairs) {
        ev.layerMapeModel /= double(layerPairs);
        ev.layerMapeRoofline /= double(layerPairs);
        ev.layerMapeFlops /= double(layerPairs);
    }
    PerRunErrors& pr = ev.perRun;
    for (double* v : {&pr.stepMapeModel, &pr.stepMapeRoofline, &pr.stepMapeFlops})
        *v = pr.runs ? *v / double(pr.runs) : 0;
    for (double* v : {&pr.layerMapeModel, &pr.layerMapeRoofline, &pr.layerMapeFlops})
        *v = pr.layers ? *v / double(pr.layers) : 0;
    pr.stepMapeRepeats = pr.repeatRuns ? pr.stepMapeRepeats / double(pr.repeatRuns) : 0;
    pr.layerMapeRepeats = pr.repeatLayers ? pr.layerMapeRepeats / double(pr.repeatLayers) : 0;
    for (auto& [name, op] : ops)
        ev.ops.push_back(op);
    std::stable_sort(ev.ops.begin(), ev.ops.end(), [](const OpError& a, const OpError& b) {
        return std::fabs(a.modelNs - a.measuredNs) > std::fabs(b.modelNs - b.measuredNs);
    });
    if (ev.ops.size() > options.worstOps)
        ev.ops.resize(options.worstOps);
    // The worst layers: largest absolute error first; ties by run and layer, so the order is stable.
    std::stable_sort(layerErrors.begin(), layerErrors.end(), [](const LayerError& a, const LayerError& b) {
        return std::fabs(a.errorPct) > std::fabs(b.errorPct);
    });
    if (layerErrors.size() > options.worstLayers)
        layerErrors.resize(options.worstLayers);
    ev.worst = std::move(layerErrors);
    return ev;
}

}  // namespace wt
