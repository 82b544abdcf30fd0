// The sorted start times of one track's activities in 4 bytes each instead of 8: a 32-bit
// offset from a base per block of kBlock activities (the block's first start). A track is
// sorted by start, so offsets are never negative, and a start 2^32-1 ns (4.29 s) or more after
// its block's base (the kernels after a pause) is kept exactly in a side table sorted by
// index; a track with many of them (a sparse stream) or an unsorted one keeps plain int64
// starts instead. ActivityStarts::View is what analysis/ reads (TrackActivities::startNs):
// either form, or a plain array someone else owns.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace wt {

class ActivityStarts {
public:
    static constexpr unsigned kBlockBits = 10;
    static constexpr size_t kBlock = size_t(1) << kBlockBits;   // activities per base

    static constexpr uint32_t kFar = UINT32_MAX;   // offset marker: the start is in the side table
    static constexpr size_t kFarAllowance = 4 * kBlock;   // far starts a track keeps aside, plus 1 in 64
    struct Far {
        size_t index;
        int64_t startNs;
    };
    // The exact start of a far activity (present: push_back put every kFar one there).
    static int64_t farStart(const Far* far, size_t count, size_t i)
    {
        const Far* it = std::lower_bound(far, far + count, i, [](const Far& f, size_t x) { return f.index < x; });
        return it->startNs;
    }

    // A read-only view: compact (base + offset, far ones aside) or plain (wide).
    struct View {
        const int64_t* wide = nullptr;         // plain starts; nullptr: base + offset below
        const int64_t* base = nullptr;         // per block of kBlock: its first start (ns)
        const uint32_t* offset = nullptr;      // start - base of the block (ns), kFar: in `far`
        const Far* far = nullptr;
        size_t farCount = 0;
        View() = default;
        View(const int64_t* plain) : wide(plain) {}   // implicit: columns held as int64 (CLI, tests)
        int64_t operator[](size_t i) const
        {
            if (wide)
                return wide[i];
            const uint32_t o = offset[i];
            if (o != kFar) [[likely]]
                return base[i >> kBlockBits] + int64_t(o);
            return farStart(far, farCount, i);
        }
        // First index in [0, n) whose start is not below `v` (n when none).
        size_t lowerBound(size_t n, int64_t v) const
        {
            return lowerBound(0, n, v);
        }
        size_t lowerBound(size_t lo, size_t hi, int64_t v) const
        {
            while (lo < hi) {
                const size_t mid = lo + (hi - lo) / 2;
                if ((*this)[mid] < v)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            return lo;
        }
    };

    // Random access by value (std::lower_bound, std::is_sorted over a track's starts).
    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = int64_t;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = int64_t;
        const_iterator() = default;
        const_iterator(const ActivityStarts* s, size_t i) : m_s(s), m_i(i) {}
        int64_t operator*() const { return (*m_s)[m_i]; }
        int64_t operator[](difference_type k) const { return (*m_s)[size_t(difference_type(m_i) + k)]; }
        const_iterator& operator++() { ++m_i; return *this; }
        const_iterator operator++(int) { const_iterator c = *this; ++m_i; return c; }
        const_iterator& operator--() { --m_i; return *this; }
        const_iterator operator--(int) { const_iterator c = *this; --m_i; return c; }
        const_iterator& operator+=(difference_type k) { m_i = size_t(difference_type(m_i) + k); return *this; }
        const_iterator& operator-=(difference_type k) { m_i = size_t(difference_type(m_i) - k); return *this; }
        friend const_iterator operator+(const_iterator a, difference_type k) { return a += k; }
        friend const_iterator operator+(difference_type k, const_iterator a) { return a += k; }
        friend const_iterator operator-(const_iterator a, difference_type k) { return a -= k; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b)
        {
            return difference_type(a.m_i) - difference_type(b.m_i);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.m_i == b.m_i; }
        friend bool operator!=(const const_iterator& a, const const_iterator& b) { return a.m_i != b.m_i; }
        friend bool operator<(const const_iterator& a, const const_iterator& b) { return a.m_i < b.m_i; }
        friend bool operator>(const const_iterator& a, const const_iterator& b) { return a.m_i > b.m_i; }
        friend bool operator<=(const const_iterator& a, const const_iterator& b) { return a.m_i <= b.m_i; }
        friend bool operator>=(const const_iterator& a, const const_iterator& b) { return a.m_i >= b.m_i; }

    private:
        const ActivityStarts* m_s = nullptr;
        size_t m_i = 0;
    };

    int64_t operator[](size_t i) const
    {
        if (m_wide) [[unlikely]]
            return m_plain[i];
        const uint32_t o = m_offset[i];
        if (o != kFar) [[likely]]
            return m_base[i >> kBlockBits] + int64_t(o);
        return farStart(m_far.data(), m_far.size(), i);
    }
    size_t size() const { return m_wide ? m_plain.size() : m_offset.size(); }
    bool empty() const { return size() == 0; }
    bool compact() const { return !m_wide; }
    size_t exceptions() const { return m_far.size(); }   // far starts kept aside
    const_iterator begin() const { return const_iterator(this, 0); }
    const_iterator end() const { return const_iterator(this, size()); }
    View view() const
    {
        View v;
        if (m_wide)
            v.wide = m_plain.data();
        else {
            v.base = m_base.data();
            v.offset = m_offset.data();
            v.far = m_far.data();
            v.farCount = m_far.size();
        }
        return v;
    }

    void reserve(size_t n)
    {
        if (m_wide)
            m_plain.reserve(n);
        else {
            m_offset.reserve(n);
            m_base.reserve((n + kBlock - 1) / kBlock);
        }
    }
    // Appends one start. One 2^32-1 ns or more after its block's base goes to the side table;
    // one before it (unsorted input), or more than a few far ones, turns the track into plain
    // starts (all kept exactly).
    void push_back(int64_t v)
    {
        if (m_wide) [[unlikely]] {
            m_plain.push_back(v);
            return;
        }
        const size_t i = m_offset.size();
        if ((i & (kBlock - 1)) == 0)
            m_base.push_back(v);
        int64_t off = 0;
        if (__builtin_sub_overflow(v, m_base.back(), &off) || off < 0 || off >= int64_t(kFar)) [[unlikely]] {
            pushFar(i, v, off >= 0);
            return;
        }
        m_offset.push_back(uint32_t(off));
    }
    // Replaces the contents (compact when they fit).
    void assign(const std::vector<int64_t>& starts);
    void clear() { *this = ActivityStarts(); }
    // Releases spare capacity when it is more than a few percent.
    void shrink();
    size_t bytes() const
    {
        return m_base.capacity() * 8 + m_offset.capacity() * 4 + m_far.capacity() * sizeof(Far) + m_plain.capacity() * 8;
    }

private:
    void pushFar(size_t i, int64_t v, bool after);
    void widen();   // compact -> plain, same values

    bool m_wide = false;
    std::vector<int64_t> m_base;      // compact: per block, its first start
    std::vector<uint32_t> m_offset;   // compact: start - base, kFar
    std::vector<Far> m_far;           // compact: exact starts of the kFar ones, by index
    std::vector<int64_t> m_plain;     // plain: the starts
};

}  // namespace wt
