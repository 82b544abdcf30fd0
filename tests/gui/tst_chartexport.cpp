// Chart export and the headless report: a PNG has the requested pixel size (size x scale) and
// is not blank; an SVG parses as XML and holds the slice labels and the caption; a PDF starts
// with %PDF and has exactly one page; the timeline exports too; `wheretime-gui --report`
// (offscreen, no display) writes every file it lists, marks compare as not built, and fails
// with one line on bad input, refuses to write over its input (issue 18), and stays small on a
// run imported with a huge kernel name.
#include "app/gui/breakdown/breakdownplot.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/export/chartexport.h"
#include "app/gui/export/exportdialog.h"
#include "app/gui/export/report.h"
#include "app/gui/breakdown/runsummary.h"
#include "app/gui/core/timeformat.h"
#include "analysis/gputime.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/testsupport.h"

#include <QApplication>
#include <QDir>
#include <QTimer>
#include <QFile>
#include <QImage>
#include <QTest>
#include <QXmlStreamReader>

#include <set>

#include <unistd.h>

using namespace wt;
using namespace wt::gui;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

size_t distinctColors(const QImage& image)
{
    std::set<QRgb> colors;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colors.insert(image.pixel(x, y));
    return colors.size();
}

// A trace whose four kernels share one name of `nameBytes` bytes, and one short kernel. (Plain
// literals: moc does not parse raw strings with brackets in them.)
QByteArray hugeNameTrace(int nameBytes)
{
    const QByteArray name(nameBytes, 'k');
    QByteArray json = "{\"traceEvents\":[";
    for (int i = 0; i < 4; ++i)
        json += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" + name + "\",\"pid\":0,\"tid\":7,\"ts\":" + QByteArray::number(i * 10) +
                ",\"dur\":5},";
    json += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"short\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":5}]}";
    return json;
}

}  // namespace

class TstChartExport : public QObject {
    Q_OBJECT
    std::string m_path;
    std::shared_ptr<BreakdownSource> m_source;
    QString m_dir;

private slots:
    void initTestCase()
    {
        m_path = test::tempPath("export.wt");
        Database db(m_path, OpenMode::ReadWrite);
        Writer writer(db);
        synth::Options o;
        o.kernels = 5000;
        o.layers = 3;
        o.name = "export-test";
        synth::generate(writer, o);
        auto run = loadRun(m_path, 1);
        QVERIFY(run);
        m_source = BreakdownSource::load(std::shared_ptr<const RunData>(run));
        m_dir = QString::fromStdString(test::tempPath("exports"));
        QVERIFY(QDir().mkpath(m_dir));
    }

