#include "analysis/sweep.h"

#include "analysis/breakdown.h"
#include "storage/reader.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <unordered_map>

namespace wt {

namespace {

std::optional<double> numberOf(const std::string& text)
{
    if (text.empty())
        return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size())
        return std::nullopt;
    return v;
}

}  // namespace

std::optional<SweepTag> sweepTagOf(const std::vector<std::pair<std::string, std::string>>& metadata)
{
    SweepTag t;
    bool any = false;
    for (const auto& [k, v] : metadata) {
        if (k == kSweepIdKey) {
            t.id = v;
            any = true;
        } else if (k == kSweepKeyKey) {
            t.key = v;
        } else if (k == kSweepValueKey) {
            t.value = v;
        } else if (k == kSweepKey2Key) {
            t.key2 = v;
        } else if (k == kSweepValue2Key) {
            t.value2 = v;
        } else if (k == kSweepIndexKey) {
            int i = -1;
            auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
            if (ec == std::errc() && p == v.data() + v.size())
                t.index = i;
        }
    }
    if (!any || t.id.empty() || t.key.empty())
        return std::nullopt;
    return t;
}

bool sweepValueOrder(std::vector<std::string>& values)
{
    std::vector<std::pair<double, std::string>> numbers;
    for (const std::string& v : values) {
        auto x = numberOf(v);
        if (!x)
            return false;
        numbers.emplace_back(*x, v);
    }
    std::stable_sort(numbers.begin(), numbers.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < values.size(); ++i)
        values[i] = numbers[i].second;
    return true;
}

std::vector<SweepInfo> listSweeps(const Reader& reader)
{
    struct Seen {
        SweepInfo info;
        std::vector<std::pair<int, std::string>> values, values2;   // (index, value) for capture order
    };
    std::vector<Seen> sweeps;
    std::unordered_map<std::string, size_t> index;
    std::vector<RunInfo> runs = reader.runs();
    std::sort(runs.begin(), runs.end(), [](const RunInfo& a, const RunInfo& b) { return a.id < b.id; });
    for (const RunInfo& r : runs) {
        auto tag = sweepTagOf(reader.metadata(r.id));
        if (!tag)
            continue;
        auto [it, isNew] = index.try_emplace(tag->id, sweeps.size());
        if (isNew) {
            Seen s;
            s.info.id = tag->id;
            s.info.key = tag->key;
            s.info.key2 = tag->key2;
            s.info.workload = r.workload;
            s.info.preset = r.preset;
            s.info.backend = r.backend;
            s.info.startedAt = r.startedAt;
            sweeps.push_back(std::move(s));
        }
        Seen& s = sweeps[it->second];
        s.info.runIds.push_back(r.id);
        int order = tag->index >= 0 ? tag->index : int(s.info.runIds.size());
        s.values.emplace_back(order, tag->value);
        if (!tag->key2.empty())
            s.values2.emplace_back(order, tag->value2);
    }
    std::vector<SweepInfo> out;
    for (Seen& s : sweeps) {
        auto distinct = [](std::vector<std::pair<int, std::string>> v) {
            std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            std::vector<std::string> d;
            for (auto& [i, value] : v)
                if (std::find(d.begin(), d.end(), value) == d.end())
                    d.push_back(value);
            return d;
        };
        s.info.values = distinct(s.values);
        sweepValueOrder(s.info.values);
        s.info.values2 = distinct(s.values2);
        out.push_back(std::move(s.info));
    }
    return out;
}

