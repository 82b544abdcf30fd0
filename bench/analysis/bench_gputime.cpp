// Time on the GPU of a large run: computeDeviceTimes and computeStepTimes over synthetic
// columns (no storage involved: the figures are the sweeps' own cost). Usage:
//   bench_gputime [KERNELS (default 6400000)] [DEVICES (default 64)] [STREAMS per device (4)]
// Each device runs steps of 1000 kernels under one step instance each; every 10th kernel is
// an NCCL kernel on its own stream, overlapping compute.
#include "analysis/gputime.h"
#include "analysis/runprofile.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace wt;

int main(int argc, char** argv)
{
    const int64_t kernels = argc > 1 ? std::atoll(argv[1]) : 6400000;
    const int devices = argc > 2 ? std::atoi(argv[2]) : 64;
    const int streams = argc > 3 ? std::atoi(argv[3]) : 4;
    constexpr int64_t kPerStep = 1000;

    RunProfile p;
    p.strings = {{1, "sm80_xmma_gemm_f16f16"}, {2, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"}, {3, "ProfilerStep#1"}, {4, "step"}};
    p.tree = ScopeTree({ScopeNode{1, 0, 3, 4, 1}}, p.strings);
    for (int d = 0; d < devices; ++d)
        p.devices.push_back(DeviceInfo{d, "rank " + std::to_string(d) + ": GPU", "{}"});

    struct Track {
        std::vector<int64_t> start;
        std::vector<uint32_t> dur, name, inst;
        std::vector<uint8_t> kind;
        int32_t device = 0;
    };
    std::vector<Track> tracks(size_t(devices) * size_t(streams));
    std::vector<uint32_t> instanceNode, instanceParent;
    std::mt19937_64 rng(42);
    const int64_t perDevice = kernels / devices;
    for (int d = 0; d < devices; ++d) {
        std::vector<int64_t> at(size_t(streams), 0);
        for (int64_t k = 0; k < perDevice; ++k) {
            if (k % kPerStep == 0) {
                instanceNode.push_back(0);
                instanceParent.push_back(kNoInstance);
            }
            const bool comm = k % 10 == 0;
            const int s = comm ? 0 : 1 + int(rng() % uint64_t(std::max(streams - 1, 1)));
            Track& t = tracks[size_t(d) * size_t(streams) + size_t(s % streams)];
            t.device = d;
            int64_t& now = at[size_t(s % streams)];
            now += int64_t(rng() % 2000);
            const uint32_t dur = uint32_t(1000 + rng() % 20000);
            t.start.push_back(now);
            t.dur.push_back(dur);
            t.name.push_back(comm ? 2 : 1);
            t.inst.push_back(uint32_t(instanceNode.size() - 1));
            t.kind.push_back(uint8_t(ActivityKind::Kernel));
            now += dur;
        }
    }
    ActivityView v;
    v.instanceNode = instanceNode.data();
    v.instanceParent = instanceParent.data();
    v.instanceCount = instanceNode.size();
    for (const Track& t : tracks)
        v.tracks.push_back(TrackActivities{t.start.data(), t.dur.data(), t.name.data(), t.inst.data(), t.kind.data(), t.start.size(),
                                           20000, t.device});

    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    const std::vector<DeviceTime> dt = computeDeviceTimes(p, v);
    auto t1 = Clock::now();
    const std::vector<StepTime> st = computeStepTimes(p, v);
    auto t2 = Clock::now();
    int64_t busy = 0;
    for (const DeviceTime& d : dt)
        busy += d.time.busyNs;
    std::printf("%lld kernels, %d devices x %d streams: computeDeviceTimes %.3f s (%zu devices, busy %lld ns), "
                "computeStepTimes %.3f s (%zu steps)\n",
                static_cast<long long>(perDevice * devices), devices, streams, std::chrono::duration<double>(t1 - t0).count(), dt.size(),
                static_cast<long long>(busy), std::chrono::duration<double>(t2 - t1).count(), st.size());
    return 0;
}
