// SQL benchmark: full scans of an N-kernel run through the `kernels` virtual table (rows/s)
// and windowed queries of about W kernels (ms, chunks read), against Reader::activities (the
// GUI's window query) on the same windows.
// usage: bench_sql [--kernels N] [--streams S] [--window W] [--file PATH] [--reuse] [--keep]
//                  [--extension PATH/libwheretime_sqlite.so]
#include "tests/support/synthrun.h"
#include "sql/sqltables.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <ctime>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using Clock = std::chrono::steady_clock;
static double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }
// CPU time of this process: on a shared, loaded machine wall time also counts the waits for a core.
static double cpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

namespace {

int64_t scalar(sqlite3* db, const std::string& sql, int64_t* second = nullptr)
{
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
        std::fprintf(stderr, "bench_sql: %s: %s\n", sql.c_str(), sqlite3_errmsg(db));
        std::exit(1);
    }
    int64_t v = 0;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        v = sqlite3_column_int64(s, 0);
        if (second)
            *second = sqlite3_column_int64(s, 1);
    } else if (rc != SQLITE_DONE) {
        std::fprintf(stderr, "bench_sql: %s: %s\n", sql.c_str(), sqlite3_errmsg(db));
        std::exit(1);
    }
    sqlite3_finalize(s);
    return v;
}

}  // namespace

