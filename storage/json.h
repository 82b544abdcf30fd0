// Minimal helpers for writing JSON text (escaping, numbers); used by the CLI and exporters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wt::json {

// The string as a quoted JSON string literal; ill-formed UTF-8 becomes U+FFFD (utf8::repaired()).
std::string quote(std::string_view text);
// A double with enough digits to round-trip (NaN/inf become null).
std::string number(double value);

}  // namespace wt::json
