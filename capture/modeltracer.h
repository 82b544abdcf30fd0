// The model tracer: records steps that are not run. It replays the launches of a dry run
// (kernels::Model::listOps) on a clock that advances by each launch's predicted time, and writes
// them through the RecordSink like the CPU and CUPTI tracers: the scope tree of a capture
// (step > phase > layer > op, each instance from its first launch to its last), one activity and
// one launch row (op features, capture/tracer.h) per op. On a GPU, copies and memsets are memory
// activities on their own track, as CUPTI records them; otherwise every op is a kernel, as the
// CPU tracer records it. The times come from the caller (analysis/costmodel.h, predictor.h):
// capture/ knows no cost model.
#pragma once

#include "capture/tracer.h"
#include "kernels/runtime.h"
#include "storage/types.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wt {
class Writer;
}

namespace wt::capture {

class ModelTracer : public Tracer {
public:
    // memoryOps: copies and memsets as memory activities (a GPU); false: all kernels.
    ModelTracer(RecordSink& sink, bool memoryOps) : Tracer(sink, nullptr), m_memoryOps(memoryOps) {}

    int64_t now() const override { return m_clock; }
    // One step: ops[i] takes opNs[i] ns (at least 1); the scopes of the ops' paths open before
    // their first op and close after their last. Throws std::invalid_argument when the sizes differ.
    void replayStep(const std::vector<kernels::OpInfo>& ops, const std::vector<int64_t>& opNs);
    // The observer hooks, as replayStep drives them: a launch takes the time replayStep set for
    // it (1 ns when called otherwise) and is recorded whole at launchBegin.
    void launchBegin(const kernels::OpLaunch& op) override;
    void launchEnd() override;

private:
    bool m_memoryOps;
    int64_t m_clock = 0;          // ns since the run's origin: the sum of the ops replayed
    int64_t m_nextNs = 1;         // the predicted time of the launch replayStep hands over next
    int64_t m_correlation = 0;
    std::vector<std::string> m_openPath;   // the names of the open scopes, outermost first
};

// A predicted run: the run's description, one step's ops with their times, how many identical steps.
struct PredictedRun {
    RunInfo info;                 // name, workload, variant, preset, configJson, device, devicePropertiesJson, startedAt
    bool memoryOps = false;       // ModelTracer's: a GPU device
    std::vector<kernels::OpInfo> ops;
    std::vector<int64_t> opNs;    // predicted ns of each op (>= 1)
    int steps = 3;
    // Written after the records, in this order (predicted=true, cost model, sweep tags, ...).
    std::vector<std::pair<std::string, std::string>> metadata;
};

// Appends the run to the writer's file (backend `model`, device 0, status complete, duration the
// sum of its steps) through a RecordSink and a ModelTracer. Returns the run's id; the predicted
// run's span in ns is in *durationNs when given.
int64_t writePredictedRun(Writer& writer, const PredictedRun& run, int64_t* durationNs = nullptr);

}  // namespace wt::capture
