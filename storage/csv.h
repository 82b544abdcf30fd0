// CSV fields (RFC 4180 quoting), shared by the CLI, the CSV exporter and reports.
#pragma once

#include <string>
#include <string_view>

namespace wt::csv {

// The text as one CSV field: quoted (with doubled quotes) when it holds a comma, quote or newline;
// ill-formed UTF-8 becomes U+FFFD (utf8::repaired()).
std::string field(std::string_view text);

}  // namespace wt::csv
