// wheretime job DIR: the rank files of a distributed job (one `wheretime import RANK -o
// rank-N.wt` per rank, made wherever each rank ran) opened as one job from their stored figures,
// no activity loaded: per rank its steps, step kernel time (mean, median, noise), kernel time,
// the stragglers; the layers across the ranks (analysis/jobsummary.h, analysis/jobtable.h, one
// writer for text, --csv and --json). --rank N opens one rank's detail (what `wheretime stats`
// prints for its file). A damaged rank file is named on stderr in one line and left out.
#include "analysis/jobsummary.h"
#include "analysis/jobtable.h"
#include "app/cli/command.h"
#include "app/cli/commonoptions.h"
#include "render/tablewriter.h"
#include "storage/json.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime job DIR|FILE.wt... [--layer NAME] [--mads K] [--threads N] [--strict]\n"
    "                     [--layers] [--json | --csv]\n"
    "       wheretime job DIR|FILE.wt... --rank N [stats options: --group-by G, --json, --csv, ...]\n\n"
    "The .wt files of DIR (or the files given), one rank each, as one job, opened from their stored\n"
    "figures without loading activities (docs/interop.md, \"A job of rank files\"). A rank's number is\n"
    "its trace's distributedInfo.rank (Kineto), else the digits after \"rank\" in its file name, else\n"
    "its last digits. Per rank: steps, kernels, kernel time, the step kernel time (kernels inside\n"
    "each step, as `stats --group-by step`'s kernel_time_ns): mean, median, standard deviation, cv\n"
    "(stddev / mean), the 95% interval's half width; vs job (its median / the job's median) and\n"
    "straggler: 1 when its median step lies above the job's median (the median of the ranks'\n"
    "medians) by more than K x 1.4826 x MAD (the median absolute deviation of the ranks' medians)\n"
    "and by more than 1% of the median; needs 3 ranks with steps. Then per layer over the ranks:\n"
    "mean, median, min and max with their ranks.\n"
    "  --layer NAME  add that layer's time per rank: layer_ns, layer_share (of the rank's kernel\n"
    "               time), layer_per_step_ns, layer_vs_median (an unknown layer: exit 1)\n"
    "  --rank N      print what `wheretime stats FILE` prints for rank N's file (N: a rank number,\n"
    "               or a file name); the options after it are stats' own\n"
    "  --mads K      the straggler rule's K (default 3)\n"
    "  --threads N   files opened at once (default: the machine's cores, at most 16)\n"
    "  --strict      exit 1 when any file could not be read (default: exit 0 with a warning)\n"
    "  --layers      with --csv: the layers table instead of the ranks table\n"
    "  --json        {files, left_out: [{file, error}], straggler_rule: {k, min_share, ranks,\n"
    "               median_ns, mad_ns, threshold_ns}, stragglers: [rank], ranks: [{rank, file, run_id,\n"
    "               run, rank_source, steps, kernels, kernel_time_ns, step_mean_ns, step_median_ns,\n"
    "               step_stddev_ns, step_cv, step_ci_ns, vs_median, straggler[, layer_ns, layer_share,\n"
    "               layer_per_step_ns, layer_vs_median]}], layers: [{layer, ranks, mean_ns, median_ns,\n"
    "               min_ns, min_rank, max_ns, max_rank, max_vs_median}]}\n"
    "  --csv         the ranks table (or with --layers the layers table), raw numbers\n"
    "A file that cannot be read (truncated, not a wheretime file, a newer schema) is one line on\n"
    "stderr (\"wheretime job: left out: FILE: reason\") and the rest of the job opens. A DIR without\n"
    ".wt files, or no readable file at all: one line, exit 1.\n";

