#include "steprecognition.h"

#include "importerror.h"

#include <algorithm>
#include <map>
#include <regex>
#include <tuple>

namespace wt::interop {

namespace {

// The process a host thread key belongs to: Kineto keys are pid << 32 ^ tid; Nsight's global
// thread ids hold the pid above bit 24.
int64_t processOf(const ImportedTrace& t, int64_t thread)
{
    return t.format == "nsys" ? (thread >> 24) : (thread >> 32);
}

}  // namespace

StepMarks markSteps(ImportedTrace& t, const std::string& pattern, const std::string& file)
{
    std::regex re;
    try {
        re = std::regex(pattern.empty() ? std::string(kDefaultStepPattern) : pattern, std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error& e) {
        throw ImportError(file, "--step '" + pattern + "' is not a valid regular expression: " + e.what());
    }
    StepMarks marks;
    if (t.ranges.empty())
        return marks;
    const uint32_t stepLevel = t.strings.intern("step");
    std::vector<int8_t> matches(t.strings.size(), -1);   // per name id
    std::vector<size_t> steps;                           // host step ranges
    for (size_t i = 0; i < t.ranges.size(); ++i) {
        auto& r = t.ranges[i];
        if (r.name >= matches.size())
            matches.resize(size_t(r.name) + 1, -1);
        int8_t& m = matches[r.name];
        if (m < 0)
            m = std::regex_match(t.strings.at(r.name), re) ? 1 : 0;
        if (m == 0)
            continue;
        r.level = stepLevel;
        ++marks.steps;
        if (!r.onGpu)
            steps.push_back(i);
    }
    if (steps.empty())
        return marks;
    std::sort(steps.begin(), steps.end(), [&](size_t a, size_t b) { return t.ranges[a].startNs < t.ranges[b].startNs; });

    // Top-level host ranges per thread: those no earlier range of the thread still contains.
    // Sorted by (thread, start, end descending, index) as records beside the index, so the
    // sort reads no range (3M ranges of a 2 GB trace); the index makes equal ranges' order the
    // file's.
    struct HostKey {
        int64_t thread, start, end;
        size_t index;
        bool operator<(const HostKey& o) const
        {
            return std::tie(thread, start, o.end, index) < std::tie(o.thread, o.start, end, o.index);
        }
    };
    // Threads are few and each one's ranges mostly come in start order: grouped by thread
    // (in thread order), each group sorted only when it is not sorted already. The same order
    // as one sort of all: the keys are distinct (the index).
    std::vector<size_t> host;
    host.reserve(t.ranges.size());
    {
        std::map<int64_t, std::vector<HostKey>> byThread;
        std::vector<HostKey>* group = nullptr;
        int64_t groupThread = 0;
        for (size_t i = 0; i < t.ranges.size(); ++i) {
            const auto& r = t.ranges[i];
            if (r.onGpu)
                continue;
            if (!group || r.thread != groupThread) {   // ranges of one thread come in runs
                group = &byThread[r.thread];
                groupThread = r.thread;
            }
            group->push_back({r.thread, r.startNs, r.endNs, i});
        }
        for (auto& [thread, keys] : byThread) {
            if (!std::is_sorted(keys.begin(), keys.end()))
                std::sort(keys.begin(), keys.end());
            for (const auto& k : keys)
                host.push_back(k.index);
            std::vector<HostKey>().swap(keys);
        }
    }
    int64_t thread = 0;
    int64_t openEnd = INT64_MIN;   // end of the current top-level range of `thread`
    for (size_t k = 0; k < host.size(); ++k) {
        auto& r = t.ranges[host[k]];
        if (k == 0 || r.thread != thread) {
            thread = r.thread;
            openEnd = INT64_MIN;
        }
        const bool top = r.startNs >= openEnd;
        openEnd = std::max(openEnd, r.endNs);
        if (!top || r.parentGiven || r.level == stepLevel)
            continue;
        // The latest step that starts at or before it, on another thread of the same process.
        auto it = std::upper_bound(steps.begin(), steps.end(), r.startNs,
                                   [&](int64_t v, size_t s) { return v < t.ranges[s].startNs; });
        while (it != steps.begin()) {
            --it;
            const auto& s = t.ranges[*it];
            if (s.thread == r.thread || processOf(t, s.thread) != processOf(t, r.thread))
                continue;
            if (r.startNs < s.endNs) {
                r.parent = int64_t(*it);
                r.parentGiven = true;
                ++marks.adopted;
            }
            break;
        }
    }
    return marks;
}

}  // namespace wt::interop
