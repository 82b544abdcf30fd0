// Reader's bulk decode paths: scope instances placed by id - first id (dense runs) give exactly
// what decoding every chunk and sorting by id gives, for several runs in one file, a run whose
// ids do not start at 1, a run with holes (the sorted fallback) and damaged ones; decoding on
// several threads gives the same instances and activities as one thread.
#include "storage/activitychunk.h"
#include "storage/database.h"
#include "storage/instancechunk.h"
#include "storage/reader.h"
#include "storage/statement.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QTest>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <tuple>

using namespace wt;

namespace {

bool same(const ScopeInstance& a, const ScopeInstance& b)
{
    return std::tie(a.id, a.scopeId, a.parentId, a.startNs, a.endNs, a.threadId) ==
           std::tie(b.id, b.scopeId, b.parentId, b.startNs, b.endNs, b.threadId);
}

// The reference: every chunk of the run decoded, sorted by id (what the reader did before).
std::vector<ScopeInstance> bruteForce(Database& db, int64_t runId)
{
    std::vector<ScopeInstance> out;
    Statement s(db.handle(), "SELECT data FROM scope_instance_chunks WHERE run_id=?");
    s.bind(1, runId);
    while (s.step())
        InstanceChunk::decode(s.blob(0), out);
    std::sort(out.begin(), out.end(), [](const ScopeInstance& a, const ScopeInstance& b) { return a.id < b.id; });
    return out;
}

// Every block the bulk form hands over, placed by the layout it announced.
std::vector<ScopeInstance> viaBlocks(const Reader& r, int64_t runId, int threads, Reader::InstanceLayout* layoutOut = nullptr)
{
    std::vector<ScopeInstance> out;
    Reader::InstanceLayout layout;
    std::mutex m;
    r.forEachScopeInstanceBlock(
        runId,
        [&](const Reader::InstanceLayout& l) {
            layout = l;
            out.resize(l.count);
        },
        [&](const ScopeInstance* rows, size_t n) {
            std::lock_guard<std::mutex> lock(m);   // only to check that slots never collide
            for (size_t i = 0; i < n; ++i) {
                const size_t slot = layout.dense ? size_t(rows[i].id - layout.firstId) : i;
                if (slot >= out.size() || out[slot].id != 0)
                    throw std::runtime_error("slot " + std::to_string(slot) + " given twice or out of range");
                out[slot] = rows[i];
            }
        },
        threads);
    if (layoutOut)
        *layoutOut = layout;
    return out;
}

void compare(const std::vector<ScopeInstance>& got, const std::vector<ScopeInstance>& want)
{
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
        QVERIFY2(same(got[i], want[i]), qPrintable(QStringLiteral("instance %1 differs").arg(i)));
}

// Rewrites every instance chunk of the run through `edit` (ids, index columns recomputed).
template <class Edit>
void rewriteChunks(const std::string& path, int64_t runId, Edit edit, bool keepIndex = false)
{
    Database db(path, OpenMode::ReadWrite);
    std::vector<std::pair<int64_t, std::vector<ScopeInstance>>> chunks;
    {
        Statement s(db.handle(), "SELECT id, data FROM scope_instance_chunks WHERE run_id=? ORDER BY id");
        s.bind(1, runId);
        while (s.step()) {
            chunks.emplace_back(s.int64(0), std::vector<ScopeInstance>());
            InstanceChunk::decode(s.blob(1), chunks.back().second);
        }
    }
    for (auto& [id, rows] : chunks) {
        for (ScopeInstance& si : rows)
            edit(si);
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (const ScopeInstance& si : rows) {
            lo = std::min(lo, si.id);
            hi = std::max(hi, si.id);
        }
        const std::string blob = InstanceChunk::encode(rows);
        if (keepIndex) {
            Statement u(db.handle(), "UPDATE scope_instance_chunks SET data=? WHERE id=?");
            u.bindBlobNoCopy(1, blob.data(), blob.size()).bind(2, id).run();
        } else {
            Statement u(db.handle(), "UPDATE scope_instance_chunks SET data=?, first_id=?, last_id=? WHERE id=?");
            u.bindBlobNoCopy(1, blob.data(), blob.size()).bind(2, lo).bind(3, hi).bind(4, id).run();
        }
    }
}

std::string threeRuns(const std::string& name, std::vector<int64_t>& runs)
{
    const std::string path = test::tempPath(name);
    Database db(path, OpenMode::ReadWrite);
    Writer w(db);
    runs.clear();
    for (uint64_t seed : {1, 2, 3}) {
        synth::Options o;
        o.kernels = 30000 + int64_t(seed) * 7001;   // several chunks of 4,096 instances, the last one partial
        o.seed = seed;
        o.layers = 3;
        runs.push_back(synth::generate(w, o).runId);
    }
    return path;
}

}  // namespace

