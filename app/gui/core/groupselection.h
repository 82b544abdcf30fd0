// A group selection: many activities at once, e.g. "every kernel under a softmax layer" or
// "every kernel named K under op head_gemm of the softmax layer", as the breakdown view's
// slices and rows define them. GroupSelection is the resolved condition (scope nodes, kernel
// name ids, activity kinds), free of analysis/; GroupMarks is its membership per activity and
// per scope instance, computed once per selection change, so that the timeline's frames only
// read bits (and count a fold's members in O(1)) instead of comparing names per item.
#pragma once

#include "rundata.h"

#include <QString>

#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace wt::gui {

struct GroupSelection {
    QString label;                   // what the group is, for tooltips: "layer softmax > op head_gemm"
    bool anyScope = true;            // false: only activities whose scope node is in `nodes`
    std::vector<uint8_t> nodes;      // by RunData node index: 1 = member (used when !anyScope)
    bool noScope = false;            // activities without a scope are members (when !anyScope)
    bool anyName = true;             // false: only activities whose name id is in `nameIds`
    std::vector<uint32_t> nameIds;   // sorted (used when !anyName)
    uint8_t kinds = 1u << uint8_t(ActivityKind::Kernel);   // bit per ActivityKind
    // A histogram bin (widgets/histogramview.h): members further limited to durations in
    // [minDurationNs, maxDurationNs): each activity by its duration, or with scopeSpans the
    // scope instances whose node is in `nodes` by their GPU span (instances of other nodes and
    // without a span are no members), an activity then a member when a member instance holds it
    // (ancestor-or-self). Not part of matches(), which sees no durations.
    int64_t minDurationNs = 0;
    int64_t maxDurationNs = INT64_MAX;
    bool scopeSpans = false;
    bool limitsDuration() const { return scopeSpans || minDurationNs > 0 || maxDurationNs != INT64_MAX; }

    bool isEmpty() const { return label.isEmpty() && anyScope && anyName; }
    // The membership rule, item by item (what GroupMarks precomputes; used by tests as well).
    bool matches(ActivityKind kind, uint32_t node, uint32_t nameId) const;
    bool operator==(const GroupSelection&) const = default;
};

// One bit per item with a rank directory: test, count in a range and next member in O(1)
// (next: a word scan). 1.19 bits per item.
class MemberBits {
public:
    template <class Pred>
    void build(size_t n, Pred&& member)
    {
        m_size = n;
        m_words.assign((n + 63) / 64, 0);
        for (size_t i = 0; i < n; ++i)
            if (member(i))
                m_words[i >> 6] |= uint64_t(1) << (i & 63);
        m_rank.resize(m_words.size() + 1);
        uint32_t acc = 0;
        for (size_t w = 0; w < m_words.size(); ++w) {
            m_rank[w] = acc;
            acc += uint32_t(std::popcount(m_words[w]));
        }
        m_rank[m_words.size()] = acc;
    }

    size_t size() const { return m_size; }
    size_t count() const { return m_rank.empty() ? 0 : m_rank.back(); }
    bool test(size_t i) const { return (m_words[i >> 6] >> (i & 63)) & 1; }
    // Members in [lo, hi).
    size_t count(size_t lo, size_t hi) const { return hi <= lo ? 0 : rank(hi) - rank(lo); }
    // First member in [from, end), else end.
    size_t nextSet(size_t from, size_t end) const
    {
        end = std::min(end, m_size);
        while (from < end) {
            const uint64_t w = m_words[from >> 6] >> (from & 63);
            if (w)
                return std::min(end, from + size_t(std::countr_zero(w)));
            from = (from | 63) + 1;
        }
        return end;
    }
    // Last member in [begin, from), else npos (backward stepping through search matches).
    size_t prevSet(size_t from, size_t begin = 0) const
    {
        from = std::min(from, m_size);
        while (from > begin) {
            const size_t last = from - 1;
            const uint64_t w = m_words[last >> 6] & (~uint64_t(0) >> (63 - (last & 63)));
            if (w) {
                const size_t i = (last & ~size_t(63)) + size_t(63 - std::countl_zero(w));
                return i >= begin ? i : npos;
            }
            from = last & ~size_t(63);
        }
        return npos;
    }
    static constexpr size_t npos = size_t(-1);
    size_t bytes() const { return m_words.capacity() * 8 + m_rank.capacity() * 4; }

private:
    size_t rank(size_t i) const   // members in [0, i)
    {
        const size_t w = i >> 6, b = i & 63;
        return m_rank[w] + (b ? size_t(std::popcount(m_words[w] & ((uint64_t(1) << b) - 1))) : 0);
    }

    std::vector<uint64_t> m_words;
    std::vector<uint32_t> m_rank;    // members before word w; back() = total
    size_t m_size = 0;
};

struct GroupMarks {
    std::vector<MemberBits> tracks;  // by RunData track: member activities
    // Scope instances whose node is in the group; empty when the group has no scope
    // condition (a kernel-name group: every lane would match, so lanes are left as they are).
    MemberBits instances;
    std::vector<MemberBits> lanes;   // by RunData lane, over the lane's items; empty as above
    std::vector<MemberBits> apiRows; // by RunData API row (find only; empty for groups: their rows stay as they are)
    std::vector<MemberBits> hostLanes; // by RunData host lane, over its items (find only, as apiRows)
    int64_t activityCount = 0;       // member activities over all tracks
    int64_t instanceCount = 0;       // member instances
    bool marksLanes() const { return !lanes.empty(); }
    size_t bytes() const;

    static std::shared_ptr<const GroupMarks> compute(const RunData& run, const GroupSelection& group);
};

}  // namespace wt::gui
