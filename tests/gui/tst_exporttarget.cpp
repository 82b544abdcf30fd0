// Exports (issue 27 item 4) on real tiny CPU captures: Ctrl+E exports the chart of the window it
// is pressed in (main, compare, variants; it was an application-wide shortcut of the main
// window), through the one export dialog (file, size, PNG scale) everywhere; an SVG names a
// generic font family; an export carries no selection outline and leaves the view's selection.
#include "app/gui/breakdown/breakdownactions.h"
#include "app/gui/breakdown/breakdownplot.h"
#include "app/gui/breakdown/breakdownview.h"
#include "app/gui/compare/compareactions.h"
#include "app/gui/compare/compareview.h"
#include "app/gui/export/chartexport.h"
#include "app/gui/export/exportdialog.h"
#include "app/gui/variants/variantsactions.h"
#include "app/gui/variants/variantsview.h"
#include "app/gui/widgets/mainwindow.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTimer>

using namespace wt;
using namespace wt::gui;

namespace {

struct SeenDialog {
    bool seen = false;
    QWidget* window = nullptr;   // the window the dialog belongs to
    QString fileName;            // its default file
    bool hasSizeOptions = false;
};

// Presses Ctrl+E in `window` and records the export dialog that opens (then cancels it).
SeenDialog pressCtrlE(QWidget* window)
{
    SeenDialog d;
    window->show();
    window->raise();
    window->activateWindow();
    if (!QTest::qWaitForWindowActive(window))
        return d;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        auto* dialog = qobject_cast<ExportDialog*>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        d.seen = true;
        d.window = dialog->parentWidget() ? dialog->parentWidget()->window() : nullptr;
        d.fileName = QFileInfo(dialog->path()).fileName();
        d.hasSizeOptions = dialog->findChildren<QSpinBox*>().size() >= 2;
        dialog->reject();
    });
    poll.start(20);
    QTest::keyClick(window, Qt::Key_E, Qt::ControlModifier);
    QTest::qWaitFor([&] { return d.seen; }, 5000);
    return d;
}

int64_t runId(const QString& file, const char* name)
{
    Database db(file.toStdString(), OpenMode::ReadOnly);
    return Reader(db).resolveRun(name);
}

}  // namespace

class TestExportTarget : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void ctrlEExportsTheActiveWindowsChart();
    void svgNamesAGenericFontFamily();
    void exportsCarryNoSelection();

private:
    QString m_file;
};

void TestExportTarget::initTestCase()
{
    m_file = QFileInfo(QString::fromStdString(test::tempPath("exporttarget.wt"))).absoluteFilePath();
    for (const char* v : {"adaptive", "full"}) {
        auto c = test::runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                               QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                               QStringLiteral("2"), QStringLiteral("--variant"), QLatin1String(v), QStringLiteral("--name"),
                               QLatin1String(v), QStringLiteral("-o"), m_file},
                              300000);
        QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    }
}

