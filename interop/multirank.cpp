#include "multirank.h"

#include "importerror.h"

#include <simdjson.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <map>
#include <numeric>
#include <sys/stat.h>

namespace wt::interop {

RankInfo rankInfoOf(const ImportedTrace& trace)
{
    RankInfo info;
    for (const auto& [key, value] : trace.metadata) {
        if (key != "kineto.distributedInfo")
            continue;
        namespace od = simdjson::ondemand;
        simdjson::padded_string text(value);
        od::parser parser;
        od::document doc;
        if (parser.iterate(text).get(doc) != simdjson::SUCCESS)
            return info;
        od::object obj;
        if (doc.get_object().get(obj) != simdjson::SUCCESS)
            return info;
        for (auto field : obj) {
            std::string_view k;
            if (field.unescaped_key().get(k) != simdjson::SUCCESS)
                break;
            od::value v;
            if (field.value().get(v) != simdjson::SUCCESS)
                break;
            int64_t n = 0;
            std::string_view s;
            if (k == "rank" && v.get_int64().get(n) == simdjson::SUCCESS && n >= 0 && n < INT_MAX)
                info.rank = int(n);
            else if (k == "world_size" && v.get_int64().get(n) == simdjson::SUCCESS && n > 0 && n < INT_MAX)
                info.worldSize = int(n);
            else if (k == "backend" && v.get_string().get(s) == simdjson::SUCCESS)
                info.backend = std::string(s);
        }
        break;
    }
    return info;
}

namespace {

struct Span {
    int64_t startNs = INT64_MAX, endNs = INT64_MIN;   // absolute (clock base added)
};

// First activity start to last activity end on the trace's absolute clock.
Span activitySpan(const ImportedTrace& t)
{
    Span s;
    for (const auto& a : t.activities) {
        s.startNs = std::min(s.startNs, a.startNs);
        s.endNs = std::max(s.endNs, std::max(a.startNs, a.endNs));
    }
    if (s.startNs == INT64_MAX)
        return s;
    s.startNs += t.clockBaseNs;
    s.endNs += t.clockBaseNs;
    return s;
}

std::string us(int64_t ns) { return std::to_string(ns / 1000) + " us"; }

// Whether two regular files of the same size hold the same bytes; stops at the first difference.
bool sameBytes(const std::string& a, const std::string& b)
{
    std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
    if (!fa || !fb)
        return false;
    std::vector<char> ba(size_t(1) << 16), bb(ba.size());
    while (fa && fb) {
        fa.read(ba.data(), std::streamsize(ba.size()));
        fb.read(bb.data(), std::streamsize(bb.size()));
        if (fa.gcount() != fb.gcount() || std::memcmp(ba.data(), bb.data(), size_t(fa.gcount())) != 0)
            return false;
    }
    return fa.eof() && fb.eof();
}

}  // namespace

void checkDistinctFiles(const std::vector<std::string>& paths)
{
    const size_t n = paths.size();
    std::vector<struct stat> st(n);
    std::vector<bool> known(n);
    for (size_t i = 0; i < n; ++i)
        known[i] = ::stat(paths[i].c_str(), &st[i]) == 0;
    for (size_t j = 1; j < n; ++j) {
        for (size_t i = 0; i < j; ++i) {
            if (!known[i] || !known[j])
                continue;
            if (st[i].st_dev == st[j].st_dev && st[i].st_ino == st[j].st_ino)
                throw ImportError(paths[j], "is the same file as " + paths[i] + ": one file given twice (its kernels would count twice, as two ranks)");
            if (S_ISREG(st[i].st_mode) && S_ISREG(st[j].st_mode) && st[i].st_size == st[j].st_size && sameBytes(paths[i], paths[j]))
                throw ImportError(paths[j], "has the same bytes as " + paths[i] + ": one file given twice (a copy; its kernels would count twice, as two ranks)");
        }
    }
}

MergeResult mergeRanks(std::vector<RankedTrace> traces)
{
    if (traces.empty())
        throw ImportError("--one-run", "no input");
    const size_t n = traces.size();
    MergeResult out;

    // 1. One job: the same format and clock kind, every file or none saying its rank, the same
    // world size and backend, no rank twice, and activity spans that all overlap in time.
    for (size_t i = 1; i < n; ++i) {
        if (traces[i].trace.format != traces[0].trace.format)
            throw ImportError(traces[i].file, "is a " + traces[i].trace.format + " trace, " + traces[0].file + " a " + traces[0].trace.format +
                                                  " trace: the ranks of one run must come from one tool");
        if (traces[i].trace.epochClock != traces[0].trace.epochClock)
            throw ImportError(traces[i].file, "its clock is not of the same kind as " + traces[0].file + "'s (epoch time in one, not the other)");
    }
    std::vector<RankInfo> info(n);
    size_t said = 0;
    for (size_t i = 0; i < n; ++i) {
        info[i] = rankInfoOf(traces[i].trace);
        said += info[i].rank >= 0 ? 1 : 0;
    }
    if (said != 0 && said != n) {
        size_t with = 0, without = 0;
        for (size_t i = 0; i < n; ++i)
            (info[i].rank >= 0 ? with : without) = i;
        throw ImportError(traces[without].file, "says no rank (no distributedInfo) while " + traces[with].file + " is rank " +
                                                    std::to_string(info[with].rank) + ": not the files of one job");
    }
    out.ranksFromFile = said == n;
    std::vector<int> rank(n);
    if (out.ranksFromFile) {
        std::map<int, size_t> seen;
        for (size_t i = 0; i < n; ++i) {
            if (info[i].worldSize != info[0].worldSize)
                throw ImportError(traces[i].file, "is rank " + std::to_string(info[i].rank) + " of a job of " + std::to_string(info[i].worldSize) +
                                                      " ranks, " + traces[0].file + " of a job of " + std::to_string(info[0].worldSize) +
                                                      ": different jobs");
            if (info[i].backend != info[0].backend)
                throw ImportError(traces[i].file, "uses the " + info[i].backend + " backend, " + traces[0].file + " " + info[0].backend +
                                                      ": different jobs");
            if (info[i].worldSize > 0 && info[i].rank >= info[i].worldSize)
                throw ImportError(traces[i].file, "says rank " + std::to_string(info[i].rank) + " of a world of " + std::to_string(info[i].worldSize));
            auto [it, added] = seen.emplace(info[i].rank, i);
            if (!added)
                throw ImportError(traces[i].file, "is rank " + std::to_string(info[i].rank) + ", and so is " + traces[it->second].file +
                                                      ": the same rank twice (two jobs, or one file given twice)");
            rank[i] = info[i].rank;
        }
    } else {
        std::iota(rank.begin(), rank.end(), 0);
    }
    std::vector<Span> spans(n);
    size_t latestStart = 0, earliestEnd = 0;
    for (size_t i = 0; i < n; ++i) {
        spans[i] = activitySpan(traces[i].trace);
        if (spans[i].startNs > spans[latestStart].startNs)
            latestStart = i;
        if (spans[i].endNs < spans[earliestEnd].endNs)
            earliestEnd = i;
    }
    // In one dimension, spans overlap pairwise exactly when the latest start is before the
    // earliest end: name that pair when they do not.
    if (n > 1 && spans[latestStart].startNs >= spans[earliestEnd].endNs)
        throw ImportError(traces[latestStart].file,
                          "starts (" + us(spans[latestStart].startNs) + ") after " + traces[earliestEnd].file + " ends (" + us(spans[earliestEnd].endNs) +
                              ") on their absolute clocks: no time in common, so not the ranks of one job (or their clocks are not aligned)");

    // 2. Merge in rank order; the earliest clock base becomes the run's.
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank[a] < rank[b]; });
    ImportedTrace& m = out.trace;
    m.format = traces[0].trace.format;
    m.epochClock = traces[0].trace.epochClock;
    m.clockBaseNs = INT64_MAX;
    size_t activities = 0, calls = 0, ranges = 0;
    for (const auto& t : traces) {
        m.clockBaseNs = std::min(m.clockBaseNs, t.trace.clockBaseNs);
        activities += t.trace.activities.size();
        calls += t.trace.calls.size();
        ranges += t.trace.ranges.size();
        if (!t.trace.startedAt.empty() && (m.startedAt.empty() || t.trace.startedAt < m.startedAt))
            m.startedAt = t.trace.startedAt;
    }
    m.activities.reserve(activities);
    m.calls.reserve(calls);
    m.ranges.reserve(ranges);
    m.resolved = true;
    int32_t nextDevice = 0;
    std::string rankList;
    for (size_t i : order) {
        ImportedTrace& t = traces[i].trace;
        resolveRanges(t);
        const int64_t shift = t.clockBaseNs - m.clockBaseNs;   // both within [0, kMaxTimeNs]: no overflow
        const std::string prefix = "rank " + std::to_string(rank[i]);
        rankList += (rankList.empty() ? "" : ",") + std::to_string(rank[i]);

        std::vector<uint32_t> names(t.strings.size());
        for (size_t k = 0; k < names.size(); ++k)
            names[k] = m.strings.intern(t.strings.at(uint32_t(k)));

        // Devices that ran something, each a device of the run named after its rank.
        std::map<int32_t, int32_t> deviceOf;
        for (const auto& a : t.activities)
            deviceOf.emplace(a.device, 0);
        for (auto& [old, id] : deviceOf) {
            id = nextDevice++;
            DeviceInfo d{id, prefix + ": GPU " + std::to_string(old), "{}"};
            for (const auto& known : t.devices)
                if (known.id == old) {
                    if (!known.name.empty() && known.name != "GPU " + std::to_string(old))
                        d.name += " (" + known.name + ")";
                    d.propertiesJson = known.propertiesJson;
                }
            m.devices.push_back(std::move(d));
            out.ranks.push_back(rank[i]);
        }

        // Host threads: each rank's thread keys get new ones (two ranks may reuse a pid and tid),
        // and the process names say the rank.
        std::unordered_map<int64_t, int64_t> threadKey;
        auto rekey = [&](int64_t key) {
            auto [it, added] = threadKey.try_emplace(key, 0);
            if (added) {
                it->second = int64_t(m.threads.size()) + 1;
                ImportedTrace::Thread th;
                if (auto known = t.threads.find(key); known != t.threads.end())
                    th = known->second;
                th.processName = prefix + (th.processName.empty() ? std::string() : ": " + th.processName);
                m.threads.emplace(it->second, std::move(th));
            }
            return it->second;
        };
        const int64_t rangeBase = int64_t(m.ranges.size());
        for (auto r : t.ranges) {
            if (!r.onGpu)
                r.thread = rekey(r.thread);
            r.startNs += shift;
            r.endNs += shift;
            r.name = names[r.name];
            r.level = names[r.level];
            if (r.parent >= 0)
                r.parent += rangeBase;
            r.parentGiven = true;
            m.ranges.push_back(r);
        }
        for (auto a : t.activities) {
            a.startNs += shift;
            a.endNs += shift;
            a.name = names[a.name];
            a.device = deviceOf[a.device];
            if (a.range >= 0)
                a.range += rangeBase;
            m.activities.push_back(a);
        }
        for (auto c : t.calls) {
            if (!t.threads.count(c.thread))
                t.threads.emplace(c.thread, ImportedTrace::Thread{0, c.osThread, {}, {}});
            c.thread = rekey(c.thread);
            c.startNs += shift;
            c.endNs += shift;
            c.name = names[c.name];
            m.calls.push_back(c);
        }
        for (auto& [k, v] : t.metadata)
            m.metadata.emplace_back(prefix + "." + k, std::move(v));
        m.metadata.emplace_back(prefix + ".source_file", traces[i].file);
        auto& c = m.counts;
        c.kernels += t.counts.kernels;
        c.memcpys += t.counts.memcpys;
        c.memsets += t.counts.memsets;
        c.runtimeCalls += t.counts.runtimeCalls;
        c.ranges += t.counts.ranges;
        c.gpuAnnotations += t.counts.gpuAnnotations;
        c.skippedRanges += t.counts.skippedRanges;
        // This rank's memory goes now: 64 ranks of 100k kernels must not be held twice.
        t = ImportedTrace();
    }
    m.metadata.emplace_back("import.ranks", rankList);
    m.metadata.emplace_back("import.rank_source", out.ranksFromFile ? "distributedInfo" : "file order");
    if (out.ranksFromFile && info[0].worldSize > 0)
        m.metadata.emplace_back("import.world_size", std::to_string(info[0].worldSize));
    return out;
}

