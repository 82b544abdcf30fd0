// The held-out error beside a prediction (issue 30 item 5) over real tiny CPU captures: a gcn
// sweep (hidden 8, 16 x variant full, adaptive), one transformer run, a calibration, a fitted
// predictor and the sweep's predicted twin made with it. The figures of `wheretime sweep`
// (--json's held_out, --errors --csv) and of the scaling view (its held-out table and the line
// that quotes it) are each checked against the one analysis table (analysis/heldouterror.h)
// computed here from the file; a run of the sweep whose measured times are poisoned (x4, in its
// activity chunks) changes that table, the CLI's and the view's figures with it, while the
// poisoned run's own predictions stay as they were (it is held out with its workload).
#include "analysis/heldouterror.h"
#include "app/gui/core/tablemodel.h"
#include "app/gui/variants/scalingview.h"
#include "render/tablewriter.h"
#include "storage/activitychunk.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include <sqlite3.h>

using namespace wt;
using namespace wt::gui;
using test::runCli;

namespace {

struct Analysis {
    HeldOutError error;
    Table table;
    std::vector<int64_t> sweepRuns;
};

// The one table, straight from analysis/ (what both the CLI and the view must show).
Analysis analysisOf(const QString& file, std::optional<HoldOut> holdOut = std::nullopt)
{
    Database db(file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    const std::vector<SweepInfo> sweeps = listSweeps(reader);
    const SweepInfo measured = loadSweep(reader, {}).sweep;
    const auto twin = predictedTwin(sweeps, measured);
    if (!twin)
        throw std::runtime_error("no twin");
    HeldOutErrorOptions o = heldOutOptionsFor(db, reader, *twin);
    o.holdOut = holdOut;
    Analysis a;
    a.error = computeHeldOutError(loadEvaluationInput(db, file.toStdString()), o);
    a.sweepRuns = measured.runIds;
    a.table = heldOutErrorTable(a.error, {}, a.sweepRuns);
    return a;
}

// The JSON rows of `wheretime sweep FILE --json`'s held_out against the table, cell by cell
// (the writer writes the shortest round-trip text of a double, so equality is exact).
QString jsonMismatch(const QJsonArray& rows, const Table& t)
{
    if (size_t(rows.size()) != t.rows.size())
        return QStringLiteral("%1 rows, the table %2").arg(rows.size()).arg(t.rows.size());
    for (size_t r = 0; r < t.rows.size(); ++r) {
        const QJsonObject o = rows[int(r)].toObject();
        for (size_t c = 0; c < t.columns.size(); ++c) {
            const Cell& cell = t.rows[r][c];
            const QJsonValue v = o.value(QString::fromStdString(t.columns[c].id));
            bool same = false;
            if (const auto* d = std::get_if<double>(&cell))
                same = v.isDouble() && v.toDouble() == *d;
            else if (const auto* i = std::get_if<int64_t>(&cell))
                same = v.isDouble() && v.toInteger() == *i;
            else if (const auto* s = std::get_if<std::string>(&cell))
                same = v.toString() == QString::fromStdString(*s);
            else
                same = v.isNull();
            if (!same)
                return QStringLiteral("row %1 column %2").arg(r).arg(QString::fromStdString(t.columns[c].id));
        }
    }
    return {};
}

QJsonObject cliHeldOut(const QString& file)
{
    auto r = runCli({QStringLiteral("sweep"), file, QStringLiteral("--json")});
    if (r.exitCode != 0)
        return {};
    return QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("held_out")).toObject();
}

bool loadAndWait(ScalingView& view, const QString& file)
{
    QSignalSpy ready(&view, &ScalingView::ready);
    QSignalSpy failed(&view, &ScalingView::failed);
    view.load(file);
    for (int i = 0; i < 1200 && ready.isEmpty() && failed.isEmpty(); ++i)
        QTest::qWait(100);
    return !ready.isEmpty();
}

// Multiplies the duration of every activity of `run` by `factor`, in its stored chunks.
bool poisonRun(const QString& file, int64_t run, int64_t factor)
{
    Database db(file.toStdString(), OpenMode::ReadWrite);
    sqlite3* h = db.handle();
    sqlite3_stmt* sel = nullptr;
    sqlite3_stmt* upd = nullptr;
    if (sqlite3_prepare_v2(h,
                           "SELECT c.id, c.start_ns, c.end_ns, c.first_seq, c.count, c.data FROM activity_chunks c "
                           "JOIN tracks t ON t.id = c.track_id WHERE t.run_id = ?1",
                           -1, &sel, nullptr) != SQLITE_OK ||
        sqlite3_prepare_v2(h, "UPDATE activity_chunks SET data = ?1, end_ns = ?2 WHERE id = ?3", -1, &upd, nullptr) != SQLITE_OK)
        return false;
    sqlite3_bind_int64(sel, 1, run);
    struct Chunk { int64_t id; ChunkHeader header; std::string blob; };
    std::vector<Chunk> chunks;
    while (sqlite3_step(sel) == SQLITE_ROW) {
        Chunk c;
        c.id = sqlite3_column_int64(sel, 0);
        c.header = {sqlite3_column_int64(sel, 1), sqlite3_column_int64(sel, 2), sqlite3_column_int64(sel, 3), sqlite3_column_int64(sel, 4)};
        c.blob.assign(static_cast<const char*>(sqlite3_column_blob(sel, 5)), size_t(sqlite3_column_bytes(sel, 5)));
        chunks.push_back(std::move(c));
    }
    sqlite3_finalize(sel);
    for (Chunk& c : chunks) {
        std::vector<StoredActivity> rows;
        ActivityChunk::decode(c.blob, c.header, rows);
        for (StoredActivity& a : rows)
            a.durationNs *= factor;
        ChunkHeader header;
        const std::string blob = ActivityChunk::encode(rows, header);
        sqlite3_reset(upd);
        sqlite3_bind_blob(upd, 1, blob.data(), int(blob.size()), SQLITE_TRANSIENT);
        sqlite3_bind_int64(upd, 2, header.endNs);
        sqlite3_bind_int64(upd, 3, c.id);
        if (sqlite3_step(upd) != SQLITE_DONE)
            return false;
    }
    sqlite3_finalize(upd);
    return !chunks.empty();
}

double cellDouble(const Table& t, size_t row, const char* id)
{
    return std::get<double>(t.at(row, id));
}

size_t rowOf(const Table& t, const std::string& errorOf, const std::string& layer = {})
{
    for (size_t r = 0; r < t.rows.size(); ++r)
        if (std::get<std::string>(t.at(r, kHeldOutErrorOfColumn)) == errorOf && std::get<std::string>(t.at(r, kHeldOutLayerColumn)) == layer)
            return r;
    return Table::npos;
}

}  // namespace

