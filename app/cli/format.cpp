#include "format.h"

#include "analysis/duration.h"

#include <cstdio>

namespace wt::cli {

std::string formatDuration(double ns)
{
    return wt::formatDuration(ns);
}

std::string formatShare(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", share * 100.0);
    return buf;
}

std::string printable(std::string_view name)
{
    std::string out;
    out.reserve(name.size());
    for (char ch : name) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c != 0x7f) {
            out += ch;
            continue;
        }
        switch (c) {
        case 0: out += "\\0"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default: {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
        }
    }
    return out;
}

}  // namespace wt::cli
