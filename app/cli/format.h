// Human-readable numbers for CLI tables: durations with adaptive units, shares.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wt::cli {

std::string formatDuration(int64_t ns);   // "1.234 ms"
std::string formatShare(double share);    // "12.3%"

}  // namespace wt::cli
