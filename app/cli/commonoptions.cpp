#include "commonoptions.h"

#include <memory>
#include <unistd.h>
#include <stdexcept>

namespace wt::cli {

OutputFormat outputFormat(const Args& args)
{
    const bool json = args.flag("--json"), csv = args.flag("--csv");
    if (json && csv)
        throw UsageError("--json and --csv exclude each other");
    return json ? OutputFormat::Json : csv ? OutputFormat::Csv : OutputFormat::Text;
}

size_t nameWidth(const Args& args)
{
    // A text table on a terminal: real traces' kernel names are C++ signatures of hundreds or
    // thousands of characters, and the name column is as wide as the longest one, so every row
    // would wrap several times. Pipes and files keep full names (scripts, diffs).
    if (!args.value("--width") && outputFormat(args) == OutputFormat::Text && ::isatty(STDOUT_FILENO))
        return kTerminalNameWidth;
    const long long width = args.integer("--width", 0);
    if (width < 0)
        throw UsageError("--width must be 0 (full names) or more");
    return size_t(width);
}

int scopeDepth(const Args& args)
{
    const long long depth = args.integer("--depth", 3);
    if (depth < 1)
        throw UsageError("--depth must be at least 1");
    return int(depth);
}

std::vector<GroupFilter> withinFilters(const Args& args)
{
    std::vector<GroupFilter> filters;
    for (const std::string& w : args.values("--within")) {
        auto eq = w.find('=');
        auto fg = eq == std::string::npos ? std::nullopt : groupByFromString(w.substr(0, eq));
        if (!fg)
            throw UsageError("--within needs GROUPBY=KEY, got '" + w + "'");
        filters.emplace_back(*fg, w.substr(eq + 1));
    }
    return filters;
}

std::optional<GroupBy> groupByOption(const Args& args)
{
    auto text = args.value("--group-by");
    if (!text)
        return std::nullopt;
    auto g = groupByFromString(*text);
    if (!g)
        throw UsageError("unknown --group-by '" + *text + "'");
    return *g;
}

CategoriesPtr categoriesOption(const Args& args)
{
    if (auto file = args.value("--categories"))
        return std::make_shared<const KernelCategories>(KernelCategories::load(*file));
    return nullptr;
}

DeviceSpec calibrationOf(const StoredCostModel& m, const std::string& file)
{
    std::string why;
    auto d = deviceFromJson(m.body, &why);
    if (!d)
        throw std::runtime_error("calibration '" + m.name + "' in " + file + " is damaged: " + why);
    return *d;
}

std::optional<DeviceSpec> resolveDevice(const std::string& name, Database& db, const std::string& file)
{
    if (auto d = tableDevice(name))
        return d;
    if (auto m = CostModelStore(db).get(name); m && m->kind == "device")
        return calibrationOf(*m, file);
    return std::nullopt;
}

}  // namespace wt::cli
