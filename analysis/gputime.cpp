#include "gputime.h"

#include "analysis/kernelcategory.h"

#include <algorithm>
#include <climits>
#include <map>

namespace wt {

std::vector<Interval> unionOf(const std::vector<Interval>& sorted)
{
    std::vector<Interval> out;
    for (const Interval& i : sorted) {
        if (!out.empty() && i.startNs <= out.back().endNs)
            out.back().endNs = std::max(out.back().endNs, i.endNs);
        else
            out.push_back(i);
    }
    return out;
}

int64_t lengthOf(const std::vector<Interval>& disjoint)
{
    int64_t n = 0;
    for (const Interval& i : disjoint)
        n = saturatingAdd(n, i.endNs - i.startNs);
    return n;
}

int64_t overlapOf(const std::vector<Interval>& a, const std::vector<Interval>& b)
{
    int64_t n = 0;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const int64_t s = std::max(a[i].startNs, b[j].startNs);
        const int64_t e = std::min(a[i].endNs, b[j].endNs);
        if (e > s)
            n = saturatingAdd(n, e - s);
        if (a[i].endNs < b[j].endNs)
            ++i;
        else
            ++j;
    }
    return n;
}

namespace {

// Intervals gathered track by track: each track's part is sorted by start, so the whole is
// sorted by merging the parts (log(tracks) passes) instead of sorting it.
struct Runs {
    std::vector<Interval> intervals;
    std::vector<size_t> bounds{0};   // start of each sorted part, then the end

    void endPart()
    {
        if (intervals.size() != bounds.back())
            bounds.push_back(intervals.size());
    }
    std::vector<Interval> sorted()
    {
        auto byStart = [](const Interval& a, const Interval& b) { return a.startNs < b.startNs; };
        while (bounds.size() > 2) {
            std::vector<size_t> next{0};
            for (size_t k = 0; k + 1 < bounds.size(); k += 2) {
                if (k + 2 < bounds.size()) {
                    std::inplace_merge(intervals.begin() + std::ptrdiff_t(bounds[k]), intervals.begin() + std::ptrdiff_t(bounds[k + 1]),
                                       intervals.begin() + std::ptrdiff_t(bounds[k + 2]), byStart);
                    next.push_back(bounds[k + 2]);
                } else {
                    next.push_back(bounds[k + 1]);
                }
            }
            bounds = std::move(next);
        }
        return std::move(intervals);
    }
};

// The kernels of one set (a device, a step): communication and the rest apart.
struct KernelSet {
    Runs comm, other;
    GpuTime time;
    int32_t device = 0;   // of the first kernel added

    void add(int64_t start, int64_t end, bool isComm)
    {
        (isComm ? comm : other).intervals.push_back(Interval{start, end});
        if (time.kernels == 0 || start < time.startNs)
            time.startNs = start;
        if (time.kernels == 0 || end > time.endNs)
            time.endNs = end;
        ++time.kernels;
        time.kernelTimeNs = saturatingAdd(time.kernelTimeNs, end - start);
    }
    void endPart()
    {
        comm.endPart();
        other.endPart();
    }
    GpuTime finish(bool partsSorted)
    {
        auto byStart = [](const Interval& a, const Interval& b) { return a.startNs < b.startNs; };
        std::vector<Interval> c, o;
        if (partsSorted) {
            c = comm.sorted();
            o = other.sorted();
        } else {
            c = std::move(comm.intervals);
            o = std::move(other.intervals);
            std::sort(c.begin(), c.end(), byStart);
            std::sort(o.begin(), o.end(), byStart);
        }
        const std::vector<Interval> cu = unionOf(c), ou = unionOf(o);
        GpuTime t = time;
        t.spanNs = t.kernels > 0 ? t.endNs - t.startNs : 0;
        t.commNs = lengthOf(cu);
        t.commOverlapNs = overlapOf(cu, ou);
        t.busyNs = t.commNs + lengthOf(ou) - t.commOverlapNs;
        t.idleNs = t.spanNs - t.busyNs;
        return t;
    }
};

// Whether a name id is a communication kernel, cached per id.
class CommTest {
public:
    explicit CommTest(const RunProfile& profile) : m_profile(profile) {}
    bool operator()(uint32_t nameId)
    {
        if (nameId >= m_cache.size())
            m_cache.resize(size_t(nameId) + 1, -1);
        int8_t& c = m_cache[nameId];
        if (c < 0)
            c = m_profile.tree.categories().categoryOf(ActivityKind::Kernel, m_profile.string(nameId)) == kCategoryCommunication;
        return c == 1;
    }

private:
    const RunProfile& m_profile;
    std::vector<int8_t> m_cache;
};

}  // namespace