std::vector<std::string> traceFilesIn(const std::string& directory)
{
    DIR* dir = ::opendir(directory.c_str());
    if (!dir)
        throw ImportError(directory, "cannot list the directory");
    std::vector<std::string> files;
    auto endsWith = [](const std::string& s, std::string_view e) { return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0; };
    while (dirent* e = ::readdir(dir)) {
        std::string name = e->d_name;
        if (name.empty() || name[0] == '.')
            continue;
        if (!(endsWith(name, ".json") || endsWith(name, ".gz") || endsWith(name, ".sqlite") || endsWith(name, ".sqlite3")))
            continue;
        std::string path = directory + (endsWith(directory, "/") ? "" : "/") + name;
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
            files.push_back(path);
    }
    ::closedir(dir);
    if (files.empty())
        throw ImportError(directory, "is a directory with no trace files (.json, .json.gz, .sqlite: its trace files are imported as one run)");
    // Numbers compare as numbers: rank-2 before rank-10.
    auto less = [](const std::string& a, const std::string& b) {
        size_t i = 0, j = 0;
        while (i < a.size() && j < b.size()) {
            if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
                size_t i2 = i, j2 = j;
                while (i2 < a.size() && a[i2] == '0')
                    ++i2;
                while (j2 < b.size() && b[j2] == '0')
                    ++j2;
                size_t ie = i2, je = j2;
                while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie])))
                    ++ie;
                while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je])))
                    ++je;
                if (ie - i2 != je - j2)
                    return ie - i2 < je - j2;
                int c = a.compare(i2, ie - i2, b, j2, je - j2);
                if (c != 0)
                    return c < 0;
                i = ie;
                j = je;
            } else {
                if (a[i] != b[j])
                    return a[i] < b[j];
                ++i;
                ++j;
            }
        }
        return a.size() - i < b.size() - j;
    };
    std::sort(files.begin(), files.end(), less);
    return files;
}

}  // namespace wt::interop
