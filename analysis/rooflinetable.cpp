#include "analysis/rooflinetable.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace wt {

std::string layerFamily(const std::string& layer)
{
    size_t end = layer.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(layer[end - 1])))
        --end;
    return end < layer.size() ? layer.substr(0, end) + "*" : layer;
}

std::vector<RooflineOp> rooflineOps(const RunSamples& run, const DeviceSpec& device)
{
    std::map<std::pair<std::string, std::string>, RooflineOp> byKey;
    for (const LaunchSample& s : run.launches) {
        auto key = std::make_pair(layerFamily(s.layer), s.name);
        RooflineOp& o = byKey[key];
        if (o.op.empty()) {
            o.layer = key.first;
            o.op = s.name;
            o.kind = s.kind;
        }
        const double bytes = rooflineBytes(s), exps = transcendentals(s);   // once, for the sums and the terms
        const RooflineTerms t = rooflineTerms(device, s.kind, s.flops, bytes, isBf16Gemm(s.name), exps, 1, isScalarLoop(s));
        o.launches += 1;
        o.flops += s.flops;
        o.bytes += bytes;
        o.exps += exps;
        o.terms.flopsNs += t.flopsNs;
        o.terms.memoryNs += t.memoryNs;
        o.terms.expNs += t.expNs;
        o.terms.launchNs += t.launchNs;
        o.boundNs += t.boundNs();
        if (s.timeNs >= 0)
            o.measuredNs += double(s.timeNs);
    }
    const double perStep = 1.0 / double(std::max<int64_t>(1, run.steps));
    std::vector<RooflineOp> ops;
    for (auto& [key, o] : byKey) {
        for (double* v : {&o.launches, &o.flops, &o.bytes, &o.exps, &o.measuredNs, &o.boundNs, &o.terms.flopsNs,
                          &o.terms.memoryNs, &o.terms.expNs, &o.terms.launchNs})
            *v *= perStep;
        ops.push_back(std::move(o));
    }
    std::stable_sort(ops.begin(), ops.end(), [](const RooflineOp& a, const RooflineOp& b) { return a.measuredNs > b.measuredNs; });
    return ops;
}

Table rooflineTable(const std::vector<RooflineOp>& ops, const DeviceSpec& device, const RooflineOptions& options)
{
    Table t;
    t.id = "roofline";
    t.add("layer", "layer", Unit::Text);
    t.add("op", "op", Unit::Text);
    t.add("kind", "kind", Unit::Text, false);
    t.add("launches", "launches", Unit::Number);
    t.add("time_ns", "time", Unit::Ns);
    t.add("flop_per_s", "FLOP/s", Unit::FlopPerS);
    t.add("bytes_per_s", "B/s", Unit::BytesPerS);
    t.add("bound", "bound by", Unit::Text);
    t.add("bound_ns", "bound", Unit::Ns);
    t.add("x_bound", "x bound", Unit::Ratio);
    t.add("flops", "flops", Unit::Flops, false);
    t.add("bytes", "bytes", Unit::Bytes, false);
    t.add("exps", "exps", Unit::Number, false);
    for (const char* id : {"flops_ns", "memory_ns", "exp_ns", "launch_ns"})   // the bound's terms
        t.add(id, id, Unit::Ns, false);

    auto fill = [&](std::vector<Cell>& r, const RooflineOp& o, bool named) {
        r[t.column("launches")] = o.launches;
        r[t.column("time_ns")] = o.measuredNs;
        r[t.column("bound_ns")] = o.boundNs;
        if (o.measuredNs > 0) {
            r[t.column("flop_per_s")] = o.flops / (o.measuredNs * 1e-9);
            r[t.column("bytes_per_s")] = o.bytes / (o.measuredNs * 1e-9);
        }
        if (o.boundNs > 0)
            r[t.column("x_bound")] = o.measuredNs / o.boundNs;
        if (named)
            r[t.column("bound")] = std::string(toString(o.terms.by()));
        r[t.column("flops")] = o.flops;
        r[t.column("bytes")] = o.bytes;
        r[t.column("exps")] = o.exps;
        r[t.column("flops_ns")] = o.terms.flopsNs;
        r[t.column("memory_ns")] = o.terms.memoryNs;
        r[t.column("exp_ns")] = o.terms.expNs;
        r[t.column("launch_ns")] = o.terms.launchNs;
    };
    auto addSum = [](RooflineOp& sum, const RooflineOp& o) {
        sum.launches += o.launches;
        sum.flops += o.flops;
        sum.bytes += o.bytes;
        sum.exps += o.exps;
        sum.measuredNs += o.measuredNs;
        sum.boundNs += o.boundNs;
        sum.terms.flopsNs += o.terms.flopsNs;
        sum.terms.memoryNs += o.terms.memoryNs;
        sum.terms.expNs += o.terms.expNs;
        sum.terms.launchNs += o.terms.launchNs;
    };

    RooflineOp folded, step;
    int foldedOps = 0;
    for (const RooflineOp& o : ops) {
        addSum(step, o);
        if (o.measuredNs < options.minNs) {
            addSum(folded, o);
            ++foldedOps;
            continue;
        }
        auto& r = t.addRow();
        r[0] = o.layer;
        r[1] = o.op;
        r[2] = o.kind;
        fill(r, o, true);
    }
    if (foldedOps > 0) {
        char label[96];
        std::snprintf(label, sizeof label, "(%d ops under %.3g ms)", foldedOps, options.minNs * 1e-6);
        auto& r = t.addRow();
        r[0] = std::string(label);
        fill(r, folded, false);
    }
    auto& r = t.addRow();
    r[0] = std::string("step");
    r[1] = std::string("all ops");
    fill(r, step, false);

    t.notes.push_back("per step; bound = max(FLOPs / peak, bytes / bandwidth, exps / exp rate) + launches x launch cost, "
                      "summed over the launches; x bound = time / bound");
    return t;
}

Table rooflineDeviceTable(const DeviceSpec& device)
{
    Table t;
    t.id = "roofline_device";
    t.add("device", "device", Unit::Text);
    t.add("title", "", Unit::Text);
    t.add("fp32_flop_per_s", "fp32", Unit::FlopPerS);
    t.add("bf16_flop_per_s", "bf16", Unit::FlopPerS);
    t.add("memory_bytes_per_s", "memory", Unit::BytesPerS);
    t.add("exp_per_s", "exp", Unit::ExpPerS);
    t.add("launch_ns", "launch", Unit::Ns);
    t.add("scalar_flop_per_s", "scalar loop", Unit::FlopPerS);   // the roof of scalar loops ("scalar=1")
    auto& r = t.addRow();
    r[0] = device.name;
    r[1] = device.title;
    r[2] = device.fp32Flops;
    if (device.bf16Flops > 0)
        r[3] = device.bf16Flops;
    r[4] = device.memoryBytesPerS;
    if (device.expPerS > 0)
        r[5] = device.expPerS;
    r[6] = device.launchOverheadNs;
    if (device.scalarFlops > 0)
        r[7] = device.scalarFlops;
    return t;
}

}  // namespace wt