class TestHeldOutView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cliAndViewShowTheOneTable();
    void layerLineQuotesTheTable();
    void holdOutChooser();
    void poisonedRunMovesEveryFigure();

private:
    QString m_file;
};

void TestHeldOutView::initTestCase()
{
    m_file = QFileInfo(QString::fromStdString(test::tempPath("heldout.wt"))).absoluteFilePath();
    QFile::remove(m_file);
    auto run = [](const QStringList& args) {
        auto r = runCli(args, 600000);
        QVERIFY2(r.exitCode == 0, qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.err));
    };
    run({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"), QStringLiteral("tiny"),
         QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--sweep"),
         QStringLiteral("hidden=8,16"), QStringLiteral("--sweep"), QStringLiteral("variant=full,adaptive"), QStringLiteral("-o"), m_file});
    run({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("transformer"), QStringLiteral("--preset"),
         QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("2"),
         QStringLiteral("-o"), m_file});
    run({QStringLiteral("calibrate"), m_file});
    run({QStringLiteral("predict"), QStringLiteral("--fit"), m_file, QStringLiteral("--name"), QStringLiteral("fitted")});
    run({QStringLiteral("predict"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"), QStringLiteral("tiny"),
         QStringLiteral("--sweep"), QStringLiteral("hidden=8,16"), QStringLiteral("--sweep"), QStringLiteral("variant=full,adaptive"),
         QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--model"), QStringLiteral("fitted"), QStringLiteral("-o"), m_file});
}

void TestHeldOutView::cliAndViewShowTheOneTable()
{
    const Analysis a = analysisOf(m_file);
    QCOMPARE(a.error.holdOut, HoldOut::Workload);   // two workloads: the widest split
    QCOMPARE(a.error.predictor, std::string("fitted"));
    QCOMPARE(a.error.model, PredictorKind::Regression);
    QCOMPARE(a.sweepRuns.size(), size_t(4));
    const size_t step = rowOf(a.table, "step"), softmax = rowOf(a.table, "layer", "softmax");
    QVERIFY(step != Table::npos && softmax != Table::npos);
    QCOMPARE(std::get<int64_t>(a.table.at(step, kHeldOutPairsColumn)), int64_t(4));   // the sweep's runs only
    QVERIFY(std::isfinite(cellDouble(a.table, step, kHeldOutMapeModelColumn)));

    const QJsonObject cli = cliHeldOut(m_file);
    QCOMPARE(cli.value(QStringLiteral("hold_out")).toString(), QStringLiteral("workload"));
    QCOMPARE(cli.value(QStringLiteral("predictor")).toString(), QStringLiteral("fitted"));
    const QString cliDiff = jsonMismatch(cli.value(QStringLiteral("rows")).toArray(), a.table);
    QVERIFY2(cliDiff.isEmpty(), qPrintable(cliDiff));
    auto csv = runCli({QStringLiteral("sweep"), m_file, QStringLiteral("--errors"), QStringLiteral("--csv")});
    QCOMPARE(csv.exitCode, 0);
    QCOMPARE(csv.out.toStdString(), render::csv(a.table));

    ScalingView view;
    QVERIFY(loadAndWait(view, m_file));
    QVERIFY(view.heldOut());
    QCOMPARE(view.layer(), QStringLiteral("softmax"));   // a grid with variant starts at one layer
    QCOMPARE(view.heldOutModel()->table().rows, heldOutErrorTable(a.error, "softmax", a.sweepRuns).rows);
    view.setLayer(QString());   // every layer
    const Table& shown = view.heldOutModel()->table();
    QCOMPARE(shown.rows, a.table.rows);
    QCOMPARE(view.heldOutModel()->toCsv().toStdString(), render::csv(a.table));
}

void TestHeldOutView::layerLineQuotesTheTable()
{
    const Analysis a = analysisOf(m_file);
    ScalingView view;
    QVERIFY(loadAndWait(view, m_file));
    view.setLayer(QStringLiteral("softmax"));
    const Table softmaxOnly = heldOutErrorTable(a.error, "softmax", a.sweepRuns);
    QCOMPARE(view.heldOutModel()->table().rows, softmaxOnly.rows);
    // The line quotes the softmax and step rows as the writer renders them.
    const std::string text = render::text(softmaxOnly);
    const size_t r = rowOf(softmaxOnly, "layer", "softmax");
    const QString mape = view.heldOutModel()->data(view.heldOutModel()->index(int(r), int(softmaxOnly.column(kHeldOutMapeModelColumn)))).toString();
    QVERIFY(!mape.isEmpty());
    QVERIFY(text.find(mape.toStdString()) != std::string::npos);
    const QString line = view.heldOutLabel()->text();
    QVERIFY2(line.contains(QStringLiteral("softmax ") + mape), qPrintable(line));
    QVERIFY2(line.contains(QStringLiteral("held out by workload")), qPrintable(line));
    QVERIFY2(line.contains(QStringLiteral("fitted")), qPrintable(line));
}

void TestHeldOutView::holdOutChooser()
{
    ScalingView view;
    QVERIFY(loadAndWait(view, m_file));
    QComboBox* box = view.holdOutChooser();
    QStringList items;
    for (int i = 0; i < box->count(); ++i)
        items << box->itemText(i);
    QCOMPARE(items, (QStringList {QStringLiteral("workload"), QStringLiteral("variant"), QStringLiteral("run")}));
    QCOMPARE(box->currentText(), QStringLiteral("workload"));
    view.setLayer(QString());
    QSignalSpy ready(&view, &ScalingView::ready);
    view.setHoldOut(HoldOut::Run);
    QVERIFY(ready.wait(120000));
    QCOMPARE(view.heldOut()->holdOut, HoldOut::Run);
    QCOMPARE(box->currentText(), QStringLiteral("run"));
    QCOMPARE(view.heldOutModel()->table().rows, analysisOf(m_file, HoldOut::Run).table.rows);
    auto r = runCli({QStringLiteral("sweep"), m_file, QStringLiteral("--errors"), QStringLiteral("--hold-out"), QStringLiteral("run"),
                     QStringLiteral("--csv")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, view.heldOutModel()->toCsv());
    auto bad = runCli({QStringLiteral("sweep"), m_file, QStringLiteral("--hold-out"), QStringLiteral("layer")});
    QVERIFY(bad.exitCode != 0);
    QVERIFY(bad.err.contains(QStringLiteral("--hold-out takes")));
    auto one = runCli({QStringLiteral("sweep"), m_file, QStringLiteral("--errors"), QStringLiteral("--hold-out"), QStringLiteral("preset")});
    QCOMPARE(one.exitCode, 1);   // every run is tiny: one group
    QCOMPARE(one.err.trimmed().count(QLatin1Char('\n')), 0);
}

void TestHeldOutView::poisonedRunMovesEveryFigure()
{
    const Analysis before = analysisOf(m_file);
    const QString poisoned = QFileInfo(QString::fromStdString(test::tempPath("heldout-poisoned.wt"))).absoluteFilePath();
    QFile::remove(poisoned);
    QVERIFY(QFile::copy(m_file, poisoned));
    const int64_t victim = before.sweepRuns.front();
    QVERIFY(poisonRun(poisoned, victim, 4));
    const Analysis after = analysisOf(poisoned);

    // The victim is held out with gcn: the fit never saw its times, so its predictions are the
    // same; its measured times are 4x, so every figure over the sweep moves.
    size_t compared = 0;
    for (const LayerPrediction& b : before.error.evaluation.layers)
        for (const LayerPrediction& p : after.error.evaluation.layers)
            if (b.runId == victim && p.runId == victim && b.layer == p.layer) {
                QCOMPARE(p.modelNs, b.modelNs);
                QVERIFY(std::abs(p.measuredNs - 4 * b.measuredNs) <= 1e-6 * p.measuredNs);
                ++compared;
            }
    QVERIFY(compared > 0);
    const size_t step = rowOf(before.table, "step");
    QVERIFY(cellDouble(after.table, step, kHeldOutMapeModelColumn) != cellDouble(before.table, step, kHeldOutMapeModelColumn));
    QVERIFY(after.table.rows != before.table.rows);

    const QJsonArray cliRows = cliHeldOut(poisoned).value(QStringLiteral("rows")).toArray();
    QVERIFY2(jsonMismatch(cliRows, after.table).isEmpty(), qPrintable(jsonMismatch(cliRows, after.table)));
    QVERIFY(!jsonMismatch(cliRows, before.table).isEmpty());
    ScalingView view;
    QVERIFY(loadAndWait(view, poisoned));
    view.setLayer(QString());
    QCOMPARE(view.heldOutModel()->table().rows, after.table.rows);
    QVERIFY(view.heldOutModel()->table().rows != before.table.rows);
}

QTEST_MAIN(TestHeldOutView)
#include "tst_heldoutview.moc"
