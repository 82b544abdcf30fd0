// wheretime calibrate FILE: measures this CPU for the cost model (a short sgemm rate through the
// CPU backend's fp32 GEMM: its own AVX-512 kernel, or OpenBLAS's sgemm; the bfloat16 GEMM's rate,
// copy bandwidth, the row kernels' exp throughput, the fixed cost of one small op:
// kernels/cpulimits.h) and stores it in FILE as a device cost model (default name "cpu"), which
// `predict --device cpu` and `--evaluate` use for the roofline.
#include "analysis/costmodel.h"
#include "app/cli/command.h"
#include "capture/cputracer.h"
#include "kernels/cpulimits.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"

#include <cstdio>
#include <thread>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime calibrate FILE [--name NAME]\n\n"
    "Measures this CPU (about 4 seconds): the fp32 roof of the CPU backend's GEMM (its own AVX-512 GEMM\n"
    "where the CPU has AVX-512F, OpenBLAS's with WHERETIME_SMALL_GEMM=0): the larger of its rate at\n"
    "1024^3 and its register tile's in cache on every thread; the bfloat16 GEMM's rate at 1024^3 (the\n"
    "fused_bf16 softmax variant's), the copy bandwidth on every thread (slices of buffers 4x the L3,\n"
    "ordinary stores and memcpy, bytes read + written per second), the row kernels' exp throughput on\n"
    "every thread, the rate of a plain scalar loop (a 4-tap convolution one element at a time: the ops\n"
    "without a vectorized path) and the time of one small op (a 1x1x1 sgemm call, median). The tile,\n"
    "the copy, the exp and the scalar loop are each the best of short passes over a 4 s window that ran on all threads together,\n"
    "unpreempted (on a shared machine the others are the other processes' figures).\n"
    "and stores them in FILE as the device NAME (default cpu) for `wheretime predict --device NAME`,\n"
    "`--evaluate` and `wheretime roofline`.\n";

int runCalibrate(Args& args)
{
    args.parse({"--name"}, {});
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE");
    const std::string file = args.positionals()[0];
    const std::string name = args.value("--name", "cpu");
    Database db(file, OpenMode::ReadWrite);   // fail on a bad file before measuring

    const kernels::CpuLimits l = kernels::measureCpuLimits();

    DeviceSpec d;
    d.name = name;
    d.title = "CPU: " + capture::CpuTracer::cpuModelName();
    d.kind = "cpu";
    d.fp32Flops = l.sgemmFlopPerS;
    d.bf16Flops = l.bf16FlopPerS;
    d.memoryBytesPerS = l.copyBytesPerS;
    d.hostLinkBytesPerS = l.copyBytesPerS;
    d.sms = int(std::thread::hardware_concurrency());
    d.launchOverheadNs = l.smallOpNs;
    d.expPerS = l.expPerS;
    d.scalarFlops = l.scalarFlopPerS;
    d.source = "wheretime calibrate (sgemm: max of 1024^3 best of 5 and the in-cache 128x64x128 tile on every thread; "
               "bf16 GEMM 1024^3 best of 5; copy (ordinary stores or memcpy, the better), vexp, the tile and a scalar 4-tap "
               "loop: best pass on every thread together over 4 s; 1x1x1 sgemm median)";
    CostModelStore(db).put(StoredCostModel{name, "device", "", toJson(d)});
    std::printf("%s: sgemm %.1f GFLOP/s (1024^3 %.1f, in-cache tile %.1f), bf16 GEMM %.1f GFLOP/s, copy %.2f GB/s (read + written, every thread), exp %.2f Gexp/s (%d threads), "
                "scalar loop %.2f GFLOP/s, small op %.0f ns; stored as device '%s' in %s\n",
                d.title.c_str(), d.fp32Flops / 1e9, l.sgemmLargeFlopPerS / 1e9, l.sgemmTileFlopPerS / 1e9, d.bf16Flops / 1e9, d.memoryBytesPerS / 1e9, d.expPerS / 1e9, l.threads, d.scalarFlops / 1e9, d.launchOverheadNs,
                name.c_str(), file.c_str());
    return 0;
}

const RegisterCommand reg{{"calibrate", "measure this CPU (sgemm rate, copy bandwidth) for the cost model", kUsage,
                           runCalibrate}};

}  // namespace
}  // namespace wt::cli
