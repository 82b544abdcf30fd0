// One capture: runs a bundled workload for some steps under a tracer (CUPTI on a GPU, the
// CPU tracer elsewhere) and appends the run to a file. Used by `wheretime capture` and the
// tests. SIGINT, SIGTERM and SIGHUP (when installSignalHandlers is set) stop it after the current op;
// the run is kept and marked interrupted.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wt::capture {

struct CaptureOptions {
    std::string workload = "gcn";
    std::string variant = "adaptive";
    std::string preset;                  // empty: paper on CUDA, small on the CPU
    std::vector<std::pair<std::string, std::string>> overrides;
    int steps = 3;
    int warmup = 1;
    std::string backend = "auto";        // auto | cuda | cpu
    std::string name;                    // run name; default "<workload>-<variant>-<preset>"
    std::string output;                  // file to append the run to
    bool trace = true;                   // false: --no-trace, time the steps only, write nothing
    uint64_t seed = 1;
    bool installSignalHandlers = false;
};

struct CaptureResult {
    int64_t runId = 0;
    std::string device;
    std::string backend;                 // cupti | cpu
    std::string preset;
    std::string status;                  // complete | interrupted
    int stepsDone = 0;
    int64_t kernels = 0;
    int64_t droppedRecords = 0;
    std::vector<int64_t> stepWallNs;     // wall time of each measured step
    double medianStepNs = 0;
    double lastLoss = 0;
    // Wall time spent on the file outside the steps: opening it, beginning the run, and after
    // the last step draining the queue and finishing the run (the summary).
    int64_t fileOverheadNs = 0;
};

// Bad options (unknown workload, variant, preset, key; impossible sizes; cuda without a GPU).
struct CaptureUsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws CaptureUsageError for bad options and StorageError/std::runtime_error for failures
// (unwritable output, disk full, CUDA errors). An interrupted capture returns normally with
// status "interrupted".
CaptureResult runCapture(const CaptureOptions& options);

}  // namespace wt::capture
