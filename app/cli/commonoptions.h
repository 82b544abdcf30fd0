// The options several commands read alike (stats, compare, variants, sweep): one parser each,
// so one spelling, one default and one error message (a UsageError: exit 2).
#pragma once

#include "analysis/grouping.h"
#include "analysis/kernelcategory.h"
#include "app/cli/args.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace wt::cli {

enum class OutputFormat { Text, Json, Csv };
// --json or --csv (text without either); both: "--json and --csv exclude each other".
OutputFormat outputFormat(const Args& args);

// --width N: names longer than N characters elided in the middle; 0 (the default) = full names.
size_t nameWidth(const Args& args);

// --depth N, the scope path depth of --group-by scope: at least 1, default 3.
int scopeDepth(const Args& args);

// --within GROUPBY=KEY, repeatable, in the order given.
std::vector<GroupFilter> withinFilters(const Args& args);

// --group-by as given, nullopt without it: "unknown --group-by 'X'" for a name that is no
// GroupBy.
std::optional<GroupBy> groupByOption(const Args& args);

// --categories FILE: the rules read from FILE (a bad file throws "FILE:LINE: ...", exit 1); null
// without the option (the rules stored with each run apply).
CategoriesPtr categoriesOption(const Args& args);

}  // namespace wt::cli
