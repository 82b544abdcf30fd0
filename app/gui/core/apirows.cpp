#include "apirows.h"

#include "timelinelayout.h"

#include "storage/reader.h"

#include <algorithm>
#include <map>

namespace wt::gui {

void ApiCallIndex::load(const Reader& reader, int64_t runId, RunData& d)
{
    const std::vector<ApiCall> calls = reader.apiCalls(runId);
    // By thread, then start (longer first, so an enclosing call comes before what it holds).
    // Calls are stored in start order and runs have few threads: a stable counting sort of
    // indices by thread keeps that order, and a thread's calls are sorted only where they are
    // not already (a sort of millions of calls would cost the first frame seconds).
    auto before = [&](uint32_t a, uint32_t b) {
        if (calls[a].startNs != calls[b].startNs)
            return calls[a].startNs < calls[b].startNs;
        return calls[a].endNs > calls[b].endNs;
    };
    std::vector<uint32_t> order(calls.size());
    {
        std::map<int64_t, uint32_t> threadRank;
        for (const ApiCall& c : calls)
            threadRank.emplace(c.threadId, 0);
        uint32_t rank = 0;
        for (auto& [thread, r] : threadRank)
            r = rank++;
        std::vector<uint32_t> rankOf(calls.size());
        std::vector<size_t> start(threadRank.size() + 1, 0);
        int64_t lastThread = 0;
        uint32_t lastRank = UINT32_MAX;
        for (size_t i = 0; i < calls.size(); ++i) {
            if (lastRank == UINT32_MAX || calls[i].threadId != lastThread) {
                lastThread = calls[i].threadId;
                lastRank = threadRank[lastThread];
            }
            rankOf[i] = lastRank;
            ++start[lastRank + 1];
        }
        for (size_t k = 1; k < start.size(); ++k)
            start[k] += start[k - 1];
        std::vector<size_t> at(start.begin(), start.end() - 1);
        for (size_t i = 0; i < calls.size(); ++i)
            order[at[rankOf[i]]++] = uint32_t(i);
        for (size_t k = 0; k + 1 < start.size(); ++k) {
            auto b = order.begin() + std::ptrdiff_t(start[k]), e = order.begin() + std::ptrdiff_t(start[k + 1]);
            if (!std::is_sorted(b, e, before))
                std::stable_sort(b, e, before);
        }
    }
    std::map<std::pair<int64_t, int>, size_t> rowOf;   // (thread, level) -> row
    std::vector<std::pair<uint32_t, uint32_t>> placed(calls.size());   // per stored call: (row, position)
    std::vector<int64_t> open;   // ends of the calls enclosing the current one, on its thread
    size_t lastRow = SIZE_MAX;
    std::pair<int64_t, int> lastKey{0, -1};
    for (size_t n = 0; n < order.size(); ++n) {
        const ApiCall& c = calls[order[n]];
        if (n == 0 || calls[order[n - 1]].threadId != c.threadId)
            open.clear();
        while (!open.empty() && open.back() <= c.startNs)
            open.pop_back();
        const int level = int(open.size());
        open.push_back(std::max(c.endNs, c.startNs));
        const std::pair<int64_t, int> key{c.threadId, level};
        if (key != lastKey || lastRow == SIZE_MAX) {
            auto [it, added] = rowOf.try_emplace(key, d.apiRows.size());
            if (added) {
                ApiRowData r;
                r.threadId = c.threadId;
                r.level = level;
                d.apiRows.push_back(std::move(r));
            }
            lastRow = it->second;
            lastKey = key;
        }
        ApiRowData& r = d.apiRows[lastRow];
        const int64_t dur = std::clamp<int64_t>(c.endNs - c.startNs, 0, UINT32_MAX);
        placed[order[n]] = {uint32_t(lastRow), uint32_t(r.size())};
        r.startNs.push_back(c.startNs);
        r.durationNs.push_back(uint32_t(dur));
        r.nameId.push_back(c.nameId);
        r.correlationId.push_back(c.correlationId);
        r.maxDurationNs = std::max(r.maxDurationNs, dur);
    }
    std::vector<uint32_t>().swap(order);
    // Rows by thread, then level (rowOf's order), and their calls' indices in that order.
    std::vector<size_t> rowOrder;
    rowOrder.reserve(rowOf.size());
    std::vector<size_t> newIndex(d.apiRows.size());
    for (const auto& [key, row] : rowOf) {
        newIndex[row] = rowOrder.size();
        rowOrder.push_back(row);
    }
    std::vector<ApiRowData> rows;
    rows.reserve(rowOrder.size());
    for (size_t row : rowOrder)
        rows.push_back(std::move(d.apiRows[row]));
    d.apiRows = std::move(rows);
    d.apiRowStart.assign(1, 0);
    for (const ApiRowData& r : d.apiRows)
        d.apiRowStart.push_back(d.apiRowStart.back() + uint32_t(r.size()));
    // By correlation id, built in stored (start) order: ids mostly grow with it, so the sort
    // is usually a check.
    m_byCorrelation.clear();
    m_byCorrelation.reserve(calls.size());
    for (size_t i = 0; i < calls.size(); ++i)
        if (calls[i].correlationId != 0)
            m_byCorrelation.emplace_back(calls[i].correlationId, d.apiRowStart[newIndex[placed[i].first]] + placed[i].second);
    if (!std::is_sorted(m_byCorrelation.begin(), m_byCorrelation.end()))
        std::sort(m_byCorrelation.begin(), m_byCorrelation.end());
    for (ApiRowData& r : d.apiRows)
        r.index.build(ApiSequence{&d, &r});
}

uint32_t ApiCallIndex::find(int64_t correlationId, size_t& hint) const
{
    if (correlationId == 0 || m_byCorrelation.empty())
        return kNone;
    // A track's kernels come in launch order, so their ids grow: search forward from the last
    // one found, in steps that double (other streams' launches lie in between), then bisect.
    auto begin = m_byCorrelation.begin(), end = m_byCorrelation.end();
    const std::pair<int64_t, uint32_t> key(correlationId, 0);
    if (hint < m_byCorrelation.size() && m_byCorrelation[hint].first <= correlationId) {
        size_t lo = hint, step = 1;
        while (lo + step < m_byCorrelation.size() && m_byCorrelation[lo + step].first < correlationId) {
            lo += step;
            step *= 2;
        }
        begin = m_byCorrelation.begin() + std::ptrdiff_t(lo);
        end = m_byCorrelation.begin() + std::ptrdiff_t(std::min(lo + step + 1, m_byCorrelation.size()));
    }
    auto it = std::lower_bound(begin, end, key);
    if (it == end || it->first != correlationId) {
        // Not in the forward window (ids out of order): the whole index.
        it = std::lower_bound(m_byCorrelation.begin(), m_byCorrelation.end(), key);
        if (it == m_byCorrelation.end() || it->first != correlationId)
            return kNone;
    }
    hint = size_t(it - m_byCorrelation.begin()) + 1;
    return it->second;
}

QRgb RunData::apiColor(uint32_t nameId) const
{
    auto it = strings().find(nameId);
    if (it == strings().end())
        return qRgb(150, 150, 150);
    const std::string& n = it->second;
    // Launches blue, copies and sets brown, synchronizations red, the rest grey.
    if (n.find("aunch") != std::string::npos)
        return qRgb(76, 120, 168);
    if (n.find("Memcpy") != std::string::npos || n.find("Memset") != std::string::npos)
        return qRgb(156, 117, 95);
    if (n.find("ynchronize") != std::string::npos || n.find("Wait") != std::string::npos)
        return qRgb(225, 87, 89);
    return qRgb(160, 160, 160);
}

std::pair<uint32_t, uint32_t> RunData::apiCallAt(uint32_t call) const
{
    auto it = std::upper_bound(apiRowStart.begin(), apiRowStart.end(), call);
    const uint32_t row = uint32_t(it - apiRowStart.begin()) - 1;
    return {row, call - apiRowStart[row]};
}

std::vector<std::pair<uint32_t, uint32_t>> RunData::launchedBy(uint32_t row, uint32_t index) const
{
    std::vector<std::pair<uint32_t, uint32_t>> out;
    if (row >= apiRows.size() || index >= apiRows[row].size())
        return out;
    const uint32_t call = apiRowStart[row] + index;
    for (size_t t = 0; t < tracks.size(); ++t) {
        const std::vector<uint32_t>& l = tracks[t].launch;
        for (auto it = std::find(l.begin(), l.end(), call); it != l.end(); it = std::find(it + 1, l.end(), call))
            out.emplace_back(uint32_t(t), uint32_t(it - l.begin()));
    }
    return out;
}

}  // namespace wt::gui
