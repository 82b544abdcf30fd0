// ISO 8601 text of a UTC time, the one helper for every place that writes one (a run's
// started_at, a stored cost model's created_at, sweep ids). Whole seconds, rounded down (a time
// before 1970 included). No Qt.
#pragma once

#include <cstdint>
#include <string>

namespace wt {

// Extended format with the zone: "2026-11-30T17:05:12Z". epochNs: ns since 1970-01-01 UTC.
std::string isoUtc(int64_t epochNs);
// Basic format without a zone, for ids and file names: "20261130T170512".
std::string isoUtcCompact(int64_t epochNs);
// The wall clock now, ns since 1970-01-01 UTC.
int64_t epochNowNs();
// isoUtc(epochNowNs()).
inline std::string isoUtcNow() { return isoUtc(epochNowNs()); }

}  // namespace wt
