// wheretime compare BASE OTHER...: runs matched by structure (scope paths, layers, ops, kernel
// names), per step or per run; the table sorted by the size of the change, or the kernel-level
// diff of one layer. Every number comes from analysis/compare, every table from
// analysis/comparetable, written by render/ (text, --csv, the rows of --json).
#include "analysis/compare.h"
#include "analysis/comparetable.h"
#include "analysis/kernelcategory.h"
#include "app/cli/command.h"
#include "app/cli/format.h"
#include "render/tablewriter.h"
#include "storage/pathidentity.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/reader.h"

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime compare BASE OTHER... [--group-by layer|scope|phase|op|kernel|kind|category]\n"
    "                         [--depth N] [--within GROUPBY=KEY]... [--per step|run] [--kernels LAYER]\n"
    "                         [--categories FILE] [--width N] [--json | --csv]\n\n"
    "Compares runs by structure, never by time: groups (layers, scope paths, ops, kernel names)\n"
    "are matched by name across the runs; groups found in some runs only are listed as such.\n"
    "BASE and OTHER are FILE[:RUN]: two files, or two runs of one file (more OTHERs: one column\n"
    "per run and the ratio to BASE). Sorted by the size of the change.\n"
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
    "               added. Names are never merged. --within narrows it further\n"
    "  --categories FILE  category rules (REGEX -> CATEGORY a line, first match wins) for every\n"
    "               run, instead of those stored with the runs\n"
    "  --width N    short names of at most N characters, distinct (docs/names.md; default: full)\n"
    "  --json       {per, group_by, depth, within, notes, runs: [{file, id, name, workload, variant,\n"
    "               backend, device, status, steps}], total: {...}, groups: [{...}]}: total and\n"
    "               groups keyed by the CSV's column ids; --kernels: kernels: [{change, op, ...}]\n"
    "  --csv        one row per group, then (total): name, path, ns_1..ns_N, delta_ns_2..,\n"
    "               delta_pct_2.., ratio_2.., count_1..count_N, note, per (1 = BASE)\n"
    "See docs/compare.md for the matching rules.\n";

struct Opened {
    std::unique_ptr<Database> db;
    std::unique_ptr<Reader> reader;
};

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

int printComparison(const Comparison& c, bool asJson, bool asCsv)
{
    const Table table = compareTable(c);
    if (asCsv) {
        std::cout << render::csv(table);
        return 0;
    }
    if (asJson) {
        // The groups are the table's rows but the last, the total its last row.
        Table groups = table;
        groups.rows.pop_back();
        std::cout << "{\"per\":" << json::quote(toString(c.per)) << ",\"group_by\":" << json::quote(toString(c.groupBy))
                  << ",\"depth\":" << c.depth << ",\"within\":" << filtersJson(c.filters) << ",\"notes\":" << notesJson(c.notes)
                  << ",\n\"runs\":" << render::jsonRows(compareRunsTable(c.runs)) << ",\n\"total\":" << jsonObject(table, table.rows.size() - 1)
                  << ",\n\"groups\":" << render::jsonRows(groups) << "}\n";
        return 0;
    }
    std::string how = "compared by " + std::string(toString(c.groupBy));
    if (c.groupBy == GroupBy::Scope)
        how += " (depth " + std::to_string(c.depth) + ")";
    for (const auto& [g, k] : c.filters)
        how += ", within " + std::string(toString(g)) + "=" + k;
    printText(c.runs, how, table);
    return 0;
}

int printKernelDiff(const KernelDiff& d, bool asJson, bool asCsv)
{
    const Table table = kernelDiffTable(d);
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
                  << ",\"ratio\":" << optNumber(d.other.ratio) << "},\n\"summary\":{\"unchanged\":" << d.unchanged
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
    args.parse({"--group-by", "--depth", "--within", "--per", "--kernels", "--categories", "--width"}, {"--json", "--csv"});
    const long long width = args.integer("--width", 0);
    if (width < 0)
        throw UsageError("--width must be 0 (full names) or more");
    gNameWidth = size_t(width);
    CategoriesPtr categories;
    if (auto file = args.value("--categories"))   // a bad file: exit 1 with "FILE:LINE: ..."
        categories = std::make_shared<const KernelCategories>(KernelCategories::load(*file));
    if (args.positionals().size() < 2)
        throw UsageError("expected BASE and at least one OTHER (FILE[:RUN] each)");
    CompareOptions options;
    if (auto g = args.value("--group-by")) {
        auto gb = groupByFromString(*g);
        if (!gb)
            throw UsageError("unknown --group-by '" + *g + "'");
        options.groupBy = *gb;
    }
    options.depth = int(args.integer("--depth", 3));
    if (options.depth < 1)
        throw UsageError("--depth must be at least 1");
    for (const std::string& w : args.values("--within")) {
        auto eq = w.find('=');
        auto fg = eq == std::string::npos ? std::nullopt : groupByFromString(w.substr(0, eq));
        if (!fg)
            throw UsageError("--within needs GROUPBY=KEY, got '" + w + "'");
        options.filters.emplace_back(*fg, w.substr(eq + 1));
    }
    if (auto p = args.value("--per")) {
        auto per = comparePerFromString(*p);
        if (!per)
            throw UsageError("--per must be step or run, got '" + *p + "'");
        options.per = *per;
    }
    bool asJson = args.flag("--json"), asCsv = args.flag("--csv");
    if (asJson && asCsv)
        throw UsageError("--json and --csv exclude each other");
    auto kernelsOf = args.value("--kernels");
    if (kernelsOf) {
        if (args.positionals().size() != 2)
            throw UsageError("--kernels compares BASE with one OTHER");
        if (args.value("--group-by") || args.value("--depth"))
            throw UsageError("--kernels lists kernels by op; --group-by and --depth do not apply");
    }

    // One Database per distinct file; runs are loaded into self-contained CompareRuns.
    std::map<std::string, Opened> files;
    std::vector<CompareRun> runs;
    runs.reserve(args.positionals().size());
    for (const std::string& sel : args.positionals()) {
        auto [file, selector] = splitRunSelector(sel);
        Opened& o = files[file];
        if (!o.db) {
            o.db = std::make_unique<Database>(file, OpenMode::ReadOnly);
            o.reader = std::make_unique<Reader>(*o.db);
        }
        runs.push_back(loadCompareRun(*o.reader, o.reader->resolveRun(selector), file, categories));
    }
    // A run against itself has no change to show: say so instead of printing an empty answer.
    for (size_t i = 1; i < runs.size(); ++i)
        if (runs[i].info.id == runs[0].info.id && sameFile(runs[i].file, runs[0].file))
            return fail("compare: " + args.positionals()[i] + " is the same run as BASE " + args.positionals()[0] + " (run " +
                        std::to_string(runs[0].info.id) + " of " + runs[0].file +
                        "): nothing to compare; give another run as OTHER");

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
    std::vector<const CompareRun*> ptrs;
    for (const CompareRun& r : runs)
        ptrs.push_back(&r);
    Comparison c = compareRuns(ptrs, options);
    if (c.groups.empty())
        return fail(options.filters.empty() ? std::string("the runs hold no activities to compare")
                                            : "no activities of " + describeFilters(options.filters) + " in any run");
    return printComparison(c, asJson, asCsv);
}

const RegisterCommand reg{{"compare", "compare runs by layer, scope, op, kernel, kind or category (per step or per run)", kUsage, runCompare}};

}  // namespace
}  // namespace wt::cli
