// The CUPTI tracer (CUDA builds only): records kernels (concurrent), memcpy, memset and
// runtime and driver API calls with the CUPTI Activity API. Around every launch of an op a
// launch id is pushed as an external correlation id; CUPTI's EXTERNAL_CORRELATION records map
// each API call to it, so every device record finds its op (for the kernel's readable name)
// and its innermost scope instance. That logic, free of CUPTI, is CuptiRecords; this class
// only turns CUPTI's structs into its input. Buffers are handed back quickly (parsed and
// queued), drained until CUPTI has no more, and flushed after every step; dropped and
// incomplete records are counted. Host scope times use cuptiGetTimestamp(), the clock of the
// GPU records, so everything lands on one clock.
#pragma once

#include "capture/cuptirecords.h"
#include "capture/tracer.h"

#include <string>
#include <utility>
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
    void stop() override;        // final flush; disables the activity kinds
    int64_t droppedRecords() const override;
    // kernel_raw_names (JSON: readable name -> raw names) and incomplete_records.
    std::vector<std::pair<std::string, std::string>> runMetadata() const override;

    // Device 0's name and properties (JSON) from the CUDA runtime.
    static DeviceInfo deviceInfo(int device);

    // CUPTI buffer callbacks (static trampolines call these).
    void bufferCompleted(uint8_t* buffer, size_t validSize);

private:
    CuptiRecords m_records;
    bool m_started = false;
};

}  // namespace wt::capture
