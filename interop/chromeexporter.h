// Writes one run as Chrome trace JSON (opens in Perfetto and chrome://tracing): one process per
// device, one thread per stream (kernels, memcpy, memset), the scope tree as nested slices on
// host-side "Scopes" threads, runtime API calls on their host threads, flow arrows from each API
// call to the activity it launched, and run metadata (device, workload, variant) at the top.
// Times are the run's absolute clock in microseconds with three exact decimals (ns).
// Importing the export back gives the same kernels and scopes: kernels carry their scope
// instance ("wt_scope") and scope slices their instance and parent ids.
#pragma once

#include <cstdint>
#include <ostream>

namespace wt {
class Reader;
}

namespace wt::interop {

class ChromeExporter {
public:
    static constexpr int64_t kHostPid = 1000000;          // process of API calls and scopes
    static constexpr int64_t kScopeLaneTid = 2000000000;  // tids of the scope lanes: + lane index

    static void write(const Reader& reader, int64_t runId, std::ostream& out);
};

}  // namespace wt::interop
