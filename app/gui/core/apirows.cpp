#include "apirows.h"

#include "timelinelayout.h"

#include "storage/reader.h"

#include <algorithm>
#include <map>

namespace wt::gui {

void ApiCallIndex::load(const Reader& reader, int64_t runId, RunData& d)
{
    std::vector<ApiCall> calls = reader.apiCalls(runId);
    // By thread, then start (longer first, so an enclosing call comes before what it holds).
    // Calls are stored in start order and runs have few threads: a stable partition by thread
    // keeps that order, and a thread's calls are sorted only where they are not already (a
    // sort of millions of calls would cost the first frame seconds).
    auto before = [](const ApiCall& a, const ApiCall& b) {
        if (a.startNs != b.startNs)
            return a.startNs < b.startNs;
        return a.endNs > b.endNs;
    };
    {
        std::map<int64_t, std::vector<ApiCall>> byThread;
        for (const ApiCall& c : calls)
            byThread[c.threadId].push_back(c);
        calls.clear();
        for (auto& [thread, list] : byThread) {
            if (!std::is_sorted(list.begin(), list.end(), before))
                std::stable_sort(list.begin(), list.end(), before);
            calls.insert(calls.end(), list.begin(), list.end());
            std::vector<ApiCall>().swap(list);
        }
    }
    std::map<std::pair<int64_t, int>, size_t> rowOf;   // (thread, level) -> row
    std::vector<std::pair<size_t, size_t>> placed(calls.size());   // (row, position)
    std::vector<int64_t> open;   // ends of the calls enclosing the current one, on its thread
    for (size_t i = 0; i < calls.size(); ++i) {
        const ApiCall& c = calls[i];
        if (i == 0 || calls[i - 1].threadId != c.threadId)
            open.clear();
        while (!open.empty() && open.back() <= c.startNs)
            open.pop_back();
        const int level = int(open.size());
        open.push_back(std::max(c.endNs, c.startNs));
        auto [it, added] = rowOf.try_emplace({c.threadId, level}, d.apiRows.size());
        if (added) {
            ApiRowData r;
            r.threadId = c.threadId;
            r.level = level;
            d.apiRows.push_back(std::move(r));
        }
        ApiRowData& r = d.apiRows[it->second];
        const int64_t dur = std::clamp<int64_t>(c.endNs - c.startNs, 0, UINT32_MAX);
        placed[i] = {it->second, r.size()};
        r.startNs.push_back(c.startNs);
        r.durationNs.push_back(uint32_t(dur));
        r.nameId.push_back(c.nameId);
        r.correlationId.push_back(c.correlationId);
        r.maxDurationNs = std::max(r.maxDurationNs, dur);
    }
    // Rows by thread, then level (rowOf's order), and their calls' indices in that order.
    std::vector<size_t> order;
    order.reserve(rowOf.size());
    std::vector<size_t> newIndex(d.apiRows.size());
    for (const auto& [key, row] : rowOf) {
        newIndex[row] = order.size();
        order.push_back(row);
    }
    std::vector<ApiRowData> rows;
    rows.reserve(order.size());
    for (size_t row : order)
        rows.push_back(std::move(d.apiRows[row]));
    d.apiRows = std::move(rows);
    d.apiRowStart.assign(1, 0);
    for (const ApiRowData& r : d.apiRows)
        d.apiRowStart.push_back(d.apiRowStart.back() + uint32_t(r.size()));
    m_byCorrelation.clear();
    m_byCorrelation.reserve(calls.size());
    for (size_t i = 0; i < calls.size(); ++i)
        if (calls[i].correlationId != 0)
            m_byCorrelation.emplace_back(calls[i].correlationId,
                                         d.apiRowStart[newIndex[placed[i].first]] + uint32_t(placed[i].second));
    std::sort(m_byCorrelation.begin(), m_byCorrelation.end());
    for (ApiRowData& r : d.apiRows)
        r.index.build(ApiSequence{&d, &r});
}

uint32_t ApiCallIndex::find(int64_t correlationId, size_t& hint) const
{
    if (correlationId == 0 || m_byCorrelation.empty())
        return kNone;
    // The next id after the last one found is the common case.
    for (size_t k = hint; k < hint + 2 && k < m_byCorrelation.size(); ++k)
        if (m_byCorrelation[k].first == correlationId) {
            hint = k + 1;
            return m_byCorrelation[k].second;
        }
    auto it = std::lower_bound(m_byCorrelation.begin(), m_byCorrelation.end(), std::make_pair(correlationId, uint32_t(0)));
    if (it == m_byCorrelation.end() || it->first != correlationId)
        return kNone;
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