std::vector<DeviceTime> computeDeviceTimes(const RunProfile& profile, const ActivityView& activities)
{
    CommTest isComm(profile);
    std::map<int32_t, KernelSet> byDevice;
    for (const TrackActivities& t : activities.tracks) {
        KernelSet* set = nullptr;
        for (size_t i = 0; i < t.size; ++i) {
            if (t.kindAt(i) != ActivityKind::Kernel)
                continue;
            if (!set)
                set = &byDevice[t.deviceId];
            set->add(t.startNs[i], t.startNs[i] + int64_t(t.durationNs[i]), isComm(t.nameId[i]));
        }
        if (set)
            set->endPart();
    }
    std::vector<DeviceTime> out;
    for (auto& [id, set] : byDevice) {
        DeviceTime d;
        d.deviceId = id;
        d.name = "GPU " + std::to_string(id);
        for (const DeviceInfo& info : profile.devices)
            if (info.id == id && !info.name.empty())
                d.name = info.name;
        d.time = set.finish(true);
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<StepTime> computeStepTimes(const RunProfile& profile, const ActivityView& activities)
{
    const size_t n = activities.instanceCount;
    if (!activities.instanceParent || !profile.tree.hasSteps() || n == 0)
        return {};
    const auto& nodes = profile.tree.nodes();
    auto isStepInstance = [&](uint32_t inst) {
        const uint32_t node = activities.instanceNode[inst];
        return node < nodes.size() && profile.tree.isStep(nodes[node].id);
    };
    // The outermost step instance around each instance (kNoInstance: none), parents first by
    // an explicit stack, so any instance order works.
    constexpr uint32_t kUnknown = kNoInstance - 1;
    std::vector<uint32_t> stepOf(n, kUnknown);
    std::vector<uint32_t> chain;
    for (size_t i = 0; i < n; ++i) {
        chain.clear();
        uint32_t at = uint32_t(i);
        while (at < n && stepOf[at] == kUnknown && chain.size() <= n) {
            chain.push_back(at);
            at = activities.instanceParent[at];
        }
        uint32_t outer = at < n ? stepOf[at] : kNoInstance;
        for (size_t k = chain.size(); k-- > 0;) {
            if (outer == kNoInstance && isStepInstance(chain[k]))
                outer = chain[k];
            stepOf[chain[k]] = outer;
        }
    }

    CommTest isComm(profile);
    std::map<uint32_t, KernelSet> byInstance;
    for (const TrackActivities& t : activities.tracks)
        for (size_t i = 0; i < t.size; ++i) {
            if (t.kindAt(i) != ActivityKind::Kernel)
                continue;
            const uint32_t inst = t.instance[i];
            const uint32_t step = inst < n ? stepOf[inst] : kNoInstance;
            if (step == kNoInstance)
                continue;
            KernelSet& set = byInstance[step];
            if (set.time.kernels == 0)
                set.device = t.deviceId;
            set.add(t.startNs[i], t.startNs[i] + int64_t(t.durationNs[i]), isComm(t.nameId[i]));
        }

    // Instances of one step scope whose kernels overlap in time, each on another device, are
    // one step (the ranks of a job); the others (a capture's step 1, 2, 3 of one scope) are
    // steps of their own.
    struct Part {
        uint32_t node;
        int64_t startNs, endNs;
        uint32_t instance;
    };
    std::vector<Part> parts;
    for (const auto& [inst, set] : byInstance)
        parts.push_back(Part{activities.instanceNode[inst], set.time.startNs, set.time.endNs, inst});
    std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
        return a.node != b.node ? a.node < b.node : a.startNs != b.startNs ? a.startNs < b.startNs : a.instance < b.instance;
    });
    std::vector<StepTime> out;
    for (size_t i = 0; i < parts.size();) {
        KernelSet merged;
        int64_t end = parts[i].endNs;
        std::vector<int32_t> devices;
        size_t j = i;
        for (; j < parts.size() && parts[j].node == parts[i].node && (j == i || parts[j].startNs < end); ++j) {
            KernelSet& s = byInstance[parts[j].instance];
            if (std::find(devices.begin(), devices.end(), s.device) != devices.end())
                break;   // this device's next step
            devices.push_back(s.device);
            end = std::max(end, parts[j].endNs);
            for (const Interval& v : s.comm.intervals)
                merged.add(v.startNs, v.endNs, true);
            for (const Interval& v : s.other.intervals)
                merged.add(v.startNs, v.endNs, false);
        }
        StepTime st;
        st.name = profile.tree.name(nodes[parts[i].node].id);
        st.time = merged.finish(false);
        out.push_back(std::move(st));
        i = j;
    }
    std::sort(out.begin(), out.end(), [](const StepTime& a, const StepTime& b) {
        return a.time.startNs != b.time.startNs ? a.time.startNs < b.time.startNs : a.name < b.name;
    });
    for (size_t k = 0; k < out.size(); ++k)
        out[k].index = int64_t(k);
    return out;
}

std::vector<BarSegment> deviceBarSegments(const GpuTime& t)
{
    return {{"compute", t.busyNs - t.commNs},
            {"overlapped communication", t.commOverlapNs},
            {"exposed communication", t.commExposedNs()},
            {"idle", t.idleNs}};
}

}  // namespace wt
