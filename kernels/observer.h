// The hooks a tracer (capture/) observes while a model runs: nested scopes
// (step > phase > layer > op) and one begin/end pair per device launch (CUDA) or op body (CPU).
// Contract: all calls come from the thread running the model; every launch happens inside a
// Layer scope; with no observer installed a hook costs one null-pointer check.
#pragma once

#include <string_view>

namespace wt::kernels {

enum class ScopeLevel { Step, Phase, Layer, Op };

struct OpLaunch {
    std::string_view name;   // kernel-like name, e.g. "sgemm_nt", "glu_forward", "adaptive_head_logsoftmax"
    double flops;            // estimated floating-point operations of this launch
    double bytes;            // estimated bytes moved (read + written)
    double bytesRead = 0;    // part of `bytes` read
    double bytesWritten = 0; // part of `bytes` written
};

class Observer {   // a tracer implements this; all calls come from the thread running the model
public:
    virtual ~Observer() = default;
    virtual void scopeEnter(std::string_view name, ScopeLevel level) = 0;
    virtual void scopeExit() = 0;
    virtual void launchBegin(const OpLaunch& op) = 0;  // before each device launch / CPU op body
    virtual void launchEnd() = 0;                      // after it was issued (CUDA) or finished (CPU)
};

}  // namespace wt::kernels
