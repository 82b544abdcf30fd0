// The hooks a tracer (capture/) observes while a model runs: nested scopes
// (step > phase > layer > op) and one begin/end pair per device launch (CUDA) or op body (CPU).
// Contract: all calls come from the thread running the model; every launch happens inside a
// Layer scope; with no observer installed a hook costs one null-pointer check.
//
// Op names: OpLaunch::name is the op's name as the docs use it ("fused_logsoftmax_loss_grad",
// "log_softmax_forward", "sgemm_nt", "memcpy_dtoh_loss", ...), the same on the CPU and the CUDA
// backend, so runs of one workload on both compare by name. Between launchBegin(op) and
// launchEnd() the CUDA backend issues exactly the device work that `kind` says, on the
// backend's one stream, and nothing else (no allocation, no other launch):
//   Kernel  exactly one kernel of our own (launch.h); CUPTI sees a mangled template name
//           (wt::kernels::forEachKernel<...>): name it by op.name
//   Gemm    one cuBLAS call: one or more library kernels (split-K may add a reduction
//           kernel); op.name ("sgemm_nt", "sgemm_batched_nn", ...) names the call
//   Memcpy  exactly one cudaMemcpyAsync (then a stream sync for device-to-host reads)
//   Memset  exactly one cudaMemsetAsync
// On the CPU backend the bracket holds the op's whole body (one record per launch).
#pragma once

#include <cstdint>
#include <string_view>

namespace wt::kernels {

enum class ScopeLevel { Step, Phase, Layer, Op };

enum class LaunchKind : uint8_t { Kernel, Gemm, Memcpy, Memset };

struct Dims;   // runtime.h: the sizes of a launch ("M", "N", "K", "rows", ...)

struct OpLaunch {
    std::string_view name;   // the op's name, e.g. "sgemm_nt", "glu_forward", "fused_logsoftmax_loss_grad"
    double flops;            // estimated floating-point operations of this launch
    double bytes;            // estimated bytes moved (read + written)
    double bytesRead = 0;    // part of `bytes` read
    double bytesWritten = 0; // part of `bytes` written
    LaunchKind kind = LaunchKind::Kernel;
    // The launch's sizes, set by Runtime::begin for the observer (valid during launchBegin only).
    const Dims* dims = nullptr;
};

// Short lower-case name of a launch kind ("kernel", "gemm", "memcpy", "memset").
constexpr const char* launchKindName(LaunchKind k)
{
    return k == LaunchKind::Gemm ? "gemm" : k == LaunchKind::Memcpy ? "memcpy" : k == LaunchKind::Memset ? "memset" : "kernel";
}

class Observer {   // a tracer implements this; all calls come from the thread running the model
public:
    virtual ~Observer() = default;
    virtual void scopeEnter(std::string_view name, ScopeLevel level) = 0;
    virtual void scopeExit() = 0;
    virtual void launchBegin(const OpLaunch& op) = 0;  // before each device launch / CPU op body
    virtual void launchEnd() = 0;                      // after it was issued (CUDA) or finished (CPU)
};

}  // namespace wt::kernels
