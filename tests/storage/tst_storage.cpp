// Storage: round trip, chunk encoding, window queries, migration from v0, bad input, WAL
// reader during a writer, recovery of a killed writer, disk full.
#include "analysis/breakdown.h"
#include "analysis/scopetree.h"
#include "storage/activitychunk.h"
#include "storage/costmodelstore.h"
#include "storage/apicallchunk.h"
#include "storage/instancechunk.h"
#include "storage/varint.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/statement.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <climits>
#include <csignal>
#include <functional>
#include <fcntl.h>
#include <pwd.h>
#include <random>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace wt;

namespace {

QByteArray fileHash(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

void writeFile(const std::string& path, const QByteArray& bytes)
{
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

// Expects `fn` to throw a StorageError whose message contains `needle` and is one line.
template <typename Fn>
void expectError(Fn fn, const char* needle)
{
    try {
        fn();
    } catch (const StorageError& e) {
        std::string msg = e.what();
        QVERIFY2(msg.find(needle) != std::string::npos, msg.c_str());
        QVERIFY2(msg.find('\n') == std::string::npos, msg.c_str());
        return;
    }
    QFAIL((std::string("no StorageError containing '") + needle + "'").c_str());
}

struct Expected {
    std::vector<Activity> activities;   // as written
    std::vector<ApiCall> apiCalls;
    int64_t kernelTime = 0;
};

// A run with two devices, memory tracks, nested scopes, out-of-order activities, configs.
int64_t writeRandomRun(Database& db, uint64_t seed, int n, Expected& exp, int64_t batchRows = 0)
{
    std::mt19937_64 rng(seed);
    Writer w(db);
    if (batchRows)
        w.setBatchRows(batchRows);
    RunInfo info;
    info.name = "random-" + std::to_string(seed);
    info.workload = "gcn";
    info.variant = "adaptive";
    info.preset = "tiny";
    info.backend = "cpu";
    info.device = "CPU: test";
    info.configJson = "{\"hidden\":16}";
    info.startedAt = "2026-11-30T00:00:00Z";
    info.originNs = 1'700'000'000'000'000'000;
    int64_t run = w.beginRun(info);
    w.addDevice(DeviceInfo{0, "dev0", "{\"sm\":1}"});
    w.addDevice(DeviceInfo{1, "dev1", "{}"});
    std::vector<int64_t> tracks = {w.addTrack(0, 7, TrackKind::Kernel), w.addTrack(0, 8, TrackKind::Kernel),
                                   w.addTrack(1, 15, TrackKind::Kernel), w.addTrack(0, 7, TrackKind::Memory)};
    int64_t step = w.addScope(0, "step", "step");
    int64_t fwd = w.addScope(step, "forward", "phase");
    int64_t l1 = w.addScope(fwd, "conv1", "layer");
    int64_t l2 = w.addScope(fwd, "softmax", "layer");
    int64_t op1 = w.addScope(l1, "conv_gemm", "op");
    int64_t op2 = w.addScope(l2, "head_gemm", "op");
    if (w.addScope(l1, "conv_gemm", "op") != op1)   // same path, same node
        qFatal("addScope returned a new node for an existing path");
    int64_t si = w.beginScopeInstance(step, 0, 0);
    int64_t fi = w.beginScopeInstance(fwd, si, 1);
    int64_t li1 = w.addScopeInstance(l1, fi, 2, 10);
    int64_t oi1 = w.addScopeInstance(op1, li1, 3, 9);
    int64_t li2 = w.addScopeInstance(l2, fi, 11, 20);
    int64_t oi2 = w.addScopeInstance(op2, li2, 12, 19);
    std::vector<uint32_t> names = {w.intern("sgemm_nn"), w.intern("glu_forward"), w.intern("log_softmax"), w.intern("[memcpy HtoD]")};
    std::uniform_int_distribution<int64_t> start(0, 50'000'000), dur(0, 100'000);
    int64_t insts[] = {0, si, fi, li1, oi1, li2, oi2};
    for (int i = 0; i < n; ++i) {
        Activity a;
        size_t t = rng() % tracks.size();
        a.trackId = tracks[t];
        a.kind = t == 3 ? (rng() % 2 ? ActivityKind::Memcpy : ActivityKind::Memset) : ActivityKind::Kernel;
        a.startNs = start(rng);
        a.endNs = a.startNs + dur(rng);
        a.nameId = t == 3 ? names[3] : names[rng() % 3];
        a.scopeInstanceId = insts[rng() % 7];
        a.correlationId = int64_t(rng() % 1000000) - 5;
        if (a.kind == ActivityKind::Kernel) {
            a.config.grid[0] = int32_t(1 + rng() % 4);
            a.config.block[0] = 128;
            a.config.registers = 32;
            a.config.dynamicSmem = int32_t(rng() % 2) * 1024;
            exp.kernelTime += a.endNs - a.startNs;
        } else {
            a.bytes = int64_t(rng() % 100000);
        }
        w.addActivity(a);
        a.seq = i;
        exp.activities.push_back(a);
    }
    uint32_t launch = w.intern("cudaLaunchKernel");
    w.addApiCall(ApiCall{5, 25, 1234, launch, 42});
    exp.apiCalls.push_back(ApiCall{5, 25, 1234, launch, 42});
    for (int i = 0; i < n / 2; ++i) {   // several chunks, out of start order, two threads
        ApiCall c{start(rng), 0, int64_t(1000 + rng() % 2), names[rng() % 3], int64_t(rng() % 100000) - 7};
        c.endNs = c.startNs + dur(rng);
        w.addApiCall(c);
        exp.apiCalls.push_back(c);
    }
    w.setMetadata("host", "testhost");
    w.endScopeInstance(fi, 21);
    w.endScopeInstance(si, 22);
    w.finishRun(RunStatus::Complete, 60'000'000);
    return run;
}

bool sameActivity(const Activity& a, const Activity& b)
{
    return a.startNs == b.startNs && a.endNs == b.endNs && a.trackId == b.trackId && a.kind == b.kind &&
           a.nameId == b.nameId && a.scopeInstanceId == b.scopeInstanceId && a.correlationId == b.correlationId &&
           a.config == b.config && a.bytes == b.bytes && a.seq == b.seq;
}

std::string goodFile()
{
    std::string path = test::tempPath("good.wt");
    Database db(path, OpenMode::ReadWrite);
    Expected e;
    writeRandomRun(db, 1, 100, e);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return path;
}

struct ChildResult {
    int code = -1;          // exit code; -1: killed by a signal
    std::string message;    // the StorageError it threw, if any
};

// Runs fn in a forked child (after `setup`, e.g. a resource limit or another user): exit code
// 0 when fn returns true, 1 when false, 3 with the message when it throws a StorageError.
ChildResult inChild(const std::function<void()>& setup, const std::function<bool()>& fn)
{
    int fds[2];
    if (pipe(fds) != 0)
        return {};
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        setup();
        int code = 1;
        try {
            code = fn() ? 0 : 1;
        } catch (const StorageError& e) {
            std::string msg = e.what();
            if (write(fds[1], msg.data(), msg.size()) < 0)
                _exit(5);
            code = 3;
        } catch (...) {
            code = 4;
        }
        _exit(code);
    }
    close(fds[1]);
    ChildResult r;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
        r.message.append(buf, size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

// As on a full disk: every write that would extend a file fails (EFBIG).
void noBytesLeft()
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim {0, 0};
    setrlimit(RLIMIT_FSIZE, &lim);
}

// Reads everything of every run; true when the kernel counts agree with the summaries.
bool readsAll(const std::string& path)
{
    Database db(path, OpenMode::ReadOnly);
    Reader r(db);
    auto runs = r.runs();
    if (runs.empty())
        return false;
    for (const RunInfo& run : runs) {
        int64_t kernels = 0;
        r.forEachActivity(run.id, [&](const Activity& a) {
            kernels += a.kind == ActivityKind::Kernel;
            return true;
        });
        ScopeTree::load(r, run.id);
        r.scopeInstances(run.id);
        r.apiCalls(run.id);
        if (kernels != run.kernels || r.totals(run.id).empty())
            return false;
    }
    return true;
}

bool walModeHeader(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return false;
    QByteArray h = f.read(20);
    return h.size() == 20 && h[18] == 2 && h[19] == 2;
}

void execSql(const std::string& path, const char* sql)
{
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
    QVERIFY2(rc == SQLITE_OK, err ? err : "?");
    sqlite3_close(db);
}

}  // namespace

class TestStorage : public QObject {
    Q_OBJECT
private slots:
    void chunkRoundTrip();
    void chunkCorrupt();
    void roundTrip();
    void windowQueries();
    void activityBlocks();
    void migrationFromV0();
    void migrationFromV1NoFeatures();
    void launchFeaturesRoundTrip();
    void newerSchemaRefused();
    void badInputs();
    void readerDuringWriter();
    void killedWriterMarkedIncomplete();
    void discardAndExternalTransaction();
    void diskFull();
    void commitPoints();
    void killedAfterCommitReadsCommitted();
    void finishedFileLeavesWal();
    void readsWithoutWritableWalIndex();
    void damagedScopeTree_data();
    void damagedScopeTree();
    void damagedInstances();
    void deepScopesRefused();
    void extremeTimesRefused();
    void corruptChunkDeltasNoOverflow();
    void breakdownSumsSaturate();
};

void TestStorage::chunkRoundTrip()
{
    std::mt19937_64 rng(3);
    std::vector<StoredActivity> rows;
    for (int i = 0; i < 1000; ++i)
        rows.push_back(StoredActivity{int64_t(rng() % 1000000) - 500000, int64_t(rng() % 5000), int64_t(rng()) >> 1,
                                      int64_t(rng() % 100) - 50, int64_t(rng() % (1ll << 40)), i, int64_t(rng() % 7),
                                      uint32_t(rng()), uint8_t(rng() % 3)});
    rows.push_back(StoredActivity{INT64_MAX / 4, 0, INT64_MIN / 2, INT64_MAX / 2, 0, 1000, 0, 0, 0});
    auto original = rows;
    ChunkHeader h;
    std::string blob = ActivityChunk::encode(rows, h);
    QCOMPARE(h.count, int64_t(original.size()));
    std::vector<StoredActivity> back;
    ActivityChunk::decode(blob, h, back);
    QCOMPARE(back.size(), original.size());
    std::sort(original.begin(), original.end(), [](auto& a, auto& b) { return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq; });
    int64_t maxEnd = INT64_MIN;
    for (size_t i = 0; i < back.size(); ++i) {
        QCOMPARE(back[i].startNs, original[i].startNs);
        QCOMPARE(back[i].durationNs, original[i].durationNs);
        QCOMPARE(back[i].scopeInstanceId, original[i].scopeInstanceId);
        QCOMPARE(back[i].correlationId, original[i].correlationId);
        QCOMPARE(back[i].bytes, original[i].bytes);
        QCOMPARE(back[i].seq, original[i].seq);
        QCOMPARE(back[i].configId, original[i].configId);
        QCOMPARE(back[i].nameId, original[i].nameId);
        QCOMPARE(back[i].kind, original[i].kind);
        maxEnd = std::max(maxEnd, back[i].startNs + back[i].durationNs);
    }
    QCOMPARE(h.startNs, original.front().startNs);
    QCOMPARE(h.endNs, maxEnd);
}

void TestStorage::chunkCorrupt()
{
    std::vector<StoredActivity> rows{{10, 5, 1, 1, 0, 0, 0, 1, 0}, {20, 5, 1, 2, 0, 1, 0, 1, 0}};
    ChunkHeader h;
    std::string blob = ActivityChunk::encode(rows, h);
    std::vector<StoredActivity> out;
    expectError([&] { ActivityChunk::decode(blob.substr(0, blob.size() - 3), h, out); }, "corrupt");
    expectError([&] { ActivityChunk::decode(blob + "x", h, out); }, "corrupt");
    std::string bad = blob;
    bad[0] = 9;
    expectError([&] { ActivityChunk::decode(bad, h, out); }, "corrupt");
    expectError([&] { ActivityChunk::decode(std::string(1, char(1)) + std::string(20, char(0xff)), h, out); }, "corrupt");
}

void TestStorage::roundTrip()
{
    std::string path = test::tempPath("roundtrip.wt");
    Expected exp;
    int64_t run = 0;
    {
        Database db(path, OpenMode::ReadWrite);
        run = writeRandomRun(db, 42, 7000, exp, 1000);   // several chunks and batches per track
    }
    Database db(path, OpenMode::ReadOnly);
    Reader r(db);
    auto runs = r.runs();
    QCOMPARE(runs.size(), size_t(1));
    const RunInfo& info = runs[0];
    QCOMPARE(info.id, run);
    QCOMPARE(info.name, std::string("random-42"));
    QCOMPARE(info.workload, std::string("gcn"));
    QCOMPARE(info.variant, std::string("adaptive"));
    QCOMPARE(info.preset, std::string("tiny"));
    QCOMPARE(info.backend, std::string("cpu"));
    QCOMPARE(info.configJson, std::string("{\"hidden\":16}"));
    QCOMPARE(info.originNs, int64_t(1'700'000'000'000'000'000));
    QCOMPARE(info.durationNs, int64_t(60'000'000));
    QCOMPARE(int(info.status), int(RunStatus::Complete));
    int64_t kernels = std::count_if(exp.activities.begin(), exp.activities.end(), [](auto& a) { return a.kind == ActivityKind::Kernel; });
    QCOMPARE(info.kernels, kernels);
    QCOMPARE(info.kernelTimeNs, exp.kernelTime);
    QCOMPARE(r.devices(run).size(), size_t(2));
    QCOMPARE(r.devices(run)[0].propertiesJson, std::string("{\"sm\":1}"));
    auto tracks = r.tracks(run);
    QCOMPARE(tracks.size(), size_t(4));
    auto scopes = r.scopes(run);
    QCOMPARE(scopes.size(), size_t(6));
    QCOMPARE(r.string(scopes[2].nameId), std::string("conv1"));
    QCOMPARE(scopes[2].depth, 3);
    auto instances = r.scopeInstances(run);
    QCOMPARE(instances.size(), size_t(6));
    QCOMPARE(instances[1].endNs, int64_t(21));
    QCOMPARE(instances[1].parentId, instances[0].id);
    auto api = r.apiCalls(run);
    QCOMPARE(api.size(), exp.apiCalls.size());
    auto apiKey = [](const ApiCall& c) { return std::make_tuple(c.startNs, c.correlationId, c.endNs, c.threadId, c.nameId); };
    for (size_t i = 1; i < api.size(); ++i)
        QVERIFY(api[i - 1].startNs <= api[i].startNs);
    auto wantApi = exp.apiCalls;
    std::sort(wantApi.begin(), wantApi.end(), [&](auto& a, auto& b) { return apiKey(a) < apiKey(b); });
    std::sort(api.begin(), api.end(), [&](auto& a, auto& b) { return apiKey(a) < apiKey(b); });
    for (size_t i = 0; i < api.size(); ++i)
        QVERIFY(apiKey(api[i]) == apiKey(wantApi[i]));
    QVERIFY(std::any_of(api.begin(), api.end(), [&](const ApiCall& c) {
        return c.startNs == 5 && c.endNs == 25 && r.string(c.nameId) == "cudaLaunchKernel" && c.correlationId == 42;
    }));
    QCOMPARE(r.metadata(run).at(0).second, std::string("testhost"));

    // Every activity comes back once, per track sorted by (start, seq), with every field.
    std::vector<Activity> back;
    r.forEachActivity(run, [&](const Activity& a) { back.push_back(a); return true; });
    QCOMPARE(back.size(), exp.activities.size());
    auto key = [](const Activity& a) { return std::make_tuple(a.trackId, a.startNs, a.seq); };
    for (size_t i = 1; i < back.size(); ++i)
        if (back[i].trackId == back[i - 1].trackId)
            QVERIFY(key(back[i - 1]) < key(back[i]));
    auto expSorted = exp.activities;
    std::sort(expSorted.begin(), expSorted.end(), [&](auto& a, auto& b) { return key(a) < key(b); });
    std::sort(back.begin(), back.end(), [&](auto& a, auto& b) { return key(a) < key(b); });
    for (size_t i = 0; i < back.size(); ++i)
        QVERIFY2(sameActivity(back[i], expSorted[i]), qPrintable(QString::number(i)));
    // Track counts and the totals table agree with what was written.
    int64_t total = 0;
    for (const Track& t : tracks)
        total += t.count;
    QCOMPARE(total, int64_t(exp.activities.size()));
    int64_t totalsTime = 0;
    for (const TotalRow& row : r.totals(run))
        if (row.kind == ActivityKind::Kernel)
            totalsTime += row.timeNs;
    QCOMPARE(totalsTime, exp.kernelTime);
}

void TestStorage::activityBlocks()
{
    // forEachActivityBlock hands out exactly what forEachActivity does, in the same order,
    // with configs by id; for overlapping chunks (random starts) and in-order ones.
    std::string path = test::tempPath("blocks.wt");
    Expected exp;
    int64_t randomRun = 0, orderedRun = 0;
    {
        Database db(path, OpenMode::ReadWrite);
        randomRun = writeRandomRun(db, 9, 6000, exp, 700);
        Writer w(db);
        w.setBatchRows(300);
        RunInfo info;
        info.name = "ordered";
        info.backend = "cpu";
        orderedRun = w.beginRun(info);
        w.addDevice(DeviceInfo{0, "dev0", "{}"});
        int64_t tracks[] = {w.addTrack(0, 1, TrackKind::Kernel), w.addTrack(0, 2, TrackKind::Kernel)};
        for (int i = 0; i < 5000; ++i) {
            Activity a;
            a.trackId = tracks[i % 2];
            a.startNs = 1000 + int64_t(i) * 100;
            a.endNs = a.startNs + 80;
            a.nameId = w.intern("k");
            a.config.grid[0] = 1 + i % 3;
            w.addActivity(a);
        }
        w.finishRun(RunStatus::Complete, 1'000'000);
    }
    Database db(path, OpenMode::ReadOnly);
    Reader r(db);
    for (int64_t run : {randomRun, orderedRun}) {
        std::vector<Activity> expected;
        r.forEachActivity(run, [&](const Activity& a) { expected.push_back(a); return true; });
        QVERIFY(expected.size() >= 5000);
        std::vector<Activity> got;
        size_t blocks = 0;
        r.forEachActivityBlock(run, [&](const Track& t, const StoredActivity* rows, size_t count) {
            ++blocks;
            for (size_t i = 0; i < count; ++i) {
                Activity a;
                a.trackId = t.id;
                a.startNs = rows[i].startNs;
                a.endNs = rows[i].startNs + rows[i].durationNs;
                a.kind = ActivityKind(rows[i].kind);
                a.nameId = rows[i].nameId;
                a.scopeInstanceId = rows[i].scopeInstanceId;
                a.correlationId = rows[i].correlationId;
                a.bytes = rows[i].bytes;
                a.seq = rows[i].seq;
                a.config = r.launchConfig(rows[i].configId);
                got.push_back(a);
            }
            return true;
        });
        QCOMPARE(got.size(), expected.size());
        for (size_t i = 0; i < got.size(); ++i)
            QVERIFY2(sameActivity(got[i], expected[i]), qPrintable(QString::number(i)));
        QVERIFY(blocks >= 2);
        // Returning false stops at once.
        size_t calls = 0;
        r.forEachActivityBlock(run, [&](const Track&, const StoredActivity*, size_t) { return ++calls < 2; });
        QCOMPARE(calls, size_t(2));
    }
    QVERIFY(r.launchConfig(0) == LaunchConfig{});
}

void TestStorage::windowQueries()
{
    std::string path = test::tempPath("window.wt");
    Expected exp;
    int64_t run = 0;
    {
        Database db(path, OpenMode::ReadWrite);
        run = writeRandomRun(db, 7, 9000, exp, 2500);
    }
    Database db(path, OpenMode::ReadOnly);
    Reader r(db);
    std::mt19937_64 rng(11);
    for (const Track& t : r.tracks(run)) {
        for (int i = 0; i < 30; ++i) {
            int64_t t0 = int64_t(rng() % 52'000'000) - 1'000'000;
            int64_t t1 = t0 + int64_t(rng() % 3'000'000) + (i == 0 ? 60'000'000 : 0);
            auto got = r.activities(t.id, t0, t1);
            std::vector<Activity> want;
            for (const Activity& a : exp.activities)
                if (a.trackId == t.id && a.startNs < t1 && (a.endNs > t0 || a.startNs == t0))
                    want.push_back(a);
            std::sort(want.begin(), want.end(), [](auto& a, auto& b) { return std::tie(a.startNs, a.seq) < std::tie(b.startNs, b.seq); });
            QCOMPARE(got.size(), want.size());
            for (size_t k = 0; k < got.size(); ++k)
                QVERIFY(sameActivity(got[k], want[k]));
        }
    }
}

void TestStorage::migrationFromV0()
{
    std::string path = test::tempPath("v0.wt");
    QFile sqlFile(test::sourcePath(QStringLiteral("tests/data/v0-prototype.sql")));
    QVERIFY(sqlFile.open(QIODevice::ReadOnly));
    QByteArray sql = sqlFile.readAll();
    sqlite3* raw = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    QCOMPARE(sqlite3_exec(raw, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);

    Database db(path, OpenMode::ReadOnly);   // migrates through a short read-write open
    QCOMPARE(db.schemaVersion(), Database::kSchemaVersion);
    Reader r(db);
    auto runs = r.runs();
    QCOMPARE(runs.size(), size_t(2));
    const RunInfo& a = runs[0];
    QCOMPARE(a.name, std::string("proto-gcn"));
    QCOMPARE(a.backend, std::string("cupti"));
    QCOMPARE(a.device, std::string("NVIDIA A100-SXM4-40GB"));
    QCOMPARE(int(a.status), int(RunStatus::Complete));
    QCOMPARE(a.kernels, int64_t(5));
    QCOMPARE(a.kernelTimeNs, int64_t(300 + 100 + 1000 + 200 + 50));
    QCOMPARE(a.originNs, int64_t(1000000000100));
    QCOMPARE(a.spanEndNs - a.spanStartNs, int64_t(2150 - 100));
    QCOMPARE(a.busyNs, int64_t(300 + 100 + 1000 + 200 + 50));
    QCOMPARE(r.tracks(a.id).size(), size_t(2));
    // Scope paths become a tree: step/forward/{conv1/{conv_gemm,glu}, softmax/{head_gemm,log_softmax}}.
    auto scopes = r.scopes(a.id);
    QCOMPARE(scopes.size(), size_t(8));
    QCOMPARE(int(runs[1].status), int(RunStatus::Interrupted));
    QCOMPARE(runs[1].kernels, int64_t(1));
    std::vector<Activity> acts;
    r.forEachActivity(a.id, [&](const Activity& x) { acts.push_back(x); return true; });
    QCOMPARE(acts.size(), size_t(5));
    int withScope = 0;
    for (const Activity& x : acts)
        withScope += x.scopeInstanceId != 0;
    QCOMPARE(withScope, 4);
    // The old tables are gone.
    sqlite3* check = nullptr;
    sqlite3_open(path.c_str(), &check);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(check, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'v0_%' OR name='kernels'", -1, &st, nullptr);
    QCOMPARE(sqlite3_step(st), SQLITE_ROW);
    QCOMPARE(sqlite3_column_int(st, 0), 0);
    sqlite3_finalize(st);
    sqlite3_close(check);
}

// A file of schema version 1 (no launches or cost_models table) migrates to the current version;
// its runs read as runs without op features and it takes new runs with features.
void TestStorage::migrationFromV1NoFeatures()
{
    std::string path = test::tempPath("v1.wt");
    {
        Database db(path, OpenMode::ReadWrite);
        Expected e;
        writeRandomRun(db, 7, 50, e);
        db.exec("DROP TABLE launches; DROP TABLE cost_models; DROP TABLE step_totals; DROP TABLE host_threads; PRAGMA user_version=1;");
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    {
        sqlite3* raw = nullptr;
        sqlite3_open(path.c_str(), &raw);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, nullptr);
        QCOMPARE(sqlite3_step(st), SQLITE_ROW);
        QCOMPARE(sqlite3_column_int(st, 0), 1);
        sqlite3_finalize(st);
        sqlite3_close(raw);
    }
    Database db(path, OpenMode::ReadWrite);
    QCOMPARE(db.schemaVersion(), Database::kSchemaVersion);
    QCOMPARE(Database::kSchemaVersion, 6);
    Reader r(db);
    auto runs = r.runs();
    QCOMPARE(runs.size(), size_t(1));
    QVERIFY(runs[0].kernels > 0);
    QVERIFY(r.launches(runs[0].id).empty());   // "no features"
    QCOMPARE(r.countLaunches(runs[0].id), int64_t(0));
    QVERIFY(CostModelStore(db).list().empty());
    // The migrated file takes a run with features.
    Writer w(db);
    RunInfo info;
    info.name = "after";
    info.backend = "cpu";
    const int64_t id = w.beginRun(info);
    LaunchFeatures f;
    f.nameId = w.intern("sgemm_nn");
    f.kind = "gemm";
    f.flops = 2.0 * 4 * 5 * 6;
    w.addLaunch(f);
    w.finishRun(RunStatus::Complete, 10);
    QCOMPARE(r.countLaunches(id), int64_t(1));
}

void TestStorage::launchFeaturesRoundTrip()
{
    std::string path = test::tempPath("features.wt");
    Database db(path, OpenMode::ReadWrite);
    Writer w(db);
    RunInfo info;
    info.name = "features";
    info.backend = "cpu";
    const int64_t id = w.beginRun(info);
    const int64_t node = w.addScope(0, "step", "step");
    const int64_t inst = w.beginScopeInstance(node, 0, 0);
    std::vector<LaunchFeatures> want;
    for (int i = 0; i < 5; ++i) {
        LaunchFeatures f;
        f.scopeInstanceId = inst;
        f.nameId = w.intern(i % 2 ? "glu_forward" : "sgemm_nt");
        f.kind = i % 2 ? "kernel" : "gemm";
        f.flops = 1e9 * (i + 1) + 0.5;
        f.bytesRead = 3e6 * (i + 1);
        f.bytesWritten = 1e6 * (i + 2);
        f.m = i % 2 ? 0 : 128 + i, f.n = i % 2 ? 0 : 256, f.k = i % 2 ? 0 : 64, f.batch = i % 2 ? 0 : 1;
        f.shapesId = w.intern("M=" + std::to_string(128 + i));
        f.correlationId = 100 + i;
        w.addLaunch(f);
        want.push_back(f);
    }
    w.endScopeInstance(inst, 50);
    w.finishRun(RunStatus::Complete, 50);
    CostModelStore store(db);
    store.put(StoredCostModel{"cpu", "device", "", "{\"fp32_flops\":1e11}"});
    store.put(StoredCostModel{"fit1", "predictor", "2026-01-01T00:00:00Z", "{\"classes\":[]}"});
    bool refused = false;
    try {
        store.put(StoredCostModel{"x", "bogus", "", "{}"});
    } catch (const StorageError&) {
        refused = true;
    }
    QVERIFY(refused);

    Database ro(path, OpenMode::ReadOnly);
    Reader r(ro);
    auto got = r.launches(id);
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].seq, int64_t(i + 1));
        QCOMPARE(got[i].scopeInstanceId, inst);
        QCOMPARE(r.string(got[i].nameId), r.string(want[i].nameId));
        QCOMPARE(got[i].kind, want[i].kind);
        QCOMPARE(got[i].flops, want[i].flops);
        QCOMPARE(got[i].bytesRead, want[i].bytesRead);
        QCOMPARE(got[i].bytesWritten, want[i].bytesWritten);
        QCOMPARE(got[i].m, want[i].m);
        QCOMPARE(got[i].n, want[i].n);
        QCOMPARE(got[i].k, want[i].k);
        QCOMPARE(got[i].batch, want[i].batch);
        QCOMPARE(r.string(got[i].shapesId), r.string(want[i].shapesId));
        QCOMPARE(got[i].correlationId, want[i].correlationId);
    }
    CostModelStore roStore(ro);
    auto models = roStore.list();
    QCOMPARE(models.size(), size_t(2));
    QCOMPARE(roStore.list("predictor").size(), size_t(1));
    QCOMPARE(roStore.get("fit1")->createdAt, std::string("2026-01-01T00:00:00Z"));
    QCOMPARE(roStore.get("cpu")->body, std::string("{\"fp32_flops\":1e11}"));
    QVERIFY(!roStore.get("none"));
}

void TestStorage::newerSchemaRefused()
{
    std::string path = goodFile();
    sqlite3* raw = nullptr;
    sqlite3_open(path.c_str(), &raw);
    sqlite3_exec(raw, "PRAGMA journal_mode=DELETE; PRAGMA user_version=99;", nullptr, nullptr, nullptr);
    sqlite3_close(raw);
    QByteArray before = fileHash(path);
    expectError([&] { Database db(path, OpenMode::ReadOnly); }, "newer wheretime");
    expectError([&] { Database db(path, OpenMode::ReadWrite); }, "newer wheretime");
    QCOMPARE(fileHash(path), before);
}

void TestStorage::badInputs()
{
    // Missing file.
    expectError([&] { Database db(test::tempPath("missing.wt"), OpenMode::ReadOnly); }, "no such file");
    // Not SQLite.
    std::string text = test::tempPath("text.wt");
    writeFile(text, "hello, this is not a database\n");
    QByteArray before = fileHash(text);
    expectError([&] { Database db(text, OpenMode::ReadOnly); }, "not an SQLite database");
    expectError([&] { Database db(text, OpenMode::ReadWrite); }, "not an SQLite database");
    QCOMPARE(fileHash(text), before);
    // Truncated.
    std::string good = goodFile();
    QFile g(QString::fromStdString(good));
    QVERIFY(g.open(QIODevice::ReadOnly));
    QByteArray all = g.readAll();
    QVERIFY(all.size() > 8192);
    std::string truncated = test::tempPath("truncated.wt");
    writeFile(truncated, all.left(all.size() / 2));
    expectError([&] { Database db(truncated, OpenMode::ReadOnly); }, "truncated");
    std::string tiny = test::tempPath("tiny.wt");
    writeFile(tiny, all.left(50));
    expectError([&] { Database db(tiny, OpenMode::ReadOnly); }, "truncated");
    // Corrupt: garbage over the pages after the schema page; either open or a read must fail cleanly.
    std::string corrupt = test::tempPath("corrupt.wt");
    QByteArray bad = all;
    for (int i = 4096; i < bad.size(); ++i)
        bad[i] = char((i * 131) & 0xff);
    writeFile(corrupt, bad);
    bool failed = false;
    try {
        Database db(corrupt, OpenMode::ReadOnly);
        Reader r(db);
        for (const RunInfo& run : r.runs()) {
            r.tracks(run.id);
            r.forEachActivity(run.id, [](const Activity&) { return true; });
        }
    } catch (const StorageError& e) {
        failed = true;
        QVERIFY(std::string(e.what()).find('\n') == std::string::npos);
    }
    QVERIFY(failed);
    // Read-only file opened for writing: refused, unchanged.
    std::string ro = goodFile();
    ::chmod(ro.c_str(), 0444);
    if (::access(ro.c_str(), W_OK) != 0) {   // root may write anyway; then only the check below runs
        QByteArray roBefore = fileHash(ro);
        expectError([&] { Database db(ro, OpenMode::ReadWrite); }, "read-only");
        QCOMPARE(fileHash(ro), roBefore);
    }
    {
        Database db(ro, OpenMode::ReadOnly);
        expectError([&] { Writer w(db); }, "read-only");
    }
    // Another application's database.
    std::string other = test::tempPath("other.db");
    sqlite3* raw = nullptr;
    sqlite3_open(other.c_str(), &raw);
    sqlite3_exec(raw, "CREATE TABLE moz_places(id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places VALUES (1, 'x');", nullptr, nullptr, nullptr);
    sqlite3_close(raw);
    QByteArray otherBefore = fileHash(other);
    expectError([&] { Database db(other, OpenMode::ReadWrite); }, "another application");
    QCOMPARE(fileHash(other), otherBefore);
    // A directory.
    expectError([&] { Database db("/tmp", OpenMode::ReadOnly); }, "directory");
    // An empty (0-byte) file is a new database for writing, but not a wheretime file for reading.
    std::string empty = test::tempPath("empty.wt");
    writeFile(empty, QByteArray());
    expectError([&] { Database db(empty, OpenMode::ReadOnly); }, "empty");
}

void TestStorage::readerDuringWriter()
{
    std::string path = test::tempPath("wal.wt");
    Database wdb(path, OpenMode::ReadWrite);
    Writer w(wdb);
    w.setBatchRows(100);
    RunInfo info;
    info.name = "live";
    info.backend = "cpu";
    int64_t run = w.beginRun(info);
    int64_t track = w.addTrack(0, 1, TrackKind::Kernel);
    uint32_t name = w.intern("k");
    Database rdb(path, OpenMode::ReadOnly);
    Reader r(rdb);
    QCOMPARE(int(r.run(run).status), int(RunStatus::Writing));   // visible at once
    for (int i = 0; i < 250; ++i) {
        Activity a;
        a.trackId = track;
        a.startNs = i * 10;
        a.endNs = i * 10 + 5;
        a.nameId = name;
        w.addActivity(a);
    }
    // The writer holds an open transaction now; the reader still reads (WAL), seeing committed batches.
    int64_t seen = 0;
    r.forEachActivity(run, [&](const Activity&) { ++seen; return true; });
    QVERIFY2(seen >= 200 && seen < 250, qPrintable(QString::number(seen)));
    w.finishRun(RunStatus::Complete, 2500);
    seen = 0;
    r.forEachActivity(run, [&](const Activity&) { ++seen; return true; });
    QCOMPARE(seen, int64_t(250));
    QCOMPARE(int(r.run(run).status), int(RunStatus::Complete));
    QCOMPARE(r.run(run).kernels, int64_t(250));
}

void TestStorage::killedWriterMarkedIncomplete()
{
    std::string path = test::tempPath("killed.wt");
    {
        Database db(path, OpenMode::ReadWrite);
        Expected e;
        writeRandomRun(db, 5, 50, e);
    }
    pid_t pid = fork();
    if (pid == 0) {
        // Child: writes part of a run, commits some batches, then dies without finishing.
        try {
            Database db(path, OpenMode::ReadWrite);
            Writer w(db);
            w.setBatchRows(10);
            RunInfo info;
            info.name = "killed";
            info.backend = "cpu";
            w.beginRun(info);
            int64_t t = w.addTrack(0, 1, TrackKind::Kernel);
            int64_t scope = w.addScope(0, "step", "step");
            int64_t inst = w.addScopeInstance(scope, 0, 0, 1000);
            uint32_t n = w.intern("k");
            for (int i = 0; i < 35; ++i) {
                Activity a;
                a.trackId = t;
                a.startNs = i * 10;
                a.endNs = i * 10 + 4;
                a.nameId = n;
                a.scopeInstanceId = inst;
                w.addActivity(a);
            }
            _exit(0);   // as a kill -9 would: no destructors, no finish
        } catch (...) {
            _exit(3);
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    QCOMPARE(WEXITSTATUS(status), 0);
    {
        // A read-only open (a viewer) already shows it as incomplete, without writing.
        Database ro(path, OpenMode::ReadOnly);
        Reader rr(ro);
        QCOMPARE(int(rr.runs().at(1).status), int(RunStatus::Incomplete));
    }
    Database db(path, OpenMode::ReadWrite);   // opening recovers
    Reader r(db);
    auto runs = r.runs();
    QCOMPARE(runs.size(), size_t(2));
    QCOMPARE(int(runs[0].status), int(RunStatus::Complete));
    QCOMPARE(runs[1].name, std::string("killed"));
    QCOMPARE(int(runs[1].status), int(RunStatus::Incomplete));
    QVERIFY2(runs[1].kernels >= 25 && runs[1].kernels < 35, qPrintable(QString::number(runs[1].kernels)));
    QCOMPARE(runs[1].kernelTimeNs, runs[1].kernels * 4);
    QCOMPARE(r.scopeInstances(runs[1].id).size(), size_t(1));
    // A fresh writer can append after recovery.
    Expected e;
    writeRandomRun(db, 6, 20, e);
    QCOMPARE(r.runs().size(), size_t(3));
}

void TestStorage::discardAndExternalTransaction()
{
    std::string path = test::tempPath("discard.wt");
    Database db(path, OpenMode::ReadWrite);
    Expected e;
    int64_t keep = writeRandomRun(db, 9, 100, e);
    {
        Writer w(db);
        w.setBatchRows(5);
        RunInfo info;
        info.backend = "import";
        w.beginRun(info);
        int64_t t = w.addTrack(0, 1, TrackKind::Kernel);
        for (int i = 0; i < 20; ++i) {
            Activity a;
            a.trackId = t;
            a.startNs = i;
            a.endNs = i + 1;
            w.addActivity(a);
        }
        w.discardRun();
    }
    Reader r(db);
    QCOMPARE(r.runs().size(), size_t(1));
    QCOMPARE(r.runs()[0].id, keep);
    // Inside the caller's transaction: rollback leaves nothing.
    db.begin();
    {
        Writer w(db);
        RunInfo info;
        info.backend = "import";
        w.beginRun(info);
        w.addTrack(0, 1, TrackKind::Kernel);
        w.finishRun(RunStatus::Complete, 1);
    }
    db.rollback();
    QCOMPARE(r.runs().size(), size_t(1));
}

void TestStorage::diskFull()
{
    std::string path = goodFile();
    QByteArray before;
    {
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        before = QByteArray::number(qlonglong(r.runs()[0].kernelTimeNs));
    }
    struct stat st {};
    ::stat(path.c_str(), &st);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim {rlim_t(st.st_size + 64 * 1024), rlim_t(st.st_size + 64 * 1024)};
        setrlimit(RLIMIT_FSIZE, &lim);
        try {
            Database db(path, OpenMode::ReadWrite);
            Expected e;
            writeRandomRun(db, 77, 200000, e, 20000);
        } catch (const StorageError& e) {
            std::string msg = e.what();
            _exit(msg.find('\n') == std::string::npos ? 3 : 4);
        }
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 3);   // a clean StorageError, not a crash
    Database db(path, OpenMode::ReadWrite);
    Reader r(db);
    auto runs = r.runs();
    QVERIFY(!runs.empty());
    QCOMPARE(QByteArray::number(qlonglong(runs[0].kernelTimeNs)), before);   // the earlier run is intact
    QCOMPARE(int(runs[0].status), int(RunStatus::Complete));
    for (size_t i = 1; i < runs.size(); ++i)
        QVERIFY(runs[i].status != RunStatus::Complete);
}

void TestStorage::commitPoints()
{
    // Every commit() makes the run readable with a summary of what it holds; the chunk being
    // filled is rewritten in place, so committing per step does not make small chunks.
    std::string path = test::tempPath("commits.wt");
    Database wdb(path, OpenMode::ReadWrite);
    Writer w(wdb);
    RunInfo info;
    info.backend = "cpu";
    int64_t run = w.beginRun(info);
    int64_t track = w.addTrack(0, 1, TrackKind::Kernel);
    int64_t scope = w.addScope(0, "step", "step");
    uint32_t name = w.intern("k");
    Database rdb(path, OpenMode::ReadOnly);
    Reader r(rdb);
    for (int step = 0; step < 30; ++step) {
        int64_t inst = w.beginScopeInstance(scope, 0, step * 1000);
        for (int i = 0; i < 10; ++i) {
            Activity a;
            a.trackId = track;
            a.startNs = step * 1000 + i * 50;
            a.endNs = a.startNs + 20;
            a.nameId = name;
            a.scopeInstanceId = inst;
            w.addActivity(a);
        }
        w.endScopeInstance(inst, step * 1000 + 600);
        w.addApiCall(ApiCall{step * 1000, step * 1000 + 5, 1, name, step});
        w.commit();
        RunInfo seen = r.run(run);
        QCOMPARE(seen.kernels, int64_t(10 * (step + 1)));
        QCOMPARE(seen.kernelTimeNs, int64_t(200 * (step + 1)));
        QCOMPARE(seen.busyNs, int64_t(200 * (step + 1)));
        QCOMPARE(seen.spanEndNs, int64_t(step * 1000 + 470));
        QCOMPARE(r.tracks(run).at(0).count, int64_t(10 * (step + 1)));
        QCOMPARE(r.scopeInstances(run).size(), size_t(step + 1));
        QCOMPARE(r.apiCalls(run).size(), size_t(step + 1));
        auto totals = r.totals(run);
        QCOMPARE(totals.size(), size_t(1));
        QCOMPARE(totals[0].count, int64_t(10 * (step + 1)));
        QCOMPARE(totals[0].scopeId, scope);
    }
    for (const char* table : {"activity_chunks", "scope_instance_chunks", "api_call_chunks"}) {
        Statement s(rdb.handle(), std::string("SELECT count(*) FROM ") + table);
        QVERIFY(s.step());
        QCOMPARE(s.int64(0), int64_t(1));   // one chunk, rewritten at each commit
    }
    w.finishRun(RunStatus::Complete, 30000);
    QCOMPARE(r.run(run).kernels, int64_t(300));
    int64_t n = 0;
    r.forEachActivity(run, [&](const Activity&) { ++n; return true; });
    QCOMPARE(n, int64_t(300));
}

void TestStorage::killedAfterCommitReadsCommitted()
{
    std::string path = test::tempPath("killedcommit.wt");
    {
        Database db(path, OpenMode::ReadWrite);
        Expected e;
        writeRandomRun(db, 5, 50, e);
    }
    QByteArray firstBefore;
    {
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        RunInfo first = r.run(1);
        firstBefore = QByteArray::number(qlonglong(first.kernelTimeNs)) + " " + QByteArray::number(qlonglong(first.busyNs));
    }
    pid_t pid = fork();
    if (pid == 0) {
        try {
            Database db(path, OpenMode::ReadWrite);
            Writer w(db);
            RunInfo info;
            info.name = "killed";
            info.backend = "cpu";
            w.beginRun(info);
            int64_t t = w.addTrack(0, 1, TrackKind::Kernel);
            int64_t scope = w.addScope(0, "step", "step");
            uint32_t n = w.intern("k");
            for (int step = 0; step < 3; ++step) {
                int64_t inst = w.beginScopeInstance(scope, 0, step * 100);
                for (int i = 0; i < 7; ++i) {
                    Activity a;
                    a.trackId = t;
                    a.startNs = step * 100 + i * 10;
                    a.endNs = a.startNs + 4;
                    a.nameId = n;
                    a.scopeInstanceId = inst;
                    w.addActivity(a);
                }
                if (step < 2) {   // the third step is in progress when the writer dies
                    w.endScopeInstance(inst, step * 100 + 90);
                    w.commit();
                }
            }
            _exit(0);   // as a kill -9 would: no destructors, no finish
        } catch (...) {
            _exit(3);
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    QCOMPARE(WEXITSTATUS(status), 0);
    for (OpenMode mode : {OpenMode::ReadOnly, OpenMode::ReadWrite}) {
        Database db(path, mode);
        Reader r(db);
        auto runs = r.runs();
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(int(runs[1].status), int(RunStatus::Incomplete));
        QCOMPARE(runs[1].kernels, int64_t(14));   // exactly the two committed steps
        QCOMPARE(runs[1].kernelTimeNs, int64_t(56));
        QCOMPARE(runs[1].busyNs, int64_t(56));
        QCOMPARE(r.scopeInstances(runs[1].id).size(), size_t(2));
        auto totals = r.totals(runs[1].id);
        QCOMPARE(totals.size(), size_t(1));
        QCOMPARE(totals[0].count, int64_t(14));
        RunInfo first = runs[0];
        QCOMPARE(QByteArray::number(qlonglong(first.kernelTimeNs)) + " " + QByteArray::number(qlonglong(first.busyNs)), firstBefore);
    }
}

void TestStorage::finishedFileLeavesWal()
{
    std::string path = test::tempPath("nowal.wt");
    {
        Database db(path, OpenMode::ReadWrite);
        QVERIFY(walModeHeader(path));   // WAL while a writer has it open
        Expected e;
        writeRandomRun(db, 3, 200, e);
    }
    // Closed by its last writer: out of WAL mode, nothing beside it.
    QVERIFY(!walModeHeader(path));
    QVERIFY(!QFile::exists(QString::fromStdString(path + "-wal")));
    QVERIFY(!QFile::exists(QString::fromStdString(path + "-shm")));
    // With a reader open, the writer leaves the mode alone (and does not wait for it).
    {
        Database w(path, OpenMode::ReadWrite);
        Database r(path, OpenMode::ReadOnly);
        QVERIFY(Reader(r).runs().size() == 1);
        QVERIFY(walModeHeader(path));
    }
    // A full disk: reading needs no byte written.
    ChildResult c = inChild(noBytesLeft, [&] { return readsAll(path); });
    QVERIFY2(c.code == 0, c.message.c_str());
}

void TestStorage::readsWithoutWritableWalIndex()
{
    // A file still in WAL mode (a writer of an earlier version closed it, or a reader was open
    // when the writer left) needs its WAL index (-shm) created to be read. Where it cannot be
    // (full disk, read-only directory), it is read as immutable: it has no log to replay.
    char tmpl[] = "/tmp/wt-ro-XXXXXX";
    QVERIFY(mkdtemp(tmpl));
    std::string dir = tmpl;
    chmod(dir.c_str(), 0755);
    std::string path = dir + "/wal.wt";
    {
        Database db(path, OpenMode::ReadWrite);
        Expected e;
        writeRandomRun(db, 4, 300, e);
    }
    execSql(path, "PRAGMA journal_mode=WAL");
    chmod(path.c_str(), 0444);
    QVERIFY(walModeHeader(path));
    QVERIFY(!QFile::exists(QString::fromStdString(path + "-shm")));

    ChildResult full = inChild(noBytesLeft, [&] { return readsAll(path); });
    QVERIFY2(full.code == 0, full.message.c_str());

    // A read-only directory, as an unprivileged user (root ignores permissions).
    chmod(dir.c_str(), 0555);
    ChildResult ro = inChild(
        [] {
            if (geteuid() == 0) {
                struct passwd* nobody = getpwnam("nobody");
                if (!nobody || setgid(nobody->pw_gid) != 0 || setuid(nobody->pw_uid) != 0)
                    _exit(6);
            }
        },
        [&] {
            if (::access((std::string(tmpl) + "/probe").c_str(), F_OK) == 0 || ::creat((std::string(tmpl) + "/probe").c_str(), 0644) >= 0)
                return false;   // the directory must really be unwritable here
            return readsAll(path);
        });
    QVERIFY2(ro.code == 0, (std::to_string(ro.code) + " " + ro.message).c_str());

    // A writable file in that read-only directory: writing is refused naming the directory,
    // not as "the file is read-only" (it is not); nothing is written.
    chmod(path.c_str(), 0666);
    ChildResult rw = inChild(
        [] {
            if (geteuid() == 0) {
                struct passwd* nobody = getpwnam("nobody");
                if (!nobody || setgid(nobody->pw_gid) != 0 || setuid(nobody->pw_uid) != 0)
                    _exit(6);
            }
        },
        [&] {
            Database db(path, OpenMode::ReadWrite);
            return false;
        });
    QCOMPARE(rw.code, 3);
    QCOMPARE(rw.message, path + ": its directory " + dir + " is read-only; writing needs a journal beside the file");
    chmod(path.c_str(), 0444);
    chmod(dir.c_str(), 0755);

    // A live writer (this process) on a file whose WAL index cannot be created: an immutable
    // read could see pages change under it, so it is refused with one line.
    chmod(path.c_str(), 0644);
    {
        char host[256] = {};
        gethostname(host, sizeof host - 1);
        std::string sql = "UPDATE runs SET status='writing', writer_pid=" + std::to_string(getpid()) + ", writer_host='" + host + "'";
        execSql(path, sql.c_str());
        execSql(path, "PRAGMA journal_mode=WAL");
    }
    ChildResult live = inChild(noBytesLeft, [&] { return readsAll(path); });
    QCOMPARE(live.code, 3);
    QVERIFY2(live.message.find("is writing") != std::string::npos, live.message.c_str());
    QVERIFY(live.message.find('\n') == std::string::npos);

    // A write-ahead log with content and no way to build its index: one line that says what to do.
    execSql(path, "UPDATE runs SET status='complete', writer_pid=0");
    execSql(path, "PRAGMA journal_mode=WAL");
    {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "PRAGMA wal_autocheckpoint=0; UPDATE runs SET name='in the log'", nullptr, nullptr, nullptr), SQLITE_OK);
        std::string copy = dir + "/copy.wt";
        QVERIFY(QFile::copy(QString::fromStdString(path), QString::fromStdString(copy)));
        QVERIFY(QFile::copy(QString::fromStdString(path + "-wal"), QString::fromStdString(copy + "-wal")));
        sqlite3_close(db);
        ChildResult wal = inChild(noBytesLeft, [&] { return readsAll(copy); });
        QCOMPARE(wal.code, 3);
        QVERIFY2(wal.message.find("-wal") != std::string::npos, wal.message.c_str());
        QVERIFY(wal.message.find("write failed") == std::string::npos);
        // Where the index can be built, the log is read.
        Database ok(copy, OpenMode::ReadOnly);
        QCOMPARE(Reader(ok).runs().at(0).name, std::string("in the log"));
    }
    QDir(QString::fromStdString(dir)).removeRecursively();
}

void TestStorage::damagedScopeTree_data()
{
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("needle");
    QTest::newRow("self parent") << "UPDATE scopes SET parent_id = id WHERE run_id = 2" << "own ancestor";
    QTest::newRow("two-node cycle")
        << "UPDATE scopes SET parent_id = (SELECT max(id) FROM scopes WHERE run_id = 2) WHERE id = (SELECT min(id) FROM scopes WHERE run_id = 2)"
        << "own ancestor";
    QTest::newRow("missing parent") << "UPDATE scopes SET parent_id = 999999 WHERE id = (SELECT max(id) FROM scopes WHERE run_id = 2)"
                                    << "missing parent";
    QTest::newRow("parent in another run")
        << "UPDATE scopes SET parent_id = (SELECT min(id) FROM scopes WHERE run_id = 1) WHERE id = (SELECT max(id) FROM scopes WHERE run_id = 2)"
        << "missing parent";
    QTest::newRow("wrong depth") << "UPDATE scopes SET depth = 1000000 WHERE id = (SELECT max(id) FROM scopes WHERE run_id = 2)"
                                 << "has depth";
    QTest::newRow("absurd depth")
        << "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1100) "
           "INSERT INTO scopes(id, run_id, parent_id, name_id, level_id, depth) "
           "SELECT 100000 + i, 2, CASE WHEN i = 1 THEN 0 ELSE 100000 + i - 1 END, 1, 1, i FROM n"
        << "deeper than";
}

void TestStorage::damagedScopeTree()
{
    QFETCH(QString, sql);
    QFETCH(QString, needle);
    std::string path = test::tempPath("damaged.wt");
    {
        Database db(path, OpenMode::ReadWrite);
        Expected e1, e2;
        writeRandomRun(db, 1, 100, e1);
        writeRandomRun(db, 2, 100, e2);
    }
    execSql(path, sql.toUtf8().constData());
    Database db(path, OpenMode::ReadOnly);
    Reader r(db);
    expectError([&] { r.scopes(2); }, needle.toUtf8().constData());
    expectError([&] { ScopeTree::load(r, 2); }, "run 2 is damaged");
    expectError([&] { computeRunStats(r, 2, BreakdownOptions{}); }, "run 2 is damaged");
    // The other run reads as before.
    RunStats good = computeRunStats(r, 1, BreakdownOptions{});
    QVERIFY(good.breakdown.totalNs > 0);
    QCOMPARE(r.runs().size(), size_t(2));
}

void TestStorage::damagedInstances()
{
    std::string path = test::tempPath("damagedinst.wt");
    {
        Database db(path, OpenMode::ReadWrite);
        Expected e;
        writeRandomRun(db, 1, 100, e);
    }
    auto damage = [&](std::vector<ScopeInstance> rows, const char* needle) {
        std::string blob = InstanceChunk::encode(rows);
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
        sqlite3_stmt* st = nullptr;
        QCOMPARE(sqlite3_prepare_v2(h, "UPDATE scope_instance_chunks SET data=? WHERE run_id=1", -1, &st, nullptr), SQLITE_OK);
        sqlite3_bind_blob(st, 1, blob.data(), int(blob.size()), SQLITE_TRANSIENT);
        QCOMPARE(sqlite3_step(st), SQLITE_DONE);
        sqlite3_finalize(st);
        sqlite3_close(h);
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        expectError([&] { r.scopeInstances(1); }, needle);
    };
    Database db0(path, OpenMode::ReadOnly);
    std::vector<ScopeInstance> good = Reader(db0).scopeInstances(1);
    QCOMPARE(good.size(), size_t(6));
    auto cyc = good;
    cyc[1].parentId = cyc[1].id;   // its own parent
    damage(cyc, "names parent");
    auto later = good;
    later[0].parentId = later[3].id;   // a parent that began later: a loop is possible
    damage(later, "names parent");
    auto scope = good;
    scope[2].scopeId = 424242;
    damage(scope, "missing scope");
    auto twice = good;
    twice[4].id = twice[3].id;
    damage(twice, "not unique");
}

void TestStorage::deepScopesRefused()
{
    std::string path = test::tempPath("deep.wt");
    Database db(path, OpenMode::ReadWrite);
    Writer w(db);
    RunInfo info;
    info.backend = "import";
    w.beginRun(info);
    int64_t parent = 0;
    for (int i = 1; i <= kMaxScopeDepth; ++i)
        parent = w.addScope(parent, "s", "nvtx");
    expectError([&] { w.addScope(parent, "s", "nvtx"); }, "deeper than 1024");
    w.discardRun();
}

void TestStorage::extremeTimesRefused()
{
    // Kernel starts near 9e18 overflowed the summary (the Release build stored a wrapped
    // kernel_time_ns, the sanitizer build aborted): they are refused with one line, and a run
    // whose durations add past int64 too.
    std::string path = goodFile();
    QByteArray before = fileHash(path);
    {
        Database db(path, OpenMode::ReadWrite);
        Writer w(db);
        RunInfo info;
        info.backend = "import";
        w.beginRun(info);
        int64_t t = w.addTrack(0, 1, TrackKind::Kernel);
        int64_t scope = w.addScope(0, "s", "nvtx");
        auto act = [&](int64_t s, int64_t e) {
            Activity a;
            a.trackId = t;
            a.startNs = s;
            a.endNs = e;
            w.addActivity(a);
        };
        expectError([&] { act(9'000'000'000'000'000'000, 9'000'000'000'000'000'100); }, "out of the range");
        expectError([&] { act(INT64_MIN, 5); }, "out of the range");
        expectError([&] { act(0, INT64_MAX); }, "out of the range");
        expectError([&] { w.addApiCall(ApiCall{INT64_MAX - 1, INT64_MAX, 1, 0, 0}); }, "out of the range");
        expectError([&] { w.beginScopeInstance(scope, 0, -(int64_t(1) << 62)); }, "out of the range");
        int64_t inst = w.beginScopeInstance(scope, 0, 0);
        expectError([&] { w.endScopeInstance(inst, int64_t(1) << 62); }, "out of the range");
        // In range, each; their sum is not.
        const int64_t lo = -kMaxTimeNs + 1, hi = kMaxTimeNs - 1;
        act(lo, hi);
        act(lo, hi);
        expectError([&] { act(lo, hi); }, "overflows");
        w.discardRun();
    }
    Database db(path, OpenMode::ReadOnly);
    Reader r(db);
    QCOMPARE(r.runs().size(), size_t(1));
    QVERIFY(readsAll(path));
    Q_UNUSED(before);
}

void TestStorage::corruptChunkDeltasNoOverflow()
{
    // Deltas that add past int64 in a damaged blob: an error, not signed overflow (UBSan).
    auto blobOf = [](std::initializer_list<uint64_t> values) {
        std::string out(1, char(1));
        for (uint64_t v : values)
            varint::put(out, v);
        return out;
    };
    const uint64_t big = varint::zigzag(INT64_MAX);
    std::vector<StoredActivity> rows;
    ChunkHeader h{INT64_MAX - 5, INT64_MAX, 0, 2};
    // count 2, starts, durations, kinds, names, scopes, correlations, configs, bytes, seqs
    expectError([&] { ActivityChunk::decode(blobOf({2, 0, big, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), h, rows); },
                "corrupt activity chunk");
    ChunkHeader h0{0, 10, INT64_MAX, 2};
    expectError([&] { ActivityChunk::decode(blobOf({2, 0, 2, uint64_t(INT64_MAX), 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), h0, rows); },
                "duration out of range");
    // Seq deltas past int64 wrap (defined) instead of overflowing.
    rows.clear();
    ActivityChunk::decode(blobOf({2, 0, 2, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, big, big}), h0, rows);
    QCOMPARE(rows.size(), size_t(2));
    std::vector<ScopeInstance> inst;
    expectError([&] { InstanceChunk::decode(blobOf({2, 2, 2, 2, 2, 2, 2, 0, big, 0, 0}), inst); }, "corrupt scope instance chunk");
    expectError([&] { InstanceChunk::decode(blobOf({1, 2, 2, 2, 0, big}), inst); }, "corrupt scope instance chunk");
    std::vector<ApiCall> calls;
    expectError([&] { ApiCallChunk::decode(blobOf({2, big, big, 0, 0, 0, 0, 0, 0, 0, 0}), calls); }, "corrupt API call chunk");
    expectError([&] { ApiCallChunk::decode(blobOf({1, 0, big, 0, 0, 0}), calls); }, "corrupt API call chunk");
}

void TestStorage::breakdownSumsSaturate()
{
    // Totals of a damaged (or hand-made) file can add past int64: the breakdown saturates.
    std::vector<TotalRow> totals = {{0, 1, ActivityKind::Kernel, 1, INT64_MAX - 10},
                                    {0, 2, ActivityKind::Kernel, 1, INT64_MAX - 10},
                                    {0, 3, ActivityKind::Kernel, 1, 100}};
    ScopeTree tree({}, {{1, "a"}, {2, "b"}, {3, "c"}});
    BreakdownOptions o;
    o.groupBy = GroupBy::Kernel;
    Breakdown b = computeBreakdown(totals, tree, {{1, "a"}, {2, "b"}, {3, "c"}}, o);
    QCOMPARE(b.totalNs, int64_t(INT64_MAX));
    QCOMPARE(b.groups.size(), size_t(3));
    for (const Group& g : b.groups)
        QVERIFY(g.share >= 0 && g.share <= 1);
    o.groupBy = GroupBy::Kind;
    Breakdown k = computeBreakdown(totals, tree, {}, o);
    QCOMPARE(k.groups.at(0).timeNs, int64_t(INT64_MAX));
}

QTEST_GUILESS_MAIN(TestStorage)
#include "tst_storage.moc"

