// wheretime calibrate FILE: measures this CPU for the cost model (a short sgemm rate through the
// CPU backend's OpenBLAS, the bfloat16 GEMM's rate, copy bandwidth, the fixed cost of one small
// op) and stores it in FILE
// as a device cost model (default name "cpu"), which `predict --device cpu` and `--evaluate`
// use for the roofline.
#include "analysis/costmodel.h"
#include "app/cli/command.h"
#include "capture/cputracer.h"
#include "kernels/backend.h"
#include "kernels/calibration.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"

#include <cstdio>
#include <thread>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime calibrate FILE [--name NAME]\n\n"
    "Measures this CPU (about a second): the sgemm rate of the CPU backend (OpenBLAS, 1024^3, best of\n"
    "several), the same for its bfloat16 GEMM (the fused_bf16 softmax variant's), the copy bandwidth (memcpy of 64 MiB, bytes read + written per second, best of several)\n"
    "and the time of one small op (a 1x1x1 sgemm call, median), and stores them in FILE as the device\n"
    "NAME (default cpu) for `wheretime predict --device NAME` and `--evaluate`.\n";

int runCalibrate(Args& args)
{
    args.parse({"--name"}, {});
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE");
    const std::string file = args.positionals()[0];
    const std::string name = args.value("--name", "cpu");
    Database db(file, OpenMode::ReadWrite);   // fail on a bad file before measuring

    auto backend = kernels::makeCpuBackend();
    const double gemmFlops = kernels::measureGemmFlops(*backend);
    const double bf16Flops = kernels::measureGemmFlops(*backend, /*bf16*/ true);
    const double copyBytesPerS = kernels::measureCopyBytesPerS();

    DeviceSpec d;
    d.name = name;
    d.title = "CPU: " + capture::CpuTracer::cpuModelName();
    d.kind = "cpu";
    d.fp32Flops = gemmFlops;
    d.bf16Flops = bf16Flops;
    d.memoryBytesPerS = copyBytesPerS;
    d.hostLinkBytesPerS = copyBytesPerS;
    d.sms = int(std::thread::hardware_concurrency());
    d.launchOverheadNs = kernels::measureSmallOpNs(*backend);
    d.source = "wheretime calibrate (sgemm and bf16 GEMM 1024^3 best of 5, memcpy 64 MiB best of 5, 1x1x1 sgemm median)";
    CostModelStore(db).put(StoredCostModel{name, "device", "", toJson(d)});
    std::printf("%s: sgemm %.1f GFLOP/s, bf16 GEMM %.1f GFLOP/s, copy %.2f GB/s (read + written), small op %.0f ns; "
                "stored as device '%s' in %s\n",
                d.title.c_str(), gemmFlops / 1e9, bf16Flops / 1e9, copyBytesPerS / 1e9, d.launchOverheadNs,
                name.c_str(), file.c_str());
    return 0;
}

const RegisterCommand reg{{"calibrate", "measure this CPU (sgemm rate, copy bandwidth) for the cost model", kUsage,
                           runCalibrate}};

}  // namespace
}  // namespace wt::cli
