// bench_interop: the interop speed targets (Release build).
//  1. Kineto JSON: the shared ns-resolution trace's events replicated to a large plain .json;
//     parse MB/s and import MB/s (uncompressed bytes), and the same file through a Python
//     standard-library script (json.load + kernel time per name) for the speed ratio.
//  2. Nsight Systems: the shared 2-GPU export with its kernel rows replicated (shifted in time)
//     to >= 1M kernels in a temporary copy; parse and write times.
// usage: bench_interop [--json-mb N] [--kernels N] [--no-python] [--keep] [--traces DIR]
#include "storage/database.h"
#include "interop/importer.h"
#include "interop/traceeventimporter.h"

#include <simdjson.h>
#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

std::string gunzip(const std::string& path)
{
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz) {
        std::fprintf(stderr, "cannot open %s\n", path.c_str());
        std::exit(1);
    }
    std::string out;
    char buf[1 << 16];
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0)
        out.append(buf, size_t(n));
    gzclose(gz);
    return out;
}

// CPU seconds (user + system) of this process or of its waited-for children: on the shared
// 2-core machine wall times swing with the load, CPU times much less.
double cpuSeconds(int who)
{
    rusage u{};
    getrusage(who, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double loadAverage()
{
    double l[1] = {0};
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

[[maybe_unused]] long peakRssMb()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024;
}

// The trace's own text around its traceEvents, with the events repeated until the file has
// about targetBytes. Copy c is shifted by c x (the events' span + 1 ms) and its correlation and
// External ids by c x (the largest id + 1), like consecutive profiled steps of one long run:
// identical copies would stack their ranges into one nest as deep as the copies are many.
struct EventTemplate {
    // The event's text cut before the numbers that change per copy: pieces[i], number i, ...,
    // pieces.back(). kind: 0 = ts (integer part, microseconds), 1 = correlation, 2 = External id.
    std::vector<std::string> pieces;
    std::vector<std::pair<int, int64_t>> numbers;
};

size_t writeReplicatedKineto(const std::string& source, const std::string& out, size_t targetBytes)
{
    std::string text = gunzip(source);
    simdjson::ondemand::parser parser;
    simdjson::padded_string padded(text);
    auto doc = parser.iterate(padded);
    std::vector<EventTemplate> events;
    int64_t first = INT64_MAX, last = INT64_MIN, maxCorrelation = 0, maxExternal = 0;
    size_t eventBytes = 0;
    for (auto field : doc.get_object()) {
        if (field.unescaped_key().value() != "traceEvents")
            continue;
        for (auto ev : field.value().get_array()) {
            std::string raw(ev.get_object().value().raw_json().value());
            eventBytes += raw.size() + 2;
            EventTemplate t;
            // The integers after the keys, in text order (the order of args differs by category).
            std::vector<std::tuple<size_t, size_t, int>> found;   // value begin, end, kind
            int kind = 0;
            for (const char* key : {"\"ts\"", "\"correlation\"", "\"External id\""}) {
                size_t k = raw.find(key);
                if (k != std::string::npos) {
                    size_t v = k + std::strlen(key);
                    while (v < raw.size() && (raw[v] == ' ' || raw[v] == ':'))
                        ++v;
                    size_t e = v;
                    while (e < raw.size() && raw[e] >= '0' && raw[e] <= '9')
                        ++e;
                    if (e > v)
                        found.emplace_back(v, e, kind);
                }
                ++kind;
            }
            std::sort(found.begin(), found.end());
            size_t from = 0;
            for (auto [v, e, k] : found) {
                t.pieces.push_back(raw.substr(from, v - from));
                t.numbers.emplace_back(k, std::stoll(raw.substr(v, e - v)));
                from = e;
            }
            t.pieces.push_back(raw.substr(from));
            for (auto [kind, v] : t.numbers) {
                if (kind == 1)
                    maxCorrelation = std::max(maxCorrelation, v);
                if (kind == 2)
                    maxExternal = std::max(maxExternal, v);
            }
            auto obj = simdjson::padded_string(raw);
            simdjson::ondemand::parser p2;
            auto e = p2.iterate(obj);
            double ts = 0, dur = 0;
            bool hasTs = !e["ts"].get(ts);
            if (!e["dur"].get(dur) && hasTs)
                last = std::max(last, int64_t(ts + dur) + 1);
            if (hasTs) {
                first = std::min(first, int64_t(ts));
                last = std::max(last, int64_t(ts) + 1);
            }
            events.push_back(std::move(t));
        }
    }
    const int64_t shiftUs = (first <= last ? last - first : 0) + 1000;
    std::ofstream f(out, std::ios::binary);
    f << "{\"schemaVersion\": 1, \"traceEvents\": [\n";
    std::string buf;
    size_t written = 0;
    for (int64_t copy = 0; written < targetBytes; ++copy) {
        buf.clear();
        for (const auto& t : events) {
            if (copy || &t != &events.front())
                buf += ",\n";
            for (size_t i = 0; i < t.numbers.size(); ++i) {
                buf += t.pieces[i];
                auto [kind, v] = t.numbers[i];
                buf += std::to_string(v + copy * (kind == 0 ? shiftUs : kind == 1 ? maxCorrelation + 1 : maxExternal + 1));
            }
            buf += t.pieces.back();
        }
        f << buf;
        written += eventBytes;
    }
    f << "\n], \"displayTimeUnit\": \"ns\"}\n";
    f.close();
    std::ifstream in(out, std::ios::binary | std::ios::ate);
    return size_t(in.tellg());
}

int64_t exec(sqlite3* db, const std::string& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::fprintf(stderr, "sqlite: %s\n  in %s\n", err, sql.substr(0, 200).c_str());
        std::exit(1);
    }
    return sqlite3_changes(db);
}

// Copies the export and repeats its kernel rows, each copy shifted by the kernels' span.
int64_t writeReplicatedNsys(const std::string& source, const std::string& out, int64_t targetKernels)
{
    std::remove(out.c_str());
    {
        std::ifstream in(source, std::ios::binary);
        std::ofstream o(out, std::ios::binary);
        o << in.rdbuf();
    }
    sqlite3* db = nullptr;
    sqlite3_open(out.c_str(), &db);
    std::vector<std::string> cols;
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('CUPTI_ACTIVITY_KIND_KERNEL')", -1, &s, nullptr);
    while (sqlite3_step(s) == SQLITE_ROW)
        cols.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
    sqlite3_finalize(s);
    int64_t base = 0, span = 0;
    sqlite3_prepare_v2(db, "SELECT count(*), max(\"end\") - min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL", -1, &s, nullptr);
    if (sqlite3_step(s) == SQLITE_ROW) {
        base = sqlite3_column_int64(s, 0);
        span = sqlite3_column_int64(s, 1) + 1000;
    }
    sqlite3_finalize(s);
    exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; CREATE TEMP TABLE k0 AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL");
    std::string names, values;
    for (size_t i = 0; i < cols.size(); ++i) {
        names += (i ? ", \"" : "\"") + cols[i] + "\"";
        std::string c = "\"" + cols[i] + "\"";
        values += (i ? ", " : "") + ((cols[i] == "start" || cols[i] == "end") ? c + " + ?1" : c);
    }
    exec(db, "BEGIN");
    sqlite3_prepare_v2(db, ("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(" + names + ") SELECT " + values + " FROM k0").c_str(), -1, &s, nullptr);
    int64_t total = base;
    for (int64_t copy = 1; total < targetKernels; ++copy) {
        sqlite3_bind_int64(s, 1, copy * span);
        sqlite3_step(s);
        sqlite3_reset(s);
        total += base;
    }
    sqlite3_finalize(s);
    exec(db, "COMMIT");
    sqlite3_close(db);
    return total;
}

}  // namespace

