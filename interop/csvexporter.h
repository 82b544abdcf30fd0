// Writes one run as CSV: one row per activity (times in ns relative to the run's origin, device,
// stream, kind, name, scope path, launch configuration, bytes), and a kernel summary like Nsight
// Systems' cuda_gpu_kern_sum (time %, total, instances, avg, median, min, max, stddev, name).
#pragma once

#include <cstdint>
#include <ostream>

namespace wt {
class Reader;
}

namespace wt::interop {

class CsvExporter {
public:
    static void writeActivities(const Reader& reader, int64_t runId, std::ostream& out);
    static void writeKernelSummary(const Reader& reader, int64_t runId, std::ostream& out);
};

}  // namespace wt::interop
