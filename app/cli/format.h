// Human-readable numbers for CLI tables: durations with adaptive units, shares.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wt::cli {

// wt::formatDuration (analysis/duration.h), the one the GUI uses too: "1.234 ms", "12.50 us".
std::string formatDuration(double ns);
std::string formatShare(double share);    // "12.3%"

}  // namespace wt::cli