void TestExportTarget::ctrlEExportsTheActiveWindowsChart()
{
    MainWindow window(false);
    BreakdownActions* breakdown = BreakdownActions::install(&window);
    CompareActions* compare = CompareActions::install(&window);
    VariantsActions* variants = VariantsActions::install(&window);
    window.resize(1400, 800);
    QSignalSpy sourceReady(breakdown->view(), &BreakdownView::sourceReady);
    QVERIFY(window.openFile(m_file, QStringLiteral("adaptive")));
    QTRY_VERIFY_WITH_TIMEOUT(sourceReady.count() > 0, 60000);
    breakdown->view()->waitForResult();

    // Every window has its own Ctrl+E, none application-wide.
    int appWide = 0;
    for (QAction* a : window.findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_E) && a->shortcutContext() == Qt::ApplicationShortcut)
            ++appWide;
    QCOMPARE(appWide, 0);

    SeenDialog main = pressCtrlE(&window);
    QVERIFY(main.seen);
    QCOMPARE(main.window, static_cast<QWidget*>(&window));
    // The main window's chart: the timeline or the pie, whichever the user touched last.
    QVERIFY2(main.fileName == QStringLiteral("timeline.png") || main.fileName.startsWith(QStringLiteral("pie-")), qPrintable(main.fileName));
    QVERIFY(main.hasSizeOptions);

    QVERIFY(compare->compare({{m_file, runId(m_file, "adaptive")}, {m_file, runId(m_file, "full")}}));
    CompareWindow* cw = compare->window();
    QSignalSpy compareReady(cw->view(), &CompareView::ready);
    QTRY_VERIFY_WITH_TIMEOUT(compareReady.count() > 0 || cw->view()->barsPlot()->chart().rows.size() > 0, 60000);
    SeenDialog cmp = pressCtrlE(cw);
    QVERIFY(cmp.seen);
    QCOMPARE(cmp.window, static_cast<QWidget*>(cw));   // not the main window's timeline or pie
    QCOMPARE(cmp.fileName, QStringLiteral("compare-bars.png"));
    QVERIFY(cmp.hasSizeOptions);   // the main window's dialog, not a plain file dialog

    QVERIFY(variants->compareVariantsOf(m_file, runId(m_file, "adaptive")));
    VariantsView* vv = variants->variantsView();
    QSignalSpy variantsReady(vv, &VariantsView::ready);
    QTRY_VERIFY_WITH_TIMEOUT(variantsReady.count() > 0 || vv->plot(VariantsPlot::Kind::LayerTime)->chart().variants.size() >= 2, 60000);
    SeenDialog var = pressCtrlE(vv);
    QVERIFY(var.seen);
    QCOMPARE(var.window, static_cast<QWidget*>(vv));
    QCOMPARE(var.fileName, QStringLiteral("variants-layer.png"));
    QVERIFY(var.hasSizeOptions);

    // And back in the main window: its own chart again.
    SeenDialog again = pressCtrlE(&window);
    QCOMPARE(again.window, static_cast<QWidget*>(&window));
}

void TestExportTarget::svgNamesAGenericFontFamily()
{
    auto source = BreakdownSource::load(m_file.toStdString(), runId(m_file, "adaptive"));
    BreakdownPlot plot(BreakdownPlot::Kind::Bars);
    plot.resize(900, 600);
    plot.setResult(source->compute(BreakdownLevel{}), 0.02, QStringLiteral("Kernel time by layer"));
    const QString path = QString::fromStdString(test::tempPath("font.svg"));
    ExportOptions o;
    o.size = QSize(900, 600);
    o.caption = QStringLiteral("caption");
    QString error;
    QVERIFY2(exportChart(plotPainter(&plot), path, ExportFormat::Svg, o, &error), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString svg = QString::fromUtf8(f.readAll());
    static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
    int n = 0;
    for (auto it = family.globalMatch(svg); it.hasNext(); ++n) {
        const QString value = it.next().captured(1);
        QVERIFY2(value.endsWith(QLatin1String("sans-serif")), qPrintable(value));
        QVERIFY2(!value.contains(QLatin1String("Sans Serif")), qPrintable(value));
    }
    QVERIFY2(n > 0, "the chart's text names its font");
    // The rewrite keeps the drawing: the labels are still there.
    QVERIFY(svg.contains(QLatin1String("softmax")));
}

void TestExportTarget::exportsCarryNoSelection()
{
    auto source = BreakdownSource::load(m_file.toStdString(), runId(m_file, "adaptive"));
    for (BreakdownPlot::Kind kind : {BreakdownPlot::Kind::Pie, BreakdownPlot::Kind::Bars}) {
        BreakdownPlot plot(kind);
        plot.resize(900, 600);
        plot.setResult(source->compute(BreakdownLevel{}), 0.02, QStringLiteral("Kernel time by layer"));
        ExportOptions o;
        o.size = QSize(900, 600);
        const QString plain = QString::fromStdString(test::tempPath("plain.png"));
        const QString selected = QString::fromStdString(test::tempPath("selected.png"));
        QVERIFY(exportChart(plotPainter(&plot), plain, ExportFormat::Png, o));
        plot.setHighlighted(0);   // the UI's selection: an outlined (pie: pulled out) slice
        QVERIFY(exportChart(plotPainter(&plot), selected, ExportFormat::Png, o));
        QCOMPARE(plot.highlighted(), 0);   // the view keeps its selection
        QCOMPARE(QImage(selected), QImage(plain));
        // The on-screen chart does show it (so the comparison above could fail).
        const QImage shownPlain = [&] { plot.setHighlighted(-1); plot.replot(QCustomPlot::rpImmediateRefresh); return plot.grab().toImage(); }();
        plot.setHighlighted(0);
        plot.replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(plot.grab().toImage() != shownPlain);
    }
}

QTEST_MAIN(TestExportTarget)
#include "tst_exporttarget.moc"
