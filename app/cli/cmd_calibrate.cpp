// wheretime calibrate FILE: measures this CPU for the cost model (a short sgemm rate through the
// CPU backend's OpenBLAS, the bfloat16 GEMM's rate, copy bandwidth, the fixed cost of one small
// op) and stores it in FILE
// as a device cost model (default name "cpu"), which `predict --device cpu` and `--evaluate`
// use for the roofline.
#include "analysis/costmodel.h"
#include "app/cli/command.h"
#include "capture/cputracer.h"
#include "kernels/backend.h"
#include "storage/costmodelstore.h"
#include "storage/database.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime calibrate FILE [--name NAME]\n\n"
    "Measures this CPU (about a second): the sgemm rate of the CPU backend (OpenBLAS, 1024^3, best of\n"
    "several), the same for its bfloat16 GEMM (the fused_bf16 softmax variant's), the copy bandwidth (memcpy of 64 MiB, bytes read + written per second, best of several)\n"
    "and the time of one small op (a 1x1x1 sgemm call, median), and stores them in FILE as the device\n"
    "NAME (default cpu) for `wheretime predict --device NAME` and `--evaluate`.\n";

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

int runCalibrate(Args& args)
{
    args.parse({"--name"}, {});
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE");
    const std::string file = args.positionals()[0];
    const std::string name = args.value("--name", "cpu");
    Database db(file, OpenMode::ReadWrite);   // fail on a bad file before measuring

    auto backend = kernels::makeCpuBackend();
    using clock = std::chrono::steady_clock;
    // sgemm: C[n,n] = A B, best of 5 after one warm-up.
    const int n = 1024;
    std::vector<float> a(size_t(n) * n, 1.0f), b(size_t(n) * n, 0.5f), c(size_t(n) * n, 0.0f);
    double bestGemm = 1e30;
    for (int rep = 0; rep < 6; ++rep) {
        auto t0 = clock::now();
        backend->gemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
        auto t1 = clock::now();
        if (rep > 0)
            bestGemm = std::min(bestGemm, seconds(t0, t1));
    }
    const double gemmFlops = 2.0 * n * n * double(n) / bestGemm;
    double bestBf16 = 1e30;
    for (int rep = 0; rep < 6; ++rep) {
        auto t0 = clock::now();
        backend->gemmBf16(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
        auto t1 = clock::now();
        if (rep > 0)
            bestBf16 = std::min(bestBf16, seconds(t0, t1));
    }
    const double bf16Flops = 2.0 * n * n * double(n) / bestBf16;
    // Copy: 64 MiB, read + write counted.
    const size_t bytes = size_t(64) << 20;
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    double bestCopy = 1e30;
    for (int rep = 0; rep < 6; ++rep) {
        auto t0 = clock::now();
        std::memcpy(dst.data(), src.data(), bytes);
        auto t1 = clock::now();
        if (rep > 0)
            bestCopy = std::min(bestCopy, seconds(t0, t1));
    }
    const double copyBytesPerS = 2.0 * double(bytes) / bestCopy;
    // One small op: median of 1x1x1 sgemm calls.
    std::vector<double> small;
    for (int rep = 0; rep < 201; ++rep) {
        auto t0 = clock::now();
        backend->gemm(false, false, 1, 1, 1, 1.0f, a.data(), 1, b.data(), 1, 0.0f, c.data(), 1);
        auto t1 = clock::now();
        small.push_back(seconds(t0, t1) * 1e9);
    }
    std::nth_element(small.begin(), small.begin() + 100, small.end());

    DeviceSpec d;
    d.name = name;
    d.title = "CPU: " + capture::CpuTracer::cpuModelName();
    d.kind = "cpu";
    d.fp32Flops = gemmFlops;
    d.bf16Flops = bf16Flops;
    d.memoryBytesPerS = copyBytesPerS;
    d.hostLinkBytesPerS = copyBytesPerS;
    d.sms = int(std::thread::hardware_concurrency());
    d.launchOverheadNs = small[100];
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
