#include "textformat.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace wt {

// printf's "%.*f", correctly rounded like it, without its cost (tables format thousands of cells).
std::string fixedText(double v, int decimals)
{
    char buf[400];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
    return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("-");
}

std::string formatQuantity(double value, std::string_view unit)
{
    static const char* const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    if (!std::isfinite(value))
        return "-";
    double v = std::fabs(value);
    size_t p = 0;
    while (v >= 999.5 && p + 1 < std::size(prefixes)) {
        v /= 1000.0;
        ++p;
    }
    const int decimals = v >= 99.95 || p == 0 ? 0 : v >= 9.995 ? 1 : 2;
    std::string out = value < 0 ? "-" : "";
    out += fixedText(v, decimals);
    out += ' ';
    out += prefixes[p];
    out += unit;
    return out;
}

std::string formatShare(double share)
{
    std::string out = fixedText(100.0 * share, 1);
    out += '%';
    return out;
}

std::string formatPercent(double percent)
{
    std::string out = percent > 0 ? "+" : "";
    out += fixedText(percent, 1);
    out += '%';
    return out;
}

std::string formatDuration(double ns)
{
    const double abs = std::fabs(ns);
    double unit = 1;
    const char* name = "ns";
    if (abs >= 1e9) {
        unit = 1e9;
        name = "s";
    } else if (abs >= 1e6) {
        unit = 1e6;
        name = "ms";
    } else if (abs >= 1e3) {
        unit = 1e3;
        name = "us";
    }
    const double v = ns / unit;
    const double a = std::fabs(v);
    const int decimals = unit == 1 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3;
    std::string out = fixedText(v, decimals);
    out += ' ';
    out += name;
    return out;
}

std::optional<int64_t> parseDuration(std::string_view text)
{
    while (!text.empty() && text.front() == ' ')
        text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ')
        text.remove_suffix(1);
    size_t numEnd = 0;
    while (numEnd < text.size() && (std::isdigit(static_cast<unsigned char>(text[numEnd])) || text[numEnd] == '.'))
        ++numEnd;
    if (numEnd == 0)
        return std::nullopt;
    double value = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + numEnd, value);
    if (ec != std::errc() || p != text.data() + numEnd)
        return std::nullopt;
    std::string_view unit = text.substr(numEnd);
    while (!unit.empty() && unit.front() == ' ')
        unit.remove_prefix(1);
    double scale = 0;
    if (unit.empty() || unit == "ns")
        scale = 1;
    else if (unit == "us")
        scale = 1e3;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "s")
        scale = 1e9;
    else
        return std::nullopt;
    const double ns = std::round(value * scale);
    if (!std::isfinite(ns) || ns > 9.2e18)
        return std::nullopt;
    return int64_t(ns);
}

std::optional<TimeRange> parseTimeRange(std::string_view text)
{
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos)
        return std::nullopt;
    auto t0 = parseDuration(text.substr(0, colon));
    auto t1 = parseDuration(text.substr(colon + 1));
    if (!t0 || !t1 || *t1 < *t0)
        return std::nullopt;
    return TimeRange{*t0, *t1};
}

}  // namespace wt
