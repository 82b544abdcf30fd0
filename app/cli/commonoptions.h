// The options several commands read alike (stats, compare, variants, sweep): one parser each,
// so one spelling, one default and one error message (a UsageError: exit 2).
#pragma once

#include "analysis/grouping.h"
#include "analysis/costmodel.h"
#include "analysis/kernelcategory.h"
#include "app/cli/args.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace wt::cli {

enum class OutputFormat { Text, Json, Csv };
// --json or --csv (text without either); both: "--json and --csv exclude each other".
OutputFormat outputFormat(const Args& args);

// --width N: names as distinct short forms of at most N characters (render/shortname.h); 0 = full
// names. Without --width: full names, except for a text table written to a terminal, which gets
// kTerminalNameWidth.
constexpr size_t kTerminalNameWidth = 60;
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

// A calibration stored in `file` (`wheretime calibrate`); a damaged one throws one line
// (exit 1), it is not an unknown device.
DeviceSpec calibrationOf(const StoredCostModel& m, const std::string& file);
// --device NAME: a table device (h200, ...) or a calibration stored in the file (nullopt: neither).
std::optional<DeviceSpec> resolveDevice(const std::string& name, Database& db, const std::string& file);

}  // namespace wt::cli
