// Time on the GPU (docs/definitions.md): the interval sweeps against a brute-force count per
// nanosecond on random runs (several tracks on two devices; compute, communication and memory
// kernels, memcpys), the definitions on a hand-made device whose figures are worked out below,
// per-step figures through the instance tree (a step's nested scopes and memcpys, two instances
// of one step scope that overlap = one step, sequential ones = two), and the stacked bar's parts.
#include "analysis/gputime.h"
#include "analysis/runprofile.h"

#include <QTest>

#include <random>

using namespace wt;

namespace {

// Owned columns behind an ActivityView built by hand.
struct Columns {
    struct T {
        std::vector<int64_t> start;
        std::vector<uint32_t> dur, name, inst;
        std::vector<uint8_t> kind;
        int32_t device = 0;
    };
    std::vector<T> tracks;
    std::vector<uint32_t> instanceNode, instanceParent;
    ActivityView view() const
    {
        ActivityView v;
        v.instanceNode = instanceNode.data();
        v.instanceParent = instanceParent.data();
        v.instanceCount = instanceNode.size();
        for (const T& t : tracks) {
            int64_t maxDur = 0;
            for (uint32_t d : t.dur)
                maxDur = std::max<int64_t>(maxDur, d);
            v.tracks.push_back(TrackActivities{t.start.data(), t.dur.data(), t.name.data(), t.inst.data(), t.kind.data(),
                                               t.start.size(), maxDur, t.device});
        }
        return v;
    }
};

enum : uint32_t { kNccl = 1, kGemm = 2, kCopy = 3, kMemsetKernel = 4 };

RunProfile profileWith(std::vector<ScopeNode> nodes, Strings strings)
{
    strings[kNccl] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
    strings[kGemm] = "sm80_xmma_gemm_f32f32";
    strings[kCopy] = "Memcpy DtoD";
    strings[kMemsetKernel] = "memset_f32";   // a kernel of category memory (docs/categories.md)
    RunProfile p;
    p.strings = strings;
    p.tree = ScopeTree(nodes, strings);
    p.devices = {DeviceInfo{0, "rank 0: GPU", "{}"}, DeviceInfo{1, "rank 1: GPU", "{}"}};
    return p;
}

}  // namespace

class TestGpuTime : public QObject {
    Q_OBJECT
private slots:
    void sweeps();
    void coverage();
    void definitionsByHand();
    void devicesAgainstBruteForce_data();
    void devicesAgainstBruteForce();
    void steps();
    void barSegments();
};

void TestGpuTime::sweeps()
{
    const std::vector<Interval> a = unionOf({{0, 10}, {5, 20}, {20, 25}, {30, 40}});
    QCOMPARE(a.size(), size_t(2));   // touching intervals join
    QCOMPARE(a[0].endNs, int64_t(25));
    QCOMPARE(lengthOf(a), int64_t(35));
    const std::vector<Interval> b = unionOf({{-5, 2}, {24, 31}, {39, 50}});
    QCOMPARE(overlapOf(a, b), int64_t(2 + 1 + 1 + 1));
    QCOMPARE(overlapOf(a, {}), int64_t(0));
}

void TestGpuTime::coverage()
{
    // a: [0,10) [20,30); b: [5,25); c: [5,5) (zero length) [28,40).
    const auto by = coverageOf({{0, 10}, {20, 30}}, {{5, 25}}, {{5, 5}, {28, 40}});
    QCOMPARE(by[0], int64_t(0));
    QCOMPARE(by[1], int64_t(5 + 3));    // a alone: [0,5) [25,28)
    QCOMPARE(by[2], int64_t(10));       // b alone: [10,20)
    QCOMPARE(by[3], int64_t(5 + 5));    // a and b: [5,10) [20,25)
    QCOMPARE(by[4], int64_t(10));       // c alone: [30,40)
    QCOMPARE(by[5], int64_t(2));        // a and c: [28,30)
    QCOMPARE(by[6] + by[7], int64_t(0));
    const auto none = coverageOf({}, {}, {});
    for (int64_t n : none)
        QCOMPARE(n, int64_t(0));
}

