// wheretime compare BASE OTHER...: runs matched by structure (scope paths, layers, ops, kernel
// names), per step or per run; the table sorted by the size of the change, with the noise of
// each change (Welch's interval, a verdict), or the kernel-level diff of one layer. Repeats of one
// configuration pool into one side (A1 A2 --vs B1 B2, or --repeats); --fail-if-slower gates CI. Every number comes from analysis/compare, every table from
// analysis/comparetable, written by render/ (text, --csv, the rows of --json).
#include "analysis/compare.h"
#include "analysis/comparetable.h"
#include "analysis/kernelcategory.h"
#include "app/cli/command.h"
#include "app/cli/commonoptions.h"
#include "app/cli/runfiles.h"
#include "render/comparetext.h"
#include "render/textformat.h"
#include "render/tablewriter.h"
#include "storage/pathidentity.h"
#include "storage/json.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime compare BASE OTHER... [--group-by layer|scope|phase|op|kernel|kind|category]\n"
    "                         [--depth N] [--within GROUPBY=KEY]... [--per step|run] [--kernels LAYER]\n"
    "                         [--categories FILE] [--width N] [--json | --csv] [--repeats]\n"
    "                         [--fail-if-slower P%]\n"
    "       wheretime compare BASE1 BASE2... --vs OTHER1 OTHER2... [options]   (repeats pooled)\n\n"
    "Compares runs by structure, never by time: groups (layers, scope paths, ops, kernel names)\n"
    "are matched by name across the runs; groups found in some runs only are listed as such.\n"
    "BASE and OTHER are FILE[:RUN]: two files, or two runs of one file (more OTHERs: one column\n"
    "per run and the ratio to BASE). Sorted by the size of the change. Each change has its noise:\n"
    "the 95% Welch interval (+-) over the per-step samples and a verdict (slower, faster, within\n"
    "noise, n < 3), under Holm's control over the groups (docs/compare.md).\n"
    "  --vs OTHERS  the runs before --vs are repeats of BASE, those after repeats of OTHER: their\n"
    "               steps pool into one side each; the runs of a side must be one configuration\n"
    "  --repeats    each run given stands for every run tagged as its repeat (capture --repeat N)\n"
    "  --fail-if-slower P%  exit 3 when OTHER's total (inside --within) is slower than BASE's by more\n"
    "               than P% with its whole interval above P%, naming the groups that are; needs 3\n"
    "               samples a side (exit 1 otherwise)\n"
    "  --group-by   layer (default; kernel when a run has no scopes), scope (path at --depth),\n"
    "               phase, op, kernel (name), kind (kernel, memcpy, memset) or category (gemm,\n"
    "               attention, communication, ... from the kernel name: docs/categories.md)\n"
    "  --depth N    scope path depth for --group-by scope (default 3)\n"
    "  --within G=K only kernels whose group under G is K, e.g. --within layer=softmax\n"
    "  --per        step: each run's time divided by its step count (the mean step; the default\n"
    "               when every run has steps); run: whole-run totals\n"
    "  --kernels L  the kernel-level diff of layer L (BASE and one OTHER): kernels matched by name\n"
    "               inside each op (changed, unchanged); the rest paired side by side: the same\n"
    "               name in another op (moved), else within one op (swapped); unpaired: removed,\n"
    "               added. Names are never merged. --within narrows it further. Per step each\n"
    "               kernel's change has its noise: +- (95% Welch interval over the per-step\n"
    "               samples) and a verdict, Holm over the kernels; CSV/JSON add base_samples,\n"
    "               other_samples, base_stddev_ns, other_stddev_ns, ci_low_ns, ci_high_ns, p_adj\n"
    "  --categories FILE  category rules (REGEX -> CATEGORY a line, first match wins) for every\n"
    "               run, instead of those stored with the runs\n"
    "  --width N    short names of at most N characters, distinct (docs/names.md; default:\n"
    "               full names, 60 for a text table on a terminal; 0: full names)\n"
    "  --json       {per, group_by, depth, within, notes, runs: [{file, id, name, workload, variant,\n"
    "               backend, device, status, steps}], total: {...}, groups: [{...}]}: total and\n"
    "               groups keyed by the CSV's column ids; --kernels: kernels: [{change, op, ...}]\n"
    "  --csv        one row per group, then (total): name, path, ns_1..ns_N, delta_ns_2.., pm_ns_2..,\n"
    "               delta_pct_2.., ratio_2.., verdict_2.., count_1..count_N, n_1.., stddev_1..,\n"
    "               median_1.., min_1.., max_1.., ci_low_ns_2.., ci_high_ns_2.., p_adj_2.., note, per\n"
    "               (1 = BASE)\n"
    "See docs/compare.md for the matching rules.\n";

