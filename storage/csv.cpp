#include "csv.h"

#include "utf8.h"

namespace wt::csv {

std::string field(std::string_view text)
{
    // CSV files are UTF-8 text: ill-formed sequences (names an older version stored raw) become U+FFFD.
    std::string repaired;
    if (!utf8::isValid(text)) {
        repaired = utf8::repaired(text);
        text = repaired;
    }
    if (text.find_first_of(",\"\n\r") == std::string_view::npos)
        return std::string(text);
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

}  // namespace wt::csv