void TestGpuTime::definitionsByHand()
{
    // One device, four tracks (times in ns):
    //   compute stream   gemm [0,100)               gemm [300,400)   memset_f32 kernel [700,710)
    //   comm stream          nccl [50,200)              nccl [350,500)
    //   memory track           memcpy [80,120)  memcpy [150,250)     memset [600,650)
    // compute = [0,100) + [300,400)                               = 200
    // communication = [50,200) + [350,500)                        = 300
    // memory = [80,120) + [150,250) + [600,650) + [700,710)       = 40 + 100 + 50 + 10 = 200
    // span = first start 0 .. last end 710                        = 710
    // busy = union of all = [0,250) + [300,500) + [600,650) + [700,710) = 250 + 200 + 50 + 10 = 510
    // idle = 710 - 510                                            = 200
    // communication overlapped by compute = [50,100) + [350,400)  = 100; exposed = 300 - 100 = 200
    // memory overlapped by compute = [80,100)                     = 20
    // exposed memory (neither compute nor communication) = [200,250) + [600,650) + [700,710) = 110
    //   ([80,120) lies under the gemm and the NCCL kernel, [150,200) under the NCCL kernel)
    // HTA: compute 200, non-compute = busy - compute = 310 = exposed comm 200 + exposed memory 110
    // Kernels only (the old busy): [0,200) + [300,500) + [700,710) = 410, idle 300 of 710.
    Columns c;
    Columns::T comp, comm, mem;
    auto add = [](Columns::T& t, int64_t start, uint32_t dur, uint32_t name, ActivityKind kind) {
        t.start.push_back(start);
        t.dur.push_back(dur);
        t.name.push_back(name);
        t.kind.push_back(uint8_t(kind));
        t.inst.push_back(kNoInstance);
    };
    add(comp, 0, 100, kGemm, ActivityKind::Kernel);
    add(comp, 300, 100, kGemm, ActivityKind::Kernel);
    add(comp, 700, 10, kMemsetKernel, ActivityKind::Kernel);
    add(comm, 50, 150, kNccl, ActivityKind::Kernel);
    add(comm, 350, 150, kNccl, ActivityKind::Kernel);
    add(mem, 80, 40, kCopy, ActivityKind::Memcpy);
    add(mem, 150, 100, kCopy, ActivityKind::Memcpy);
    add(mem, 600, 50, kCopy, ActivityKind::Memset);
    c.tracks = {comp, comm, mem};
    const RunProfile p = profileWith({}, {});
    const std::vector<DeviceTime> d = computeDeviceTimes(p, c.view());
    QCOMPARE(d.size(), size_t(1));
    const GpuTime& t = d[0].time;
    QCOMPARE(t.kernels, int64_t(5));
    QCOMPARE(t.memoryOps, int64_t(3));
    QCOMPARE(t.kernelTimeNs, int64_t(100 + 100 + 10 + 150 + 150));   // kernels only
    QCOMPARE(t.startNs, int64_t(0));
    QCOMPARE(t.endNs, int64_t(710));
    QCOMPARE(t.spanNs, int64_t(710));
    QCOMPARE(t.busyNs, int64_t(510));
    QCOMPARE(t.idleNs, int64_t(200));
    QCOMPARE(t.computeNs, int64_t(200));
    QCOMPARE(t.commNs, int64_t(300));
    QCOMPARE(t.commOverlapNs, int64_t(100));
    QCOMPARE(t.commExposedNs(), int64_t(200));
    QCOMPARE(t.memoryNs, int64_t(200));
    QCOMPARE(t.memoryOverlapNs, int64_t(20));
    QCOMPARE(t.memoryExposedNs, int64_t(110));
    QCOMPARE(t.nonComputeNs(), int64_t(310));
    QCOMPARE(t.nonComputeNs(), t.commExposedNs() + t.memoryExposedNs);
    // The bar: compute without communication 200 - 100, overlapped 100, exposed 200, exposed
    // memory 110, idle 200; HTA's compute is the first two, its non-compute the next two.
    const auto bar = deviceBarSegments(t);
    QCOMPARE(bar.size(), size_t(5));
    const int64_t want[] = {100, 100, 200, 110, 200};
    for (size_t k = 0; k < bar.size(); ++k)
        QCOMPARE(bar[k].ns, want[k]);
    QCOMPARE(std::string(bar[3].label), std::string("exposed memory"));
}

void TestGpuTime::devicesAgainstBruteForce_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("perTrack");
    QTest::newRow("sparse") << 1 << 20;
    QTest::newRow("dense") << 2 << 200;
    QTest::newRow("many") << 3 << 1500;
}

