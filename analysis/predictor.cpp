#include "analysis/predictor.h"

#include "analysis/jsonvalue.h"
#include "storage/json.h"

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace wt {

namespace {

// Solves the n x n system a x = b (n <= 3) by Gaussian elimination with pivoting; false when singular.
bool solve(int n, std::array<std::array<double, 3>, 3> a, std::array<double, 3> b, std::array<double, 3>& x)
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

std::string kindKey(const std::string& kind) { return "kind:" + kind; }

// The most specific class: the op name in its op scope ("sgemm_nt@conv_gemm"): one name (a
// GEMM, a copy) runs at very different shapes and efficiencies in different ops.
std::string scopedKey(const LaunchSample& s)
{
    const size_t slash = s.path.rfind('/');
    return s.name + "@" + (slash == std::string::npos ? s.path : s.path.substr(slash + 1));
}

double ape(double predicted, double measured) { return std::fabs(predicted - measured) / measured * 100.0; }

}  // namespace

std::optional<CostClass> fitCostClass(const std::string& key, const std::vector<double>& flops,
                                      const std::vector<double>& bytes, const std::vector<double>& timeNs)
{
    const size_t n = timeNs.size();
    if (n == 0)
        return std::nullopt;
    // Relative error: minimize sum ((x_i . c) / t_i - 1)^2, i.e. rows a_i = x_i / t_i against 1.
    // The columns of A are scaled to unit norm first: times span 10^2..10^9 ns, and unscaled
    // normal equations would lose the small terms.
    auto column = [&](int c, size_t i) { return c == 0 ? 1.0 : c == 1 ? flops[i] : bytes[i]; };
    std::array<double, 3> norm {};
    for (size_t i = 0; i < n; ++i)
        if (timeNs[i] > 0)
            for (int c = 0; c < 3; ++c)
                norm[size_t(c)] += (column(c, i) / timeNs[i]) * (column(c, i) / timeNs[i]);
    for (double& v : norm)
        v = std::sqrt(v);
    CostClass best;
    best.key = key;
    best.samples = int64_t(n);
    double bestErr = std::numeric_limits<double>::infinity();
    // Every non-empty subset of {overhead, flops, bytes} whose solution is non-negative; the
    // one with the least squared relative error (the non-negative least-squares optimum).
    for (int mask = 1; mask < 8; ++mask) {
        bool usable = true;
        for (int c = 0; c < 3; ++c)
            usable = usable && (!(mask & (1 << c)) || norm[size_t(c)] > 0);
        if (!usable)
            continue;   // a column that is zero everywhere
        std::array<int, 3> cols {};
        int m = 0;
        for (int c = 0; c < 3; ++c)
            if (mask & (1 << c))
                cols[size_t(m++)] = c;
        auto a = [&](int r, size_t i) { return column(cols[size_t(r)], i) / timeNs[i] / norm[size_t(cols[size_t(r)])]; };
        std::array<std::array<double, 3>, 3> ata {};
        std::array<double, 3> atb {}, x {};
        for (size_t i = 0; i < n; ++i) {
            if (!(timeNs[i] > 0))
                continue;
            for (int r = 0; r < m; ++r) {
                atb[size_t(r)] += a(r, i);
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
            err += (p - 1) * (p - 1);
        }
        if (err < bestErr) {
            bestErr = err;
            best.overheadNs = best.nsPerFlop = best.nsPerByte = 0;
            for (int r = 0; r < m; ++r) {
                const int c = cols[size_t(r)];
                (c == 0 ? best.overheadNs : c == 1 ? best.nsPerFlop : best.nsPerByte) = x[size_t(r)] / norm[size_t(c)];
            }
        }
    }
    if (!std::isfinite(bestErr)) {   // no usable system (all times zero): the mean as overhead
        double s = 0;
        for (double t : timeNs)
            s += t;
        best.overheadNs = s / double(n);
    }
    return best;
}

Predictor Predictor::fit(const std::vector<RunSamples>& runs, const std::string& name)
{
    struct Columns { std::vector<double> f, b, t; };
    std::map<std::string, Columns> byKey;
    Predictor p;
    p.name = name;
    for (const RunSamples& r : runs) {
        if (p.device.empty())
            p.device = r.run.device;
        for (const LaunchSample& s : r.launches) {
            if (s.timeNs < 0)
                continue;
            for (const std::string& key : {scopedKey(s), s.name, kindKey(s.kind), std::string("*")}) {
                Columns& c = byKey[key];
                c.f.push_back(s.flops);
                c.b.push_back(s.bytes());
                c.t.push_back(double(s.timeNs));
            }
        }
    }
    if (byKey.empty())
        throw std::invalid_argument("no measured launches with op features to fit on (capture runs with this version)");
    for (auto& [key, c] : byKey)
        if (auto cls = fitCostClass(key, c.f, c.b, c.t))
            p.classes.emplace(key, *cls);
    return p;
}

const CostClass* Predictor::classFor(const LaunchSample& s) const
{
    for (const std::string& key : {scopedKey(s), s.name, kindKey(s.kind), std::string("*")}) {
        auto it = classes.find(key);
        if (it != classes.end() && (it->second.samples >= kMinSamples || key == "*"))
            return &it->second;
    }
    return nullptr;
}

double Predictor::predictNs(const LaunchSample& s) const
{
    const CostClass* c = classFor(s);
    return c ? c->predictNs(s.flops, s.bytes()) : 0.0;
}

std::string Predictor::toJson() const
{
    std::string out = "{\"name\":" + json::quote(name) + ",\"device\":" + json::quote(device) +
                      ",\"form\":\"overhead + ns_per_flop*flops + ns_per_byte*bytes\",\"classes\":[";
    bool first = true;
    for (const auto& [key, c] : classes) {
        out += (first ? "" : ",");
        first = false;
        out += "\n{\"key\":" + json::quote(key) + ",\"overhead_ns\":" + json::number(c.overheadNs) +
               ",\"ns_per_flop\":" + json::number(c.nsPerFlop) + ",\"ns_per_byte\":" + json::number(c.nsPerByte) +
               ",\"samples\":" + std::to_string(c.samples) + "}";
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
        for (const JsonValue& item : o.requiredArray("classes").items()) {
            const JsonValue& obj = item.expectObject();
            CostClass c;
            c.key = obj.requiredString("key");
            c.overheadNs = obj.requiredNumber("overhead_ns");
            c.nsPerFlop = obj.requiredNumber("ns_per_flop");
            c.nsPerByte = obj.requiredNumber("ns_per_byte");
            c.samples = int64_t(obj.requiredNumber("samples"));
            p.classes.emplace(c.key, c);
        }
        if (p.classes.empty())
            throw JsonError("classes: empty, a predictor has at least one");
        return p;
    } catch (const JsonError& e) {
        if (error)
            *error = e.what();
        return std::nullopt;
    }
}

Evaluation evaluate(const std::vector<RunSamples>& runs, const std::optional<DeviceSpec>& roofline)
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
    Evaluation ev;
    ev.hasRoofline = roofline.has_value();
    int64_t layerPairs = 0;
    for (size_t held : usable) {
        std::vector<RunSamples> train;
        double trainTime = 0, trainFlops = 0;
        for (size_t j : usable)
            if (j != held) {
                train.push_back(runs[j]);
                for (const LaunchSample& s : runs[j].launches)
                    if (s.timeNs >= 0)
                        trainTime += double(s.timeNs), trainFlops += s.flops;
            }
        const Predictor model = Predictor::fit(train, "held-out");
        const double nsPerFlop = trainFlops > 0 ? trainTime / trainFlops : 0;
        const RunSamples& r = runs[held];
        const double steps = double(std::max<int64_t>(r.steps, 1));
        struct Sums { double measured = 0, model = 0, roof = 0, flops = 0; };
        std::map<std::string, Sums> layers;
        Sums step;
        for (const LaunchSample& s : r.launches) {
            if (s.timeNs < 0)
                continue;
            Sums one;
            one.measured = double(s.timeNs);
            one.model = model.predictNs(s);
            one.roof = roofline ? rooflineNs(*roofline, s) : 0;
            one.flops = s.flops * nsPerFlop;
            for (Sums* t : {&layers[s.layer], &step}) {
                t->measured += one.measured;
                t->model += one.model;
                t->roof += one.roof;
                t->flops += one.flops;
            }
        }
        RunEvaluation re;
        re.runId = r.run.id;
        re.name = r.run.name;
        re.measuredStepNs = step.measured / steps;
        re.modelStepNs = step.model / steps;
        re.rooflineStepNs = step.roof / steps;
        re.flopsStepNs = step.flops / steps;
        for (const auto& [layer, t] : layers) {
            if (!(t.measured > 0))
                continue;
            re.layerMapeModel += ape(t.model, t.measured);
            re.layerMapeRoofline += ape(t.roof, t.measured);
            re.layerMapeFlops += ape(t.flops, t.measured);
            ++re.layers;
        }
        ev.layerMapeModel += re.layerMapeModel;
        ev.layerMapeRoofline += re.layerMapeRoofline;
        ev.layerMapeFlops += re.layerMapeFlops;
        layerPairs += re.layers;
        if (re.layers) {
            re.layerMapeModel /= re.layers;
            re.layerMapeRoofline /= re.layers;
            re.layerMapeFlops /= re.layers;
        }
        if (re.measuredStepNs > 0) {
            ev.stepMapeModel += ape(re.modelStepNs, re.measuredStepNs);
            ev.stepMapeRoofline += ape(re.rooflineStepNs, re.measuredStepNs);
            ev.stepMapeFlops += ape(re.flopsStepNs, re.measuredStepNs);
        }
        ev.runs.push_back(re);
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
    return ev;
}

}  // namespace wt
