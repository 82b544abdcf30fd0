#include "isotime.h"

#include <chrono>
#include <ctime>

namespace wt {

namespace {
std::string format(int64_t epochNs, const char* pattern)
{
    int64_t secs = epochNs / 1000000000;
    if (epochNs % 1000000000 < 0)
        --secs;   // floor: -1 ns is 23:59:59 of the day before
    std::time_t t = std::time_t(secs);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    size_t n = std::strftime(buf, sizeof buf, pattern, &tm);
    return std::string(buf, n);
}
}  // namespace

std::string isoUtc(int64_t epochNs) { return format(epochNs, "%Y-%m-%dT%H:%M:%SZ"); }

std::string isoUtcCompact(int64_t epochNs) { return format(epochNs, "%Y%m%dT%H%M%S"); }

int64_t epochNowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace wt