void TestGpuTime::devicesAgainstBruteForce()
{
    QFETCH(int, seed);
    QFETCH(int, perTrack);
    std::mt19937 rng{uint32_t(seed)};
    constexpr int64_t kHorizon = 20000;
    Columns c;
    for (int t = 0; t < 5; ++t) {
        Columns::T tr;
        tr.device = t < 3 ? 0 : 1;
        std::vector<std::pair<int64_t, uint32_t>> starts;
        for (int i = 0; i < perTrack; ++i)
            starts.emplace_back(int64_t(rng() % kHorizon), 1 + rng() % 300);
        std::sort(starts.begin(), starts.end());
        for (auto [s, d] : starts) {
            tr.start.push_back(s);
            tr.dur.push_back(d);
            const uint32_t r = rng() % 10;
            // 3 in 10 NCCL kernels, 5 GEMMs, 1 memory kernel, 1 memcpy activity
            tr.name.push_back(r < 3 ? kNccl : r < 8 ? kGemm : r < 9 ? kMemsetKernel : kCopy);
            tr.kind.push_back(uint8_t(r < 9 ? ActivityKind::Kernel : ActivityKind::Memcpy));
            tr.inst.push_back(kNoInstance);
        }
        c.tracks.push_back(std::move(tr));
    }
    const RunProfile p = profileWith({}, {});
    const std::vector<DeviceTime> got = computeDeviceTimes(p, c.view());
    QCOMPARE(got.size(), size_t(2));
    for (int dev = 0; dev < 2; ++dev) {
        // Brute force: how many compute / communication / memory activities run in each ns.
        std::vector<int> comp(kHorizon + 400, 0), comm(kHorizon + 400, 0), mem(kHorizon + 400, 0);
        int64_t first = INT64_MAX, last = INT64_MIN, sum = 0, count = 0, memOps = 0;
        for (const auto& tr : c.tracks) {
            if (tr.device != dev)
                continue;
            for (size_t i = 0; i < tr.start.size(); ++i) {
                const bool kernel = tr.kind[i] == uint8_t(ActivityKind::Kernel);
                first = std::min(first, tr.start[i]);
                last = std::max(last, tr.start[i] + int64_t(tr.dur[i]));
                if (kernel) {
                    sum += tr.dur[i];
                    ++count;
                } else {
                    ++memOps;
                }
                std::vector<int>& lane = tr.name[i] == kNccl ? comm : tr.name[i] == kGemm ? comp : mem;
                for (int64_t n = tr.start[i]; n < tr.start[i] + int64_t(tr.dur[i]); ++n)
                    ++lane[size_t(n)];
            }
        }
        int64_t busy = 0, compute = 0, commNs = 0, overlap = 0, memory = 0, memOverlap = 0, memExposed = 0;
        for (size_t n = 0; n < comm.size(); ++n) {
            busy += comp[n] || comm[n] || mem[n];
            compute += comp[n] > 0;
            commNs += comm[n] > 0;
            overlap += comm[n] && comp[n];
            memory += mem[n] > 0;
            memOverlap += mem[n] && comp[n];
            memExposed += mem[n] && !comp[n] && !comm[n];
        }
        const DeviceTime& d = got[size_t(dev)];
        QCOMPARE(d.deviceId, dev);
        QCOMPARE(d.name, std::string(dev == 0 ? "rank 0: GPU" : "rank 1: GPU"));
        QCOMPARE(d.time.kernels, count);
        QCOMPARE(d.time.memoryOps, memOps);
        QCOMPARE(d.time.kernelTimeNs, sum);
        QCOMPARE(d.time.startNs, first);
        QCOMPARE(d.time.spanNs, last - first);
        QCOMPARE(d.time.busyNs, busy);
        QCOMPARE(d.time.idleNs, last - first - busy);
        QCOMPARE(d.time.computeNs, compute);
        QCOMPARE(d.time.commNs, commNs);
        QCOMPARE(d.time.commOverlapNs, overlap);
        QCOMPARE(d.time.memoryNs, memory);
        QCOMPARE(d.time.memoryOverlapNs, memOverlap);
        QCOMPARE(d.time.memoryExposedNs, memExposed);
        QCOMPARE(d.time.busyNs + d.time.idleNs, d.time.spanNs);
        int64_t bar = 0;
        for (const BarSegment& b : deviceBarSegments(d.time))
            bar += b.ns;
        QCOMPARE(bar, d.time.spanNs);
    }
}

