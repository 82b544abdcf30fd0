#include "analysis/jobtable.h"

#include "analysis/samplestats.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace wt {

namespace {

std::string baseName(const std::string& path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A duration for a note (the tables' cells stay raw ns): milliseconds with 3 decimals.
std::string ms(double ns)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", ns * 1e-6);
    return buf;
}


// The layer's time on a rank; nullopt when the rank has no such layer.
std::optional<int64_t> layerTime(const RankSummary& r, const std::string& layer)
{
    for (const auto& [name, ns] : r.layers)
        if (name == layer)
            return ns;
    return std::nullopt;
}

}  // namespace

std::string rankLabel(const RankSummary& rank)
{
    return rank.rank >= 0 ? std::to_string(rank.rank) : baseName(rank.file);
}

bool jobHasLayer(const JobSummary& job, const std::string& layer)
{
    for (const RankSummary& r : job.ranks)
        if (layerTime(r, layer))
            return true;
    return false;
}

Table jobRanksTable(const JobSummary& job, const std::optional<std::string>& layer)
{
    Table t;
    t.id = "job";
    t.add("rank", "rank", Unit::Count)
        .add("file", "file", Unit::Text)
        .add("run_id", "run", Unit::Count, false)
        .add("run", "run name", Unit::Text, false)
        .add("rank_source", "rank from", Unit::Text, false)
        .add("steps", "steps", Unit::Count)
        .add("kernels", "kernels", Unit::Count)
        .add("kernel_time_ns", "kernel time", Unit::Ns)
        .add("step_mean_ns", "step mean", Unit::Ns)
        .add("step_median_ns", "step median", Unit::Ns)
        .add("step_stddev_ns", "stddev", Unit::Ns)
        .add("step_cv", "cv", Unit::Share)
        .add("step_ci_ns", "95% +-", Unit::Ns)
        .add("vs_median", "vs job", Unit::Ratio)
        .add("straggler", "straggler", Unit::Count);
    double layerMedian = 0;
    if (layer) {
        t.add("layer_ns", *layer, Unit::Ns)
            .add("layer_share", "share", Unit::Share)
            .add("layer_per_step_ns", "per step", Unit::Ns)
            .add("layer_vs_median", "layer vs job", Unit::Ratio);
        std::vector<double> times;
        for (const RankSummary& r : job.ranks)
            if (auto ns = layerTime(r, *layer))
                times.push_back(double(*ns));
        layerMedian = summarize(std::move(times)).median;
    }
    t.rows.reserve(job.ranks.size());
    std::string stragglers;
    size_t stragglerCount = 0, computed = 0;
    for (const RankSummary& r : job.ranks) {
        std::vector<Cell>& row = t.addRow();
        size_t c = 0;
        if (r.rank >= 0)
            row[c] = r.rank;
        row[++c] = baseName(r.file);
        row[++c] = r.run.id;
        row[++c] = r.run.name;
        row[++c] = std::string(toString(r.rankSource));
        row[++c] = int64_t(r.stepKernelNs.size());
        row[++c] = r.kernels;
        row[++c] = r.kernelTimeNs;
        ++c;
        if (r.step.n > 0) {
            row[c] = r.step.mean;
            row[c + 1] = r.step.median;
            row[c + 2] = r.step.stddev;
            row[c + 3] = r.step.mean > 0 ? r.step.stddev / r.step.mean : 0.0;
            if (r.stepInterval)
                row[c + 4] = r.stepInterval->halfWidth;
            row[c + 5] = r.vsMedian;
        }
        c += 6;
        row[c] = int64_t(r.straggler ? 1 : 0);
        if (layer) {
            if (auto ns = layerTime(r, *layer)) {
                row[c + 1] = *ns;
                row[c + 2] = r.kernelTimeNs > 0 ? double(*ns) / double(r.kernelTimeNs) : 0.0;
                if (!r.stepKernelNs.empty())
                    row[c + 3] = double(*ns) / double(r.stepKernelNs.size());
                if (layerMedian > 0)
                    row[c + 4] = double(*ns) / layerMedian;
            }
        }
        if (r.straggler) {
            stragglers += (stragglerCount ? ", " : "") + std::string(r.rank >= 0 ? "rank " : "") + rankLabel(r);
            ++stragglerCount;
        }
        if (!r.stepsStored)
            ++computed;
    }
    const StragglerRule& rule = job.rule;
    char k[32];
    std::snprintf(k, sizeof k, "%g", rule.k);
    if (rule.ranks < kMinSamples) {
        t.notes.push_back("stragglers need at least 3 ranks with steps (" + std::to_string(rule.ranks) + " here)");
    } else {
        t.notes.push_back("job median step kernel time " + ms(rule.medianNs) + ", MAD " + ms(rule.madNs) +
                          "; a straggler's median step is above " + ms(rule.thresholdNs) + " (median + max(" + k +
                          " x 1.4826 x MAD, 1% of the median))");
        t.notes.push_back(stragglerCount ? "stragglers (" + std::to_string(stragglerCount) + "): " + stragglers : std::string("no stragglers"));
    }
    for (const std::string& d : job.duplicates)
        t.notes.push_back(d);
    if (computed)
        t.notes.push_back(std::to_string(computed) + " rank file(s) without stored step totals: their steps were read from the activities");
    if (!job.failures.empty())
        t.notes.push_back(std::to_string(job.failures.size()) + " file(s) could not be read and are left out (named on stderr)");
    return t;
}

Table jobLayersTable(const JobSummary& job)
{
    struct Acc {
        std::vector<double> times;
        double sum = 0;
        int64_t minNs = 0, maxNs = 0;
        const RankSummary* minRank = nullptr;
        const RankSummary* maxRank = nullptr;
    };
    std::map<std::string, Acc> layers;
    for (const RankSummary& r : job.ranks)
        for (const auto& [name, ns] : r.layers) {
            Acc& a = layers[name];
            if (!a.minRank || ns < a.minNs) {
                a.minNs = ns;
                a.minRank = &r;
            }
            if (!a.maxRank || ns > a.maxNs) {
                a.maxNs = ns;
                a.maxRank = &r;
            }
            a.times.push_back(double(ns));
            a.sum += double(ns);
        }
    std::vector<std::pair<std::string, Acc*>> order;
    for (auto& [name, a] : layers)
        order.emplace_back(name, &a);
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
        return x.second->sum / double(x.second->times.size()) > y.second->sum / double(y.second->times.size());
    });
    Table t;
    t.id = "job_layers";
    t.add("layer", "layer", Unit::Text)
        .add("ranks", "ranks", Unit::Count)
        .add("mean_ns", "mean", Unit::Ns)
        .add("median_ns", "median", Unit::Ns)
        .add("min_ns", "min", Unit::Ns)
        .add("min_rank", "on rank", Unit::Text)
        .add("max_ns", "max", Unit::Ns)
        .add("max_rank", "on rank", Unit::Text)
        .add("max_vs_median", "max vs median", Unit::Ratio);
    for (const auto& [name, a] : order) {
        std::vector<Cell>& row = t.addRow();
        const double median = summarize(a->times).median;
        row[0] = name;
        row[1] = int64_t(a->times.size());
        row[2] = a->sum / double(a->times.size());
        row[3] = median;
        row[4] = a->minNs;
        row[5] = rankLabel(*a->minRank);
        row[6] = a->maxNs;
        row[7] = rankLabel(*a->maxRank);
        if (median > 0)
            row[8] = double(a->maxNs) / median;
    }
    return t;
}

}  // namespace wt
