// The base of the tracers: observes a model's scopes (step > phase > layer > op) and
// launches, turns them into records for a RecordSink, and stops the workload when asked
// (SIGINT/SIGTERM) by throwing CaptureInterrupted from the next hook, so a capture stops
// after the current op. Derived tracers supply the clock and record the launches.
#pragma once

#include "capture/recordsink.h"
#include "kernels/observer.h"

#include <atomic>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wt::capture {

struct CaptureInterrupted : std::runtime_error {
    CaptureInterrupted() : std::runtime_error("interrupted") {}
};

class Tracer : public kernels::Observer {
public:
    Tracer(RecordSink& sink, const std::atomic<bool>* stop) : m_sink(sink), m_stop(stop) {}

    void scopeEnter(std::string_view name, kernels::ScopeLevel level) override;
    void scopeExit() override;

    // Clock of this tracer, nanoseconds; relative times subtract origin().
    virtual int64_t now() const = 0;
    int64_t origin() const { return m_origin; }
    void setOrigin(int64_t originNs) { m_origin = originNs; }
    // Closes scopes still open (an interrupted step) at the current time.
    void closeOpenScopes();
    // Called after each step has synchronized: tracers that collect asynchronously hand over.
    virtual void endStep() {}
    // The last hand-over: whatever the tracer still holds goes to the sink (CUPTI's last
    // buffers). Called once, while the sink is alive; afterwards the tracer writes nothing.
    virtual void stop() {}
    // Facts the tracer adds to the run's metadata after stop() (e.g. the raw kernel names).
    virtual std::vector<std::pair<std::string, std::string>> runMetadata() const { return {}; }
    virtual int64_t droppedRecords() const { return m_sink.dropped(); }

protected:
    void checkStop() const
    {
        if (m_stop && m_stop->load(std::memory_order_relaxed))
            throw CaptureInterrupted();
    }
    int64_t currentInstance() const { return m_stack.empty() ? 0 : m_stack.back().instance; }
    // Hands the op features of a launch (FLOPs, bytes, sizes) to the sink: one row per launch.
    void recordLaunch(const kernels::OpLaunch& op, int64_t correlationId);

    RecordSink& m_sink;
    const std::atomic<bool>* m_stop;
    int64_t m_origin = 0;

    // The sink's name id, cached here so the hot path takes no lock for known names.
    uint32_t nameId(std::string_view name);

private:
    struct Open { int64_t node, instance; };
    std::vector<Open> m_stack;
    // Children of each scope node by name (few per node): a lookup allocates nothing.
    std::unordered_map<int64_t, std::vector<std::pair<std::string, int64_t>>> m_children;
    struct ViewHash {
        using is_transparent = void;
        size_t operator()(std::string_view v) const { return std::hash<std::string_view>()(v); }
    };
    std::unordered_map<std::string, uint32_t, ViewHash, std::equal_to<>> m_names;
};

std::string_view levelName(kernels::ScopeLevel level);

}  // namespace wt::capture
