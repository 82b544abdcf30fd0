// One set of numbers everywhere: for a synthetic capture, an Nsight Systems import with NVTX
// ranges and a Kineto import (the real traces of ../shared/traces), the timeline's layer of
// every kernel (RunData), the range summary of the whole run (details panel), the breakdown
// rows, the pie slices, the table model and `wheretime stats --json` give the same groups with
// the same time and count. `wheretime stats --range` is checked against a brute-force clip
// over `wheretime export --format csv` of the same run.
#include "app/gui/breakdown/breakdownmodel.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/core/rangesummary.h"
#include "app/gui/core/rundata.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <regex>

#include <algorithm>
#include <climits>
#include <map>

using namespace wt;
using namespace wt::gui;

namespace {

struct Fig {
    int64_t timeNs = 0;
    int64_t count = 0;
    bool operator==(const Fig&) const = default;
};
using Groups = std::map<std::string, Fig>;

QString describe(const Groups& g)
{
    QString out;
    for (const auto& [k, f] : g)
        out += QStringLiteral("%1=%2/%3 ").arg(QString::fromStdString(k)).arg(f.timeNs).arg(f.count);
    return out;
}

#define COMPARE_GROUPS(actual, expected, what)                                                                  \
    do {                                                                                                        \
        const Groups a_ = (actual), e_ = (expected);                                                            \
        QVERIFY2(a_ == e_, qPrintable(QStringLiteral("%1: %2\n  expected %3").arg(QStringLiteral(what), describe(a_), describe(e_)))); \
    } while (0)

std::string nameOf(const RunData& run, uint32_t id)
{
    auto it = run.strings().find(id);
    return it == run.strings().end() ? std::string("(unnamed)") : it->second;
}

// What the timeline draws: every kernel, by the timeline's own layer index or by name.
Groups timelineGroups(const RunData& run, GroupBy g)
{
    Groups out;
    for (const TrackData& t : run.tracks) {
        if (t.kind != TrackKind::Kernel)
            continue;
        for (size_t i = 0; i < t.size(); ++i) {
            const std::string key = g == GroupBy::Layer ? run.layerNames[run.layerOf(t, i)].toStdString() : nameOf(run, t.nameId[i]);
            out[key].timeNs += t.durationNs[i];
            out[key].count += 1;
        }
    }
    return out;
}

template <class Rows>
Groups rowGroups(const Rows& rows)
{
    Groups out;
    for (const auto& r : rows)
        out[r.path] = Fig{r.timeNs, r.count};
    return out;
}

Groups pieGroups(const BreakdownResult& r)
{
    Groups out;
    for (const PieSlice& s : pieSlices(r, 0.0)) {   // threshold 0: one slice per group
        int64_t count = 0;
        for (size_t m : s.members)
            count += r.rows[m].count;
        out[s.path] = Fig{s.timeNs, count};
    }
    return out;
}

Groups tableGroups(const BreakdownModel& model)
{
    Groups out;
    for (int row = 0; row < model.rowCount(); ++row) {
        const std::string path = model.index(row, 0).data(BreakdownModel::PathRole).toString().toStdString();
        out[path] = Fig{model.index(row, BreakdownModel::TimeColumn).data(BreakdownModel::SortRole).toLongLong(),
                        model.index(row, BreakdownModel::CountColumn).data(BreakdownModel::SortRole).toLongLong()};
    }
    return out;
}

QJsonObject statsJson(const std::string& file, QStringList extra)
{
    QStringList args{QStringLiteral("stats"), QString::fromStdString(file), QStringLiteral("--json")};
    args += extra;
    auto r = test::runCli(args);
    if (r.exitCode != 0)
        qWarning("wheretime stats failed: %s", qPrintable(r.err));
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

Groups cliGroups(const QJsonObject& o)
{
    Groups out;
    for (const auto& v : o[QStringLiteral("groups")].toArray()) {
        const QJsonObject g = v.toObject();
        out[g[QStringLiteral("path")].toString().toStdString()] =
            Fig{g[QStringLiteral("time_ns")].toInteger(), g[QStringLiteral("count")].toInteger()};
    }
    return out;
}

// A CSV line of `wheretime export --format csv` (RFC 4180 quoting: test::csvFields).
QStringList splitCsv(const QString& line)
{
    QStringList out;
    for (const std::string& f : test::csvFields(line.toStdString()))
        out << QString::fromStdString(f);
    return out;
}

struct CsvRow {
    int64_t startNs, endNs;
    std::string kind, name, scopePath;
};

}  // namespace

class TstCrossCheck : public QObject {
    Q_OBJECT
private slots:
    void sameNumbersEverywhere_data();
    void sameNumbersEverywhere();
    void rangeAgainstExportedCsv_data() { sameNumbersEverywhere_data(); }
    void rangeAgainstExportedCsv();

private:
    std::string runFile(const QString& input);
    std::map<QString, std::string> m_files;
};

void TstCrossCheck::sameNumbersEverywhere_data()
{
    QTest::addColumn<QString>("input");
    QTest::newRow("synthetic capture") << QString();
    QTest::newRow("nsys NVTX import") << QStringLiteral("nsys-2026.2_h100x2_fastvideo-1s.sqlite");
    QTest::newRow("kineto import") << QStringLiteral("kineto_v100_ns-resolution.pt.trace.json.gz");
}

// The run file of an input: a synthetic run written here, or the shared trace imported by the
// CLI (once per input).
std::string TstCrossCheck::runFile(const QString& input)
{
    if (auto it = m_files.find(input); it != m_files.end())
        return it->second;
    const std::string out = test::tempPath("cross.wt");
    if (input.isEmpty()) {
        Database db(out, OpenMode::ReadWrite);
        Writer w(db);
        synth::Options o;
        o.kernels = 8000;
        o.streams = 3;
        o.layers = 4;
        o.memcpyEvery = 40;
        synth::generate(w, o);
    } else {
        const QString trace = test::sharedTrace(input);
        if (trace.isEmpty())
            return {};
        auto r = test::runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), QString::fromStdString(out)});
        if (r.exitCode != 0) {
            qWarning("import failed: %s", qPrintable(r.err));
            return {};
        }
    }
    m_files[input] = out;
    return out;
}