SweepTable computeSweep(const SweepInfo& sweep, const std::vector<const SweepRun*>& runs, const SweepOptions& options)
{
    if (runs.empty())
        throw SweepError("sweep " + sweep.id + " has no runs");
    SweepTable t;
    t.sweep = sweep;
    bool variantGrid = !sweep.key2.empty() && sweep.key == "variant";
    t.xKey = variantGrid ? sweep.key2 : sweep.key;
    t.groupKey = variantGrid ? sweep.key : sweep.key2;
    t.xValues = variantGrid ? sweep.values2 : sweep.values;
    std::vector<std::string> groups = variantGrid ? sweep.values : sweep.values2;
    if (groups.empty())
        groups.push_back({});
    t.numeric = sweepValueOrder(t.xValues);

    // Per run: the layer breakdown (compareRuns' numbers at the layer grouping) as whole-run
    // totals, divided by the steps of a point's repeats together, and each layer's per-step samples.
    struct RunFigures {
        const SweepRun* run;
        std::string x, group;
        int64_t totalNs = 0;
        std::unordered_map<std::string, int64_t> layerTotalNs;
        std::unordered_map<std::string, std::vector<double>> samples;
    };
    std::vector<RunFigures> figures;
    std::unordered_map<std::string, double> layerSum;
    BreakdownOptions bo;
    bo.groupBy = GroupBy::Layer;
    for (const SweepRun* r : runs) {
        if (r->run.steps <= 0) {
            // A run still being captured (or one that failed before its first step): left out.
            t.notes.push_back("run " + std::to_string(r->run.info.id) + " (" + r->tag.value +
                              (r->tag.value2.empty() ? "" : ", " + r->tag.value2) + ") has no steps yet (" +
                              std::string(toString(r->run.info.status)) + "): left out");
            continue;
        }
        RunFigures f;
        f.run = r;
        f.x = variantGrid ? r->tag.value2 : r->tag.value;
        f.group = variantGrid ? r->tag.value : r->tag.value2;
        Breakdown b = computeBreakdown(r->run.totals, r->run.tree, r->run.strings, bo);
        double steps = double(r->run.steps);
        f.totalNs = b.totalNs;
        for (const Group& g : b.groups) {
            f.layerTotalNs[g.path] = g.timeNs;
            layerSum[g.path] += double(g.timeNs) / steps;
        }
        f.samples = groupStepSamples(r->run, bo);
        if (r->run.info.status != RunStatus::Complete)
            t.notes.push_back("run " + std::to_string(r->run.info.id) + " is " + std::string(toString(r->run.info.status)));
        figures.push_back(std::move(f));
    }
    if (figures.empty())
        throw SweepError("no run of sweep " + sweep.id + " has steps yet");

    std::vector<std::pair<double, std::string>> layers;
    for (const auto& [name, sum] : layerSum)
        layers.emplace_back(sum, name);
    std::sort(layers.begin(), layers.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& [sum, name] : layers)
        if (options.layer.empty() || name == options.layer)
            t.layers.push_back(name);
    if (!options.layer.empty() && t.layers.empty())
        throw SweepError("no run of sweep " + sweep.id + " has kernels in layer " + options.layer);

    for (const std::string& layer : t.layers) {
        for (const std::string& group : groups) {
            SweepSeries s;
            s.layer = layer;
            s.group = group;
            s.name = layer;
            if (!group.empty())
                s.name += " " + (t.groupKey == "variant" ? group : t.groupKey + "=" + group);
            for (const std::string& x : t.xValues) {
                const RunFigures* f = nullptr;
                for (const RunFigures& c : figures)
                    if (c.x == x && c.group == group && (!f || c.run->run.info.id > f->run->run.info.id))
                        f = &c;   // the newest run of the point, should a sweep id repeat
                if (!f)
                    continue;
                // The point's runs: the newest one's repeats (same repeat id), else that run.
                std::vector<const RunFigures*> repeats;
                for (const RunFigures& c : figures)
                    if (&c == f || (!f->run->repeatId.empty() && c.x == x && c.group == group && c.run->repeatId == f->run->repeatId))
                        repeats.push_back(&c);
                SweepPoint p;
                p.value = x;
                if (t.numeric)
                    p.x = numberOf(x);
                p.runId = f->run->run.info.id;
                int64_t steps = 0, layerNs = 0, stepNs = 0;
                bool sampled = true;
                std::vector<double> samples;
                for (const RunFigures* c : repeats) {
                    p.repeatRunIds.push_back(c->run->run.info.id);
                    steps += c->run->run.steps;
                    stepNs += c->totalNs;
                    auto it = c->layerTotalNs.find(layer);
                    if (it != c->layerTotalNs.end()) {
                        p.present = true;
                        layerNs += it->second;
                    }
                    const size_t read = c->run->run.stepTotals.size();
                    sampled &= read > 0;
                    auto st = c->samples.find(layer);
                    if (st != c->samples.end())
                        samples.insert(samples.end(), st->second.begin(), st->second.end());
                    else
                        samples.insert(samples.end(), read, 0.0);
                }
                std::sort(p.repeatRunIds.begin(), p.repeatRunIds.end());
                p.stepNs = double(stepNs) / double(steps);
                p.ns = p.present ? double(layerNs) / double(steps) : 0;
                p.share = p.stepNs > 0 ? p.ns / p.stepNs : 0;
                if (p.present && sampled) {
                    p.stats = summarize(std::move(samples));
                    p.interval = meanInterval(p.stats);
                }
                s.points.push_back(std::move(p));
            }
            if (!s.points.empty())
                t.series.push_back(std::move(s));
        }
    }
    size_t fewest = SIZE_MAX, most = 0;
    for (const SweepSeries& se : t.series)
        for (const SweepPoint& p : se.points) {
            fewest = std::min(fewest, p.repeatRunIds.size());
            most = std::max(most, p.repeatRunIds.size());
        }
    if (most > 1)
        t.notes.push_back("repeats pooled: " +
                          (fewest == most ? std::to_string(most) : std::to_string(fewest) + " to " + std::to_string(most)) +
                          " runs a point (capture --repeat); a point's time is its runs' time over their steps together");
    return t;
}

