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

std::array<int64_t, 8> coverageOf(const std::vector<Interval>& a, const std::vector<Interval>& b,
                                  const std::vector<Interval>& c)
{
    // Each list is disjoint, so at any time each has at most one interval open: a bit per
    // list says which, and the time between two boundaries goes to the mask that held there.
    const std::vector<Interval>* lists[3] = {&a, &b, &c};
    size_t at[3] = {0, 0, 0};
    unsigned mask = 0;
    std::array<int64_t, 8> out{};
    int64_t t = 0;
    bool started = false;
    while (true) {
        int64_t next = 0;
        bool any = false;
        for (int k = 0; k < 3; ++k) {
            if (at[k] >= lists[k]->size())
                continue;
            const Interval& iv = (*lists[k])[at[k]];
            const int64_t b = (mask >> k) & 1u ? iv.endNs : iv.startNs;
            if (!any || b < next)
                next = b;
            any = true;
        }
        if (!any)
            break;
        if (started && mask != 0)
            out[mask] = saturatingAdd(out[mask], next - t);
        t = next;
        started = true;
        // One boundary per list at a time: a zero-length interval opens here and closes on
        // the next pass, at the same time.
        for (int k = 0; k < 3; ++k) {
            if (at[k] >= lists[k]->size())
                continue;
            const Interval& iv = (*lists[k])[at[k]];
            if ((mask >> k) & 1u) {
                if (iv.endNs == t) {
                    mask &= ~(1u << k);
                    ++at[k];
                }
            } else if (iv.startNs == t) {
                mask |= 1u << k;
            }
        }
    }
    return out;
}

GpuWork gpuWorkOf(ActivityKind kind, const std::string& category)
{
    if (kind != ActivityKind::Kernel || category == kCategoryMemory)
        return GpuWork::Memory;
    return category == kCategoryCommunication ? GpuWork::Communication : GpuWork::Compute;
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

// The activities of one set (a device, a step): compute, communication and memory apart.
struct ActivitySet {
    Runs work[3];   // by GpuWork
    GpuTime time;
    int32_t device = 0;   // of the first activity added

    bool empty() const { return time.kernels == 0 && time.memoryOps == 0; }
    void add(int64_t start, int64_t end, bool kernel, GpuWork what)
    {
        work[size_t(what)].intervals.push_back(Interval{start, end});
        if (empty() || start < time.startNs)
            time.startNs = start;
        if (empty() || end > time.endNs)
            time.endNs = end;
        if (kernel) {
            ++time.kernels;
            time.kernelTimeNs = saturatingAdd(time.kernelTimeNs, end - start);
        } else {
            ++time.memoryOps;
        }
    }
    void endPart()
    {
        for (Runs& r : work)
            r.endPart();
    }
    GpuTime finish(bool partsSorted)
    {
        auto byStart = [](const Interval& a, const Interval& b) { return a.startNs < b.startNs; };
        std::vector<Interval> u[3];
        for (int k = 0; k < 3; ++k) {
            std::vector<Interval> v;
            if (partsSorted) {
                v = work[k].sorted();
            } else {
                v = std::move(work[k].intervals);
                std::sort(v.begin(), v.end(), byStart);
            }
            u[k] = unionOf(v);
        }
        // Bits: 1 compute, 2 communication, 4 memory (the GpuWork order).
        const std::array<int64_t, 8> by = coverageOf(u[0], u[1], u[2]);
        // The time during which at least the work in `all` ran (0: anything).
        auto covering = [&](unsigned all) {
            int64_t n = 0;
            for (unsigned m = 1; m < 8; ++m)
                if ((m & all) == all)
                    n = saturatingAdd(n, by[m]);
            return n;
        };
        GpuTime t = time;
        t.spanNs = empty() ? 0 : t.endNs - t.startNs;
        t.busyNs = covering(0);
        t.idleNs = t.spanNs - t.busyNs;
        t.computeNs = covering(1);
        t.commNs = covering(2);
        t.commOverlapNs = covering(1 | 2);
        t.memoryNs = covering(4);
        t.memoryOverlapNs = covering(1 | 4);
        t.memoryExposedNs = by[4];
        return t;
    }
};

// What an activity counts as, cached per name id for kernels (memory operations always are
// memory).
class WorkTest {
public:
    explicit WorkTest(const RunProfile& profile) : m_profile(profile) {}
    GpuWork operator()(ActivityKind kind, uint32_t nameId)
    {
        if (kind != ActivityKind::Kernel)
            return GpuWork::Memory;
        if (nameId >= m_cache.size())
            m_cache.resize(size_t(nameId) + 1, -1);
        int8_t& c = m_cache[nameId];
        if (c < 0)
            c = int8_t(gpuWorkOf(kind, m_profile.tree.categories().categoryOf(kind, m_profile.string(nameId))));
        return GpuWork(c);
    }

private:
    const RunProfile& m_profile;
    std::vector<int8_t> m_cache;
};

}  // namespace