int main(int argc, char** argv)
{
    int64_t kernels = 10000000;
    int streams = 8;
    int64_t window = 10000;
    std::string file = "/tmp/wheretime-bench-sql.wt";
    std::string extension;
    bool reuse = false, keep = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc) kernels = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--streams") && i + 1 < argc) streams = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--window") && i + 1 < argc) window = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
        else if (!std::strcmp(argv[i], "--extension") && i + 1 < argc) extension = argv[++i];
        else if (!std::strcmp(argv[i], "--reuse")) reuse = true;
        else if (!std::strcmp(argv[i], "--keep")) keep = true;
        else {
            std::fprintf(stderr, "usage: bench_sql [--kernels N] [--streams S] [--window W] [--file PATH] [--reuse] [--keep] "
                                 "[--extension PATH]\n");
            return 2;
        }
    }
    struct stat st {};
    if (!reuse || ::stat(file.c_str(), &st) != 0) {
        for (const char* suffix : {"", "-wal", "-shm"})
            ::unlink((file + suffix).c_str());
        auto t = Clock::now();
        wt::Database db(file, wt::OpenMode::ReadWrite);
        wt::Writer w(db);
        wt::synth::Options o;
        o.kernels = kernels;
        o.streams = streams;
        wt::synth::generate(w, o);
        std::printf("generated %lld kernels on %d streams in %.1f s\n", (long long)kernels, streams, msSince(t) / 1000);
    }

    sqlite3* db = nullptr;
    if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        std::fprintf(stderr, "bench_sql: cannot open %s\n", file.c_str());
        return 1;
    }
    if (extension.empty()) {
        std::string error;
        if (wt::sql::SqlTables::registerOn(db, error) != SQLITE_OK) {
            std::fprintf(stderr, "bench_sql: %s\n", error.c_str());
            return 1;
        }
        std::printf("tables: registered in-process (as `wheretime sql`)\n");
    } else {
        char* error = nullptr;
        sqlite3_enable_load_extension(db, 1);
        if (sqlite3_load_extension(db, extension.c_str(), nullptr, &error) != SQLITE_OK) {
            std::fprintf(stderr, "bench_sql: %s\n", error ? error : "cannot load the extension");
            return 1;
        }
        std::printf("tables: from %s\n", extension.c_str());
    }
    const int64_t run = scalar(db, "SELECT max(id) FROM runs");
    const std::string r = std::to_string(run);
    const int64_t total = scalar(db, "SELECT kernels FROM runs WHERE id = " + r);
    const int64_t chunks = scalar(db, "SELECT count(*) FROM activity_chunks c JOIN tracks t ON t.id = c.track_id WHERE t.run_id = " + r);
    std::printf("run %lld: %lld kernels, %lld activity chunks\n", (long long)run, (long long)total, (long long)chunks);

    // Full scans: best of three (the first also warms the page cache).
    const char* scans[] = {
        "SELECT count(*) FROM kernels WHERE run_id = %s",
        "SELECT sum(duration_ns), max(end_ns) FROM kernels WHERE run_id = %s",
        "SELECT count(*), sum(length(name)) FROM kernels WHERE run_id = %s",
        "SELECT count(*), sum(grid_x * block_x) FROM kernels WHERE run_id = %s",
    };
    for (const char* pattern : scans) {
        char sql[256];
        std::snprintf(sql, sizeof sql, pattern, r.c_str());
        double best = 1e300, bestCpu = 1e300;
        int64_t rows = 0, read = 0;
        for (int rep = 0; rep < 3; ++rep) {
            int64_t before = scalar(db, "SELECT wheretime_chunks_read()");
            auto t = Clock::now();
            double c = cpuMs();
            int64_t v = scalar(db, sql);
            double ms = msSince(t);
            bestCpu = std::min(bestCpu, cpuMs() - c);
            read = scalar(db, "SELECT wheretime_chunks_read()") - before;
            if (std::strstr(pattern, "count(*)"))
                rows = v;
            best = std::min(best, ms);
        }
        if (!std::strstr(pattern, "count(*)"))
            rows = total;
        std::printf("full scan  %-68s wall %7.1f ms %5.2f M rows/s | cpu %7.1f ms %5.2f M rows/s | %lld chunks\n", sql, best,
                    rows / best / 1000.0, bestCpu, rows / bestCpu / 1000.0, (long long)read);
    }

    // Windows of about `window` kernels: the run's kernels are spread evenly over its span.
    int64_t spanStart = scalar(db, "SELECT span_start_ns FROM runs WHERE id = " + r);
    int64_t spanEnd = scalar(db, "SELECT span_end_ns FROM runs WHERE id = " + r);
    int64_t width = int64_t(double(spanEnd - spanStart) * double(window) / double(std::max<int64_t>(total, 1)));
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int64_t> at(spanStart, std::max(spanStart, spanEnd - width));
    std::vector<double> sqlMs, sqlCpuMs, readerMs;
    int64_t rowsSum = 0, chunksSum = 0, maxChunks = 0;
    wt::Database wdb(file, wt::OpenMode::ReadOnly);
    wt::Reader reader(wdb);
    auto tracks = reader.tracks(run);
    const int windows = 50;
    for (int i = 0; i < windows; ++i) {
        int64_t t0 = at(rng), t1 = t0 + width;
        int64_t before = scalar(db, "SELECT wheretime_chunks_read()");
        auto t = Clock::now();
        double c = cpuMs();
        int64_t sum = 0;
        int64_t rows = scalar(db, "SELECT count(*), sum(duration_ns) FROM kernels WHERE run_id = " + r + " AND start_ns < " +
                                      std::to_string(t1) + " AND end_ns > " + std::to_string(t0), &sum);
        sqlMs.push_back(msSince(t));
        sqlCpuMs.push_back(cpuMs() - c);
        int64_t read = scalar(db, "SELECT wheretime_chunks_read()") - before;
        rowsSum += rows;
        chunksSum += read;
        maxChunks = std::max(maxChunks, read);
        // The same window through the Reader, track by track (the GUI's query).
        t = Clock::now();
        int64_t readerRows = 0;
        for (const wt::Track& tr : tracks)
            if (tr.kind == wt::TrackKind::Kernel)
                for (const wt::Activity& a : reader.activities(tr.id, t0, t1))
                    readerRows += a.endNs > t0;   // SQL says end_ns > t0; the Reader also keeps zero-length ones at t0
        readerMs.push_back(msSince(t));
        if (readerRows != rows) {
            std::fprintf(stderr, "bench_sql: window %lld..%lld: SQL %lld rows, Reader %lld\n", (long long)t0, (long long)t1,
                         (long long)rows, (long long)readerRows);
            return 1;
        }
    }
    std::sort(sqlMs.begin(), sqlMs.end());
    std::sort(readerMs.begin(), readerMs.end());
    std::sort(sqlCpuMs.begin(), sqlCpuMs.end());
    std::printf("window     %d windows of %.3f ms span: %.0f kernels and %.1f chunks read on average (max %lld of %lld)\n",
                windows, width / 1e6, double(rowsSum) / windows, double(chunksSum) / windows, (long long)maxChunks,
                (long long)chunks);
    std::printf("window     SQL: median %.2f ms, max %.2f ms (cpu: median %.2f ms, max %.2f ms); Reader::activities: "
                "median %.2f ms, max %.2f ms\n",
                sqlMs[sqlMs.size() / 2], sqlMs.back(), sqlCpuMs[sqlCpuMs.size() / 2], sqlCpuMs.back(),
                readerMs[readerMs.size() / 2], readerMs.back());
    sqlite3_close(db);
    if (!keep && !reuse)
        for (const char* suffix : {"", "-wal", "-shm"})
            ::unlink((file + suffix).c_str());
    return 0;
}
