// Figures as text, and durations both ways: the one duration formatter the writer, the CLI and
// every GUI label use ("950 ns", "12.50 us", "3.200 ms", "906.8 ms": four significant digits, the
// unit by size), quantities with SI prefixes, shares and changes in percent, and the parser of
// the durations and time ranges the CLI and the GUI accept ("2ms", "1.5us", "2ms:5ms",
// "1000:2000"). analysis/ computes figures and never formats them; this is render's part.
// (namespace wt, not wt::render: the names are those every caller has always used.)
#pragma once

#include "analysis/timerange.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wt {

std::string formatDuration(double ns);

// printf's "%.*f" (correctly rounded), fast: "12.50" for (12.5, 2).
std::string fixedText(double v, int decimals);

// A count or rate with an SI prefix and three significant digits: formatQuantity(1.23e10,
// "FLOP/s") = "12.3 GFLOP/s", (37.5e9, "B/s") = "37.5 GB/s", (950, "B") = "950 B". Used for the
// FLOPs, bytes and achieved rates of op features.
std::string formatQuantity(double value, std::string_view unit);

// A fraction as a percentage with one decimal: 0.123 -> "12.3%".
std::string formatShare(double share);
// A change already in percent, signed: 12.5 -> "+12.5%", -3 -> "-3.0%", 0 -> "0.0%".
std::string formatPercent(double percent);

// "1500" (ns), "1500ns", "1.5us", "2ms", "0.25s" (also "1.5 us"): whole ns, rounded to nearest.
// nullopt for anything else (negative values included).
std::optional<int64_t> parseDuration(std::string_view text);

// "T0:T1" with both ends parsed by parseDuration and T0 <= T1; nullopt otherwise.
std::optional<TimeRange> parseTimeRange(std::string_view text);

}  // namespace wt
