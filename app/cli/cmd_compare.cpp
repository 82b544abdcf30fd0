// wheretime compare BASE OTHER...: runs matched by structure (scope paths, layers, ops, kernel
// names), per step or per run; the table sorted by the size of the change, or the kernel-level
// diff of one layer. Every number comes from analysis/compare.
#include "analysis/compare.h"
#include "analysis/kernelcategory.h"
#include "analysis/textelide.h"
#include "app/cli/command.h"
#include "app/cli/format.h"
#include "storage/pathidentity.h"
#include "storage/csv.h"
#include "storage/database.h"
#include "storage/json.h"
#include "storage/reader.h"

#include <algorithm>
#include <cmath>
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
    "  --width N    elide names longer than N characters in the middle (default: full names)\n"
    "  --json       {per, group_by, runs: [{file, id, name, workload, variant, backend, device, steps}],\n"
    "               total, groups: [{name, path, ns: [per run | null], count, delta_ns, ratio}]}\n"
    "  --csv        one row per group: name, path, ns_1..ns_N, delta_ns_2.., ratio_2.. (1 = BASE), per\n"
    "See docs/compare.md for the matching rules.\n";

struct Opened {
    std::unique_ptr<Database> db;
    std::unique_ptr<Reader> reader;
};

std::string runJson(const CompareRunSummary& r)
{
    return "{\"file\":" + json::quote(r.file) + ",\"id\":" + std::to_string(r.info.id) + ",\"name\":" + json::quote(r.info.name) +
           ",\"workload\":" + json::quote(r.info.workload) + ",\"variant\":" + json::quote(r.info.variant) +
           ",\"backend\":" + json::quote(r.info.backend) + ",\"device\":" + json::quote(r.info.device) +
           ",\"status\":" + json::quote(toString(r.info.status)) + ",\"steps\":" + std::to_string(r.steps) + "}";
}

std::string optNumber(const std::optional<double>& v)
{
    return v ? json::number(*v) : std::string("null");
}

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

std::string csvNumber(const std::optional<double>& v)
{
    return v ? json::number(*v) : std::string();
}

std::string duration(double ns)
{
    return formatDuration(int64_t(std::llround(ns)));
}

std::string signedDuration(double ns)
{
    int64_t v = int64_t(std::llround(ns));
    return (v > 0 ? "+" : "") + formatDuration(v);
}

std::string ratioText(const std::optional<double>& r)
{
    if (!r)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", *r);
    return buf;
}

std::string countText(double c)
{
    char buf[32];
    if (c == std::floor(c) && std::abs(c) < 1e15)
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(c));
    else
        std::snprintf(buf, sizeof buf, "%.2f", c);
    return buf;
}

// --width N: names longer than N characters are elided in the middle; 0 = full names.
size_t gNameWidth = 0;

// A name in a column of `width` characters: elided in the middle when longer (only with
// --width, which caps the column), padded when shorter (UTF-8 aware).
std::string fit(const std::string& s, size_t width)
{
    std::string out = elideMiddle(printable(s), width);
    const size_t n = displayLength(out);
    return n >= width ? out : out + std::string(width - n, ' ');
}

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

std::string runTag(size_t i)
{
    return i == 0 ? "BASE" : "#" + std::to_string(i + 1);
}