std::string filtersJson(const std::vector<std::pair<GroupBy, std::string>>& filters)
{
    std::string out = "[";
    for (size_t i = 0; i < filters.size(); ++i)
        out += std::string(i ? "," : "") + "{\"group_by\":" + json::quote(toString(filters[i].first)) +
               ",\"key\":" + json::quote(filters[i].second) + "}";
    return out + "]";
}

std::string notesJson(const std::vector<std::string>& notes)
{
    std::string out = "[";
    for (size_t i = 0; i < notes.size(); ++i)
        out += std::string(i ? "," : "") + json::quote(notes[i]);
    return out + "]";
}

std::string optNumber(const std::optional<double>& v)
{
    return v ? json::number(*v) : std::string("null");
}

// Row `row` of a table as one JSON object, keyed by column id (the writer's rows, unwrapped).
std::string jsonObject(const Table& t, size_t row)
{
    Table one;
    one.columns = t.columns;
    one.rows.push_back(t.rows.at(row));
    const std::string rows = render::jsonRows(one);
    return rows.substr(rows.find('{'), rows.rfind('}') - rows.find('{') + 1);
}

// --width N: names longer than N characters are elided in the middle; 0 = full names.
size_t gNameWidth = 0;

std::string describe(const CompareRunSummary& r)
{
    std::string s = "run " + std::to_string(r.info.id);
    if (r.repeats.size() > 1) {
        // Pooled: every run of the side, by file.
        s = "runs ";
        std::string lastFile;
        for (size_t i = 0; i < r.repeats.size(); ++i) {
            if (i && r.repeats[i].file != lastFile)
                s += " of " + lastFile + ",";
            s += (i ? " " : "") + std::to_string(r.repeats[i].id);
            lastFile = r.repeats[i].file;
        }
        s += " of " + lastFile + " (" + std::to_string(r.repeats.size()) + " repeats): " + r.info.workload;
        if (!r.info.variant.empty())
            s += " " + r.info.variant;
        s += ", " + r.info.backend + " on " + r.info.device;
        s += r.steps > 0 ? ", " + std::to_string(r.steps) + " steps" : std::string(", no steps");
        return s;
    }
    if (!r.info.name.empty())
        s += " '" + r.info.name + "'";
    s += " of " + r.file + ": " + r.info.workload;
    if (!r.info.variant.empty())
        s += " " + r.info.variant;
    s += ", " + r.info.backend + " on " + r.info.device;
    s += r.steps > 0 ? ", " + std::to_string(r.steps) + " steps" : std::string(", no steps");
    if (r.info.status != RunStatus::Complete)
        s += " (" + std::string(toString(r.info.status)) + ")";
    return s;
}

std::string describeFilters(const std::vector<std::pair<GroupBy, std::string>>& filters)
{
    std::string out;
    for (const auto& [g, k] : filters)
        out += std::string(out.empty() ? "" : ", ") + std::string(toString(g)) + "=" + k;
    return out;
}

// The runs, how they were compared and the table's notes, then the table itself.
void printText(const std::vector<CompareRunSummary>& runs, const std::string& how, const Table& table)
{
    for (size_t i = 0; i < runs.size(); ++i)
        std::printf("%-6s %s\n", compareRunTag(i, runs.size()).c_str(), render::printable(describe(runs[i])).c_str());
    std::printf("%s\n", how.c_str());
    for (const std::string& note : table.notes)
        std::printf("%s\n", render::printable(note).c_str());
    render::TextOptions o;
    o.width = gNameWidth;
    o.notes = false;
    std::printf("\n%s", render::text(table, o).c_str());
}

