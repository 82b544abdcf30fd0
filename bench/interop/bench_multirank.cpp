// bench_multirank: `wheretime import --one-run` of many generated rank files (the issue-13
// target: 64 ranks of 100k kernels into one run in under 30 s). Each rank file is Kineto JSON
// with distributedInfo, ProfilerStep#N annotations (10 steps), one cpu_op per 4 kernels, and
// per kernel its cudaLaunchKernel runtime call (correlation) and the kernel on stream 7; ranks
// start a few us apart on one epoch clock. Files are generated once into DIR and reused.
// usage: bench_multirank [--ranks N] [--kernels N] [--dir DIR] [--out FILE]
//   --out keeps the run (for bench_gui --file OUT: the timeline of the whole job).
#include "interop/importer.h"
#include "storage/database.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

double cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

void writeRank(const std::string& path, int rank, int ranks, long kernels)
{
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) {
        std::perror(path.c_str());
        std::exit(1);
    }
    std::fprintf(f, "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d},\n"
                    "\"deviceProperties\": [{\"id\": %d, \"name\": \"NVIDIA H100 80GB HBM3\"}],\n\"traceEvents\": [\n",
                 rank, ranks, rank % 8);
    const char* names[] = {"ampere_sgemm_128x64_tn", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
                           "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4>>", "ncclKernel_AllReduce_RING_LL_Sum_float",
                           "void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, false>"};
    const long perStep = std::max(1L, kernels / 10);
    const double t0 = 1700000000000000.0 + 3.0 * rank;   // us, epoch
    double t = t0;
    bool first = true;
    for (long k = 0; k < kernels; ++k) {
        if (k % perStep == 0)
            std::fprintf(f, "%s{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%ld\", \"pid\": 100, \"tid\": 100, "
                            "\"ts\": %.3f, \"dur\": %.3f}",
                         first ? "" : ",\n", k / perStep + 1, t, double(perStep) * 12.0 - 1.0),
                first = false;
        if (k % 4 == 0)
            std::fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%ld\", \"pid\": 100, \"tid\": 100, \"ts\": %.3f, "
                            "\"dur\": 40.0, \"args\": {\"External id\": %ld}}",
                         k % 37, t + 0.5, k);
        const long corr = k + 1;
        std::fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 100, "
                        "\"ts\": %.3f, \"dur\": 3.5, \"args\": {\"correlation\": %ld}}",
                     t + 1.0, corr);
        std::fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %d, \"tid\": 7, \"ts\": %.3f, \"dur\": %.3f, "
                        "\"args\": {\"device\": %d, \"stream\": 7, \"correlation\": %ld, \"grid\": [80, 1, 1], \"block\": [256, 1, 1]}}",
                     names[k % 5], rank % 8, t + 6.0, 4.0 + double(k % 7), rank % 8, corr);
        t += 12.0;
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
}

}  // namespace

int main(int argc, char** argv)
{
    int ranks = 64;
    long kernels = 100000;
    std::string dir = "/tmp/wt-bench-ranks", out;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--ranks" && i + 1 < argc)
            ranks = std::atoi(argv[++i]);
        else if (a == "--kernels" && i + 1 < argc)
            kernels = std::atol(argv[++i]);
        else if (a == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else if (a == "--out" && i + 1 < argc)
            out = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_multirank [--ranks N] [--kernels N] [--dir DIR] [--out FILE]\n");
            return 2;
        }
    }
    dir += "/" + std::to_string(ranks) + "x" + std::to_string(kernels);
    std::string mk = "mkdir -p '" + dir + "'";
    if (std::system(mk.c_str()) != 0)
        return 1;
    std::vector<std::string> files;
    long long bytes = 0;
    for (int r = 0; r < ranks; ++r) {
        std::string p = dir + "/rank-" + std::to_string(r) + ".json";
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0) {
            writeRank(p + ".tmp", r, ranks, kernels);
            std::rename((p + ".tmp").c_str(), p.c_str());
            ::stat(p.c_str(), &st);
        }
        bytes += st.st_size;
        files.push_back(p);
    }
    std::string db = out.empty() ? dir + "/bench.wt" : out;
    ::unlink(db.c_str());
    for (const char* s : {"-wal", "-shm"})
        ::unlink((db + s).c_str());
    double load[1] = {0};
    getloadavg(load, 1);
    const double cpu0 = cpuSeconds();
    auto t0 = std::chrono::steady_clock::now();
    wt::interop::ImportResult r;
    {
        wt::Database d(db, wt::OpenMode::ReadWrite);
        r = wt::interop::importRanks(d, files);
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    std::printf("%d ranks x %ld kernels = %lld kernels, %.0f MB of JSON, load average %.1f at start\n", ranks, kernels,
                static_cast<long long>(r.written.kernels), double(bytes) / 1e6, load[0]);
    std::printf("import --one-run: %.2f s wall (parse %.2f s, write %.2f s), %.2f s CPU, peak RSS %ld MB, %d devices\n", wall, r.parseSeconds,
                r.writeSeconds, cpuSeconds() - cpu0, u.ru_maxrss / 1024, r.written.devices);
    if (out.empty())
        ::unlink(db.c_str());
    return 0;
}
