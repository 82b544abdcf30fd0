// wheretime-gui [FILE[:RUN]]: the desktop app. --screenshot PNG renders the window after the
// run loaded and exits (used by scripts/screenshot.sh; works with QT_QPA_PLATFORM=offscreen).
// --report OUTDIR writes the headless report (charts, CSVs, index.md, index.html) and exits.
#include "app/gui/core/displayname.h"
#include "render/textformat.h"
#include "app/gui/breakdown/breakdownactions.h"
#include "app/gui/breakdown/breakdownview.h"
#include "app/gui/export/report.h"
#include "app/gui/export/screenshot.h"
#include "app/gui/compare/compareactions.h"
#include "app/gui/compare/comparetimelines.h"
#include "app/gui/compare/compareview.h"
#include "app/gui/variants/scalingview.h"
#include "app/gui/variants/variantsactions.h"
#include "app/gui/job/jobactions.h"
#include "app/gui/job/jobview.h"
#include "app/gui/roofline/rooflineactions.h"
#include "app/gui/roofline/rooflineview.h"
#include "app/gui/variants/variantsview.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "app/gui/widgets/detailspanel.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/timelinewidget.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/core/windowedrun.h"
#include "storage/pathidentity.h"

#include "wheretime_config.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QTimer>

#include <algorithm>
#include <optional>
#include <cstdio>
#include <tuple>