int printComparison(const Comparison& c, bool asJson, bool asCsv)
{
    const size_t n = c.runs.size();
    if (asJson) {
        std::cout << "{\"per\":" << json::quote(toString(c.per)) << ",\"group_by\":" << json::quote(toString(c.groupBy))
                  << ",\"depth\":" << c.depth << ",\"within\":" << filtersJson(c.filters) << ",\"notes\":" << notesJson(c.notes)
                  << ",\n\"runs\":[";
        for (size_t i = 0; i < n; ++i)
            std::cout << (i ? ",\n " : "\n ") << runJson(c.runs[i]);
        std::cout << "],\n\"total\":{\"ns\":[";
        for (size_t i = 0; i < n; ++i)
            std::cout << (i ? "," : "") << json::number(c.runs[i].total.ns);
        std::cout << "],\"count\":[";
        for (size_t i = 0; i < n; ++i)
            std::cout << (i ? "," : "") << json::number(c.runs[i].total.count);
        std::cout << "],\"delta_ns\":[";
        for (size_t i = 0; i < n; ++i)
            std::cout << (i ? "," : "") << json::number(c.runs[i].deltaNs);
        std::cout << "],\"ratio\":[";
        for (size_t i = 0; i < n; ++i)
            std::cout << (i ? "," : "") << optNumber(c.runs[i].ratio);
        std::cout << "]},\n\"groups\":[";
        for (size_t gi = 0; gi < c.groups.size(); ++gi) {
            const CompareGroup& g = c.groups[gi];
            std::cout << (gi ? ",\n " : "\n ") << "{\"name\":" << json::quote(g.name) << ",\"path\":" << json::quote(g.path)
                      << ",\"ns\":[";
            for (size_t i = 0; i < n; ++i)
                std::cout << (i ? "," : "") << (g.cells[i].present ? json::number(g.cells[i].ns) : "null");
            std::cout << "],\"count\":[";
            for (size_t i = 0; i < n; ++i)
                std::cout << (i ? "," : "") << (g.cells[i].present ? json::number(g.cells[i].count) : "null");
            std::cout << "],\"delta_ns\":[";
            for (size_t i = 0; i < n; ++i)
                std::cout << (i ? "," : "") << json::number(g.deltaNs[i]);
            std::cout << "],\"ratio\":[";
            for (size_t i = 0; i < n; ++i)
                std::cout << (i ? "," : "") << optNumber(g.ratio[i]);
            std::cout << "]}";
        }
        std::cout << "]}\n";
        return 0;
    }
    if (asCsv) {
        std::cout << "name,path";
        for (size_t i = 0; i < n; ++i)
            std::cout << ",ns_" << i + 1;
        for (size_t i = 1; i < n; ++i)
            std::cout << ",delta_ns_" << i + 1;
        for (size_t i = 1; i < n; ++i)
            std::cout << ",ratio_" << i + 1;
        std::cout << ",per\n";
        for (const CompareGroup& g : c.groups) {
            std::cout << csv::field(g.name) << ',' << csv::field(g.path);
            for (size_t i = 0; i < n; ++i)
                std::cout << ',' << (g.cells[i].present ? json::number(g.cells[i].ns) : std::string());
            for (size_t i = 1; i < n; ++i)
                std::cout << ',' << json::number(g.deltaNs[i]);
            for (size_t i = 1; i < n; ++i)
                std::cout << ',' << csvNumber(g.ratio[i]);
            std::cout << ',' << toString(c.per) << '\n';
        }
        return 0;
    }

    for (size_t i = 0; i < n; ++i)
        std::printf("%-6s %s\n", (i == 0 ? "BASE" : n == 2 ? "OTHER" : runTag(i).c_str()), describe(c.runs[i]).c_str());
    std::string scope = "by " + std::string(toString(c.groupBy));
    if (c.groupBy == GroupBy::Scope)
        scope += " (depth " + std::to_string(c.depth) + ")";
    for (const auto& [g, k] : c.filters)
        scope += ", within " + std::string(toString(g)) + "=" + k;
    std::printf("compared %s\n", scope.c_str());
    for (const std::string& note : c.notes)
        std::printf("%s\n", note.c_str());
    std::printf("\n");

    size_t width = std::string(toString(c.groupBy)).size();
    for (const CompareGroup& g : c.groups)
        width = std::max(width, displayLength(g.path));
    if (gNameWidth > 0)
        width = std::min(width, std::max(gNameWidth, std::string(toString(c.groupBy)).size()));
    auto onlyIn = [&](const CompareGroup& g) -> std::string {
        if (g.inAll())
            return {};
        if (n == 2)
            return g.cells[0].present ? "BASE only" : "OTHER only";
        std::string s = "only in";
        for (size_t i = 0; i < n; ++i)
            if (g.cells[i].present)
                s += " " + runTag(i);
        return s;
    };
    std::printf("%-*s", int(width), std::string(toString(c.groupBy)).c_str());
    if (n == 2) {
        std::printf(" %13s %13s %14s %7s\n", "BASE", "OTHER", "delta", "ratio");
        auto row = [&](const std::string& name, const CompareCell& a, const CompareCell& b, double delta,
                       const std::optional<double>& ratio, const std::string& note) {
            std::printf("%s %13s %13s %14s %7s%s\n", fit(name, width).c_str(), a.present ? duration(a.ns).c_str() : "-",
                        b.present ? duration(b.ns).c_str() : "-", signedDuration(delta).c_str(), ratioText(ratio).c_str(),
                        note.empty() ? "" : ("  " + note).c_str());
        };
        for (const CompareGroup& g : c.groups)
            row(g.path, g.cells[0], g.cells[1], g.deltaNs[1], g.ratio[1], onlyIn(g));
        row("(total)", c.runs[0].total, c.runs[1].total, c.runs[1].deltaNs, c.runs[1].ratio, {});
        return 0;
    }
    for (size_t i = 0; i < n; ++i)
        std::printf(" %13s", runTag(i).c_str());
    for (size_t i = 1; i < n; ++i)
        std::printf(" %9s", (runTag(i) + "/BASE").c_str());
    std::printf("\n");
    auto row = [&](const std::string& name, const std::vector<const CompareCell*>& cells,
                   const std::vector<std::optional<double>>& ratios, const std::string& note) {
        std::printf("%s", fit(name, width).c_str());
        for (const CompareCell* cell : cells)
            std::printf(" %13s", cell->present ? duration(cell->ns).c_str() : "-");
        for (size_t i = 1; i < ratios.size(); ++i)
            std::printf(" %9s", ratioText(ratios[i]).c_str());
        std::printf("%s\n", note.empty() ? "" : ("  " + note).c_str());
    };
    for (const CompareGroup& g : c.groups) {
        std::vector<const CompareCell*> cells;
        for (const CompareCell& cell : g.cells)
            cells.push_back(&cell);
        row(g.path, cells, g.ratio, onlyIn(g));
    }
    std::vector<const CompareCell*> totals;
    std::vector<std::optional<double>> ratios;
    for (const CompareRunSummary& r : c.runs) {
        totals.push_back(&r.total);
        ratios.push_back(r.ratio);
    }
    row("(total)", totals, ratios, {});
    return 0;
}

