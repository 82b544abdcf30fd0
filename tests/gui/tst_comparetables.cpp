// One source for the compare figures: for the compare table by layer, by kernel name, by op
// inside a layer, and for the kernel-level diff of a layer, the CLI's `wheretime compare --csv`,
// the GUI's CSV export (the compare view's table, CompareModel) and the headless report's CSVs
// are the same bytes. On two CPU captures of different softmax variants (one file) and on the
// two ranks of a real Kineto trace (../shared/traces), imported as two runs.
#include "analysis/comparetable.h"
#include "app/gui/export/comparereport.h"
#include "app/gui/compare/compareview.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>
#include <QTableView>
#include <QTest>

using namespace wt;
using namespace wt::gui;
using test::runCli;

namespace {

QByteArray readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        qWarning("cannot read %s", qPrintable(path));
        return {};
    }
    return f.readAll();
}

int64_t runId(const QString& file, const char* name)
{
    Database db(file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    return reader.resolveRun(name);
}

}  // namespace

class TestCompareTables : public QObject {
    Q_OBJECT
private slots:
    void cpuCaptures();
    void kinetoRanks();

private:
    // The checks on BASE and OTHER (runs of one file); `tag` names the temporary files.
    void checkPair(const QString& file, int64_t base, int64_t other, const QString& tag);
};

void TestCompareTables::checkPair(const QString& file, int64_t base, int64_t other, const QString& tag)
{
    const QString a = file + QLatin1Char(':') + QString::number(base), b = file + QLatin1Char(':') + QString::number(other);
    auto cli = [&](const QStringList& extra) {
        auto r = runCli(QStringList{QStringLiteral("compare"), a, b, QStringLiteral("--csv")} + extra);
        if (r.exitCode != 0)
            qWarning("compare %s: %s", qPrintable(extra.join(QLatin1Char(' '))), qPrintable(r.err));
        return r.out.toUtf8();
    };
    const CompareRuns runs = loadCompareRuns({{file, base}, {file, other}});
    std::vector<const CompareRun*> ptrs;
    for (const auto& r : runs)
        ptrs.push_back(r.get());

    // The report, in process: the same code as `wheretime-gui --report ... --compare`.
    const QString dir = QString::fromStdString(test::tempPath("tables-" + tag.toStdString()));
    QDir(dir).removeRecursively();
    QVERIFY(QDir().mkpath(dir));
    CompareReportSection section;
    QString error;
    QVERIFY2(writeCompareReport(dir, runs, QSize(900, 500), 1.0, &section, &error), qPrintable(error));
    auto report = [&](const char* name) { return readFile(QDir(dir).filePath(QLatin1String(name))); };

    CompareView view;
    view.setRuns(std::make_shared<const CompareRuns>(runs));
    const QString exportPath = QDir(dir).filePath(QStringLiteral("view-export.csv"));
    auto exported = [&] {
        QString err;
        if (!view.exportTableCsv(exportPath, &err))
            qWarning("export: %s", qPrintable(err));
        return readFile(exportPath);
    };

    // By layer: the view's top level, `compare --csv`, the report's compare-layer.csv.
    QCOMPARE(view.level(), CompareView::Level::Groups);
    QVERIFY(view.comparison().groupBy == GroupBy::Layer);
    const QByteArray byLayer = cli({});
    QVERIFY(byLayer.startsWith("name,path,ns_1,ns_2,delta_ns_2,pm_ns_2,delta_pct_2,ratio_2,verdict_2,count_1,count_2,n_1,n_2,stddev_1,stddev_2,median_1,median_2,min_1,min_2,max_1,max_2,ci_low_ns_2,ci_high_ns_2,p_adj_2,note,per\n"));
    QVERIFY(byLayer.contains("\n(total),(total),"));
    QCOMPARE(exported(), byLayer);
    QCOMPARE(report("compare-layer.csv"), byLayer);

    // By kernel name: the view's model over that comparison, the CLI, the report's compare-kernel.csv.
    const QByteArray byKernel = cli({QStringLiteral("--group-by"), QStringLiteral("kernel")});
    QVERIFY(byKernel.count('\n') > 3);
    CompareOptions ko;
    ko.groupBy = GroupBy::Kernel;
    CompareModel kernels;
    kernels.setComparison(compareRuns(ptrs, ko));
    QCOMPARE(kernels.toCsv().toUtf8(), byKernel);
    QCOMPARE(report("compare-kernel.csv"), byKernel);

    // The layer the report drills into (the largest change present in both runs): its ops, then
    // its kernel-level diff, in the view and from the CLI.
    std::string layer;
    for (const CompareGroup& g : view.comparison().groups)
        if (g.cells[0].present && g.cells[1].present) {
            layer = g.path;
            break;
        }
    QVERIFY(!layer.empty());
    QVERIFY(view.drillIntoLayer(layer));
    const QByteArray ops = cli({QStringLiteral("--group-by"), QStringLiteral("op"), QStringLiteral("--within"),
                                QStringLiteral("layer=") + QString::fromStdString(layer)});
    QVERIFY(ops.count('\n') >= 2);
    QCOMPARE(exported(), ops);
    QCOMPARE(report("compare-layer-ops.csv"), ops);

    QVERIFY(view.showKernelDiff());
    const QByteArray diff = cli({QStringLiteral("--kernels"), QString::fromStdString(layer)});
    QVERIFY(diff.startsWith("change,op,other_op,base_ns,other_ns,delta_ns,pm_ns,delta_pct,ratio,verdict,base_count,other_count,"
                            "kernel,base_name,other_name,similar_names,base_samples,other_samples,base_stddev_ns,other_stddev_ns,"
                            "ci_low_ns,ci_high_ns,p_adj,per\n"));
    QVERIFY(diff.count('\n') >= 2);
    QCOMPARE(exported(), diff);
    QCOMPARE(report("compare-layer-kernels.csv"), diff);
    // What the view shows of the diff is the table's text: the kernel column, the delta %.
    const KernelDiffModel* dm = view.diffModel();
    const Table& t = dm->table();
    QCOMPARE(dm->data(dm->index(0, dm->columnOf("delta_pct"))).toString(),
             QString::fromStdString(render::cellText(t.columns[t.column("delta_pct")], t.rows[0][t.column("delta_pct")])));
}