std::string baseName(const std::string& path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// --rank N [stats options]: the rank's file handed to `wheretime stats`.
int runRankDetail(const JobSummary& job, const std::string& which, const std::vector<std::string>& statsArgs)
{
    const RankSummary* found = nullptr;
    for (const RankSummary& r : job.ranks)
        if (rankLabel(r) == which || baseName(r.file) == which) {
            found = &r;
            break;
        }
    if (!found) {
        std::string known;
        for (size_t i = 0; i < job.ranks.size() && i < 8; ++i)
            known += (i ? ", " : "") + rankLabel(job.ranks[i]);
        if (job.ranks.size() > 8)
            known += ", ...";
        return fail("no rank '" + which + "' in this job (ranks: " + known + ")");
    }
    auto& cmds = commands();
    auto stats = std::find_if(cmds.begin(), cmds.end(), [](const Command& c) { return c.name == "stats"; });
    if (stats == cmds.end())
        return fail("this build has no stats command");
    std::vector<std::string> argv{found->file};
    argv.insert(argv.end(), statsArgs.begin(), statsArgs.end());
    Args a(argv);
    a.setOptions(&stats->options);
    return stats->run(a);
}

int runJob(Args& args)
{
    args.parse();
    std::vector<std::string> inputs = args.positionals();
    std::vector<std::string> statsArgs;
    const std::optional<std::string> rank = args.value("--rank");
    if (inputs.empty())
        throw UsageError("expected a DIR (or .wt files)");
    if (!rank) {
        for (const char* o : {"--group-by", "--depth", "--within", "--range", "--width", "--histogram", "--summary"})
            if (args.value(o) || args.flag(o))
                throw UsageError(std::string(o) + " is an option of stats: it goes with --rank N");
        outputFormat(args);
        if (args.flag("--layers") && !args.flag("--csv"))
            throw UsageError("--layers goes with --csv (text and --json show both tables)");
    }
    double k = 3;
    if (auto text = args.value("--mads")) {
        char* end = nullptr;
        k = std::strtod(text->c_str(), &end);
        if (!end || *end || !(k > 0) || k > 1000)
            throw UsageError("--mads needs a number above 0, got '" + *text + "'");
    }
    const long long threads = args.integer("--threads", 0);
    if (threads < 0 || threads > 256)
        throw UsageError("--threads must be 0 to 256");

    std::vector<std::string> files;
    try {
        files = jobInputs(inputs);
    } catch (const std::runtime_error& e) {
        return fail(e.what());
    }
    JobSummary job = openJob(files, int(threads), k);
    for (const JobFailure& f : job.failures)
        std::fprintf(stderr, "wheretime job: left out: %s\n", render::printable(f.error).c_str());
    if (job.ranks.empty())
        return fail("none of the " + std::to_string(files.size()) + " file(s) could be read");
    const int status = args.flag("--strict") && !job.failures.empty() ? 1 : 0;

    if (rank) {
        // The stats options were given to job; pass them on as they came.
        for (const char* flag : {"--json", "--csv", "--summary"})
            if (args.flag(flag))
                statsArgs.push_back(flag);
        for (const char* valued : {"--group-by", "--depth", "--range", "--width", "--histogram"})
            if (auto v = args.value(valued)) {
                statsArgs.push_back(valued);
                statsArgs.push_back(*v);
            }
        for (const std::string& w : args.values("--within")) {
            statsArgs.push_back("--within");
            statsArgs.push_back(w);
        }
        const int rc = runRankDetail(job, *rank, statsArgs);
        return rc != 0 ? rc : status;
    }

    std::optional<std::string> layer = args.value("--layer");
    if (layer && !jobHasLayer(job, *layer)) {
        std::string known;
        const Table layers = jobLayersTable(job);
        for (size_t i = 0; i < layers.rows.size() && i < 10; ++i)
            known += (i ? ", " : "") + textOf(layers.rows[i][0]);
        return fail("no rank has a layer '" + *layer + "' (layers: " + known + ")");
    }
    const Table ranks = jobRanksTable(job, layer);
    const Table layers = jobLayersTable(job);
    if (args.flag("--csv")) {
        std::cout << render::csv(args.flag("--layers") ? layers : ranks);
        return status;
    }
    if (args.flag("--json")) {
        const StragglerRule& r = job.rule;
        std::cout << "{\"files\":" << files.size() << ",\"left_out\":[";
        for (size_t i = 0; i < job.failures.size(); ++i)
            std::cout << (i ? "," : "") << "{\"file\":" << json::quote(job.failures[i].file)
                      << ",\"error\":" << json::quote(job.failures[i].error) << "}";
        std::cout << "],\"straggler_rule\":{\"k\":" << render::shortestNumber(r.k) << ",\"min_share\":" << render::shortestNumber(r.minShare)
                  << ",\"ranks\":" << r.ranks << ",\"median_ns\":" << render::shortestNumber(r.medianNs)
                  << ",\"mad_ns\":" << render::shortestNumber(r.madNs) << ",\"threshold_ns\":"
                  << (r.ranks >= kMinSamples ? render::shortestNumber(r.thresholdNs) : std::string("null")) << "},\"stragglers\":[";
        bool first = true;
        for (const RankSummary& rs : job.ranks)
            if (rs.straggler) {
                std::cout << (first ? "" : ",") << (rs.rank >= 0 ? std::to_string(rs.rank) : json::quote(rankLabel(rs)));
                first = false;
            }
        std::cout << "],\n\"ranks\":" << render::jsonRows(ranks) << ",\n\"layers\":" << render::jsonRows(layers) << "}\n";
        return status;
    }
    std::printf("job of %zu rank%s (%zu file%s", job.ranks.size(), job.ranks.size() == 1 ? "" : "s", files.size(),
                files.size() == 1 ? "" : "s");
    if (!job.failures.empty())
        std::printf(", %zu left out", job.failures.size());
    std::printf(")\n\n");
    // The text keeps the largest layers (a real trace has dozens of ranges below its steps).
    Table shown = layers;
    constexpr size_t kTextLayers = 20;
    if (shown.rows.size() > kTextLayers) {
        shown.notes.push_back(std::to_string(shown.rows.size() - kTextLayers) + " smaller layers not shown (--json, or --csv --layers)");
        shown.rows.resize(kTextLayers);
    }
    std::cout << render::text(ranks) << '\n' << render::text(shown);
    return status;
}

const RegisterCommand reg{{"job", "a job's rank files as one job: steps, layers and stragglers per rank (--rank N: its stats)", kUsage,
                           runJob,
                           {{"--layer", "NAME", "add that layer's time per rank"},
                            {"--rank", "N", "what `wheretime stats` prints for rank N (stats options follow)"},
                            {"--mads", "K", "stragglers: median step above the job's by K scaled MADs (default 3)"},
                            {"--threads", "N", "files opened at once (default: the cores, at most 16)"},
                            {"--strict", "", "exit 1 when a file could not be read"},
                            {"--layers", "", "with --csv: the layers table"},
                            {"--json", "", "print JSON"},
                            {"--csv", "", "print the ranks table as CSV"},
                            {"--group-by", "G", "with --rank: stats --group-by"},
                            {"--depth", "N", "with --rank: stats --depth"},
                            {"--within", "G=K", "with --rank: stats --within"},
                            {"--range", "T0:T1", "with --rank: stats --range"},
                            {"--width", "N", "with --rank: stats --width"},
                            {"--histogram", "GROUP", "with --rank: stats --histogram"},
                            {"--summary", "", "with --rank: stats --summary"}}}};

}  // namespace
}  // namespace wt::cli
