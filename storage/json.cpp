#include "json.h"

#include "utf8.h"

#include <cmath>
#include <cstdio>

namespace wt::json {

std::string quote(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (static_cast<unsigned char>(c) >= 0x80) {
            // JSON is UTF-8: an ill-formed sequence (a name an older version stored raw, a file
            // path) becomes U+FFFD, or json.load and our own importer refuse the whole file.
            bool valid = false;
            size_t n = utf8::sequenceAt(text, i, valid);
            if (valid)
                out.append(text.substr(i, n));
            else
                out.append(utf8::kReplacement);
            i += n - 1;
            continue;
        }
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

std::string number(double value)
{
    if (!std::isfinite(value))
        return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", value);
    return buf;
}

}  // namespace wt::json