// --fail-if-slower P%: per OTHER, the total (inside --within) and the groups slower than BASE by
// more than P% with the whole interval above it.
struct Gate {
    bool asked = false;
    double pct = 0;
    bool failed = false;
    std::vector<std::string> lines;   // what failed, one a line
    std::string json;                 // {"threshold_pct":..,"failed":..,"slower":[..]}
};

bool slowerBeyond(const std::optional<WelchInterval>& w, Verdict v, const CompareCell& base, double pct)
{
    return w && v == Verdict::Slower && base.present && base.ns > 0 && w->low > pct / 100 * base.ns;
}

Gate evaluateGate(const Comparison& c, std::optional<double> pct)
{
    Gate g;
    if (!pct)
        return g;
    g.asked = true;
    g.pct = *pct;
    std::string slower;
    for (size_t j = 1; j < c.runs.size(); ++j) {
        const CompareRunSummary& r = c.runs[j];
        const std::string tag = compareRunTag(j, c.runs.size());
        auto entry = [&](const std::string& path, const WelchInterval& w, const CompareCell& base) {
            char buf[256];
            std::snprintf(buf, sizeof buf, "%s %s: %+.1f%% (95%% interval %+.1f%% .. %+.1f%%), more than %.1f%% slower", tag.c_str(),
                          path.c_str(), 100 * w.delta / base.ns, 100 * w.low / base.ns, 100 * w.high / base.ns, g.pct);
            g.lines.push_back(buf);
            slower += std::string(slower.empty() ? "" : ",") + "{\"run\":" + std::to_string(j + 1) + ",\"path\":" + json::quote(path) +
                      ",\"delta_ns\":" + json::number(w.delta) + ",\"ci_low_ns\":" + json::number(w.low) +
                      ",\"ci_high_ns\":" + json::number(w.high) + "}";
        };
        if (slowerBeyond(r.interval, r.verdict, c.runs[0].total, g.pct)) {
            g.failed = true;
            entry(kCompareTotal, *r.interval, c.runs[0].total);
            for (const CompareGroup& grp : c.groups)
                if (slowerBeyond(grp.interval[j], grp.verdict[j], grp.cells[0], g.pct))
                    entry(grp.path, *grp.interval[j], grp.cells[0]);
        }
    }
    g.json = "{\"threshold_pct\":" + json::number(g.pct) + ",\"failed\":" + (g.failed ? "true" : "false") + ",\"slower\":[" +
             slower + "]}";
    return g;
}

int printComparison(const Comparison& c, bool asJson, bool asCsv, const Gate& gate)
{
    const int rc = gate.failed ? 3 : 0;
    auto gateLines = [&] {
        for (const std::string& l : gate.lines)
            std::cerr << "wheretime compare: --fail-if-slower: " << l << "\n";
    };
    const Table table = compareTable(c);
    if (asCsv) {
        std::cout << render::csv(table);
        gateLines();
        return rc;
    }
    if (asJson) {
        // The groups are the table's rows but the last, the total its last row.
        Table groups = table;
        groups.rows.pop_back();
        std::cout << "{\"per\":" << json::quote(toString(c.per)) << ",\"group_by\":" << json::quote(toString(c.groupBy))
                  << ",\"depth\":" << c.depth << ",\"within\":" << filtersJson(c.filters) << ",\"notes\":" << notesJson(c.notes)
                  << ",\n\"runs\":" << render::jsonRows(compareRunsTable(c.runs)) << ",\n\"total\":" << jsonObject(table, table.rows.size() - 1)
                  << ",\n\"groups\":" << render::jsonRows(groups);
        if (gate.asked)
            std::cout << ",\n\"gate\":" << gate.json;
        std::cout << "}\n";
        gateLines();
        return rc;
    }
    std::string how = "compared by " + std::string(toString(c.groupBy));
    if (c.groupBy == GroupBy::Scope)
        how += " (depth " + std::to_string(c.depth) + ")";
    for (const auto& [g, k] : c.filters)
        how += ", within " + std::string(toString(g)) + "=" + k;
    printText(c.runs, how, table);
    if (gate.asked && !gate.failed)
        std::printf("\n--fail-if-slower %.1f%%: passed (no OTHER total slower by more with its whole interval)\n", gate.pct);
    gateLines();
    return rc;
}