int printKernelDiff(const KernelDiff& d, bool asJson, bool asCsv)
{
    auto name = [](const std::string& s) { return s.empty() ? std::string("null") : json::quote(s); };
    auto cellJson = [](const CompareCell& c, double v) { return c.present ? json::number(v) : std::string("null"); };
    if (asJson) {
        std::cout << "{\"per\":" << json::quote(toString(d.per)) << ",\"within\":" << filtersJson(d.filters)
                  << ",\"match\":" << json::quote(toString(d.within)) << ",\"notes\":" << notesJson(d.notes) << ",\n\"runs\":[\n "
                  << runJson(d.base) << ",\n " << runJson(d.other) << "],\n\"total\":{\"ns\":[" << json::number(d.base.total.ns)
                  << "," << json::number(d.other.total.ns) << "],\"count\":[" << json::number(d.base.total.count) << ","
                  << json::number(d.other.total.count) << "],\"delta_ns\":" << json::number(d.other.deltaNs)
                  << ",\"ratio\":" << optNumber(d.other.ratio) << "},\n\"summary\":{\"unchanged\":" << d.unchanged
                  << ",\"changed\":" << d.changed << ",\"removed\":" << d.removed << ",\"added\":" << d.added
                  << ",\"swapped\":" << d.swapped << ",\"moved\":" << d.moved << "},\n\"kernels\":[";
        for (size_t i = 0; i < d.rows.size(); ++i) {
            const KernelDiffRow& r = d.rows[i];
            std::cout << (i ? ",\n " : "\n ") << "{\"change\":" << json::quote(toString(r.change)) << ",\"op\":" << json::quote(r.op)
                      << ",\"other_op\":" << json::quote(r.otherOp) << ",\"base_name\":" << name(r.baseName) << ",\"other_name\":" << name(r.otherName)
                      << ",\"similar_names\":" << (r.similarNames ? "true" : "false") << ",\"count\":["
                      << cellJson(r.base, r.base.count) << "," << cellJson(r.other, r.other.count) << "],\"ns\":["
                      << cellJson(r.base, r.base.ns) << "," << cellJson(r.other, r.other.ns)
                      << "],\"delta_ns\":" << json::number(r.deltaNs) << ",\"ratio\":" << optNumber(r.ratio) << "}";
        }
        std::cout << "]}\n";
        return 0;
    }
    if (asCsv) {
        std::cout << "op,other_op,change,base_name,other_name,base_count,other_count,base_ns,other_ns,delta_ns,ratio,per\n";
        for (const KernelDiffRow& r : d.rows)
            std::cout << csv::field(r.op) << ',' << csv::field(r.otherOp) << ',' << toString(r.change) << ',' << csv::field(r.baseName) << ','
                      << csv::field(r.otherName) << ',' << (r.base.present ? json::number(r.base.count) : "") << ','
                      << (r.other.present ? json::number(r.other.count) : "") << ','
                      << (r.base.present ? json::number(r.base.ns) : "") << ',' << (r.other.present ? json::number(r.other.ns) : "")
                      << ',' << json::number(r.deltaNs) << ',' << csvNumber(r.ratio) << ',' << toString(d.per) << '\n';
        return 0;
    }
    std::printf("BASE   %s\nOTHER  %s\n", describe(d.base).c_str(), describe(d.other).c_str());
    std::printf("kernels of %s, matched by name inside each %s\n", describeFilters(d.filters).c_str(),
                std::string(toString(d.within)).c_str());
    for (const std::string& note : d.notes)
        std::printf("%s\n", note.c_str());
    std::printf("BASE %s, OTHER %s: %s (ratio %s); %d changed, %d unchanged, %d removed, %d added, %d swapped, %d moved\n\n",
                duration(d.base.total.ns).c_str(), duration(d.other.total.ns).c_str(), signedDuration(d.other.deltaNs).c_str(),
                ratioText(d.other.ratio).c_str(), d.changed, d.unchanged, d.removed, d.added, d.swapped, d.moved);
    auto opText = [](const KernelDiffRow& r) { return r.otherOp == r.op ? r.op : r.op + " -> " + r.otherOp; };
    size_t opWidth = 2;
    for (const KernelDiffRow& r : d.rows)
        opWidth = std::max(opWidth, displayLength(opText(r)));
    if (gNameWidth > 0)
        opWidth = std::min(opWidth, std::max<size_t>(gNameWidth, 2));
    std::printf("%-*s %-9s %13s %13s %14s %7s %9s %9s  %s\n", int(opWidth), "op", "change", "BASE", "OTHER", "delta", "ratio",
                "BASE n", "OTHER n", "kernel (BASE -> OTHER)");
    for (const KernelDiffRow& r : d.rows) {
        std::string kernel = r.change == KernelChange::Swapped ? r.baseName + " -> " + r.otherName
                             : r.change == KernelChange::Added ? "-> " + r.otherName
                             : r.change == KernelChange::Removed ? r.baseName + " ->"
                                                                 : r.baseName;
        std::printf("%s %-9s %13s %13s %14s %7s %9s %9s  %s\n", fit(opText(r), opWidth).c_str(),
                    std::string(toString(r.change)).c_str(), r.base.present ? duration(r.base.ns).c_str() : "-",
                    r.other.present ? duration(r.other.ns).c_str() : "-", signedDuration(r.deltaNs).c_str(),
                    ratioText(r.ratio).c_str(), r.base.present ? countText(r.base.count).c_str() : "-",
                    r.other.present ? countText(r.other.count).c_str() : "-",
                    (gNameWidth > 0 ? elideMiddle(printable(kernel), gNameWidth) : printable(kernel)).c_str());
    }
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
