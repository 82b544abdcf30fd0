#include "report.h"

#include "app/gui/breakdown/breakdownmodel.h"
#include "app/gui/breakdown/breakdownplot.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "chartexport.h"
#include "app/gui/breakdown/runsummary.h"

#include "analysis/breakdowntable.h"
#include "analysis/gputimetable.h"
#include "app/gui/export/comparereport.h"
#include "app/gui/variants/variantsactions.h"
#include "app/gui/export/variantsreport.h"
#include "app/gui/core/timeformat.h"
#include "app/gui/core/timelinelayout.h"
#include "app/gui/widgets/timelinewidget.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/pathidentity.h"
#include "storage/reader.h"

#include <QDir>
#include <QElapsedTimer>

#include <algorithm>
#include <climits>
#include <exception>
#include <utility>

namespace wt::gui {

namespace {

// The step the timeline shows: the second one when there are several (the first carries
// warm-up costs), as [start, end) of its GPU span; the whole run when there are no steps.
std::pair<double, double> stepSpan(const RunData& run, QString* label)
{
    std::vector<uint32_t> steps;
    for (uint32_t i = 0; i < run.instances.size(); ++i) {
        const ScopeNodeData& n = run.nodes[run.instances.node[i]];
        if (n.level == QLatin1String("step") && run.instances.hasSpan(i))
            steps.push_back(i);
    }
    std::sort(steps.begin(), steps.end(),
              [&](uint32_t a, uint32_t b) { return run.instances.gpuStart(a) < run.instances.gpuStart(b); });
    if (steps.empty()) {
        *label = QStringLiteral("whole run");
        return {double(run.spanStartNs), double(std::max(run.spanEndNs, run.spanStartNs + 1))};
    }
    size_t k = steps.size() >= 2 ? 1 : 0;
    uint32_t i = steps[k];
    *label = QStringLiteral("step %1 of %2 (%3)").arg(k + 1).arg(steps.size()).arg(run.nodes[run.instances.node[i]].name);
    double a = double(run.instances.gpuStart(i)), b = double(run.instances.gpuEnd(i));
    double pad = std::max(1.0, (b - a) * 0.02);
    return {a - pad, b + pad};
}

QString html(const QString& s)
{
    return s.toHtmlEscaped();
}

// The first rows of the breakdown table (the CSV's table; the writer's cell text, as the GUI's
// table shows it), with each group's colour.
QString htmlTable(const BreakdownResult& r, size_t maxRows)
{
    const Table t = breakdownTable(r.level.groupBy, r.rows);
    std::vector<size_t> cols;
    for (const char* id : {"name", "time_ns", "share", "count", "mean_ns", "median_ns", "min_ns", "max_ns"})
        cols.push_back(t.column(id));
    QString out = QStringLiteral("<table><tr>");
    for (size_t c : cols)
        out += QStringLiteral("<th>%1</th>").arg(html(QString::fromStdString(t.columns[c].title)));
    out += QStringLiteral("</tr>\n");
    for (size_t i = 0; i < t.rows.size() && i < maxRows; ++i) {
        out += QStringLiteral("<tr>");
        for (size_t c : cols) {
            const QString cell = html(QString::fromStdString(render::cellText(t.columns[c], t.rows[i][c])));
            out += c == cols.front() ? QStringLiteral("<td><span class=\"sw\" style=\"background:%1\"></span>%2</td>")
                                           .arg(QColor::fromRgb(r.rows[i].color).name(), cell)
                                     : QStringLiteral("<td>%1</td>").arg(cell);
        }
        out += QStringLiteral("</tr>\n");
    }
    if (t.rows.size() > maxRows)
        out += QStringLiteral("<tr><td colspan=\"%1\"><i>%2 more rows in the CSV</i></td></tr>\n").arg(cols.size()).arg(t.rows.size() - maxRows);
    return out + QStringLiteral("</table>\n");
}

// Markdown table rows -> HTML for the metadata block (keys and values are plain text).
QString htmlMetadata(const BreakdownSource& src)
{
    QString out = QStringLiteral("<table class=\"meta\">\n");
    const QStringList lines = markdownMetadata(src).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (qsizetype i = 2; i < lines.size(); ++i) {
        QString line = lines[i].mid(2, lines[i].size() - 4);
        qsizetype sep = line.indexOf(QStringLiteral(" | "));
        QString v = line.mid(sep + 3);
        v.replace(QStringLiteral("\\|"), QStringLiteral("|")).replace(QStringLiteral("\\\\"), QStringLiteral("\\"));
        out += QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n").arg(html(line.left(sep)), html(v));
    }
    return out + QStringLiteral("</table>\n");
}

// A plain Markdown table (header, separator, rows; cells escaped by markdownCell) -> HTML.
QString htmlFromMarkdownTable(const QString& md)
{
    const QStringList lines = md.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QString out = QStringLiteral("<table>\n");
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (i == 1)
            continue;   // |---|---:|
        // Split on unescaped '|' (markdownCell escapes them as "\|").
        QStringList cells;
        QString cell;
        const QString line = lines[i].trimmed();
        for (qsizetype k = 1; k + 1 < line.size(); ++k) {
            if (line[k] == QLatin1Char('\\') && k + 2 < line.size()) {
                cell += line[++k];
            } else if (line[k] == QLatin1Char('|')) {
                cells << cell.trimmed();
                cell.clear();
            } else {
                cell += line[k];
            }
        }
        cells << cell.trimmed();
        const QString tag = i == 0 ? QStringLiteral("th") : QStringLiteral("td");
        out += QStringLiteral("<tr>");
        for (const QString& c : cells)
            out += QStringLiteral("<%1>%2</%1>").arg(tag, html(c));
        out += QStringLiteral("</tr>\n");
    }
    return out + QStringLiteral("</table>\n");
}

// Every file the report writes into OUTDIR.
const char* const kReportFiles[] = {"timeline-step.png", "timeline-step.svg", "pie-layer.png",         "pie-layer.svg",
                                    "pie-kernel.png",    "pie-kernel.svg",    "bars-kernel.png",       "bars-kernel.svg",
                                    "pie-category.png",  "pie-category.svg",
                                    "breakdown-layer.csv", "breakdown-phase.csv", "breakdown-op.csv", "breakdown-kernel.csv",
                                    "breakdown-category.csv", "devices.csv", "steps.csv",
                                    "index.md",          "index.html",
                                    // The compare section (compare/comparereport.cpp): by layer, or by kernel
                                    // for runs without scopes; then the most-changed layer's ops and kernels.
                                    "compare-layer-bars.png", "compare-layer-bars.svg", "compare-layer-delta.png",
                                    "compare-layer-delta.svg", "compare-layer.csv", "compare-kernel-bars.png",
                                    "compare-kernel-bars.svg", "compare-kernel-delta.png", "compare-kernel-delta.svg",
                                    "compare-kernel.csv", "compare-layer-ops-bars.png", "compare-layer-ops-bars.svg",
                                    "compare-layer-kernels-delta.png", "compare-layer-kernels-delta.svg",
                                    "compare-layer-ops.csv", "compare-layer-kernels.csv"};

}  // namespace