class TstDenseInstances : public QObject {
    Q_OBJECT
private slots:
    void damagedFilesFromTheFuzzer()
    {
        // Files fuzz_wtfile found (tests/data/wt-fuzz-regressions): duplicate-scope-ids.wt has a
        // damaged b-tree that reads scope 1 twice, so `ORDER BY id` did not end at the largest
        // id and the scope table was written past its end. Reading every run must either work
        // or fail with one StorageError line (ASan catches the rest).
        QDir dir(wt::test::sourcePath(QStringLiteral("tests/data/wt-fuzz-regressions")));
        const QStringList files = dir.entryList(QDir::Files);
        QVERIFY(!files.isEmpty());
        for (const QString& f : files) {
            try {
                Database db(dir.filePath(f).toStdString(), OpenMode::ReadOnly);
                Reader r(db);
                for (const RunInfo& run : r.runs()) {
                    try {
                        (void)r.scopeInstances(run.id);
                    } catch (const StorageError& e) {
                        QVERIFY2(std::string(e.what()).find('\n') == std::string::npos, e.what());
                    }
                }
            } catch (const StorageError& e) {
                QVERIFY2(std::string(e.what()).find('\n') == std::string::npos, e.what());
            }
        }
    }
    void densePlacementEqualsSortedPath()
    {
        std::vector<int64_t> runs;
        const std::string path = threeRuns("dense3.wt", runs);
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        for (int64_t run : runs) {
            const auto want = bruteForce(db, run);
            QVERIFY(want.size() > 3 * InstanceChunk::kMaxInstances);
            QCOMPARE(want.front().id, int64_t(1));   // every run of the file numbers its own from 1
            for (int threads : {1, 2, 4}) {
                compare(r.scopeInstances(run, threads), want);
                Reader::InstanceLayout l;
                compare(viaBlocks(r, run, threads, &l), want);
                QVERIFY(l.dense);
                QCOMPARE(l.firstId, int64_t(1));
                QCOMPARE(l.count, want.size());
            }
            // The chunks hold instances in the order they ended, not by id: placement did work.
            Statement s(db.handle(), "SELECT data FROM scope_instance_chunks WHERE run_id=? ORDER BY id");
            s.bind(1, run);
            std::vector<ScopeInstance> stored;
            while (s.step())
                InstanceChunk::decode(s.blob(0), stored);
            QVERIFY(!std::is_sorted(stored.begin(), stored.end(),
                                    [](const ScopeInstance& a, const ScopeInstance& b) { return a.id < b.id; }));
        }
    }

    void denseIdsNotFromOne()
    {
        std::vector<int64_t> runs;
        const std::string path = threeRuns("dense-offset.wt", runs);
        rewriteChunks(path, runs[1], [](ScopeInstance& si) {
            si.id += 1000000;
            if (si.parentId)
                si.parentId += 1000000;
        });
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        const auto want = bruteForce(db, runs[1]);
        QCOMPARE(want.front().id, int64_t(1000001));
        for (int threads : {1, 2}) {
            Reader::InstanceLayout l;
            compare(viaBlocks(r, runs[1], threads, &l), want);
            QVERIFY(l.dense);
            QCOMPARE(l.firstId, int64_t(1000001));
            compare(r.scopeInstances(runs[1], threads), want);
        }
        compare(r.scopeInstances(runs[0]), bruteForce(db, runs[0]));   // its neighbours read as before
        compare(r.scopeInstances(runs[2]), bruteForce(db, runs[2]));
    }

    void holesTakeTheSortedPath()
    {
        std::vector<int64_t> runs;
        const std::string path = threeRuns("holes.wt", runs);
        {
            // A writer killed before its last chunk: instances missing in the middle of the ids.
            Database db(path, OpenMode::ReadWrite);
            db.exec(std::string("DELETE FROM scope_instance_chunks WHERE id = (SELECT min(id) + 1 FROM scope_instance_chunks WHERE run_id=" +
                    std::to_string(runs[2]) + ")")
                        .c_str());
        }
        // Ids with gaps everywhere (every other id), index kept consistent: not dense either.
        rewriteChunks(path, runs[0], [](ScopeInstance& si) {
            si.id *= 2;
            si.parentId *= 2;
        });
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        for (int64_t run : {runs[0], runs[2]}) {
            const auto want = bruteForce(db, run);
            for (int threads : {1, 2}) {
                Reader::InstanceLayout l;
                compare(viaBlocks(r, run, threads, &l), want);
                QVERIFY(!l.dense);
                QCOMPARE(l.count, want.size());
                QCOMPARE(l.firstId, want.front().id);
                compare(r.scopeInstances(run, threads), want);
            }
        }
        compare(r.scopeInstances(runs[1], 2), bruteForce(db, runs[1]));
    }

