#include "activitystarts.h"

namespace wt {

void ActivityStarts::pushFar(size_t i, int64_t v, bool after)
{
    // A few far starts (a pause: the rest of one block) cost 16 bytes each aside; a sparse track
    // with many would cost more than plain starts, and a start before its block's base means
    // the input is not sorted (the loader sorts it and assigns again).
    if (!after || m_far.size() >= kFarAllowance + i / 64) {
        widen();
        m_plain.push_back(v);
        return;
    }
    m_offset.push_back(kFar);
    m_far.push_back(Far{i, v});
}

void ActivityStarts::widen()
{
    std::vector<int64_t> plain;
    plain.reserve(std::max(m_offset.capacity(), m_offset.size() + 1));
    for (size_t i = 0; i < m_offset.size(); ++i)
        plain.push_back((*this)[i]);
    m_base = {};
    m_offset = {};
    m_far = {};
    m_plain = std::move(plain);
    m_wide = true;
}

void ActivityStarts::assign(const std::vector<int64_t>& starts)
{
    clear();
    reserve(starts.size());
    for (int64_t v : starts)
        push_back(v);
}

void ActivityStarts::shrink()
{
    auto fit = [](auto& v) {
        if (v.capacity() > v.size() + v.size() / 16 + 16)
            v.shrink_to_fit();
    };
    fit(m_base);
    fit(m_offset);
    fit(m_far);
    fit(m_plain);
}

}  // namespace wt
