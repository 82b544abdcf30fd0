// Which instances of step-level scopes are one step. Instances of one scope whose spans overlap
// in time (by more than half of the shorter) are one step: the same iteration seen on several ranks of a job imported as one run
// (clocks on absolute time) or on several threads. A capture's steps follow one another and stay
// apart. One rule for the writer's step totals, analysis' readStepTotals and countSteps (and the
// one computeStepTimes applies to the steps' GPU spans), so every figure counts the same steps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <vector>

namespace wt {

struct StepSpan {
    int64_t scopeId = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;   // an instance that never ended: its start (it overlaps nothing after it)
};

// Per span, the index of its step (0 .. count-1, numbered in the order of each step's first span
// in `spans`); `count` is set to the number of steps.
inline std::vector<uint32_t> mergeOverlappingSteps(const std::vector<StepSpan>& spans, size_t& count)
{
    std::vector<uint32_t> order(spans.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return std::tie(spans[a].scopeId, spans[a].startNs, a) < std::tie(spans[b].scopeId, spans[b].startNs, b);
    });
    std::vector<uint32_t> leader(spans.size());
    uint32_t lead = 0;
    int64_t start = 0, end = 0;   // the current step's extent
    for (size_t k = 0; k < order.size(); ++k) {
        const StepSpan& s = spans[order[k]];
        // Joins the current step when they overlap by more than half of the shorter of the two
        // (s starts at or after `start`): steps that follow one another with a little overlap
        // (a step's end recorded after the next one began) stay apart.
        const int64_t overlap = std::min(end, s.endNs) - s.startNs;
        const int64_t shorter = std::min(end - start, s.endNs - s.startNs);
        if (k == 0 || s.scopeId != spans[order[k - 1]].scopeId || overlap <= 0 || overlap <= shorter / 2) {
            lead = order[k];
            start = s.startNs;
            end = s.endNs;
        } else {
            end = std::max(end, s.endNs);
        }
        leader[order[k]] = lead;
    }
    std::vector<uint32_t> out(spans.size()), stepOfLeader(spans.size(), UINT32_MAX);
    count = 0;
    for (size_t i = 0; i < spans.size(); ++i) {
        uint32_t& step = stepOfLeader[leader[i]];
        if (step == UINT32_MAX)
            step = uint32_t(count++);
        out[i] = step;
    }
    return out;
}

}  // namespace wt