void TestCompareTables::cpuCaptures()
{
    const QString file = QString::fromStdString(test::tempPath("tables-variants.wt"));
    QFile::remove(file);
    for (const char* variant : {"adaptive", "full"}) {
        auto c = runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                         QStringLiteral("tiny"), QStringLiteral("--variant"), QLatin1String(variant), QStringLiteral("--backend"),
                         QStringLiteral("cpu"), QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--name"),
                         QLatin1String(variant), QStringLiteral("-o"), file},
                        300000);
        QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    }
    checkPair(file, runId(file, "adaptive"), runId(file, "full"), QStringLiteral("cpu"));
}

void TestCompareTables::kinetoRanks()
{
#ifndef WT_HAVE_IMPORTER
    QSKIP("built without the importers (interop/)");
#endif
    WT_REQUIRE_TRACE(rank0, "kineto-hta_2ranks_rank-0.json.gz");
    WT_REQUIRE_TRACE(rank1, "kineto-hta_2ranks_rank-1.json.gz");
    // Without --one-run: one run per rank, so the ranks compare as BASE and OTHER.
    const QString file = QString::fromStdString(test::tempPath("tables-kineto.wt"));
    QFile::remove(file);
    auto imp = runCli({QStringLiteral("import"), rank0, rank1, QStringLiteral("-o"), file}, 300000);
    QVERIFY2(imp.exitCode == 0, qPrintable(imp.err));
    Database db(file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    const auto runs = reader.runs();
    QCOMPARE(int(runs.size()), 2);
    checkPair(file, runs[0].id, runs[1].id, QStringLiteral("kineto"));
}

QTEST_MAIN(TestCompareTables)
#include "tst_comparetables.moc"
