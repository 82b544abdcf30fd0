// Human-readable numbers for CLI tables: durations with adaptive units, shares.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wt::cli {

// wt::formatDuration (analysis/duration.h), the one the GUI uses too: "1.234 ms", "12.50 us".
std::string formatDuration(double ns);
std::string formatShare(double share);    // "12.3%"
// A name as one line of a text table: control characters (an embedded NUL, newlines, tabs)
// written as C escapes (\0, \n, \t, \x1b), so a name can neither end early nor break the table.
// CSV and JSON keep the raw name.
std::string printable(std::string_view name);

}  // namespace wt::cli