int main(int argc, char** argv)
{
    double jsonMb = 200;
    int64_t kernels = 1000000;
    bool python = true;
    bool keep = false;   // leave the generated JSON for measuring `wheretime import` alone
    std::string traces = WHERETIME_TRACES_DIR;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--json-mb" && i + 1 < argc)
            jsonMb = std::atof(argv[++i]);
        else if (a == "--kernels" && i + 1 < argc)
            kernels = std::atoll(argv[++i]);
        else if (a == "--no-python")
            python = false;
        else if (a == "--keep")
            keep = true;
        else if (a == "--traces" && i + 1 < argc)
            traces = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_interop [--json-mb N] [--kernels N] [--no-python] [--keep] [--traces DIR]\n");
            return 2;
        }
    }
    std::string tmp = "/tmp/wt-bench-interop-" + std::to_string(getpid());
    std::string jsonPath = tmp + ".json", nsysPath = tmp + ".sqlite", dbPath = tmp + ".wt";

    // 1. Kineto JSON.
    if (jsonMb > 0) {
        size_t bytes = writeReplicatedKineto(traces + "/kineto_v100_ns-resolution.pt.trace.json.gz", jsonPath, size_t(jsonMb * 1e6));
        double mb = double(bytes) / 1e6;
        std::printf("kineto json: %.1f MB (load average %.2f)\n", mb, loadAverage());
        // One pass on one thread (the structural index covers the whole file), then the
        // default: slices on two threads, straight from the file mapping.
        {
            std::string text;
            {
                std::ifstream in(jsonPath, std::ios::binary);
                text.assign(std::istreambuf_iterator<char>(in), {});
            }
            size_t n = text.size();
            text.append(64, ' ');
            double c0 = cpuSeconds(RUSAGE_SELF);
            auto t0 = Clock::now();
            auto one = wt::interop::TraceEventImporter::parse(jsonPath, text.data(), n, text.size(), 0);
            double wall = seconds(t0, Clock::now());
            std::printf("  parse 1 pass   %7.3f s  %7.1f MB/s   cpu %.3f s (text already in memory)\n", wall, mb / wall,
                        cpuSeconds(RUSAGE_SELF) - c0);
        }
        double c0 = cpuSeconds(RUSAGE_SELF);
        auto t0 = Clock::now();
        auto parsed = wt::interop::parseTraceFile(jsonPath);
        auto t1 = Clock::now();
        double parseCpu = cpuSeconds(RUSAGE_SELF) - c0;
        double parse = seconds(t0, t1);
        std::printf("  %lld kernels, %lld events kept\n", static_cast<long long>(parsed.counts.kernels),
                    static_cast<long long>(parsed.activities.size() + parsed.calls.size() + parsed.ranges.size()));
        std::printf("  parse sliced   %7.3f s  %7.1f MB/s   cpu %.3f s (read from the file)\n", parse, mb / parse, parseCpu);
        parsed = {};
        std::remove(dbPath.c_str());
        wt::Database db(dbPath, wt::OpenMode::ReadWrite);
        c0 = cpuSeconds(RUSAGE_SELF);
        auto r = wt::interop::importTrace(db, jsonPath);
        double importCpu = cpuSeconds(RUSAGE_SELF) - c0;
        double total = r.parseSeconds + r.writeSeconds;
        std::printf("  import         %7.3f s  %7.1f MB/s   cpu %.3f s (parse %.3f s + write %.3f s)\n", total, mb / total, importCpu,
                    r.parseSeconds, r.writeSeconds);
        if (python) {
            std::string cmd = "python3 " WHERETIME_BENCH_SCRIPT " " + jsonPath + " > /dev/null";
            double pc0 = cpuSeconds(RUSAGE_CHILDREN);
            auto p0 = Clock::now();
            int rc = std::system(cmd.c_str());
            double py = seconds(p0, Clock::now());
            double pyCpu = cpuSeconds(RUSAGE_CHILDREN) - pc0;
            if (rc != 0)
                std::printf("  python baseline failed (exit %d)\n", rc);
            else
                std::printf("  python json.load + sum per name  %7.3f s  %7.1f MB/s   cpu %.3f s\n"
                            "  -> wall: parse %.1fx, import %.1fx faster; cpu: import %.1fx less\n",
                            py, mb / py, pyCpu, py / parse, py / total, pyCpu / importCpu);
        }
        std::printf("  (load average %.2f after)\n", loadAverage());
        if (keep)
            std::printf("  kept %s\n", jsonPath.c_str());
        else
            std::remove(jsonPath.c_str());
        std::remove(dbPath.c_str());
        std::remove((dbPath + "-wal").c_str());
        std::remove((dbPath + "-shm").c_str());
    }

    // 2. Nsight Systems export with >= kernels kernels.
    if (kernels > 0) {
        int64_t n = writeReplicatedNsys(traces + "/nsys-2026.2_h100x2_fastvideo-1s.sqlite", nsysPath, kernels);
        auto t0 = Clock::now();
        auto parsed = wt::interop::parseTraceFile(nsysPath);
        double parse = seconds(t0, Clock::now());
        parsed = {};
        std::remove(dbPath.c_str());
        wt::Database db(dbPath, wt::OpenMode::ReadWrite);
        auto r = wt::interop::importTrace(db, nsysPath);
        std::printf("nsys export: %lld kernels\n  parse only     %7.3f s  %7.0f kernels/s\n", static_cast<long long>(n), parse,
                    double(n) / parse);
        std::printf("  import         %7.3f s  (parse %.3f s + write %.3f s)  %s 3 s target\n", r.parseSeconds + r.writeSeconds,
                    r.parseSeconds, r.writeSeconds, r.parseSeconds + r.writeSeconds <= 3.0 ? "within" : "OVER");
        std::remove(nsysPath.c_str());
        std::remove(dbPath.c_str());
        std::remove((dbPath + "-wal").c_str());
        std::remove((dbPath + "-shm").c_str());
    }
    return 0;
}