ReportResult writeReport(const ReportOptions& o)
{
    ReportResult res;
    QElapsedTimer clock;
    clock.start();
    auto fail = [&](const QString& why) {
        res.ok = false;
        res.error = why;
        return res;
    };
    // OUTDIR must not be an input, and no report file may land on one (or on its -wal/-shm).
    {
        std::vector<std::string> outputs{o.outDir.toStdString()};
        for (const char* name : kReportFiles)
            outputs.push_back(QDir(o.outDir).filePath(QLatin1String(name)).toStdString());
        for (const QString& name : variantsReportFiles() + scalingReportFiles())
            outputs.push_back(QDir(o.outDir).filePath(name).toStdString());
        if (Overwrite w = overwrittenInput(outputs, {o.file.toStdString(), o.compareFile.toStdString()}))
            return fail(QString::fromStdString(w.message()));
    }
    // Resolve the runs first: bad input fails before anything is written.
    int64_t runId = 0, compareId = 0;
    try {
        {
            Database db(o.file.toStdString(), OpenMode::ReadOnly);
            Reader reader(db);
            runId = reader.resolveRun(o.run.toStdString());
        }
        if (!o.compareFile.isEmpty()) {
            Database db(o.compareFile.toStdString(), OpenMode::ReadOnly);
            Reader reader(db);
            compareId = reader.resolveRun(o.compareRun.toStdString());
        }
    } catch (const std::exception& e) {
        return fail(QString::fromUtf8(e.what()));
    }
    QDir dir(o.outDir);
    if (!dir.mkpath(QStringLiteral(".")))
        return fail(QStringLiteral("cannot create %1").arg(o.outDir));

    std::shared_ptr<const BreakdownSource> src;
    std::shared_ptr<RunData> run;
    try {
        run = loadRun(o.file.toStdString(), runId);
        if (!run)
            return fail(QStringLiteral("loading the run was cancelled"));
        src = BreakdownSource::load(run);
    } catch (const std::exception& e) {
        return fail(QString::fromUtf8(e.what()));
    }
    const RunInfo& info = src->run();
    const QString caption = runCaption(info);
    QString error;
    auto path = [&](const QString& name) { return dir.filePath(name); };
    auto chart = [&](const ChartPainter& paint, const QString& base, QSize size, const QString& title,
                     const QString& extraCaption) -> bool {
        ExportOptions eo;
        eo.size = size;
        eo.scale = o.pngScale;
        eo.title = title;
        eo.caption = extraCaption.isEmpty() ? caption : caption + QStringLiteral(" \u00b7 ") + extraCaption;
        for (auto [ext, fmt] : {std::pair{QStringLiteral(".png"), ExportFormat::Png}, std::pair{QStringLiteral(".svg"), ExportFormat::Svg}}) {
            if (!exportChart(paint, path(base + ext), fmt, eo, &error))
                return false;
            res.files << base + ext;
        }
        return true;
    };

    // Timeline of one step.
    QString stepLabel;
    auto [t0, t1] = stepSpan(*run, &stepLabel);
    const QString timelineTitle = QStringLiteral("Timeline of %1").arg(stepLabel);
    // As tall as the timeline's rows (all lanes and tracks), within the requested height.
    TimelineLayout rows;
    rows.build(*run, {});
    QSize timelineSize(o.timelineSize.width(),
                       std::clamp(TimelineWidget::kRulerHeight + rows.contentHeight() + 12 + captionHeight(caption), 120,
                                  std::max(120, o.timelineSize.height())));
    if (!chart(timelinePainter(run, t0, t1), QStringLiteral("timeline-step"), timelineSize, timelineTitle, timelineTitle))
        return fail(error);

    // Pies and bars: the GUI's charts, fed the GUI's numbers.
    const BreakdownResult layers = src->compute({GroupBy::Layer, {}});
    const BreakdownResult kernels = src->compute({GroupBy::Kernel, {}});
    const BreakdownResult phases = src->compute({GroupBy::Phase, {}});
    const BreakdownResult ops = src->compute({GroupBy::Op, {}});
    const BreakdownResult categories = src->compute({GroupBy::Category, {}});
    BreakdownPlot pie(BreakdownPlot::Kind::Pie);
    pie.setResult(layers, 0.02, QStringLiteral("Kernel time by layer"));
    if (!chart(plotPainter(&pie), QStringLiteral("pie-layer"), o.chartSize, QStringLiteral("Kernel time by layer"), {}))
        return fail(error);
    pie.setResult(kernels, 0.02, QStringLiteral("Kernel time by kernel name"));
    if (!chart(plotPainter(&pie), QStringLiteral("pie-kernel"), o.chartSize, QStringLiteral("Kernel time by kernel name"), {}))
        return fail(error);
    pie.setResult(categories, 0.02, QStringLiteral("Time by kernel category"));
    if (!chart(plotPainter(&pie), QStringLiteral("pie-category"), o.chartSize, QStringLiteral("Time by kernel category"), {}))
        return fail(error);
    BreakdownPlot bars(BreakdownPlot::Kind::Bars);
    bars.setResult(kernels, 0.02, QStringLiteral("Kernels by time"));
    if (!chart(plotPainter(&bars), QStringLiteral("bars-kernel"), QSize(o.chartSize.width(), std::max(o.chartSize.height(), 900)),
               QStringLiteral("Kernels by time"), {}))
        return fail(error);

    // Tables: the table model's CSV, what the view's export writes (and `wheretime stats --csv`).
    BreakdownModel model;
    for (const BreakdownResult* r : {&layers, &phases, &ops, &kernels, &categories}) {
        model.setResult(*r);
        QString name = QStringLiteral("breakdown-%1.csv").arg(groupByLabel(r->level.groupBy));
        if (!writeTextFile(path(name), model.toCsv(), &error))
            return fail(error);
        res.files << name;
    }
    // Time on the GPU per device and per step: `wheretime stats --group-by step`'s tables
    // (devices.csv: its --json "devices" as CSV; steps.csv: its --csv).
    {
        const ActivityView activities = run->activities();
        const std::pair<QString, Table> tables[] = {
            {QStringLiteral("devices.csv"), devicesTable(computeDeviceTimes(src->profile(), activities))},
            {QStringLiteral("steps.csv"), stepsTable(computeStepTimes(src->profile(), activities))}};
        for (const auto& [name, table] : tables) {
            if (!writeTextFile(path(name), QString::fromStdString(render::csv(table)), &error))
                return fail(error);
            res.files << name;
        }
    }

    // The compare section: the compare view's charts and tables (analysis/compare's numbers).
    CompareReportSection compareSection;
    if (!o.compareFile.isEmpty()) {
        try {
            CompareRuns runs = loadCompareRuns({{o.file, runId}, {o.compareFile, compareId}});
            if (!writeCompareReport(o.outDir, runs, o.chartSize, o.pngScale, &compareSection, &error))
                return fail(error);
        } catch (const std::exception& e) {
            return fail(QString::fromUtf8(e.what()));
        }
        res.files << compareSection.files;
    }

    // The variants section (the run's variants: same workload, preset and sizes, another
    // variant) and the scaling section of a sweep (variants/variantsreport).
    VariantsReportSection variantsSection, scalingSection;
    if (o.variants) {
        try {
            const std::vector<int64_t> ids = VariantsActions::variantRunsOf(o.file, runId);
            if (ids.size() < 2)
                return fail(QStringLiteral("run %1 has no other variant in %2 with the same workload, preset and sizes").arg(runId).arg(o.file));
            std::vector<CompareSelector> sel;
            for (int64_t id : ids)
                sel.push_back({o.file, id});
            if (!writeVariantsReport(o.outDir, loadCompareRuns(sel), o.chartSize, o.pngScale, &variantsSection, &error))
                return fail(error);
        } catch (const std::exception& e) {
            return fail(QString::fromUtf8(e.what()));
        }
        res.files << variantsSection.files;
    }
    if (o.sweep) {
        try {
            auto sweep = std::make_shared<const ScalingResult>(loadScaling(o.file, o.sweepId));
            if (!writeScalingReport(o.outDir, std::move(sweep), o.chartSize, o.pngScale, &scalingSection, &error))
                return fail(error);
        } catch (const std::exception& e) {
            return fail(QString::fromUtf8(e.what()));
        }
        res.files << scalingSection.files;
    }

    // index.md and index.html.
    QString md = runSummaryMarkdown(*src, 20);
    md += QStringLiteral("\n## Charts\n\n");
    md += QStringLiteral("### %1\n\n![timeline](timeline-step.png)\n\n").arg(timelineTitle);
    md += QStringLiteral("### Kernel time by layer\n\n![layer pie](pie-layer.png)\n\n");
    md += QStringLiteral("### Kernel time by kernel name\n\n![kernel pie](pie-kernel.png)\n\n");
    md += QStringLiteral("### Kernels by time\n\n![kernel bars](bars-kernel.png)\n\n");
    md += QStringLiteral("### Time by kernel category\n\n![category pie](pie-category.png)\n\n");
    md += QStringLiteral("Vector versions: `timeline-step.svg`, `pie-layer.svg`, `pie-kernel.svg`, `bars-kernel.svg`, `pie-category.svg`. "
                         "Tables: `breakdown-layer.csv`, `breakdown-phase.csv`, `breakdown-op.csv`, `breakdown-kernel.csv`, "
                         "`breakdown-category.csv`, `devices.csv` (time on the GPU per device), `steps.csv` (per step).\n");
    md += compareSection.markdown + variantsSection.markdown + scalingSection.markdown;
    if (!writeTextFile(path(QStringLiteral("index.md")), md, &error))
        return fail(error);
    res.files << QStringLiteral("index.md");

    QString h = QStringLiteral(
                    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>wheretime: run %1</title>\n<style>\n"
                    "body{font-family:sans-serif;max-width:1250px;margin:2em auto;color:#222}"
                    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
                    "td:first-child,th:first-child{text-align:left}.meta th{text-align:left;background:#f4f4f4}"
                    "img{max-width:100%;border:1px solid #ddd}.sw{display:inline-block;width:10px;height:10px;margin-right:6px}"
                    ".todo{background:#fff4d6;border:1px solid #e0b84a;padding:8px}\n</style></head><body>\n")
                    .arg(info.id);
    h += QStringLiteral("<h1>Run %1: %2</h1>\n<p>%3</p>\n").arg(info.id).arg(html(QString::fromStdString(info.name)), html(caption));
    h += htmlMetadata(*src);
    if (const QString devices = markdownDeviceTable(*src); !devices.isEmpty())
        h += QStringLiteral("<h2>Time on the GPU per device</h2>\n<p>Busy: a kernel or a memory operation running; idle: nothing; "
                            "exposed: not under compute (docs/definitions.md).</p>\n") +
             htmlFromMarkdownTable(devices);
    if (info.droppedRecords > 0)
        h += QStringLiteral("<p><b>%1 records were dropped by the tracer:</b> times undercount.</p>\n").arg(info.droppedRecords);
    h += QStringLiteral("<h2>%1</h2>\n<img src=\"timeline-step.png\" alt=\"timeline\">\n").arg(html(timelineTitle));
    h += QStringLiteral("<h2>Kernel time by layer</h2>\n<img src=\"pie-layer.png\" alt=\"layer pie\">\n") + htmlTable(layers, 30);
    h += QStringLiteral("<h2>Kernel time by phase</h2>\n") + htmlTable(phases, 30);
    h += QStringLiteral("<h2>Kernel time by kernel name</h2>\n<img src=\"pie-kernel.png\" alt=\"kernel pie\">\n"
                        "<img src=\"bars-kernel.png\" alt=\"kernel bars\">\n") +
         htmlTable(kernels, 30);
    h += QStringLiteral("<h2>Time by kernel category</h2>\n<img src=\"pie-category.png\" alt=\"category pie\">\n") +
         htmlTable(categories, 30);
    h += QStringLiteral("<p>Files: ");
    for (const QString& f : res.files)
        h += QStringLiteral("<a href=\"%1\">%1</a> ").arg(html(f));
    h += QStringLiteral("</p>\n");
    h += compareSection.html + variantsSection.html + scalingSection.html;
    h += QStringLiteral("</body></html>\n");
    if (!writeTextFile(path(QStringLiteral("index.html")), h, &error))
        return fail(error);
    res.files << QStringLiteral("index.html");
    // The overwrite check above knows the files by kReportFiles: keep the two lists one.
    Q_ASSERT(std::all_of(res.files.begin(), res.files.end(), [](const QString& f) {
        return std::any_of(std::begin(kReportFiles), std::end(kReportFiles), [&](const char* n) { return f == QLatin1String(n); }) ||
               variantsReportFiles().contains(f) || scalingReportFiles().contains(f);
    }));
    res.ok = true;
    res.seconds = double(clock.nsecsElapsed()) / 1e9;
    return res;
}

}  // namespace wt::gui