std::vector<DeviceTime> computeDeviceTimes(const RunProfile& profile, const ActivityView& activities)
{
    WorkTest workOf(profile);
    std::map<int32_t, ActivitySet> byDevice;
    for (const TrackActivities& t : activities.tracks) {
        ActivitySet* set = nullptr;
        for (size_t i = 0; i < t.size; ++i) {
            if (!set)
                set = &byDevice[t.deviceId];
            const ActivityKind kind = t.kindAt(i);
            set->add(t.startNs[i], t.startNs[i] + int64_t(t.durationNs[i]), kind == ActivityKind::Kernel,
                     workOf(kind, t.nameId[i]));
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

    WorkTest workOf(profile);
    std::map<uint32_t, ActivitySet> byInstance;
    for (const TrackActivities& t : activities.tracks)
        for (size_t i = 0; i < t.size; ++i) {
            const uint32_t inst = t.instance[i];
            const uint32_t step = inst < n ? stepOf[inst] : kNoInstance;
            if (step == kNoInstance)
                continue;
            ActivitySet& set = byInstance[step];
            if (set.empty())
                set.device = t.deviceId;
            const ActivityKind kind = t.kindAt(i);
            set.add(t.startNs[i], t.startNs[i] + int64_t(t.durationNs[i]), kind == ActivityKind::Kernel, workOf(kind, t.nameId[i]));
        }

    // Instances of one step scope whose activities overlap in time, each on another device, are
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
        ActivitySet merged;
        int64_t end = parts[i].endNs;
        std::vector<int32_t> devices;
        size_t j = i;
        for (; j < parts.size() && parts[j].node == parts[i].node && (j == i || parts[j].startNs < end); ++j) {
            ActivitySet& s = byInstance[parts[j].instance];
            if (std::find(devices.begin(), devices.end(), s.device) != devices.end())
                break;   // this device's next step
            devices.push_back(s.device);
            end = std::max(end, parts[j].endNs);
            for (int k = 0; k < 3; ++k)
                merged.work[k].intervals.insert(merged.work[k].intervals.end(), s.work[k].intervals.begin(),
                                                s.work[k].intervals.end());
            merged.time.kernels += s.time.kernels;
            merged.time.memoryOps += s.time.memoryOps;
            merged.time.kernelTimeNs = saturatingAdd(merged.time.kernelTimeNs, s.time.kernelTimeNs);
            merged.time.startNs = j == i ? s.time.startNs : std::min(merged.time.startNs, s.time.startNs);
            merged.time.endNs = j == i ? s.time.endNs : std::max(merged.time.endNs, s.time.endNs);
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
    return {{"compute", t.computeNs - t.commOverlapNs},
            {"overlapped communication", t.commOverlapNs},
            {"exposed communication", t.commExposedNs()},
            {"exposed memory", t.memoryExposedNs},
            {"idle", t.idleNs}};
}

}  // namespace wt
