#include "analysis/rooflineclasses.h"

#include "analysis/jsonvalue.h"
#include "analysis/predictor.h"
#include "storage/json.h"

#include <algorithm>
#include <set>

namespace wt {

std::vector<std::string> RooflineClasses::keysOf(const LaunchSample& s, const DeviceSpec& cal)
{
    const std::string bound = toString(rooflineTerms(cal, s).by());
    return {bound + (rowsOf(s) > 0 ? "/rows" : "/elements"), bound, "*"};
}

RooflineClasses RooflineClasses::fit(const std::vector<LaunchSample>& launches, const std::vector<double>& timeNs,
                                     const DeviceSpec& cal)
{
    struct Samples { std::vector<std::pair<double, double>> ratioWeight; std::set<std::string> ops; };
    std::map<std::string, Samples> byKey;
    for (size_t i = 0; i < launches.size(); ++i) {
        const LaunchSample& s = launches[i];
        const double bound = rooflineNs(cal, s);
        if (s.kind != "kernel" || !(timeNs[i] > 0) || !(bound > 0))
            continue;
        for (const std::string& key : keysOf(s, cal)) {
            Samples& c = byKey[key];
            c.ratioWeight.emplace_back(timeNs[i] / bound, timeNs[i]);
            c.ops.insert(s.name);
        }
    }
    RooflineClasses out;
    for (auto& [key, c] : byKey) {
        // The weighted median: the ratio at half of the summed time.
        std::sort(c.ratioWeight.begin(), c.ratioWeight.end());
        double total = 0;
        for (const auto& [r, w] : c.ratioWeight)
            total += w;
        double acc = 0;
        Class cls;
        for (const auto& [r, w] : c.ratioWeight) {
            acc += w;
            cls.ratio = r;
            if (acc >= 0.5 * total)
                break;
        }
        cls.samples = int64_t(c.ratioWeight.size());
        cls.ops = int(c.ops.size());
        out.byKey.emplace(key, cls);
    }
    return out;
}

const RooflineClasses::Class* RooflineClasses::classFor(const LaunchSample& s, const DeviceSpec& cal) const
{
    for (const std::string& key : keysOf(s, cal)) {
        auto it = byKey.find(key);
        if (it != byKey.end() && (it->second.ops >= kMinOps || key == "*"))
            return &it->second;
    }
    return nullptr;
}

std::optional<double> RooflineClasses::predictNs(const LaunchSample& s, const DeviceSpec& cal) const
{
    const Class* c = classFor(s, cal);
    if (!c)
        return std::nullopt;
    return c->ratio * rooflineNs(cal, s);
}

std::string RooflineClasses::toJson() const
{
    std::string out = "[";
    bool first = true;
    for (const auto& [key, c] : byKey) {
        out += (first ? "" : ",");
        first = false;
        out += "{\"class\":" + json::quote(key) + ",\"ratio\":" + json::number(c.ratio) +
               ",\"samples\":" + std::to_string(c.samples) + ",\"ops\":" + std::to_string(c.ops) + "}";
    }
    return out + "]";
}

RooflineClasses RooflineClasses::fromJson(const JsonValue& array)
{
    RooflineClasses out;
    for (const JsonValue& item : array.items()) {
        const JsonValue& o = item.expectObject();
        Class c;
        c.ratio = o.requiredNumber("ratio");
        c.samples = int64_t(o.requiredNumber("samples"));
        c.ops = int(o.requiredNumber("ops"));
        if (!(c.ratio > 0))
            throw JsonError(o.path() + ".ratio: not positive");
        out.byKey.emplace(o.requiredString("class"), c);
    }
    return out;
}

}  // namespace wt
