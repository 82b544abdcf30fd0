// Launch latency: how long a kernel waited between the host's call that launched it (joined by
// correlation id: CUPTI's, Kineto's `correlation` / ac2g flows, Nsight's correlationId) and
// its start on the GPU, i.e. kernel start - API call start, per device and for the whole run,
// with HTA's launch statistics: short kernels (the kernel ran shorter than the call that
// launched it took on the CPU: launch-bound) and launch-delay outliers (latency over
// kOutlierFactor times the median). docs/definitions.md. Reads storage only.
#pragma once

#include "table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wt {

class Reader;

inline constexpr int64_t kOutlierFactor = 10;

struct LaunchLatency {
    int32_t deviceId = -1;      // -1: every device of the run
    std::string device;         // the device's name ("all" for the run)
    int64_t kernels = 0;        // kernels of the device
    int64_t launched = 0;       // of them, with their launching call found
    int64_t medianNs = 0;       // lower median of the latencies (0 without any)
    int64_t p95Ns = 0;          // nearest-rank 95th percentile
    int64_t maxNs = 0;
    double meanNs = 0;
    int64_t shortKernels = 0;   // kernel duration < its call's duration
    int64_t outliers = 0;       // latency > kOutlierFactor x median
};

// Lower median, nearest-rank p95, max and mean of `latencies` (sorted in place) into `out`.
void summarizeLatencies(std::vector<int64_t>& latencies, LaunchLatency& out);

// The run first (deviceId -1), then each device with kernels, by id. Kernels whose
// correlation id matches no API call (imports without runtime calls, CPU captures) count in
// `kernels` but not in `launched`.
std::vector<LaunchLatency> computeLaunchLatency(const Reader& reader, int64_t runId);

// Columns: device_id (JSON/CSV only), device, kernels, launched, median_ns, p95_ns, max_ns,
// mean_ns, short_kernels, outliers; none in the latency columns where nothing was launched.
Table launchLatencyTable(const std::vector<LaunchLatency>& rows);

}  // namespace wt
