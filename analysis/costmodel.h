// The analytical cost model: a table of devices (peak rates, memory bandwidth, SM count, launch
// overhead; sources in docs/prediction.md), "this CPU" from `wheretime calibrate`, and the
// roofline time of one launch: max(FLOPs / peak, bytes / bandwidth) + launch overhead.
#pragma once

#include "analysis/opfeatures.h"

#include <optional>
#include <string>
#include <vector>

namespace wt {

struct DeviceSpec {
    std::string name;                 // table key, e.g. "h200", or a calibration's name
    std::string title;                // e.g. "NVIDIA H200 SXM (141 GB)"
    std::string kind = "gpu";         // gpu | cpu
    double fp32Flops = 0;             // peak FLOP/s of plain fp32 (what sgemm without TF32 uses)
    double tf32Flops = 0;             // dense tensor-core TF32 peak (0: none)
    double bf16Flops = 0;             // dense tensor-core BF16 peak (0: none)
    double memoryBytesPerS = 0;       // device memory bandwidth
    double hostLinkBytesPerS = 0;     // host <-> device copies (PCIe / NVLink-C2C); CPU: the memory
    int sms = 0;                      // streaming multiprocessors (CPU: threads)
    double launchOverheadNs = 0;      // fixed cost per launch
    std::string source;               // one line: where the figures come from
    // exp/s of the CPU backend's row kernels (bench_roofline measures it; 0: no exp limit). Not
    // stored: calibrate does not measure it.
    double expsPerS = 0;
};

// The built-in devices: h200, h100, a100, v100, rtx4090.
const std::vector<DeviceSpec>& deviceTable();
// A table device by name (case-insensitive; "H100" and "h100" alike), nullopt when unknown.
std::optional<DeviceSpec> tableDevice(const std::string& name);

std::string toJson(const DeviceSpec& device);
// Parses what toJson wrote (analysis/jsonvalue.h); nullopt when the text is not JSON, a field has
// the wrong type, or a rate is missing or not positive; *error (when given) then says which, in one line.
std::optional<DeviceSpec> deviceFromJson(const std::string& json, std::string* error = nullptr);
// The same from a parsed object (a calibration inside a predictor's JSON).
class JsonValue;
std::optional<DeviceSpec> deviceFromJson(const JsonValue& object, std::string* error = nullptr);

// The terms of one launch's roofline time on a device, in ns: FLOPs / peak, bytes / bandwidth,
// exps / exp throughput (0 where the device has none) and the fixed launch overhead. Copies move
// their bytes over the host link. The peak is fp32's, or the bf16 peak for a bfloat16 GEMM
// (bf16gemm_*, the fused_bf16 variant) where the device has one.
struct RooflineTerms {
    double flopNs = 0, byteNs = 0, expNs = 0, launchNs = 0;
    // max(flopNs, byteNs, expNs) + launchNs: the roofline time.
    double totalNs() const;
};
RooflineTerms rooflineTerms(const DeviceSpec& device, const std::string& launchKind, double flops, double bytes,
                            bool bf16 = false, double exps = 0);
// Roofline time of one launch on a device, in ns: max(flops / peak, bytes / bandwidth, exps /
// exp throughput) + launch overhead (rooflineTerms(...).totalNs()).
double rooflineNs(const DeviceSpec& device, const std::string& launchKind, double flops, double bytes,
                  bool bf16 = false, double exps = 0);
// Whether an op name is a bfloat16 GEMM (kernels/runtime.cpp names them bf16gemm_nn/nt/tn/tt).
inline bool isBf16Gemm(const std::string& opName) { return opName.rfind("bf16gemm_", 0) == 0; }
// Exps (or other transcendental calls; GELU's erf counts one) of a launch's definition
// (kernels/opsmath.h, bertops.h): its elements (the product of its sizes in `shapes`) times the
// exps per element of its op (log-softmax 1, fused loss 2, softmaxes 1, GLU 1, GELU 1 forward and
// 2 backward); 0 for every other op.
double expsOf(const LaunchSample& s);
inline RooflineTerms rooflineTerms(const DeviceSpec& device, const LaunchSample& s)
{
    // A copy's bytes are read on one side and written on the other: it moves bytesRead.
    return rooflineTerms(device, s.kind, s.flops, s.kind == "memcpy" ? s.bytesRead : s.bytes(), isBf16Gemm(s.name),
                         device.expsPerS > 0 ? expsOf(s) : 0);
}
inline double rooflineNs(const DeviceSpec& device, const LaunchSample& s) { return rooflineTerms(device, s).totalNs(); }

}  // namespace wt