int printKernelDiff(const KernelDiff& d, bool asJson, bool asCsv)
{
    Table table = kernelDiffTable(d);
    addKernelDiffNotes(table, d);
    if (asCsv) {
        std::cout << render::csv(table);
        return 0;
    }
    if (asJson) {
        std::cout << "{\"per\":" << json::quote(toString(d.per)) << ",\"within\":" << filtersJson(d.filters)
                  << ",\"match\":" << json::quote(toString(d.within)) << ",\"notes\":" << notesJson(d.notes)
                  << ",\n\"runs\":" << render::jsonRows(compareRunsTable({d.base, d.other})) << ",\n\"total\":{\"ns\":["
                  << json::number(d.base.total.ns) << "," << json::number(d.other.total.ns) << "],\"count\":["
                  << json::number(d.base.total.count) << "," << json::number(d.other.total.count)
                  << "],\"delta_ns\":" << json::number(d.other.deltaNs) << ",\"delta_pct\":" << optNumber(d.other.deltaPct)
                  << ",\"ratio\":" << optNumber(d.other.ratio) << ",\"samples\":[" << d.base.total.stats.n << ","
                  << d.other.total.stats.n << "],\"ci_low_ns\":" << (d.other.interval ? json::number(d.other.interval->low) : "null")
                  << ",\"ci_high_ns\":" << (d.other.interval ? json::number(d.other.interval->high) : "null")
                  << ",\"verdict\":" << json::quote(toString(d.other.interval ? d.other.verdict : Verdict::NotEnoughSamples))
                  << "},\n\"summary\":{\"unchanged\":" << d.unchanged
                  << ",\"changed\":" << d.changed << ",\"removed\":" << d.removed << ",\"added\":" << d.added
                  << ",\"swapped\":" << d.swapped << ",\"moved\":" << d.moved << "},\n\"kernels\":" << render::jsonRows(table)
                  << "}\n";
        return 0;
    }
    printText({d.base, d.other},
              "kernels of " + describeFilters(d.filters) + ", matched by name inside each " + std::string(toString(d.within)), table);
    return 0;
}