    void damagedDenseRunsRefused_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("needle");
        QTest::newRow("id repeated in another chunk") << 0 << QStringLiteral("not unique");
        QTest::newRow("id outside the index's range") << 1 << QStringLiteral("outside the ids 1..");
        QTest::newRow("parent after the instance") << 2 << QStringLiteral("names parent");
        QTest::newRow("missing scope") << 3 << QStringLiteral("names a missing scope");
    }
    void damagedDenseRunsRefused()
    {
        QFETCH(int, kind);
        QFETCH(QString, needle);
        std::vector<int64_t> runs;
        const std::string path = threeRuns("damaged-dense.wt", runs);
        bool done = false;
        rewriteChunks(
            path, runs[1],
            [&](ScopeInstance& si) {
                if (done || si.id < 5000 || (kind == 0 && si.parentId >= si.id - 1))
                    return;
                done = true;
                if (kind == 0)
                    si.id -= 1;   // that id is taken; the count still fills the range
                else if (kind == 1)
                    si.id = 99999999;
                else if (kind == 2)
                    si.parentId = si.id + 1;
                else
                    si.scopeId = 424242;
            },
            /*keepIndex=*/true);
        QVERIFY(done);
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        for (int threads : {1, 2}) {
            try {
                r.scopeInstances(runs[1], threads);
                QFAIL("a damaged run was read");
            } catch (const StorageError& e) {
                const QString what = QString::fromUtf8(e.what());
                QVERIFY2(what.contains(needle) && what.contains(QStringLiteral("run %1 is damaged").arg(runs[1])),
                         qPrintable(what));
            }
        }
        compare(r.scopeInstances(runs[0], 2), bruteForce(db, runs[0]));   // the others still read
    }

    void parallelActivityDecodeSameAsOneThread()
    {
        std::vector<int64_t> runs;
        const std::string path = threeRuns("acts.wt", runs);
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        for (int64_t run : runs) {
            auto collect = [&](int threads, size_t stopAfter) {
                std::vector<std::pair<int64_t, StoredActivity>> out;
                size_t blocks = 0;
                r.forEachActivityBlock(
                    run,
                    [&](const Track& t, const StoredActivity* rows, size_t n) {
                        for (size_t i = 0; i < n; ++i)
                            out.emplace_back(t.id, rows[i]);
                        return ++blocks < stopAfter;
                    },
                    threads);
                return out;
            };
            const auto one = collect(1, SIZE_MAX);
            QVERIFY(one.size() > 30000);
            for (size_t stop : {size_t(3), SIZE_MAX}) {   // stopping early leaves no thread behind
                const auto want = stop == SIZE_MAX ? one : collect(1, stop);
                const auto two = collect(2, stop);
                QCOMPARE(two.size(), want.size());
                for (size_t i = 0; i < two.size(); ++i) {
                    const StoredActivity &a = two[i].second, &b = want[i].second;
                    QVERIFY(two[i].first == want[i].first);
                    QVERIFY(std::tie(a.startNs, a.durationNs, a.scopeInstanceId, a.correlationId, a.bytes, a.seq, a.configId,
                                     a.nameId, a.kind) == std::tie(b.startNs, b.durationNs, b.scopeInstanceId, b.correlationId,
                                                                   b.bytes, b.seq, b.configId, b.nameId, b.kind));
                }
            }
        }
    }

    void prepareSeesEveryBlockInOrderFirst()
    {
        std::vector<int64_t> runs;
        const std::string path = threeRuns("prepare.wt", runs);
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        // `prepared` is read only after the call: the decoding thread may run ahead of `seen`.
        for (int threads : {1, 2}) {
            std::vector<std::pair<int64_t, int64_t>> prepared, seen;   // (track, first seq) per block
            r.forEachActivityBlock(
                runs[0],
                [&](const Track& t, const StoredActivity* rows, size_t) {
                    seen.emplace_back(t.id, rows[0].seq);
                    return true;
                },
                threads,
                [&](const Track& t, const StoredActivity* rows, size_t) { prepared.emplace_back(t.id, rows[0].seq); });
            QVERIFY(seen.size() > 10);
            QCOMPARE(prepared, seen);
        }
        // What `prepare` throws reaches the caller, and no thread is left behind.
        for (int threads : {1, 2}) {
            size_t calls = 0;
            QVERIFY_THROWS_EXCEPTION(std::runtime_error, r.forEachActivityBlock(
                runs[0], [&](const Track&, const StoredActivity*, size_t) { return true; }, threads,
                [&](const Track&, const StoredActivity*, size_t) {
                    if (++calls == 5)
                        throw std::runtime_error("stop");
                }));
        }
    }

    void damagedActivityChunkRefusedOnTheDecodeThread()
    {
        std::vector<int64_t> runs;
        const std::string path = threeRuns("acts-damaged.wt", runs);
        {
            Database db(path, OpenMode::ReadWrite);
            db.exec(std::string("UPDATE activity_chunks SET data = X'09' || substr(data, 2) WHERE id = (SELECT max(c.id) FROM activity_chunks c "
                    "JOIN tracks t ON t.id = c.track_id WHERE t.run_id = " + std::to_string(runs[1]) + ")")
                        .c_str());
        }
        Database db(path, OpenMode::ReadOnly);
        Reader r(db);
        for (int threads : {1, 2}) {
            try {
                r.forEachActivityBlock(runs[1], [](const Track&, const StoredActivity*, size_t) { return true; }, threads);
                QFAIL("a damaged chunk was read");
            } catch (const StorageError& e) {
                QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("run %1 is damaged").arg(runs[1])), e.what());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TstDenseInstances)
#include "tst_denseinstances.moc"
