#include "analysis/costmodel.h"

#include "analysis/jsonvalue.h"
#include "storage/json.h"

#include <algorithm>
#include <cctype>

namespace wt {

const std::vector<DeviceSpec>& deviceTable()
{
    // Vendor datasheet figures (docs/prediction.md lists the documents): fp32 is the plain
    // CUDA-core rate, tf32/bf16 the dense tensor-core rates (without sparsity), memory the HBM or
    // GDDR bandwidth. Launch overhead: an assumed 4 us per launch, the order of a CUDA kernel
    // launch plus the gap to the next one on one stream; not a datasheet figure. exp rate: the
    // SFUs' 16 results per clock per SM for exp2/log2 (CUDA C++ Programming Guide, throughput of
    // arithmetic instructions, compute capability 7.0-9.0) x SMs x boost clock.
    static const std::vector<DeviceSpec> table = {
        {"h200", "NVIDIA H200 SXM (141 GB HBM3e)", "gpu", 67e12, 494.7e12, 989.5e12, 4.8e12, 64e9, 132, 4000, 132 * 16 * 1.98e9,
         "NVIDIA H200 Tensor Core GPU datasheet (2024)"},
        {"h100", "NVIDIA H100 SXM5 (80 GB HBM3)", "gpu", 67e12, 494.7e12, 989.5e12, 3.35e12, 64e9, 132, 4000, 132 * 16 * 1.98e9,
         "NVIDIA H100 Tensor Core GPU datasheet (2023); Hopper architecture whitepaper"},
        {"a100", "NVIDIA A100 SXM4 (80 GB HBM2e)", "gpu", 19.5e12, 156e12, 312e12, 2.039e12, 32e9, 108, 4000, 108 * 16 * 1.41e9,
         "NVIDIA A100 Tensor Core GPU datasheet (2021); Ampere GA100 whitepaper"},
        {"v100", "NVIDIA V100 SXM2 (32 GB HBM2)", "gpu", 15.7e12, 0, 0, 900e9, 16e9, 80, 4000, 80 * 16 * 1.53e9,
         "NVIDIA Tesla V100 datasheet (2018); Volta GV100 whitepaper"},
        {"rtx4090", "NVIDIA GeForce RTX 4090 (24 GB GDDR6X)", "gpu", 82.6e12, 82.6e12, 165.2e12, 1008e9, 32e9, 128, 4000, 128 * 16 * 2.52e9,
         "NVIDIA Ada Lovelace architecture whitepaper (AD102, RTX 4090)"},
    };
    return table;
}

std::optional<DeviceSpec> tableDevice(const std::string& name)
{
    std::string key;
    for (char c : name)
        if (c != ' ' && c != '-' && c != '_')
            key += char(std::tolower(static_cast<unsigned char>(c)));
    for (const DeviceSpec& d : deviceTable())
        if (d.name == key)
            return d;
    return std::nullopt;
}

std::string toJson(const DeviceSpec& d)
{
    return "{\"name\":" + json::quote(d.name) + ",\"title\":" + json::quote(d.title) + ",\"kind\":" + json::quote(d.kind) +
           ",\"fp32_flops\":" + json::number(d.fp32Flops) + ",\"tf32_flops\":" + json::number(d.tf32Flops) +
           ",\"bf16_flops\":" + json::number(d.bf16Flops) + ",\"memory_bytes_per_s\":" + json::number(d.memoryBytesPerS) +
           ",\"host_link_bytes_per_s\":" + json::number(d.hostLinkBytesPerS) + ",\"sms\":" + std::to_string(d.sms) +
           ",\"launch_overhead_ns\":" + json::number(d.launchOverheadNs) + ",\"exp_per_s\":" + json::number(d.expPerS) + ",\"scalar_flops\":" + json::number(d.scalarFlops) +
           ",\"source\":" + json::quote(d.source) + "}";
}

std::optional<DeviceSpec> deviceFromJson(const JsonValue& value, std::string* error)
{
    auto fail = [&](const std::string& why) -> std::optional<DeviceSpec> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    try {
        const JsonValue& o = value.expectObject();
        DeviceSpec d;
        const double fp32 = o.requiredNumber("fp32_flops"), mem = o.requiredNumber("memory_bytes_per_s");
        if (!(fp32 > 0))
            return fail("fp32_flops: " + json::number(fp32) + ", not a positive rate");
        if (!(mem > 0))
            return fail("memory_bytes_per_s: " + json::number(mem) + ", not a positive rate");
        d.name = o.optionalString("name").value_or("");
        d.title = o.optionalString("title").value_or(d.name);
        d.kind = o.optionalString("kind").value_or("gpu");
        d.fp32Flops = fp32;
        d.memoryBytesPerS = mem;
        d.tf32Flops = o.optionalNumber("tf32_flops").value_or(0);
        d.bf16Flops = o.optionalNumber("bf16_flops").value_or(0);
        d.hostLinkBytesPerS = o.optionalNumber("host_link_bytes_per_s").value_or(d.memoryBytesPerS);
        d.sms = int(o.optionalNumber("sms").value_or(0));
        d.launchOverheadNs = std::max(0.0, o.optionalNumber("launch_overhead_ns").value_or(0));
        d.expPerS = std::max(0.0, o.optionalNumber("exp_per_s").value_or(0));   // older calibrations: none
        d.scalarFlops = std::max(0.0, o.optionalNumber("scalar_flops").value_or(0));   // older calibrations: none
        d.source = o.optionalString("source").value_or("");
        return d;
    } catch (const JsonError& e) {
        return fail(e.what());
    }
}

std::optional<DeviceSpec> deviceFromJson(const std::string& json, std::string* error)
{
    try {
        const JsonValue document = JsonValue::parse(json);
        return deviceFromJson(document, error);
    } catch (const JsonError& e) {
        if (error)
            *error = e.what();
        return std::nullopt;
    }
}

RooflineTerms rooflineTerms(const DeviceSpec& device, const std::string& launchKind, double flops, double bytes,
                            bool bf16, double exps, double launches, bool scalarLoop)
{
    const bool copy = launchKind == "memcpy";
    const double bw = copy && device.hostLinkBytesPerS > 0 ? device.hostLinkBytesPerS : device.memoryBytesPerS;
    const double peak = flopPeak(device, bf16, scalarLoop);
    RooflineTerms t;
    t.flopsNs = peak > 0 ? flops / peak * 1e9 : 0;
    t.memoryNs = bw > 0 ? bytes / bw * 1e9 : 0;
    t.expNs = device.expPerS > 0 ? exps / device.expPerS * 1e9 : 0;
    t.launchNs = launches * device.launchOverheadNs;
    return t;
}

double RooflineTerms::boundNs() const { return std::max({flopsNs, memoryNs, expNs}) + launchNs; }

RooflineBound RooflineTerms::by() const
{
    const double top = std::max({flopsNs, memoryNs, expNs});
    if (launchNs > top)
        return RooflineBound::Launch;
    return top == flopsNs ? RooflineBound::Flops : top == memoryNs ? RooflineBound::Memory : RooflineBound::Exp;
}

const char* toString(RooflineBound bound)
{
    switch (bound) {
    case RooflineBound::Flops: return "flop";
    case RooflineBound::Memory: return "mem";
    case RooflineBound::Exp: return "exp";
    case RooflineBound::Launch: return "launch";
    }
    return "?";
}

double flopPeak(const DeviceSpec& device, bool bf16, bool scalarLoop)
{
    if (bf16 && device.bf16Flops > 0)
        return device.bf16Flops;
    if (scalarLoop && device.scalarFlops > 0)
        return device.scalarFlops;
    return device.fp32Flops;
}

double rooflineNs(const DeviceSpec& device, const std::string& launchKind, double flops, double bytes, bool bf16, double exps,
                  bool scalarLoop)
{
    return rooflineTerms(device, launchKind, flops, bytes, bf16, exps, 1, scalarLoop).boundNs();
}

}  // namespace wt