    void pngHasRequestedSize_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<double>("scale");
        QTest::addColumn<bool>("bars");
        QTest::newRow("pie 800x600 x1") << 800 << 600 << 1.0 << false;
        QTest::newRow("pie 640x480 x2") << 640 << 480 << 2.0 << false;
        QTest::newRow("bars 1000x700 x1.5") << 1000 << 700 << 1.5 << true;
    }
    void pngHasRequestedSize()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(double, scale);
        QFETCH(bool, bars);
        BreakdownPlot plot(bars ? BreakdownPlot::Kind::Bars : BreakdownPlot::Kind::Pie);
        plot.setResult(m_source->compute({GroupBy::Layer, {}}), 0.02, QStringLiteral("Kernel time by layer"));
        ExportOptions o;
        o.size = QSize(w, h);
        o.scale = scale;
        o.caption = runCaption(m_source->run());
        QString path = m_dir + QStringLiteral("/chart.png");
        QString error;
        QVERIFY2(exportChart(plotPainter(&plot), path, ExportFormat::Png, o, &error), qPrintable(error));
        QImage image(path);
        QCOMPARE(image.size(), QSize(int(w * scale), int(h * scale)));
        QVERIFY(distinctColors(image) > 20);   // slices, labels, caption: not blank
        // The layer colors of the timeline are in the picture.
        bool found = false;
        for (const BreakdownRow& r : m_source->compute({GroupBy::Layer, {}}).rows)
            for (int y = 0; y < image.height() && !found; y += 2)
                for (int x = 0; x < image.width() && !found; x += 2)
                    found = (image.pixel(x, y) | 0xff000000u) == (r.color | 0xff000000u);
        QVERIFY(found);
    }

    void svgParsesAndHoldsLabels()
    {
        BreakdownPlot plot(BreakdownPlot::Kind::Pie);
        BreakdownResult r = m_source->compute({GroupBy::Layer, {}});
        plot.setResult(r, 0.02, QStringLiteral("Kernel time by layer"));
        ExportOptions o;
        o.size = QSize(1000, 700);
        o.caption = runCaption(m_source->run());
        QString path = m_dir + QStringLiteral("/chart.svg");
        QVERIFY(exportChart(plotPainter(&plot), path, ExportFormat::Svg, o));
        QByteArray svg = readAll(path);
        QXmlStreamReader xml(svg);
        QString text;
        bool sawSvg = false;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement() && xml.name() == QLatin1String("svg"))
                sawSvg = true;
            if (xml.isCharacters())
                text += xml.text();
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(sawSvg);
        for (const PieSlice& s : plot.slices())
            if (s.share >= 0.005)
                QVERIFY2(text.contains(s.label), qPrintable(s.label));
        QVERIFY(text.contains(QStringLiteral("export-test")));   // caption: run name
        QVERIFY(text.contains(QStringLiteral("Kernel time by layer")));
    }

    void pdfHasOnePage()
    {
        BreakdownPlot plot(BreakdownPlot::Kind::Bars);
        plot.setResult(m_source->compute({GroupBy::Kernel, {}}), 0.02, QStringLiteral("Kernels"));
        ExportOptions o;
        o.size = QSize(900, 900);
        o.caption = runCaption(m_source->run());
        QString path = m_dir + QStringLiteral("/chart.pdf");
        QString error;
        QVERIFY2(exportChart(plotPainter(&plot), path, ExportFormat::Pdf, o, &error), qPrintable(error));
        QByteArray pdf = readAll(path);
        QVERIFY(pdf.startsWith("%PDF"));
        int pages = 0;
        for (qsizetype i = pdf.indexOf("/Type /Page"); i >= 0; i = pdf.indexOf("/Type /Page", i + 1))
            pages += pdf.mid(i, 12) != "/Type /Pages";
        QCOMPARE(pages, 1);
    }

    void timelineExports()
    {
        auto run = m_source->runData();
        ExportOptions o;
        o.size = QSize(1200, 500);
        o.caption = runCaption(m_source->run());
        QString path = m_dir + QStringLiteral("/timeline.png");
        QVERIFY(exportChart(timelinePainter(run, double(run->spanStartNs), double(run->spanEndNs)), path, ExportFormat::Png, o));
        QImage image(path);
        QCOMPARE(image.size(), QSize(1200, 500));
        QVERIFY(distinctColors(image) > 10);
        QVERIFY(exportChart(timelinePainter(run, double(run->spanStartNs), double(run->spanEndNs)),
                            m_dir + QStringLiteral("/timeline.svg"), ExportFormat::Svg, o));
    }

    void badExportsFail()
    {
        BreakdownPlot plot(BreakdownPlot::Kind::Pie);
        ExportOptions o;
        QString error;
        QVERIFY(!exportChart(plotPainter(&plot), QStringLiteral("/nonexistent-dir/x.png"), ExportFormat::Png, o, &error));
        QVERIFY(!error.isEmpty() && !error.contains(QLatin1Char('\n')));
        o.size = QSize(10, 10);
        QVERIFY(!exportChart(plotPainter(&plot), m_dir + QStringLiteral("/tiny.png"), ExportFormat::Png, o, &error));
        QCOMPARE(exportFormatOf(QStringLiteral("a.SVG")), std::optional<ExportFormat>(ExportFormat::Svg));
        QVERIFY(!exportFormatOf(QStringLiteral("a.jpg")));
    }

    void captionHasMetadata()
    {
        RunInfo r = m_source->run();
        r.droppedRecords = 12;
        QString c = runCaption(r);
        QVERIFY(c.contains(QString::fromStdString(r.workload)));
        QVERIFY(c.contains(QStringLiteral("12 dropped records")));
        QVERIFY(!runCaption(m_source->run()).contains(QStringLiteral("dropped")));
        QString md = runSummaryMarkdown(*m_source);
        QVERIFY(md.contains(QStringLiteral("## Kernel time by layer")));
        QVERIFY(md.contains(QStringLiteral("| softmax |")));
    }

    void headlessReportWritesEveryFile()
    {
        const QString exe = qEnvironmentVariable("WHERETIME_GUI_EXE");
        if (exe.isEmpty())
            QSKIP("WHERETIME_GUI_EXE not set");
        QString out = m_dir + QStringLiteral("/report");
        const QString file = QString::fromStdString(m_path);
        // No display at all: the report must pick the offscreen platform by itself.
        qunsetenv("DISPLAY");
        qunsetenv("WAYLAND_DISPLAY");
        QByteArray platform = qgetenv("QT_QPA_PLATFORM");
        qunsetenv("QT_QPA_PLATFORM");
        test::ProcessResult p = test::runProgram(
            exe, {QStringLiteral("--report"), out, file + QStringLiteral(":1"), QStringLiteral("--compare"), file});
        qputenv("QT_QPA_PLATFORM", platform);
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        QCOMPARE(p.err, QString());   // a clean stderr: no timings, no Qt environment notices
        const QStringList expected{
            QStringLiteral("index.md"),          QStringLiteral("index.html"),          QStringLiteral("timeline-step.png"),
            QStringLiteral("timeline-step.svg"), QStringLiteral("pie-layer.png"),       QStringLiteral("pie-layer.svg"),
            QStringLiteral("pie-kernel.png"),    QStringLiteral("pie-kernel.svg"),      QStringLiteral("bars-kernel.png"),
            QStringLiteral("bars-kernel.svg"),   QStringLiteral("breakdown-layer.csv"), QStringLiteral("breakdown-phase.csv"),
            QStringLiteral("breakdown-op.csv"),  QStringLiteral("breakdown-kernel.csv"),  QStringLiteral("pie-category.png"),
            QStringLiteral("pie-category.svg"),  QStringLiteral("breakdown-category.csv"), QStringLiteral("devices.csv"),
            QStringLiteral("steps.csv")};
        for (const QString& f : expected) {
            QFileInfo fi(out + QLatin1Char('/') + f);
            QVERIFY2(fi.isFile() && fi.size() > 0, qPrintable(f));
        }
        QVERIFY(!QImage(out + QStringLiteral("/pie-layer.png")).isNull());
        QString md = QString::fromUtf8(readAll(out + QStringLiteral("/index.md")));
        QString html = QString::fromUtf8(readAll(out + QStringLiteral("/index.html")));
        for (const QString& img : {QStringLiteral("timeline-step.png"), QStringLiteral("pie-layer.png"),
                                   QStringLiteral("pie-kernel.png"), QStringLiteral("bars-kernel.png"),
                                   QStringLiteral("pie-category.png")}) {
            QVERIFY(md.contains(img));
            QVERIFY(html.contains(img));
        }
        QVERIFY(md.contains(QStringLiteral("export-test")));
        // Compare (issue 11; tst_compareview checks its numbers): the section and its files.
        QVERIFY(md.contains(QStringLiteral("## Compare")));
        QVERIFY(html.contains(QStringLiteral("<h2>Compare</h2>")));
        QVERIFY(!md.contains(QStringLiteral("not built yet")));
        for (const QString& f : {QStringLiteral("compare-layer-bars.png"), QStringLiteral("compare-layer-delta.svg"), QStringLiteral("compare-layer.csv")}) {
            QVERIFY2(QFileInfo(out + QLatin1Char('/') + f).size() > 0, qPrintable(f));
            QVERIFY(md.contains(f));
        }
        // The layer CSV holds the same numbers as the analysis.
        QStringList csv = QString::fromUtf8(readAll(out + QStringLiteral("/breakdown-layer.csv"))).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        BreakdownResult layers = m_source->compute({GroupBy::Layer, {}});
        QCOMPARE(csv.size(), int(layers.rows.size()) + 1);
        QCOMPARE(csv[1].split(QLatin1Char(','))[2].toLongLong(), layers.rows[0].timeNs);

        // Bad input: one line on stderr, non-zero exit, nothing written.
        QString out2 = m_dir + QStringLiteral("/report-bad");
        p = test::runProgram(exe, {QStringLiteral("--report"), out2, file + QStringLiteral(":42")});
        QVERIFY(p.exitCode != 0);
        const QStringList errLines = p.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(errLines.size(), 1);
        QVERIFY(errLines[0].startsWith(QStringLiteral("wheretime-gui: ")));
        QVERIFY(!QFileInfo::exists(out2));
        p = test::runProgram(exe, {QStringLiteral("--report"), out2, m_dir + QStringLiteral("/missing.wt")});
        QVERIFY(p.exitCode != 0);
        QVERIFY(!p.err.trimmed().isEmpty());
    }

    void reportInProcess()
    {
        ReportOptions o;
        o.outDir = m_dir + QStringLiteral("/report2");
        o.file = QString::fromStdString(m_path);
        ReportResult r = writeReport(o);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.files.size(), 19);   // with the category pie (png, svg) and its CSV, devices.csv and steps.csv
        for (const QString& f : r.files)
            QVERIFY2(QFileInfo(o.outDir + QLatin1Char('/') + f).size() > 0, qPrintable(f));
        QString md = QString::fromUtf8(readAll(o.outDir + QStringLiteral("/index.md")));
        QVERIFY(!md.contains(QStringLiteral("Compare")));   // not requested, not mentioned
        // The time on the GPU per device, analysis's figures (docs/definitions.md), in both files;
        // the stored summary named for what it is.
        QVERIFY(md.contains(QStringLiteral("| kernel busy (all devices) | ")));
        QVERIFY(md.contains(QStringLiteral("## Time on the GPU per device")));
        auto run = loadRun(m_path, 1);
        QVERIFY(run);
        const std::vector<wt::DeviceTime> devices = wt::computeDeviceTimes(*run->profile, run->activities());
        QVERIFY(!devices.empty());
        const wt::GpuTime& t = devices[0].time;
        // The devices table's text columns (analysis devicesTable): device, busy, idle, idle%, span, ...
        QVERIFY2(md.contains(QStringLiteral("| device | busy | idle | idle% | span | compute | ")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("| %1 | %2 | %3 | ")
                                 .arg(markdownCell(QString::fromStdString(devices[0].name)), formatDuration(double(t.busyNs)),
                                      formatDuration(double(t.idleNs)))),
                 qPrintable(md));
        const QString html = QString::fromUtf8(readAll(o.outDir + QStringLiteral("/index.html")));
        QVERIFY(html.contains(QStringLiteral("<h2>Time on the GPU per device</h2>")));
        QVERIFY(html.contains(QStringLiteral("<td>%1</td>").arg(formatDuration(double(t.busyNs)).toHtmlEscaped())));
    }

    void reportRefusesToOverwriteItsInput()
    {
        // The input named like a report file inside OUTDIR was overwritten (exit 0).
        const QString dir = QString::fromStdString(test::tempPath("report-over"));
        QVERIFY(QDir().mkpath(dir));
        const QString input = dir + QStringLiteral("/index.html");
        QVERIFY(QFile::copy(QString::fromStdString(m_path), input));
        const QByteArray before = readAll(input);
        ReportOptions o;
        o.outDir = dir;
        o.file = input;
        ReportResult r = writeReport(o);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.startsWith(QStringLiteral("refusing to write ")), qPrintable(r.error));
        QVERIFY(!r.error.contains(QLatin1Char('\n')));
        // Through a symlink, a hard link, or OUTDIR being the file itself.
        const QString link = QString::fromStdString(test::tempPath("report-link.wt"));
        QVERIFY(QFile::link(input, link));
        o.file = link;
        QVERIFY(!writeReport(o).ok);
        const QString hard = dir + QStringLiteral("/pie-layer.png");
        QVERIFY(::link(input.toLocal8Bit().constData(), hard.toLocal8Bit().constData()) == 0);
        o.file = QString::fromStdString(m_path);
        o.compareFile = hard;
        QVERIFY(!writeReport(o).ok);
        o.compareFile.clear();
        o.outDir = input;
        r = writeReport(o);
        QVERIFY(!r.ok);
        o.file = input;
        r = writeReport(o);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.contains(QStringLiteral("it is the input")), qPrintable(r.error));
        QCOMPARE(QDir(dir).entryList(QDir::Files).size(), 2);   // the input and its hard link, nothing written
        QCOMPARE(readAll(input), before);

        // The executable: one line, exit 1.
        const QString exe = qEnvironmentVariable("WHERETIME_GUI_EXE");
        if (exe.isEmpty())
            QSKIP("WHERETIME_GUI_EXE not set");
        test::ProcessResult p = test::runProgram(exe, {QStringLiteral("--report"), dir, input});
        QCOMPARE(p.exitCode, 1);
        QCOMPARE(p.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY2(p.err.contains(QStringLiteral("refusing to write")), qPrintable(p.err));
        p = test::runProgram(exe, {QStringLiteral("--screenshot"), input, input});
        QCOMPARE(p.exitCode, 1);
        QVERIFY2(p.err.contains(QStringLiteral("refusing to write")), qPrintable(p.err));
        QCOMPARE(readAll(input), before);
    }

    void chartExportDialogRefusesTheInput()
    {
        // A wheretime file named like a chart: the export dialog must not accept it as output.
        const QString dir = QString::fromStdString(test::tempPath("dialog-over"));
        QVERIFY(QDir().mkpath(dir));
        const QString input = dir + QStringLiteral("/runs.png");
        QVERIFY(QFile::copy(QString::fromStdString(m_path), input));
        const QString link = dir + QStringLiteral("/link.png");
        QVERIFY(QFile::link(input, link));
        int warnings = 0;
        auto closeWarning = [&] {
            QTimer::singleShot(0, [&] {
                if (QWidget* box = QApplication::activeModalWidget()) {
                    ++warnings;
                    box->close();
                }
            });
        };
        for (const QString& path : {input, link}) {
            ExportDialog dialog(path, QSize(800, 600));
            dialog.setInputFile(input);
            closeWarning();
            dialog.accept();
            QVERIFY(dialog.result() != QDialog::Accepted);
        }
        QCOMPARE(warnings, 2);
        ExportDialog other(dir + QStringLiteral("/chart.png"), QSize(800, 600));
        other.setInputFile(input);
        other.accept();
        QCOMPARE(other.result(), int(QDialog::Accepted));
        QVERIFY(!refuseInputOverwrite(nullptr, QStringLiteral("t"), dir + QStringLiteral("/table.csv"), input));
        closeWarning();
        QVERIFY(refuseInputOverwrite(nullptr, QStringLiteral("t"), input + QStringLiteral("-wal"), input));
        QCOMPARE(warnings, 3);
    }

    void reportOfHugeKernelName()
    {
        // A 50 MB kernel name made the report take 143 s and 2.5 GB and write a 105 MB CSV: names
        // are cut at import (4 KiB), so every file of the report stays small. 8 MB here.
        if (qEnvironmentVariableIsEmpty("WHERETIME_CLI"))
            QSKIP("WHERETIME_CLI not set");
        const QByteArray json = hugeNameTrace(8 << 20);
        const QString trace = QString::fromStdString(test::tempPath("huge-name.json"));
        {
            QFile f(trace);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(json);
        }
        const QString db = QString::fromStdString(test::tempPath("huge-name.wt"));
        test::ProcessResult p = test::runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), db});
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        ReportOptions o;
        o.outDir = m_dir + QStringLiteral("/report-huge");
        o.file = db;
        ReportResult r = writeReport(o);
        QVERIFY2(r.ok, qPrintable(r.error));
        const QByteArray csv = readAll(o.outDir + QStringLiteral("/breakdown-kernel.csv"));
        QVERIFY(csv.contains("[cut "));
        QVERIFY(csv.contains("short"));
        qint64 total = 0;
        for (const QString& f : r.files)
            total += QFileInfo(o.outDir + QLatin1Char('/') + f).size();
        QVERIFY2(csv.size() < 64 * 1024, qPrintable(QString::number(csv.size())));
        QVERIFY2(total < 4 * 1024 * 1024, qPrintable(QString::number(total)));   // all 14 files
        QVERIFY(QFileInfo(o.outDir + QStringLiteral("/index.html")).size() < 256 * 1024);
    }
};

QTEST_MAIN(TstChartExport)
#include "tst_chartexport.moc"