std::optional<SweepInfo> predictedTwin(const std::vector<SweepInfo>& sweeps, const SweepInfo& measured)
{
    if (measured.predicted())
        return std::nullopt;
    std::optional<SweepInfo> twin;
    for (const SweepInfo& s : sweeps) {
        if (!s.predicted() || s.workload != measured.workload || s.preset != measured.preset)
            continue;
        const bool sameKeys = (s.key == measured.key && s.key2 == measured.key2) ||
                              (!s.key2.empty() && s.key == measured.key2 && s.key2 == measured.key);
        if (!sameKeys)
            continue;
        // Values of the measured first key, wherever the twin has that key.
        const std::vector<std::string>& theirs = s.key == measured.key ? s.values : s.values2;
        int shared = 0;
        for (const std::string& v : measured.values)
            shared += std::find(theirs.begin(), theirs.end(), v) != theirs.end();
        if (shared >= 2)
            twin = s;   // sweeps come oldest first: the last match is the newest
    }
    return twin;
}

const SweepPoint* findSweepPoint(const SweepTable& table, const std::string& name, const std::string& value)
{
    for (const SweepSeries& s : table.series)
        if (s.name == name)
            for (const SweepPoint& p : s.points)
                if (p.value == value && p.present)
                    return &p;
    return nullptr;
}

SweepTable loadSweep(const Reader& reader, const std::string& id, const SweepOptions& options, const std::string& file)
{
    std::vector<SweepInfo> sweeps = listSweeps(reader);
    if (sweeps.empty())
        throw SweepError((file.empty() ? std::string("the file") : file) +
                         " holds no sweep (capture one with `wheretime capture ... --sweep KEY=v1,v2`)");
    const SweepInfo* sweep = &sweeps.back();
    for (const SweepInfo& s : sweeps)
        if (!s.predicted())
            sweep = &s;   // the newest measured one
    if (!id.empty()) {
        sweep = nullptr;
        for (const SweepInfo& s : sweeps)
            if (s.id == id)
                sweep = &s;
        if (!sweep) {
            std::string known;
            for (const SweepInfo& s : sweeps)
                known += (known.empty() ? "" : ", ") + s.id;
            throw SweepError("no sweep '" + id + "' in " + (file.empty() ? std::string("the file") : file) + " (" + known + ")");
        }
    }
    std::vector<SweepRun> runs;
    runs.reserve(sweep->runIds.size());
    for (int64_t runId : sweep->runIds) {
        SweepRun r;
        const auto metadata = reader.metadata(runId);
        r.tag = *sweepTagOf(metadata);
        for (const auto& [k, v] : metadata)
            if (k == kRepeatIdKey)
                r.repeatId = v;
        // Measured points carry their noise (per-step samples); predicted ones have none.
        r.run = loadCompareRun(reader, runId, file, nullptr, !sweep->predicted(), false);
        runs.push_back(std::move(r));
    }
    std::vector<const SweepRun*> ptrs;
    for (const SweepRun& r : runs)
        ptrs.push_back(&r);
    return computeSweep(*sweep, ptrs, options);
}

}  // namespace wt