namespace {

// FILE or FILE:RUN; the whole argument wins when such a file exists.
std::pair<QString, QString> splitSelector(const QString& arg)
{
    if (QFileInfo::exists(arg))
        return {arg, QString()};
    int colon = arg.lastIndexOf(QLatin1Char(':'));
    if (colon > 0 && QFileInfo::exists(arg.left(colon)))
        return {arg.left(colon), arg.mid(colon + 1)};
    return {arg, QString()};
}

QtMessageHandler g_defaultHandler = nullptr;

// Headless runs (--report, --screenshot) print their result and real errors only. Three notices
// Qt gives on such runs are no error: a missing XDG_RUNTIME_DIR (it then uses
// /tmp/runtime-$USER) and the offscreen plugin ignoring window size hints and raise() (the
// roofline and job windows raise themselves when shown).
void headlessMessages(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    if (type == QtWarningMsg && (message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")) ||
                                 message == QLatin1String("This plugin does not support propagateSizeHints()") ||
                                 message == QLatin1String("This plugin does not support raise()")))
        return;
    if (g_defaultHandler)
        g_defaultHandler(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

}  // namespace

int main(int argc, char** argv)
{
    bool headless = false;
    for (int i = 1; i < argc; ++i) {
        const bool report = qstrcmp(argv[i], "--report") == 0 || qstrncmp(argv[i], "--report=", 9) == 0;
        headless = headless || report || qstrcmp(argv[i], "--screenshot") == 0 || qstrncmp(argv[i], "--screenshot=", 13) == 0;
        // The report never opens a window: without a display it renders offscreen.
        if (report && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
            qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    if (headless)
        g_defaultHandler = qInstallMessageHandler(headlessMessages);
#if defined(Q_OS_LINUX)
    // Without a display Qt would abort inside the platform plugin; say why instead.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
        std::fprintf(stderr, "wheretime-gui: no display (set DISPLAY, or QT_QPA_PLATFORM=offscreen for headless use)\n");
        return 2;
    }
#endif
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("wheretime"));
    QApplication::setApplicationName(QStringLiteral("wheretime-gui"));
    QApplication::setApplicationVersion(QStringLiteral(WHERETIME_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Layer-grouped GPU timelines of wheretime runs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("FILE[:RUN]"), QStringLiteral("wheretime file; RUN is a run id or name (default: newest)"));
    QCommandLineOption shot(QStringLiteral("screenshot"), QStringLiteral("Render the window to PNG after loading, then exit."), QStringLiteral("PNG"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot (default 1600x900)."), QStringLiteral("WxH"), QStringLiteral("1600x900"));
    QCommandLineOption range(QStringLiteral("range"), QStringLiteral("Visible range from the run's time 0, T0:T1 (ns, or with a unit: 2ms:5ms), as stats --range."), QStringLiteral("T0:T1"));
    QCommandLineOption report(QStringLiteral("report"), QStringLiteral("Write a report of FILE[:RUN] (charts, CSVs, index.md, index.html) into OUTDIR, then exit."), QStringLiteral("OUTDIR"));
    QCommandLineOption compare(QStringLiteral("compare"), QStringLiteral("The run to compare FILE[:RUN] with: the report's compare section (--report), or the compare view (--screenshot)."), QStringLiteral("FILE[:RUN]"));
    QCommandLineOption timelines(QStringLiteral("timelines"), QStringLiteral("With --compare --screenshot: show the synchronized timelines."));
    QCommandLineOption drill(QStringLiteral("drill"), QStringLiteral("With --screenshot: click this layer's slice (marks its kernels in the timeline, drills into it)."), QStringLiteral("LAYER"));
    QCommandLineOption bars(QStringLiteral("bars"), QStringLiteral("With --screenshot: show the breakdown as bars."));
    QCommandLineOption variants(QStringLiteral("variants"), QStringLiteral("The variants view of FILE[:RUN]: its runs with the same workload, preset and sizes that differ in the variant (window, --screenshot or --report)."));
    QCommandLineOption setting(QStringLiteral("setting"), QStringLiteral("With --variants: the setting the runs differ in (default variant; e.g. workload for bert vs groupbert, hidden)."), QStringLiteral("KEY"), QStringLiteral("variant"));
    QCommandLineOption sweep(QStringLiteral("sweep"), QStringLiteral("The scaling view of sweep ID of FILE ('newest': the newest sweep) (window, --screenshot or --report)."), QStringLiteral("ID"));
    QCommandLineOption logAxes(QStringLiteral("log"), QStringLiteral("With --sweep: log axes."));
    
    QCommandLineOption panels(QStringLiteral("panels"), QStringLiteral("The breakdown below or beside the timeline (this time; the View menu's choice is remembered)."),
                              QStringLiteral("below|beside"));
    QCommandLineOption find(QStringLiteral("find"), QStringLiteral("Open the timeline's find bar with this regular expression (case-insensitive), every match marked, the first selected (its launch flow shown)."),
                            QStringLiteral("REGEX"));
    QCommandLineOption fullNames(QStringLiteral("full-names"), QStringLiteral("Names in full in every view (View > Full names), not their short forms."));
    QCommandLineOption roofline(QStringLiteral("roofline"), QStringLiteral("The roofline view of FILE[:RUN]: its ops against a device's roofline (window or --screenshot)."));
    QCommandLineOption device(QStringLiteral("device"), QStringLiteral("With --roofline: the device (a calibration in FILE, or h200, h100, a100, v100, rtx4090; default: FILE's first calibration, else h200)."), QStringLiteral("NAME"));
    QCommandLineOption memoryCap(QStringLiteral("memory-cap"), QStringLiteral("Memory for the timeline's detail (e.g. 4G, 512M; default 4G, or View > Memory cap's): a run whose activities need more is browsed window by window, the summary elsewhere."),
                                 QStringLiteral("BYTES"));
    QCommandLineOption job(QStringLiteral("job"), QStringLiteral("The job view of DIR: its rank files (one wheretime import per rank) as one job, opened from their stored figures (window or --screenshot)."),
                           QStringLiteral("DIR"));
    parser.addOptions({job});
    parser.addOptions({shot, size, range, report, compare, timelines, drill, bars, variants, setting, sweep, logAxes, panels, find, fullNames,
                       roofline, device, memoryCap});
    parser.process(app);
    if (parser.isSet(fullNames))
        wt::gui::setFullNames(true);
    std::optional<wt::TimeRange> parsedRange;
    if (parser.isSet(range)) {
        parsedRange = wt::parseTimeRange(parser.value(range).toStdString());
        if (!parsedRange) {
            std::fprintf(stderr, "wheretime-gui: --range needs T0:T1 with T0 <= T1 (ns, or with a unit: 2ms:5ms), got '%s'\n",
                         qPrintable(parser.value(range)));
            return 2;
        }
    }

    if (parser.isSet(report)) {
        const QStringList args = parser.positionalArguments();
        if (args.size() != 1) {
            std::fprintf(stderr, "wheretime-gui: --report needs one FILE[:RUN]\n");
            return 2;
        }
        wt::gui::ReportOptions ro;
        ro.outDir = parser.value(report);
        std::tie(ro.file, ro.run) = splitSelector(args.first());
        if (parser.isSet(compare))
            std::tie(ro.compareFile, ro.compareRun) = splitSelector(parser.value(compare));
        ro.variants = parser.isSet(variants);
        ro.sweep = parser.isSet(sweep);
        ro.sweepId = parser.value(sweep) == QLatin1String("newest") ? QString() : parser.value(sweep);
        wt::gui::ReportResult rr = wt::gui::writeReport(ro);
        if (!rr.ok) {
            std::fprintf(stderr, "wheretime-gui: %s\n", qPrintable(rr.error));
            return 1;
        }
        std::printf("%s: %lld files in %.2f s\n", qPrintable(QDir(ro.outDir).filePath(QStringLiteral("index.html"))),
                    static_cast<long long>(rr.files.size()), rr.seconds);
        return 0;
    }
    if (parser.isSet(compare) && !parser.isSet(shot)) {
        std::fprintf(stderr, "wheretime-gui: --compare works with --report or --screenshot only\n");
        return 2;
    }

    std::optional<int64_t> cap;
    if (parser.isSet(memoryCap)) {
        cap = wt::gui::parseByteSize(parser.value(memoryCap));
        if (!cap) {
            std::fprintf(stderr, "wheretime-gui: --memory-cap needs a size in bytes (e.g. 4G, 512M, 100000), got '%s'\n",
                         qPrintable(parser.value(memoryCap)));
            return 2;
        }
    }
    const bool screenshot = parser.isSet(shot);
    wt::gui::MainWindow window(!screenshot);
    if (cap)
        window.setDetailCap(*cap);
    wt::gui::BreakdownActions* breakdown = wt::gui::BreakdownActions::install(&window);
    wt::gui::CompareActions* compareActions = wt::gui::CompareActions::install(&window);
    wt::gui::VariantsActions* variantsActions = wt::gui::VariantsActions::install(&window);
    wt::gui::RooflineActions* rooflineActions = wt::gui::RooflineActions::install(&window);
    wt::gui::JobActions* jobActions = wt::gui::JobActions::install(&window);
    if (parser.isSet(panels))
        window.setPanelPlacement(parser.value(panels) == QStringLiteral("beside") ? wt::gui::MainWindow::PanelPlacement::Beside
                                                                                : wt::gui::MainWindow::PanelPlacement::Below);
    if (screenshot) {
        QStringList wh = parser.value(size).split(QLatin1Char('x'));
        int w = wh.value(0).toInt(), h = wh.value(1).toInt();
        if (w < 200 || h < 150) {
            std::fprintf(stderr, "wheretime-gui: bad --size '%s' (expected WxH)\n", qPrintable(parser.value(size)));
            return 2;
        }
        window.resize(w, h);
    }
    const QStringList args = parser.positionalArguments();
    if (parser.isSet(job)) {
        // The job window of DIR (no FILE); with --screenshot grabbed once its chart is there.
        if (!args.isEmpty()) {
            std::fprintf(stderr, "wheretime-gui: --job DIR takes no FILE\n");
            return 2;
        }
        if (!screenshot)
            window.show();
        jobActions->showJob(parser.value(job));
        wt::gui::JobView* view = jobActions->view();
        if (screenshot) {
            QStringList wh = parser.value(size).split(QLatin1Char('x'));
            view->resize(wh.value(0).toInt(), wh.value(1).toInt());
            const QString out = parser.value(shot);
            QObject::connect(view, &wt::gui::JobView::ready, &app, [view, out] { wt::gui::grabAndQuit(view, out, 150); });
            QObject::connect(view, &wt::gui::JobView::failed, &app, [](const QString& message) {
                std::fprintf(stderr, "wheretime-gui: %s\n", qPrintable(message));
                QApplication::exit(1);
            });
        }
        return app.exec();
    }
    window.show();
    if (screenshot && args.size() != 1) {
        std::fprintf(stderr, "wheretime-gui: --screenshot needs one FILE[:RUN]\n");
        return 2;
    }
    if (screenshot) {
        const std::string file = splitSelector(args.first()).first.toStdString();
        if (wt::Overwrite o = wt::overwrittenInput({parser.value(shot).toStdString()}, {file})) {
            std::fprintf(stderr, "wheretime-gui: %s\n", o.message().c_str());
            return 1;
        }
    }
    if (parser.isSet(find) && !screenshot) {
        // Once the run is there (the screenshot path does it before grabbing).
        auto once = std::make_shared<QMetaObject::Connection>();
        *once = QObject::connect(window.viewState(), &wt::gui::ViewState::runChanged, &app, [&window, &parser, &find, once] {
            if (!window.viewState()->run())
                return;
            QObject::disconnect(*once);
            window.timeline()->findText(parser.value(find), true);
            window.timeline()->findStep(true);
        });
    }
    if (!args.isEmpty()) {
        auto [file, run] = splitSelector(args.first());
        if (!window.openFile(file, run) && screenshot) {
            std::fprintf(stderr, "wheretime-gui: %s\n", qPrintable(window.lastError()));
            return 1;
        }
        // More files: listed in the run browser beside the first (to compare across files).
        for (qsizetype i = 1; i < args.size(); ++i)
            window.addFile(splitSelector(args[i]).first);
    }
    if ((parser.isSet(variants) || parser.isSet(sweep) || parser.isSet(roofline)) && !args.isEmpty()) {
        // The variants view of FILE[:RUN] (its variants), or the scaling view of a sweep of FILE;
        // with --screenshot grabbed once its charts are there.
        auto [file, run] = splitSelector(args.first());
        const QString abs = QFileInfo(file).absoluteFilePath();
        QWidget* shown = nullptr;
        const QString out = parser.value(shot);
        auto grab = [&shown, out, screenshot] {
            if (screenshot)
                wt::gui::grabAndQuit(shown, out, 150);
        };
        auto fail = [screenshot](const QString& message) {
            std::fprintf(stderr, "wheretime-gui: %s\n", qPrintable(message));
            if (screenshot)
                QApplication::exit(1);
        };
        QStringList wh = parser.value(size).split(QLatin1Char('x'));
        // The run FILE[:RUN] names, for the roofline and variants views.
        int64_t runId = 0;
        if (parser.isSet(roofline) || parser.isSet(variants)) {
            try {
                wt::Database db(file.toStdString(), wt::OpenMode::ReadOnly);
                wt::Reader reader(db);
                runId = reader.resolveRun(run.toStdString());
            } catch (const std::exception& e) {
                std::fprintf(stderr, "wheretime-gui: %s\n", e.what());
                return 1;
            }
        }
        if (parser.isSet(roofline)) {
            rooflineActions->showRoofline(abs, runId, parser.value(device));
            shown = rooflineActions->view();
            QObject::connect(rooflineActions->view(), &wt::gui::RooflineView::ready, &app, grab);
            QObject::connect(rooflineActions->view(), &wt::gui::RooflineView::failed, &app, fail);
        } else if (parser.isSet(variants)) {
            if (!variantsActions->compareVariantsOf(abs, runId, parser.value(setting).toStdString())) {
                std::fprintf(stderr, "wheretime-gui: run %lld of %s has no other run that differs only in %s\n",
                             static_cast<long long>(runId), qPrintable(file), qPrintable(parser.value(setting)));
                if (screenshot)
                    return 1;
            } else {
                shown = variantsActions->variantsView();
                QObject::connect(variantsActions->variantsView(), &wt::gui::VariantsView::ready, &app, grab);
                QObject::connect(variantsActions->variantsView(), &wt::gui::VariantsView::failed, &app, fail);
            }
        } else {
            const QString id = parser.value(sweep) == QLatin1String("newest") ? QString() : parser.value(sweep);
            variantsActions->showSweep(abs, id);
            shown = variantsActions->scalingView();
            QObject::connect(variantsActions->scalingView(), &wt::gui::ScalingView::ready, &app, [&, grab] {
                if (parser.isSet(logAxes))
                    variantsActions->scalingView()->setLogAxes(true);
                grab();
            });
            QObject::connect(variantsActions->scalingView(), &wt::gui::ScalingView::failed, &app, fail);
        }
        if (shown && screenshot)
            shown->resize(wh.value(0).toInt(), wh.value(1).toInt());
        return app.exec();
    }
    if (screenshot && parser.isSet(compare)) {
        // The compare window of FILE[:RUN] and --compare FILE[:RUN], grabbed once its charts
        // (or, with --timelines, both timelines) are there.
        std::vector<wt::gui::CompareSelector> runs;
        try {
            for (const QString& sel : {args.first(), parser.value(compare)}) {
                auto [file, run] = splitSelector(sel);
                wt::Database db(file.toStdString(), wt::OpenMode::ReadOnly);
                wt::Reader reader(db);
                runs.push_back({QFileInfo(file).absoluteFilePath(), reader.resolveRun(run.toStdString())});
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "wheretime-gui: %s\n", e.what());
            return 1;
        }
        window.addFile(runs[1].file);
        QStringList wh = parser.value(size).split(QLatin1Char('x'));
        wt::gui::screenshotCompare(*compareActions, runs,
                                   {parser.value(shot), QSize(wh.value(0).toInt(), wh.value(1).toInt()), parser.value(drill),
                                    parser.isSet(timelines)});
        return app.exec();
    }
    if (screenshot)
        wt::gui::screenshotMainWindow(window, *breakdown,
                                      {parser.value(shot), parser.isSet(bars), parser.value(drill), parsedRange,
                                       parser.isSet(find) ? parser.value(find) : QString()});
    return app.exec();
}
