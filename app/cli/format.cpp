#include "format.h"

#include <cstdio>

namespace wt::cli {

std::string formatDuration(int64_t ns)
{
    char buf[64];
    double v = double(ns);
    if (ns < 0)
        v = -v;
    const char* unit = "ns";
    double scaled = v;
    if (v >= 1e9) { scaled = v / 1e9; unit = "s"; }
    else if (v >= 1e6) { scaled = v / 1e6; unit = "ms"; }
    else if (v >= 1e3) { scaled = v / 1e3; unit = "us"; }
    if (unit[0] == 'n' && unit[1] == 's')
        std::snprintf(buf, sizeof buf, "%s%lld ns", ns < 0 ? "-" : "", static_cast<long long>(v));
    else
        std::snprintf(buf, sizeof buf, "%s%.3f %s", ns < 0 ? "-" : "", scaled, unit);
    return buf;
}

std::string formatShare(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", share * 100.0);
    return buf;
}

}  // namespace wt::cli
