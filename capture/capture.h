// One capture: runs a bundled workload for some steps under a tracer (CUPTI on a GPU, the
// CPU tracer elsewhere) and appends the run to a file. Used by `wheretime capture` and the
// tests. SIGINT, SIGTERM and SIGHUP (when installSignalHandlers is set) stop it after the current op;
// the run is kept and marked interrupted.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wt::capture {

class RecordSink;
class Tracer;

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
    // Extra (key, value) pairs for the run's metadata (e.g. the sweep tags of `capture --sweep`).
    std::vector<std::pair<std::string, std::string>> metadata;
    // Called with a one-line notice when --backend auto captures on the CPU (no driver, no
    // GPU, or no usable CUDA plugin); the CLI prints it on stderr.
    std::function<void(const std::string&)> notice;
    // Tests: builds the tracer instead of the CUPTI or CPU one (e.g. one that injects a device
    // error mid-step). It must write only through the sink it is given.
    std::function<std::unique_ptr<Tracer>(RecordSink&, const std::atomic<bool>*)> tracerFactory;
};

struct CaptureResult {
    int64_t runId = 0;
    std::string device;
    std::string backend;                 // cupti | cpu
    std::string preset;
    std::string status;                  // complete | interrupted (failed runs throw CaptureFailed)
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

// The GPU capture asked for (--backend cuda) cannot run here: no CUDA plugin, a mismatched
// one, no driver or no GPU. what() is one line.
struct CaptureUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A step failed (a device error, a failed launch, out of memory, any error of the workload) after
// the run was begun: what was recorded up to the error is kept and the run is marked failed.
// what() is one line: the error, then the run's id and status.
struct CaptureFailed : std::runtime_error {
    CaptureFailed(const std::string& message, int64_t runId_) : std::runtime_error(message), runId(runId_) {}
    int64_t runId;
};

// Throws CaptureUsageError for bad options, CaptureUnavailable when --backend cuda cannot run, CaptureFailed when a traced step fails, and
// StorageError/std::runtime_error for other failures (unwritable output, disk full, errors of an
// untraced run). An interrupted capture returns normally with status "interrupted".
CaptureResult runCapture(const CaptureOptions& options);

}  // namespace wt::capture
