#include "hostrows.h"

#include <QStringList>

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>

namespace wt::gui {

void loadHostRows(const std::vector<HostThread>& stored, std::vector<HostInstance>& items, RunData& d)
{
    if (stored.empty())
        return;
    // Threads by (pid, tid), processes by pid.
    std::vector<HostThread> threads = stored;
    std::stable_sort(threads.begin(), threads.end(), [](const HostThread& a, const HostThread& b) {
        return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid;
    });
    // API rows of threads that are not stored: a thread of their own each (pid 0).
    {
        std::unordered_map<int64_t, bool> known;
        for (const HostThread& t : threads)
            known[t.tid] = true;
        for (const ApiRowData& r : d.apiRows)
            if (!known.count(r.threadId)) {
                known[r.threadId] = true;
                threads.push_back(HostThread{0, 0, r.threadId, {}, {}});
            }
        std::stable_sort(threads.begin(), threads.end(), [](const HostThread& a, const HostThread& b) {
            return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid;
        });
    }
    std::unordered_map<int64_t, uint32_t> threadIndex;   // HostThread::id -> index
    std::unordered_map<int64_t, uint32_t> byTid;         // OS tid -> first thread with it
    for (const HostThread& t : threads) {
        HostThreadData h;
        h.id = t.id;
        h.pid = t.pid;
        h.tid = t.tid;
        h.name = QString::fromStdString(t.name);
        if (d.hostProcesses.empty() || d.hostProcesses.back().pid != t.pid) {
            HostProcessData p;
            p.pid = t.pid;
            p.name = QString::fromStdString(t.processName);
            d.hostProcesses.push_back(std::move(p));
        } else if (d.hostProcesses.back().name.isEmpty()) {
            d.hostProcesses.back().name = QString::fromStdString(t.processName);
        }
        h.process = uint32_t(d.hostProcesses.size() - 1);
        const uint32_t index = uint32_t(d.hostThreads.size());
        d.hostProcesses.back().threads.push_back(index);
        if (t.id != 0)
            threadIndex.emplace(t.id, index);
        byTid.try_emplace(t.tid, index);
        d.hostThreads.push_back(std::move(h));
    }
    for (size_t r = 0; r < d.apiRows.size(); ++r)
        if (auto it = byTid.find(d.apiRows[r].threadId); it != byTid.end())
            d.hostThreads[it->second].apiRows.push_back(uint32_t(r));   // rows come by level already

    // Lanes: per thread, by start (longer first, so an enclosing range comes before what it
    // holds); the depth is the number of ranges still open on the thread, plus one.
    std::erase_if(items, [&](const HostInstance& h) { return !threadIndex.count(h.threadId); });
    for (HostInstance& h : items)
        h.threadId = threadIndex[h.threadId];   // now the thread's index
    std::sort(items.begin(), items.end(), [](const HostInstance& a, const HostInstance& b) {
        if (a.threadId != b.threadId)
            return a.threadId < b.threadId;
        if (a.startNs != b.startNs)
            return a.startNs < b.startNs;
        if (a.endNs != b.endNs)
            return a.endNs > b.endNs;
        return a.instance < b.instance;
    });
    d.hostLaneOf.assign(d.instances.size(), kNone);
    d.hostPosOf.assign(d.instances.size(), kNone);
    std::map<std::pair<uint32_t, int>, uint32_t> laneOf;   // (thread, depth) -> lane
    std::vector<int64_t> open;
    std::vector<std::unordered_map<QString, int>> levels;
    for (size_t i = 0; i < items.size(); ++i) {
        const HostInstance& h = items[i];
        if (i == 0 || items[i - 1].threadId != h.threadId)
            open.clear();
        while (!open.empty() && open.back() <= h.startNs)
            open.pop_back();
        const int depth = int(open.size()) + 1;
        open.push_back(std::max(h.endNs, h.startNs));
        auto [it, added] = laneOf.try_emplace({uint32_t(h.threadId), depth}, uint32_t(d.hostLanes.size()));
        if (added) {
            HostLaneData lane;
            lane.thread = uint32_t(h.threadId);
            lane.depth = depth;
            d.hostLanes.push_back(std::move(lane));
            levels.emplace_back();
        }
        HostLaneData& lane = d.hostLanes[it->second];
        const int64_t dur = std::clamp<int64_t>(h.endNs - h.startNs, 0, UINT32_MAX);
        d.hostLaneOf[h.instance] = it->second;
        d.hostPosOf[h.instance] = uint32_t(lane.items.size());
        lane.items.push_back(h.instance);
        lane.startNs.push_back(h.startNs);
        lane.durationNs.push_back(uint32_t(dur));
        lane.maxDurationNs = std::max(lane.maxDurationNs, dur);
        if (h.instance < d.instances.size())
            ++levels[it->second][d.nodes[d.instances.node[h.instance]].level];
    }
    // Lanes in (thread, depth) order; the positions above stay valid (a lane's items keep
    // their order), only lane indices move.
    std::vector<uint32_t> newIndex(d.hostLanes.size());
    std::vector<HostLaneData> lanes;
    std::vector<std::unordered_map<QString, int>> laneLevels;
    for (const auto& [key, lane] : laneOf) {
        newIndex[lane] = uint32_t(lanes.size());
        lanes.push_back(std::move(d.hostLanes[lane]));
        laneLevels.push_back(std::move(levels[lane]));
    }
    d.hostLanes = std::move(lanes);
    for (uint32_t& l : d.hostLaneOf)
        if (l != kNone)
            l = newIndex[l];
    for (size_t l = 0; l < d.hostLanes.size(); ++l) {
        HostLaneData& lane = d.hostLanes[l];
        std::vector<std::pair<int, QString>> byCount;
        for (const auto& [name, n] : laneLevels[l])
            byCount.emplace_back(-n, name);
        std::sort(byCount.begin(), byCount.end());
        QStringList names;
        for (size_t k = 0; k < byCount.size() && k < 2; ++k)
            names << byCount[k].second;
        lane.level = names.join(QStringLiteral(" / "));
        d.hostThreads[lane.thread].lanes.push_back(uint32_t(l));
        lane.index.build(HostLaneSequence{&d, &lane});
    }
}

uint32_t hostRangeAt(const RunData& d, uint32_t apiRow, int64_t t)
{
    for (const HostThreadData& thread : d.hostThreads) {
        if (std::find(thread.apiRows.begin(), thread.apiRows.end(), apiRow) == thread.apiRows.end())
            continue;
        // Deepest lane first; a lane's ranges are sorted by start and rarely overlap, so the
        // last one starting at or before t is the one that can hold it.
        for (auto l = thread.lanes.rbegin(); l != thread.lanes.rend(); ++l) {
            const HostLaneData& lane = d.hostLanes[*l];
            auto it = std::upper_bound(lane.startNs.begin(), lane.startNs.end(), t);
            for (int back = 0; it != lane.startNs.begin() && back < 4; ++back) {
                --it;
                const size_t i = size_t(it - lane.startNs.begin());
                if (lane.endNs(i) >= t)
                    return lane.items[i];
            }
        }
        return kNone;
    }
    return kNone;
}

QString hostProcessLabel(const HostProcessData& p)
{
    if (p.name.isEmpty())
        return QStringLiteral("process %1").arg(p.pid);
    return QStringLiteral("pid %1 \u00b7 %2").arg(p.pid).arg(p.name);
}

QString hostThreadLabel(const HostThreadData& t)
{
    if (t.name.isEmpty())
        return QStringLiteral("thread %1").arg(t.tid);
    // Kineto's names carry the tid already ("thread 4037 (python3.8)"); others get it added.
    if (t.name.contains(QString::number(t.tid)))
        return t.name;
    return QStringLiteral("%1 \u00b7 tid %2").arg(t.name).arg(t.tid);
}

QString hostLaneLabel(const HostLaneData& lane)
{
    return QStringLiteral("depth %1 \u00b7 %2").arg(lane.depth).arg(lane.level.isEmpty() ? QStringLiteral("range") : lane.level);
}

QString hostApiLabel(const ApiRowData& row)
{
    return row.level == 0 ? QStringLiteral("API calls") : QStringLiteral("API calls nested %1").arg(row.level);
}

}  // namespace wt::gui
