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
    double expPerS = 0;               // exp/log/erf per second (GPU: the SFUs; CPU: the row kernels' vexp); 0: no bound
    std::string source;               // one line: where the figures come from
    // FLOP/s of a plain scalar loop (a functor called once per element, with its index arithmetic:
    // the ops without a vectorized CPU path, which carry the size "scalar=1"); `wheretime
    // calibrate` measures it on the CPU. 0: none (table devices: such a launch has the fp32 peak).
    double scalarFlops = 0;
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

// Roofline time of one launch on a device, in ns: max(flops / peak, bytes / bandwidth,
// exps / exp rate) + launch overhead; copies move their bytes over the host link. The peak is
// fp32's, or the bf16 peak for a bfloat16 GEMM (bf16gemm_*, the fused_bf16 variant) where the
// device has one; exps count only where the device has an exp rate.
double rooflineNs(const DeviceSpec& device, const std::string& launchKind, double flops, double bytes,
                  bool bf16 = false, double exps = 0, bool scalarLoop = false);
// The FLOP/s that bounds a launch: the bf16 peak for a bfloat16 GEMM, the scalar-loop rate for a
// scalar loop (where the device has them), else the fp32 peak.
double flopPeak(const DeviceSpec& device, bool bf16, bool scalarLoop);

// Which of the roofline's terms bounds a launch.
enum class RooflineBound { Flops, Memory, Exp, Launch };
const char* toString(RooflineBound bound);   // "flop", "mem", "exp", "launch"
// The roofline of one launch (or a launch's per-step sum): each term in ns, their bound.
struct RooflineTerms {
    double flopsNs = 0, memoryNs = 0, expNs = 0, launchNs = 0;
    double boundNs() const;                   // max(flops, memory, exp) + launch: rooflineNs
    RooflineBound by() const;                 // the largest of the max's terms; Launch when all are below it
};
RooflineTerms rooflineTerms(const DeviceSpec& device, const std::string& launchKind, double flops, double bytes,
                            bool bf16, double exps, double launches = 1, bool scalarLoop = false);
// Whether an op name is a bfloat16 GEMM (kernels/runtime.cpp names them bf16gemm_nn/nt/tn/tt).
inline bool isBf16Gemm(const std::string& opName) { return opName.rfind("bf16gemm_", 0) == 0; }
// The bytes a launch moves as the roofline counts them: a copy's are read on one side and
// written on the other, so it moves bytesRead; every other op its bytes read + written.
inline double rooflineBytes(const LaunchSample& s) { return s.kind == "memcpy" ? s.bytesRead : s.bytes(); }
inline RooflineTerms rooflineTerms(const DeviceSpec& device, const LaunchSample& s)
{
    return rooflineTerms(device, s.kind, s.flops, rooflineBytes(s), isBf16Gemm(s.name), transcendentals(s), 1,
                         isScalarLoop(s));
}
inline double rooflineNs(const DeviceSpec& device, const LaunchSample& s) { return rooflineTerms(device, s).boundNs(); }

}  // namespace wt