void TstCrossCheck::sameNumbersEverywhere()
{
    QFETCH(QString, input);
    if (!input.isEmpty() && test::sharedTrace(input).isEmpty())
        WT_MISSING_TRACE(input);
    const std::string file = runFile(input);
    QVERIFY(!file.empty());
    std::shared_ptr<const RunData> run = loadRun(file, 1);
    QVERIFY(run);
    QVERIFY(run->kernelCount > 0);
    auto source = BreakdownSource::load(run);

    for (GroupBy g : {GroupBy::Layer, GroupBy::Kernel}) {
        const Groups timeline = timelineGroups(*run, g);
        QVERIFY(!timeline.empty());
        // Details panel: the range summary of the whole run.
        const wt::RangeSummary all = summarizeRange(*run, double(run->spanStartNs), double(run->spanEndNs) + 1, SIZE_MAX);
        COMPARE_GROUPS(rowGroups(g == GroupBy::Layer ? all.layers.groups : all.kernelsByName.groups), timeline, "range summary");
        // Breakdown rows (the whole run from the stored totals), pie and table.
        const BreakdownResult result = source->compute({g, {}});
        COMPARE_GROUPS(rowGroups(result.rows), timeline, "breakdown rows");
        COMPARE_GROUPS(pieGroups(result), timeline, "pie");
        BreakdownModel model;
        model.setResult(result);
        COMPARE_GROUPS(tableGroups(model), timeline, "table");
        // The CLI.
        const QJsonObject cli = statsJson(file, {QStringLiteral("--group-by"), QString::fromLatin1(toString(g).data())});
        COMPARE_GROUPS(cliGroups(cli), timeline, "wheretime stats --json");
        QCOMPARE(cli[QStringLiteral("total_ns")].toInteger(), result.totalNs);
        // Distributions: the table's and the CLI's agree too.
        for (const auto& v : cli[QStringLiteral("groups")].toArray()) {
            const QJsonObject o = v.toObject();
            auto row = std::find_if(result.rows.begin(), result.rows.end(),
                                    [&](const BreakdownRow& r) { return r.path == o[QStringLiteral("path")].toString().toStdString(); });
            QVERIFY(row != result.rows.end());
            QVERIFY(row->hasDistribution);
            QCOMPARE(o[QStringLiteral("median_ns")].toInteger(), row->medianNs);
            QCOMPARE(o[QStringLiteral("min_ns")].toInteger(), row->minNs);
            QCOMPARE(o[QStringLiteral("max_ns")].toInteger(), row->maxNs);
        }
    }
    // Imports without a layer level: the timeline's layer is the outermost range that is not a
    // step (a step is never a layer), as the pie's.
    if (!input.isEmpty() && !run->profile->tree.hasLevel("layer")) {
        const ScopeTree& tree = run->profile->tree;
        for (const ScopeNodeData& n : run->nodes) {
            std::string want = kNoLayer;
            for (int64_t id = n.id; id != 0; id = tree.node(id).parentId)
                if (tree.level(id) != "step")
                    want = tree.name(id);
            QCOMPARE(run->layerNames[n.layerIndex].toStdString(), want);
        }
    }
}

