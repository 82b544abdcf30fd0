#include "variantsreport.h"

#include "app/gui/variants/variantsview.h"

#include "analysis/sweeptable.h"
#include "analysis/variantstable.h"
#include "app/gui/export/chartexport.h"
#include "app/gui/core/timeformat.h"
#include "render/tablewriter.h"

#include <QDir>

namespace wt::gui {

namespace {

constexpr VariantsPlot::Kind kKinds[] = {VariantsPlot::Kind::LayerTime, VariantsPlot::Kind::Ops, VariantsPlot::Kind::Share,
                                         VariantsPlot::Kind::StepTime};

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QString mdCell(QString s)
{
    return s.replace(QLatin1Char('|'), QStringLiteral("\\|"));
}

// A table's text columns (the writer's cell text) as a Markdown and an HTML table.
void writeTable(const Table& t, QString& md, QString& html)
{
    QStringList head, align;
    std::vector<size_t> shown;
    for (size_t c = 0; c < t.columns.size(); ++c)
        if (t.columns[c].inText) {
            shown.push_back(c);
            head << q(t.columns[c].title);
            align << (t.columns[c].unit == Unit::Text ? QStringLiteral("---") : QStringLiteral("---:"));
        }
    QStringList mdHead;
    html += QStringLiteral("<table><tr>");
    for (const QString& h : head) {
        mdHead << mdCell(h);
        html += QStringLiteral("<th>%1</th>").arg(h.toHtmlEscaped());
    }
    md += QStringLiteral("| ") + mdHead.join(QStringLiteral(" | ")) + QStringLiteral(" |\n|") + align.join(QLatin1Char('|')) +
          QStringLiteral("|\n");
    html += QStringLiteral("</tr>\n");
    for (const auto& row : t.rows) {
        QStringList mdCells;
        html += QStringLiteral("<tr>");
        for (size_t c : shown) {
            const QString text = q(render::cellText(t.columns[c], row[c]));
            mdCells << mdCell(text);
            html += QStringLiteral("<td>%1</td>").arg(text.toHtmlEscaped());
        }
        md += QStringLiteral("| ") + mdCells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
        html += QStringLiteral("</tr>\n");
    }
    html += QStringLiteral("</table>\n");
}

// Writes base.png and base.svg of a chart through the view's export (same caption as on screen).
// Size: what the view's exportChart takes (the report's chart width, or its whole size).
template <typename View, typename Kind, typename Size>
bool pngAndSvg(View& view, Kind kind, const QDir& dir, const QString& base, VariantsReportSection* out, QString* error,
               Size size, double pngScale)
{
    for (const char* ext : {".png", ".svg"}) {
        const QString name = base + QLatin1String(ext);
        if (!view.exportChart(kind, dir.filePath(name), error, size, pngScale))
            return false;
        out->files << name;
    }
    return true;
}

}  // namespace

QStringList variantsReportFiles()
{
    QStringList out;
    for (VariantsPlot::Kind k : kKinds)
        for (const char* ext : {".png", ".svg"})
            out << variantsChartFileName(k) + QLatin1String(ext);
    out << QStringLiteral("variants.csv") << QStringLiteral("variants-ops.csv");
    return out;
}

QStringList scalingReportFiles()
{
    return {QStringLiteral("scaling-time.png"), QStringLiteral("scaling-time.svg"), QStringLiteral("scaling-share.png"),
            QStringLiteral("scaling-share.svg"), QStringLiteral("scaling.csv")};
}

bool writeVariantsReport(const QString& dirPath, const CompareRuns& runs, QSize chartSize, double pngScale,
                         VariantsReportSection* out, QString* error)
{
    QDir dir(dirPath);
    VariantsView view;
    view.setRuns(std::make_shared<const CompareRuns>(runs));
    if (!view.hasTable()) {
        if (error)
            *error = view.message();
        return false;
    }
    const VariantsTable& t = view.table();
    for (VariantsPlot::Kind k : kKinds)
        if (!pngAndSvg(view, k, dir, variantsChartFileName(k), out, error, chartSize.width(), pngScale))
            return false;
    // The tables, through the charts' CSV export: `wheretime variants --csv` and `--csv --ops`.
    if (!view.exportChart(VariantsPlot::Kind::LayerTime, dir.filePath(QStringLiteral("variants.csv")), error) ||
        !view.exportChart(VariantsPlot::Kind::Ops, dir.filePath(QStringLiteral("variants-ops.csv")), error))
        return false;
    out->files << QStringLiteral("variants.csv") << QStringLiteral("variants-ops.csv");
    QString& md = out->markdown;
    QString& html = out->html;
    const QString title = view.title();
    md += QStringLiteral("\n## Variants: %1\n\n").arg(mdCell(title));
    html += QStringLiteral("<h2>Variants: %1</h2>\n<ul>\n").arg(title.toHtmlEscaped());
    for (const QString& line : view.caption().split(QLatin1Char('\n'))) {
        md += QStringLiteral("- %1\n").arg(line);
        html += QStringLiteral("<li>%1</li>\n").arg(line.toHtmlEscaped());
    }
    html += QStringLiteral("</ul>\n");
    for (const std::string& n : t.notes) {
        md += QStringLiteral("\n%1.\n").arg(q(n));
        html += QStringLiteral("<p>%1.</p>\n").arg(q(n).toHtmlEscaped());
    }
    md += QLatin1Char('\n');
    for (VariantsPlot::Kind k : kKinds) {
        const QString base = variantsChartFileName(k), what = view.plot(k)->title();
        md += QStringLiteral("### %1\n\n![%2](%2.png)\n\n").arg(mdCell(what), base);
        html += QStringLiteral("<h3>%1</h3>\n<img src=\"%2.png\" alt=\"%2\">\n").arg(what.toHtmlEscaped(), base);
    }
    // The table: the variants table's text columns, as `wheretime variants` prints them.
    writeTable(variantsTable(t), md, html);
    html += QStringLiteral("<p>Variants files: ");
    for (const QString& f : out->files)
        html += QStringLiteral("<a href=\"%1\">%1</a> ").arg(f.toHtmlEscaped());
    html += QStringLiteral("</p>\n");
    md += QStringLiteral("\nTables: `variants.csv` (one row per run), `variants-ops.csv` (one row per op); vector charts: "
                         "`variants-layer.svg`, `variants-ops.svg`, `variants-share.svg`, `variants-step.svg`.\n");
    return true;
}

bool writeScalingReport(const QString& dirPath, std::shared_ptr<const ScalingResult> sweep, QSize chartSize, double pngScale,
                        VariantsReportSection* out, QString* error)
{
    QDir dir(dirPath);
    ScalingView view;
    view.setResult(std::move(sweep));
    if (!pngAndSvg(view, ScalingPlot::Kind::Time, dir, QStringLiteral("scaling-time"), out, error, chartSize, pngScale) ||
        !pngAndSvg(view, ScalingPlot::Kind::Share, dir, QStringLiteral("scaling-share"), out, error, chartSize, pngScale) ||
        !view.exportChart(ScalingPlot::Kind::Time, dir.filePath(QStringLiteral("scaling.csv")), error))
        return false;
    out->files << QStringLiteral("scaling.csv");
    const SweepTable& t = view.table();
    QString& md = out->markdown;
    QString& html = out->html;
    md += QStringLiteral("\n## %1\n\n").arg(mdCell(view.title()));
    html += QStringLiteral("<h2>%1</h2>\n").arg(view.title().toHtmlEscaped());
    for (const QString& line : view.caption().split(QLatin1Char('\n'))) {
        md += QStringLiteral("- %1\n").arg(line);
        html += QStringLiteral("<p>%1</p>\n").arg(line.toHtmlEscaped());
    }
    for (const std::string& n : t.notes) {
        md += QStringLiteral("- %1\n").arg(q(n));
        html += QStringLiteral("<p>%1</p>\n").arg(q(n).toHtmlEscaped());
    }
    md += QStringLiteral("\n### %1\n\n![scaling time](scaling-time.png)\n\n### %2\n\n![scaling share](scaling-share.png)\n\n")
              .arg(view.timePlot()->title(), view.sharePlot()->title());
    html += QStringLiteral("<h3>%1</h3>\n<img src=\"scaling-time.png\" alt=\"scaling time\">\n<h3>%2</h3>\n"
                           "<img src=\"scaling-share.png\" alt=\"scaling share\">\n")
                .arg(view.timePlot()->title().toHtmlEscaped(), view.sharePlot()->title().toHtmlEscaped());
    // Points per line: x value -> layer time (share), with the prediction's error where the
    // point has a predicted twin: the sweep table's cells as the writer writes them.
    const ScalingChartData& d = view.timePlot()->chart();
    auto cellText = [&](int row, const char* id) {
        const size_t c = d.table.column(id);
        return QString::fromStdString(render::cellText(d.table.columns[c], d.table.rows[size_t(row)][c]));
    };
    QStringList head{QStringLiteral("series")};
    for (const QString& v : d.xValues)
        head << d.xKey + QStringLiteral(" ") + v;
    md += QStringLiteral("| ") + head.join(QStringLiteral(" | ")) + QStringLiteral(" |\n|---|");
    for (qsizetype i = 0; i < d.xValues.size(); ++i)
        md += QStringLiteral("---:|");
    md += QLatin1Char('\n');
    html += QStringLiteral("<table><tr>");
    for (const QString& h : head)
        html += QStringLiteral("<th>%1</th>").arg(h.toHtmlEscaped());
    html += QStringLiteral("</tr>\n");
    for (const ScalingLine& l : d.lines) {
        QStringList cells{l.name};
        for (const QString& v : d.xValues) {
            auto it = std::find_if(l.points.begin(), l.points.end(), [&](const ScalingPoint& p) { return p.value == v; });
            if (it == l.points.end()) {
                cells << QStringLiteral("-");
                continue;
            }
            QString c = QStringLiteral("%1 (%2)").arg(cellText(it->row, kSweepLayerNsColumn), cellText(it->row, kSweepShareColumn));
            if (!l.predicted && it->errorPct)
                c += QStringLiteral(", predicted %1").arg(cellText(it->row, kSweepErrorColumn));
            cells << c;
        }
        QStringList mdCells;
        html += QStringLiteral("<tr>");
        for (const QString& c : cells) {
            mdCells << mdCell(c);
            html += QStringLiteral("<td>%1</td>").arg(c.toHtmlEscaped());
        }
        md += QStringLiteral("| ") + mdCells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
        html += QStringLiteral("</tr>\n");
    }
    html += QStringLiteral("</table>\n");
    md += QStringLiteral("\nTable: `scaling.csv`; vector charts: `scaling-time.svg`, `scaling-share.svg`.\n");
    return true;
}

}  // namespace wt::gui
