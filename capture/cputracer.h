// The CPU tracer: times each op body with the monotonic clock and records it as a kernel on
// one track (device 0 "CPU: <model name>", stream 0), so every view works without a GPU.
#pragma once

#include "capture/tracer.h"

#include <string>

namespace wt::capture {

class CpuTracer : public Tracer {
public:
    CpuTracer(RecordSink& sink, const std::atomic<bool>* stop);

    int64_t now() const override;
    void launchBegin(const kernels::OpLaunch& op) override;
    void launchEnd() override;

    static std::string cpuModelName();
    static std::string cpuPropertiesJson();

private:
    int64_t m_launchStart = 0;
    uint32_t m_launchName = 0;
    int64_t m_launchScope = 0;
    int64_t m_correlation = 0;
    bool m_inLaunch = false;
};

}  // namespace wt::capture
