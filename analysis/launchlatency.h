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
#include <utility>
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

// Kernels fed one at a time, in any order, by whoever holds them: computeLaunchLatency below
// from storage, the GUI from its loaded run (the details' run figures). finish() gives the rows.
class LaunchLatencyAccumulator {
public:
    // A kernel whose launching call is not known.
    void addKernel(int32_t deviceId);
    // A kernel and the call that launched it (starts on one clock, ns).
    void addLaunched(int32_t deviceId, int64_t kernelStartNs, int64_t kernelDurationNs, int64_t callStartNs,
                     int64_t callDurationNs);
    // The run first (deviceId -1, "all"), then each device with kernels by id, named from
    // `names` (else "device N").
    std::vector<LaunchLatency> finish(const std::vector<std::pair<int32_t, std::string>>& names);

private:
    struct Acc {
        int64_t kernels = 0, shortKernels = 0;
        std::vector<int64_t> latencies;
    };
    std::vector<std::pair<int32_t, Acc>> m_devices;   // few: found by a scan
    Acc m_all;
    Acc& device(int32_t id);
};

// The run first (deviceId -1), then each device with kernels, by id. Kernels whose
// correlation id matches no API call (imports without runtime calls, CPU captures) count in
// `kernels` but not in `launched`.
std::vector<LaunchLatency> computeLaunchLatency(const Reader& reader, int64_t runId);

// Columns: device_id (JSON/CSV only), device, kernels, launched, median_ns, p95_ns, max_ns,
// mean_ns, short_kernels, outliers; none in the latency columns where nothing was launched.
Table launchLatencyTable(const std::vector<LaunchLatency>& rows);

}  // namespace wt