int runCompare(Args& args)
{
    args.parse({"--group-by", "--depth", "--within", "--per", "--kernels", "--categories", "--width", "--fail-if-slower"},
               {"--json", "--csv", "--repeats"}, {"--vs"});
    gNameWidth = nameWidth(args);
    const CategoriesPtr categories = categoriesOption(args);
    const std::vector<std::string> vs = args.values("--vs");
    const bool pooled = !vs.empty();
    if (pooled && args.positionals().empty())
        throw UsageError("expected BASE's runs before --vs (FILE[:RUN] each)");
    if (!pooled && args.positionals().size() < 2)
        throw UsageError("expected BASE and at least one OTHER (FILE[:RUN] each)");
    std::optional<double> gatePct;
    if (auto g = args.value("--fail-if-slower")) {
        std::string v = *g;
        if (!v.empty() && v.back() == '%')
            v.pop_back();
        char* end = nullptr;
        const double p = std::strtod(v.c_str(), &end);
        if (v.empty() || *end || !(p >= 0) || p > 1000)
            throw UsageError("--fail-if-slower needs a percentage such as 5%, got '" + *g + "'");
        gatePct = p;
    }
    CompareOptions options;
    options.groupBy = groupByOption(args);
    options.depth = scopeDepth(args);
    options.filters = withinFilters(args);
    if (auto p = args.value("--per")) {
        auto per = comparePerFromString(*p);
        if (!per)
            throw UsageError("--per must be step or run, got '" + *p + "'");
        options.per = *per;
    }
    const OutputFormat format = outputFormat(args);
    const bool asJson = format == OutputFormat::Json, asCsv = format == OutputFormat::Csv;
    auto kernelsOf = args.value("--kernels");
    if (kernelsOf) {
        if (pooled || args.flag("--repeats") || gatePct)
            throw UsageError("--kernels compares one BASE run with one OTHER run (no --vs, --repeats, --fail-if-slower)");
        if (args.positionals().size() != 2)
            throw UsageError("--kernels compares BASE with one OTHER");
        if (args.value("--group-by") || args.value("--depth"))
            throw UsageError("--kernels lists kernels by op; --group-by and --depth do not apply");
    }

    RunFiles files;
    // The sides: each positional one (BASE, OTHERs), or the runs before and after --vs; each
    // selector with --repeats stands for its repeat set.
    std::vector<std::vector<std::string>> sideArgs;
    if (pooled)
        sideArgs = {args.positionals(), vs};
    else
        for (const std::string& sel : args.positionals())
            sideArgs.push_back({sel});
    const bool expand = args.flag("--repeats");
    std::vector<std::vector<CompareRun>> sideRuns(sideArgs.size());
    std::vector<std::vector<std::string>> sideLabels(sideArgs.size());
    for (size_t i = 0; i < sideArgs.size(); ++i)
        for (const std::string& sel : sideArgs[i]) {
            auto [file, selector] = splitRunSelector(sel);
            Reader& reader = files.reader(file);
            const int64_t id = reader.resolveRun(selector);
            for (int64_t r : expand ? repeatsOf(reader, id) : std::vector<int64_t>{id}) {
                sideRuns[i].push_back(loadCompareRun(reader, r, file, categories, true, false));   // per-step samples; no step wall time (variants')
                sideLabels[i].push_back(sel);
            }
        }
    // A run against itself has no change to show: say so instead of printing an empty answer.
    for (size_t i = 1; i < sideRuns.size(); ++i)
        for (size_t k = 0; k < sideRuns[i].size(); ++k)
            for (size_t b = 0; b < sideRuns[0].size(); ++b) {
                const CompareRun& base = sideRuns[0][b];
                const CompareRun& other = sideRuns[i][k];
                if (other.info.id == base.info.id && sameFile(other.file, base.file))
                    return fail("compare: " + sideLabels[i][k] + " is the same run as BASE " + sideLabels[0][b] + " (run " +
                                std::to_string(base.info.id) + " of " + base.file +
                                "): nothing to compare; give another run as OTHER");
            }
    std::vector<CompareRun> runs;
    if (kernelsOf)
        runs = {std::move(sideRuns[0][0]), std::move(sideRuns[1][0])};

    if (kernelsOf) {
        KernelDiffOptions ko;
        ko.filters.emplace_back(GroupBy::Layer, *kernelsOf);
        ko.filters.insert(ko.filters.end(), options.filters.begin(), options.filters.end());
        ko.per = options.per;
        KernelDiff d = diffKernels(runs[0], runs[1], ko);
        if (d.rows.empty())
            return fail("no kernels of " + describeFilters(ko.filters) + " in either run");
        return printKernelDiff(d, asJson, asCsv);
    }
    std::vector<CompareSide> sides;
    for (const std::vector<CompareRun>& side : sideRuns) {
        sides.emplace_back();
        for (const CompareRun& r : side)
            sides.back().push_back(&r);
    }
    Comparison c = compareSides(sides, options);
    if (c.groups.empty())
        return fail(options.filters.empty() ? std::string("the runs hold no activities to compare")
                                            : "no activities of " + describeFilters(options.filters) + " in any run");
    if (gatePct)
        for (size_t i = 0; i < c.runs.size(); ++i)
            if (c.runs[i].total.stats.n < kMinSamples)
                return fail("compare: --fail-if-slower needs at least " + std::to_string(kMinSamples) + " samples a side; " +
                            compareRunTag(i, c.runs.size()) + " has " + std::to_string(c.runs[i].total.stats.n) +
                            " (capture more --steps, or --repeat N)");
    return printComparison(c, asJson, asCsv, evaluateGate(c, gatePct));
}

const RegisterCommand reg{{"compare", "compare runs by layer, scope, op, kernel, kind or category (per step or per run)", kUsage, runCompare}};

}  // namespace
}  // namespace wt::cli