namespace {

// The layer rule on an exported scope path: its first component that is not a profiler step
// (the imports' steps; a step is never a layer), "(no layer)" when there is none.
std::string layerOfPath(const std::string& path)
{
    if (path.empty())
        return kNoScope;
    static const std::regex step(R"(ProfilerStep#\d+)");
    size_t at = 0;
    while (at <= path.size()) {
        const size_t slash = std::min(path.find('/', at), path.size());
        const std::string part = path.substr(at, slash - at);
        if (!std::regex_match(part, step))
            return part;
        at = slash + 1;
    }
    return kNoLayer;
}

}  // namespace

void TstCrossCheck::rangeAgainstExportedCsv()
{
    QFETCH(QString, input);
    if (!input.isEmpty() && test::sharedTrace(input).isEmpty())
        WT_MISSING_TRACE(input);
    const std::string file = runFile(input);
    QVERIFY(!file.empty());
    const QString csvPath = QString::fromStdString(test::tempPath("cross.csv"));
    auto ex = test::runCli({QStringLiteral("export"), QString::fromStdString(file), QStringLiteral("--format"),
                            QStringLiteral("csv"), QStringLiteral("-o"), csvPath});
    QVERIFY2(ex.exitCode == 0, qPrintable(ex.err));
    QFile f(csvPath);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const QStringList header = splitCsv(lines.front());
    const auto col = [&](const char* name) { return header.indexOf(QString::fromLatin1(name)); };
    const qsizetype cStart = col("start_ns"), cEnd = col("end_ns"), cKind = col("kind"), cName = col("name"),
                    cPath = col("scope_path");
    QVERIFY(cStart >= 0 && cEnd >= 0 && cKind >= 0 && cName >= 0 && cPath >= 0);
    std::vector<CsvRow> rows;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QStringList f = splitCsv(lines[i]);
        CsvRow r{f[cStart].toLongLong(), f[cEnd].toLongLong(), f[cKind].toStdString(), f[cName].toStdString(),
                 f[cPath].toStdString()};
        first = std::min(first, r.startNs);
        last = std::max(last, r.endNs);
        rows.push_back(std::move(r));
    }
    QVERIFY(rows.size() > 1);

    // Layers from the CSV's scope paths need the layer rule of a run without layer levels
    // (the top-level range); the synthetic run has levels, which the CSV does not carry.
    std::vector<GroupBy> groupings{GroupBy::Kernel, GroupBy::Kind};
    if (!input.isEmpty())
        groupings.push_back(GroupBy::Layer);
    const int64_t span = last - first;
    // One time 0 for every output: times copied from the CSV export, as they are, select in
    // `stats --range` exactly the activities they select in the CSV. Ranges in ns and with
    // units, one past the end, and one kernel's own start and end copied from its row.
    const int64_t a = first + span / 3, b = first + span / 2, c = first + span / 10000, d = first + span / 1000 * 7;
    const CsvRow* kernel = nullptr;
    for (size_t i = rows.size() / 2; i < rows.size() && !kernel; ++i)
        if (rows[i].kind == "kernel" && rows[i].endNs > rows[i].startNs)
            kernel = &rows[i];
    QVERIFY(kernel);
    const std::vector<std::pair<QString, std::pair<int64_t, int64_t>>> ranges = {
        {QStringLiteral("%1:%2").arg(a).arg(b), {a, b}},
        {QStringLiteral("0:%1").arg(last + 5), {0, last + 5}},
        {QStringLiteral("%1us:%2us").arg(double(c) / 1000.0, 0, 'f', 3).arg(double(d) / 1000.0, 0, 'f', 3), {c, d}},
        {QStringLiteral("%1:%2").arg(kernel->startNs).arg(kernel->endNs), {kernel->startNs, kernel->endNs}},
    };
    for (const auto& [text, r] : ranges) {
        const int64_t t0 = r.first, t1 = r.second;
        for (GroupBy g : groupings) {
            std::map<std::string, std::vector<int64_t>> want;
            for (const CsvRow& a : rows) {
                if (g != GroupBy::Kind && a.kind != "kernel")
                    continue;
                int64_t in = 0;
                if (a.endNs == a.startNs) {
                    if (a.startNs < t0 || a.startNs >= t1)
                        continue;
                } else {
                    in = std::min(a.endNs, t1) - std::max(a.startNs, t0);
                    if (in <= 0)
                        continue;
                }
                std::string key = g == GroupBy::Kind ? a.kind : g == GroupBy::Kernel ? a.name : layerOfPath(a.scopePath);
                want[key].push_back(in);
            }
            const QJsonObject o = statsJson(file, {QStringLiteral("--range"), text, QStringLiteral("--group-by"),
                                                   QString::fromLatin1(toString(g).data())});
            const QJsonArray groups = o[QStringLiteral("groups")].toArray();
            QVERIFY2(size_t(groups.size()) == want.size(),
                     qPrintable(QStringLiteral("%1 by %2: %3 groups, expected %4").arg(text, QString::fromLatin1(toString(g).data())).arg(groups.size()).arg(want.size())));
            for (const auto& v : groups) {
                const QJsonObject gr = v.toObject();
                const std::string path = gr[QStringLiteral("path")].toString().toStdString();
                QVERIFY2(want.count(path), path.c_str());
                std::vector<int64_t>& d = want[path];
                std::sort(d.begin(), d.end());
                int64_t sum = 0;
                for (int64_t x : d)
                    sum += x;
                QCOMPARE(gr[QStringLiteral("time_ns")].toInteger(), sum);
                QCOMPARE(gr[QStringLiteral("count")].toInteger(), qint64(d.size()));
                QCOMPARE(gr[QStringLiteral("min_ns")].toInteger(), d.front());
                QCOMPARE(gr[QStringLiteral("max_ns")].toInteger(), d.back());
                QCOMPARE(gr[QStringLiteral("median_ns")].toInteger(), d[(d.size() - 1) / 2]);
            }
        }
    }
}

QTEST_MAIN(TstCrossCheck)
#include "tst_crosscheck.moc"
