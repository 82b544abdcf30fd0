// The CUPTI tracer (CUDA builds only): records kernels (concurrent), memcpy, memset and
// runtime and driver API calls with the CUPTI Activity API. Scope attribution: around every launch the
// innermost scope instance is pushed as an external correlation id, and CUPTI's
// EXTERNAL_CORRELATION records map each launch's correlation id to it. Buffers are handed
// back quickly (parsed and queued), drained until CUPTI has no more, and flushed after every
// step; dropped records are counted. Host scope times use cuptiGetTimestamp(), the clock of
// the GPU records, so everything lands on one clock.
#pragma once

#include "capture/tracer.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace wt::capture {

class CuptiTracer : public Tracer {
public:
    // Throws std::runtime_error with a one-line reason when CUPTI cannot be enabled.
    CuptiTracer(RecordSink& sink, const std::atomic<bool>* stop);
    ~CuptiTracer() override;

    int64_t now() const override;
    void launchBegin(const kernels::OpLaunch& op) override;
    void launchEnd() override;
    void endStep() override;     // flush CUPTI, attribute and queue the step's records
    void stop();                 // final flush; disables the activity kinds
    int64_t droppedRecords() const override;

    // Device 0's name and properties (JSON) from the CUDA runtime.
    static DeviceInfo deviceInfo(int device);

    // CUPTI buffer callbacks (static trampolines call these).
    void bufferCompleted(uint8_t* buffer, size_t validSize);

private:
    struct Pending {
        ActivityRecord record;
        uint32_t correlation;
    };
    void attributeAndQueue();
    template <typename Record>
    Pending memoryRecord(ActivityKind kind, const Record& record, const char* name);

    std::mutex m_mutex;                                   // guards the collections below
    std::vector<Pending> m_pending;                       // device records waiting for attribution
    std::vector<ApiRecord> m_api;
    std::unordered_map<uint32_t, int64_t> m_external;     // correlation id -> scope instance
    int64_t m_cuptiDropped = 0;
    bool m_started = false;
};

}  // namespace wt::capture