void TestGpuTime::steps()
{
    // Scopes: 1 "step" (step) > 2 "fwd" (layer); 3 "ProfilerStep#7" (step); 4 "other" (op, no step).
    Strings s{{10, "step"}, {11, "fwd"}, {12, "ProfilerStep#7"}, {13, "other"}, {20, "step"}, {21, "layer"}, {22, "op"}};
    std::vector<ScopeNode> nodes = {ScopeNode{1, 0, 10, 20, 1}, ScopeNode{2, 1, 11, 21, 2}, ScopeNode{3, 0, 12, 20, 1},
                                    ScopeNode{4, 0, 13, 22, 1}};
    const RunProfile p = profileWith(nodes, s);
    Columns c;
    // Instances (tree positions: node id - 1): 0 step#1, 1 fwd in 0, 2 step#2, 3 fwd in 2,
    // 4 and 5 ProfilerStep#7 on two ranks (overlapping), 6 other.
    c.instanceNode = {0, 1, 0, 1, 2, 2, 3};
    c.instanceParent = {kNoInstance, 0, kNoInstance, 2, kNoInstance, kNoInstance, kNoInstance};
    Columns::T t0, t1, m0;
    t1.device = 1;
    auto add = [](Columns::T& t, int64_t start, uint32_t dur, uint32_t name, uint32_t inst,
                  ActivityKind kind = ActivityKind::Kernel) {
        t.start.push_back(start);
        t.dur.push_back(dur);
        t.name.push_back(name);
        t.kind.push_back(uint8_t(kind));
        t.inst.push_back(inst);
    };
    add(t0, 0, 10, kGemm, 0);      // step 1 directly
    add(t0, 20, 10, kNccl, 1);     // step 1 through fwd
    add(t0, 25, 10, kGemm, 1);     //   overlaps the NCCL kernel by 5
    add(t0, 100, 50, kGemm, 3);    // step 2
    add(t0, 300, 40, kGemm, 4);    // ProfilerStep#7, rank 0
    add(t0, 500, 5, kGemm, 6);     // no step
    add(t1, 310, 40, kNccl, 5);    // ProfilerStep#7, rank 1
    add(m0, 35, 10, kCopy, 1, ActivityKind::Memcpy);   // step 1, right after the last kernel
    c.tracks = {t0, t1, m0};
    const std::vector<StepTime> st = computeStepTimes(p, c.view());
    QCOMPARE(st.size(), size_t(3));
    QCOMPARE(st[0].name, std::string("step"));
    QCOMPARE(st[0].index, int64_t(0));
    // Step 1: kernels [0,10) [20,30) [25,35), memcpy [35,45): span 45 (to the memcpy's end),
    // busy [0,10) + [20,45) = 35, idle [10,20) = 10; kernel time stays the kernels' 30.
    QCOMPARE(st[0].time.kernels, int64_t(3));
    QCOMPARE(st[0].time.memoryOps, int64_t(1));
    QCOMPARE(st[0].time.kernelTimeNs, int64_t(30));
    QCOMPARE(st[0].time.spanNs, int64_t(45));
    QCOMPARE(st[0].time.busyNs, int64_t(35));
    QCOMPARE(st[0].time.idleNs, int64_t(10));
    QCOMPARE(st[0].time.computeNs, int64_t(20));
    QCOMPARE(st[0].time.commNs, int64_t(10));
    QCOMPARE(st[0].time.commOverlapNs, int64_t(5));
    QCOMPARE(st[0].time.memoryNs, int64_t(10));
    QCOMPARE(st[0].time.memoryExposedNs, int64_t(10));
    QCOMPARE(st[1].name, std::string("step"));
    QCOMPARE(st[1].time.startNs, int64_t(100));
    QCOMPARE(st[1].time.busyNs, int64_t(50));
    QCOMPARE(st[2].name, std::string("ProfilerStep#7"));
    QCOMPARE(st[2].time.kernels, int64_t(2));   // both ranks, one step
    QCOMPARE(st[2].time.startNs, int64_t(300));
    QCOMPARE(st[2].time.endNs, int64_t(350));
    QCOMPARE(st[2].time.busyNs, int64_t(50));
    QCOMPARE(st[2].time.commNs, int64_t(40));
    QCOMPARE(st[2].time.commOverlapNs, int64_t(30));   // across devices in a step: the union's view

    // Without instance parents, steps cannot be found: none, not wrong ones.
    ActivityView v = c.view();
    v.instanceParent = nullptr;
    QVERIFY(computeStepTimes(p, v).empty());
}

void TestGpuTime::barSegments()
{
    // span 100: busy 70 of which compute 35, communication 40 (15 under compute), exposed
    // memory 10; idle 30.
    GpuTime t;
    t.spanNs = 100;
    t.busyNs = 70;
    t.idleNs = 30;
    t.computeNs = 35;
    t.commNs = 40;
    t.commOverlapNs = 15;
    t.memoryNs = 12;
    t.memoryOverlapNs = 2;
    t.memoryExposedNs = 10;
    const auto parts = deviceBarSegments(t);
    QCOMPARE(parts.size(), size_t(5));
    QCOMPARE(parts[0].ns, int64_t(20));   // compute without communication: 35 - 15
    QCOMPARE(parts[1].ns, int64_t(15));   // overlapped communication
    QCOMPARE(parts[2].ns, int64_t(25));   // exposed communication: 40 - 15
    QCOMPARE(parts[3].ns, int64_t(10));   // exposed memory
    QCOMPARE(parts[4].ns, int64_t(30));   // idle
    int64_t sum = 0;
    for (const auto& part : parts)
        sum += part.ns;
    QCOMPARE(sum, t.spanNs);
}

QTEST_GUILESS_MAIN(TestGpuTime)
#include "tst_gputime.moc"
