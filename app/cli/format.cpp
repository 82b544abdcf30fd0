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

}  // namespace wt::cli
