// Exact decimal timestamps: Kineto writes absolute microseconds (~1.7e15) with a fractional
// part; a double keeps only ~16 significant digits, so the nanoseconds would be lost. These
// parse the JSON number text with integer arithmetic only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wt::interop {

// A JSON number (optionally with fraction and exponent) times 10^scaleDigits, rounded half away
// from zero to an integer; nullopt when the text is not a number or the result overflows.
// microsToNs("1712195495505583.987") == 1712195495505583987.
std::optional<int64_t> parseScaledDecimal(std::string_view text, int scaleDigits);
inline std::optional<int64_t> microsToNs(std::string_view text) { return parseScaledDecimal(text, 3); }

// Nanoseconds as microseconds with exactly three decimals ("1712195495505583.987").
std::string nsToMicrosText(int64_t ns);

}  // namespace wt::interop
