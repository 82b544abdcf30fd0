#include "analysis/variants.h"

#include "analysis/jsonvalue.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace wt {

namespace {

// The stored configuration is one flat JSON object written by kernels (ModelConfig::toJson):
// strings, numbers and one array of numbers. Values are kept as text (numbers as written, so
// settings compare as stored); an array becomes "a,b,c". No configuration (imports: "{}" or
// nothing) gives no settings; a damaged one is a VariantsError that names the run.
std::vector<std::pair<std::string, std::string>> configSettings(const RunInfo& run)
{
    std::vector<std::pair<std::string, std::string>> out;
    if (run.configJson.find_first_not_of(" \t\r\n") == std::string::npos)
        return out;
    try {
        const JsonValue document = JsonValue::parse(run.configJson);
        const JsonValue& config = document.expectObject();
        for (const auto& [key, v] : config.fields()) {
            if (v.isObject())
                throw JsonError(v.path() + ": an object, not a setting");
            if (!v.isArray()) {
                out.emplace_back(key, v.text());
                continue;
            }
            std::string value;
            for (const JsonValue& item : v.items()) {
                if (item.isObject() || item.isArray())
                    throw JsonError(item.path() + ": " + JsonValue::typeName(item.type()) + ", not a setting");
                value += (value.empty() ? "" : ",") + item.text();
            }
            out.emplace_back(key, std::move(value));
        }
    } catch (const JsonError& e) {
        throw VariantsError("run " + std::to_string(run.id) + " (" + run.name + "): its stored configuration is damaged: " +
                            e.what());
    }
    return out;
}

const std::string* find(const std::vector<std::pair<std::string, std::string>>& settings, const std::string& key)
{
    for (const auto& [k, v] : settings)
        if (k == key)
            return &v;
    return nullptr;
}

std::string settingsMismatch(const std::vector<SettingDifference>& diffs)
{
    std::string s = "the runs differ in " + std::to_string(diffs.size()) + " settings: ";
    for (size_t i = 0; i < diffs.size(); ++i) {
        s += (i ? ", " : "") + diffs[i].key + " (";
        for (size_t j = 0; j < diffs[i].values.size(); ++j)
            s += (j ? ", " : "") + (diffs[i].values[j].empty() ? std::string("-") : diffs[i].values[j]);
        s += ")";
    }
    return s + "; pick runs that differ in one";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> runSettings(const RunInfo& run)
{
    std::map<std::string, std::string> s;
    for (auto& [k, v] : configSettings(run))
        s[k] = v;
    s.erase("tokens");   // batch * seq
    // The stored config leaves the cutoffs of `full` empty; it has none, so there is nothing to differ.
    std::string variant = s.count("variant") ? s["variant"] : run.variant;
    if (variant == "full")
        s.erase("cutoffs");
    // RunInfo's own fields win over (and fill in for) the config's: imports have no config.
    s["workload"] = run.workload;
    if (!run.variant.empty() || s.count("variant"))
        s["variant"] = run.variant.empty() ? s["variant"] : run.variant;
    if (!run.preset.empty())
        s["preset"] = run.preset;
    // "backend" in the config is cpu|cuda, in RunInfo the tracer (cpu|cupti|import): the config's
    // says the same for captures, RunInfo's is all an import has.
    if (!s.count("backend"))
        s["backend"] = run.backend;
    s["device"] = run.device;
    return {s.begin(), s.end()};
}

std::vector<SettingDifference> differingSettings(const std::vector<const RunInfo*>& runs)
{
    std::vector<std::vector<std::pair<std::string, std::string>>> all;
    std::set<std::string> keys;
    for (const RunInfo* r : runs) {
        all.push_back(runSettings(*r));
        for (const auto& [k, v] : all.back())
            keys.insert(k);
    }
    std::vector<SettingDifference> out;
    for (const std::string& key : keys) {
        SettingDifference d;
        d.key = key;
        // A setting a run does not have (the cutoffs of `full`) cannot differ there: only the
        // runs that have it are compared.
        const std::string* first = nullptr;
        bool differs = false;
        for (const auto& settings : all) {
            const std::string* v = find(settings, key);
            d.values.push_back(v ? *v : std::string());
            if (v && !first)
                first = v;
            differs |= v && *v != *first;
        }
        if (differs)
            out.push_back(std::move(d));
    }
    return out;
}

std::optional<RunInfo> newestCapture(const std::vector<RunInfo>& runs, const std::string& workload)
{
    const RunInfo* best = nullptr;
    for (const RunInfo& r : runs) {
        if (r.status != RunStatus::Complete || r.backend == "import")
            continue;
        if (!workload.empty() && r.workload != workload)
            continue;
        if (!best || r.id > best->id)
            best = &r;
    }
    if (!best)
        return std::nullopt;
    return *best;
}

std::vector<int64_t> selectVariantRuns(const std::vector<RunInfo>& runs, const RunInfo& anchor, const std::string& setting)
{
    auto anchorSettings = runSettings(anchor);
    // Equal in every setting but `setting`; a setting one of the two lacks (the cutoffs of `full`) matches.
    auto sameOtherwise = [&](const std::vector<std::pair<std::string, std::string>>& other) {
        for (const auto& [k, v] : other) {
            if (k == setting)
                continue;
            const std::string* mine = find(anchorSettings, k);
            if (mine && *mine != v)
                return false;
        }
        return true;
    };
    const std::string* anchorValuePtr = find(anchorSettings, setting);
    const std::string anchorValue = anchorValuePtr ? *anchorValuePtr : std::string();
    std::map<std::string, int64_t> newestByValue;   // setting's value -> newest run id
    for (const RunInfo& r : runs) {
        if (r.id == anchor.id || r.status != RunStatus::Complete || r.backend == "import")
            continue;
        auto settings = runSettings(r);
        if (!sameOtherwise(settings))
            continue;
        const std::string* v = find(settings, setting);
        std::string value = v ? *v : std::string();
        if (value == anchorValue)
            continue;   // the anchor stands for its own value
        auto [it, isNew] = newestByValue.try_emplace(value, r.id);
        if (!isNew)
            it->second = std::max(it->second, r.id);
    }
    newestByValue[anchorValue] = anchor.id;
    std::vector<int64_t> ids;
    for (const auto& [value, id] : newestByValue)
        ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    return ids;
}

VariantsTable computeVariants(const std::vector<const CompareRun*>& runs, const VariantsOptions& options)
{
    if (runs.empty())
        throw VariantsError("no runs to show");
    std::vector<const RunInfo*> infos;
    for (const CompareRun* r : runs)
        infos.push_back(&r->info);
    std::vector<SettingDifference> diffs = differingSettings(infos);
    // The device and the backend follow from each other (a cupti run is on a GPU); so does the
    // preset from sizes that were all set: count the setting that explains the others once.
    if (diffs.size() > 1) {
        auto only = [&](std::initializer_list<const char*> keys) {
            return std::all_of(diffs.begin(), diffs.end(), [&](const SettingDifference& d) {
                return std::find_if(keys.begin(), keys.end(), [&](const char* k) { return d.key == k; }) != keys.end();
            });
        };
        if (only({"backend", "device"}))
            diffs.erase(std::remove_if(diffs.begin(), diffs.end(), [](const SettingDifference& d) { return d.key != "device"; }),
                        diffs.end());
    }
    if (diffs.size() > 1)
        throw VariantsError(settingsMismatch(diffs));

    VariantsTable t;
    t.layer = options.layer;
    if (!diffs.empty())
        t.setting = diffs.front().key;
    for (const CompareRun* r : runs)
        if (r->steps <= 0)
            throw VariantsError("run " + std::to_string(r->info.id) + (r->file.empty() ? "" : " of " + r->file) +
                                " has no steps: variants are compared per step");

    // Every number is compareRuns' at the layer grouping, per step: the same as `wheretime compare`.
    auto compare = [&](GroupBy groupBy, std::vector<GroupFilter> filters) {
        CompareOptions co;
        co.groupBy = groupBy;
        co.filters = std::move(filters);
        co.per = ComparePer::Step;
        try {
            return compareRuns(runs, co);
        } catch (const CompareError& e) {
            throw VariantsError(e.what());
        }
    };
    Comparison all = compare(GroupBy::Layer, {});
    Comparison fwd = compare(GroupBy::Layer, {{GroupBy::Phase, "forward"}});
    Comparison bwd = compare(GroupBy::Layer, {{GroupBy::Phase, "backward"}});
    Comparison ops = compare(GroupBy::Op, {{GroupBy::Layer, options.layer}});
    auto cellOf = [&](const Comparison& c, size_t i) -> const CompareCell* {
        for (const CompareGroup& g : c.groups)
            if (g.path == options.layer)
                return g.cells[i].present ? &g.cells[i] : nullptr;
        return nullptr;
    };

    // Op stacking order: largest summed over the runs first, ties by name.
    std::vector<std::pair<double, std::string>> order;
    for (const CompareGroup& g : ops.groups) {
        double sum = 0;
        for (const CompareCell& c : g.cells)
            sum += c.ns;
        order.emplace_back(sum, g.path);
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& [sum, name] : order)
        t.opNames.push_back(name);

    for (size_t i = 0; i < runs.size(); ++i) {
        const CompareRun& r = *runs[i];
        VariantRow row;
        row.file = r.file;
        row.info = r.info;
        row.steps = r.steps;
        if (t.setting.empty()) {
            row.value = r.info.variant;
        } else {
            row.value = diffs.front().values[i];
        }
        const CompareCell* layer = cellOf(all, i);
        row.hasLayer = layer != nullptr;
        if (!row.hasLayer)
            t.notes.push_back("run " + std::to_string(r.info.id) + " has no kernels in layer " + options.layer);
        row.layerNs = layer ? layer->ns : 0;
        const CompareCell* f = cellOf(fwd, i);
        const CompareCell* b = cellOf(bwd, i);
        row.forwardNs = f ? f->ns : 0;
        row.backwardNs = b ? b->ns : 0;
        row.updateNs = std::max(0.0, row.layerNs - row.forwardNs - row.backwardNs);
        row.stepNs = all.runs[i].total.ns;
        row.share = row.stepNs > 0 ? row.layerNs / row.stepNs : 0;
        // The step scopes' mean span; runs without them (hand-made, imports): the traced span per step.
        row.stepWallNs = r.stepWallNs > 0 ? r.stepWallNs : double(r.info.durationNs) / double(r.steps);
        for (const std::string& name : t.opNames) {
            VariantOp op;
            op.name = name;
            for (const CompareGroup& g : ops.groups)
                if (g.path == name)
                    op.ns = g.cells[i].ns;
            row.ops.push_back(std::move(op));
        }
        t.rows.push_back(std::move(row));
    }

    t.baseline = 0;
    if (!options.baseline.empty()) {
        auto it = std::find_if(t.rows.begin(), t.rows.end(), [&](const VariantRow& r) { return r.value == options.baseline; });
        if (it != t.rows.end())
            t.baseline = size_t(it - t.rows.begin());
        else if (!(options.baseline == "adaptive" && !t.setting.empty() && t.setting != "variant"))
            t.notes.push_back("no run has " + (t.setting.empty() ? std::string("variant") : t.setting) + " " +
                              options.baseline + ": the first run is the baseline");
    }
    const VariantRow& base = t.rows[t.baseline];
    auto ratio = [](double baseNs, double ns) -> std::optional<double> {
        if (ns <= 0 || baseNs <= 0)
            return std::nullopt;
        return baseNs / ns;
    };
    for (VariantRow& r : t.rows) {
        r.speedup = ratio(base.layerNs, r.layerNs);
        r.forwardSpeedup = ratio(base.forwardNs, r.forwardNs);
        r.backwardSpeedup = ratio(base.backwardNs, r.backwardNs);
        r.stepSpeedup = ratio(base.stepNs, r.stepNs);
    }

    // Noise: Welch on the per-step samples of compareRuns (the layer cell, the total), against
    // the baseline's; the layer's verdicts under Holm over the other runs.
    const CompareGroup* layerGroup = nullptr;
    for (const CompareGroup& g : all.groups)
        if (g.path == options.layer)
            layerGroup = &g;
    auto speedupRange = [](double baseNs, const WelchInterval& w, std::optional<double>& low, std::optional<double>& high) {
        if (baseNs <= 0)
            return;
        low = baseNs + w.high > 0 ? std::optional<double>(baseNs / (baseNs + w.high)) : std::nullopt;
        high = baseNs + w.low > 0 ? std::optional<double>(baseNs / (baseNs + w.low)) : std::nullopt;
    };
    std::vector<std::optional<WelchInterval>> layerW(t.rows.size());
    std::vector<double> p;
    std::vector<size_t> tested;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        if (i == t.baseline)
            continue;
        VariantRow& r = t.rows[i];
        const auto stepW = welchInterval(all.runs[t.baseline].total.stats, all.runs[i].total.stats);
        if (stepW) {
            speedupRange(base.stepNs, *stepW, r.stepSpeedupLow, r.stepSpeedupHigh);
            r.stepVerdict = verdictOf(stepW, stepW->p);
        }
        if (layerGroup)
            layerW[i] = welchInterval(layerGroup->cells[t.baseline].stats, layerGroup->cells[i].stats);
        if (layerW[i]) {
            speedupRange(base.layerNs, *layerW[i], r.speedupLow, r.speedupHigh);
            p.push_back(layerW[i]->p);
            tested.push_back(i);
        }
    }
    const std::vector<double> adjusted = holmAdjust(p);
    for (size_t k = 0; k < tested.size(); ++k)
        t.rows[tested[k]].verdict = verdictOf(layerW[tested[k]], adjusted[k]);
    return t;
}

}  // namespace wt
