#include "comparereport.h"

#include "app/gui/compare/comparemodel.h"
#include "app/gui/compare/compareplot.h"

#include "analysis/comparetable.h"
#include "render/comparetext.h"
#include "app/gui/export/chartexport.h"
#include "render/tablewriter.h"

#include <QDir>

namespace wt::gui {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QString mdCell(QString s)
{
    return s.replace(QLatin1Char('|'), QStringLiteral("\\|"));
}

// The table as Markdown and HTML rows: the columns a text table shows, each cell as the writer
// writes it (render::cellText), the same text as `wheretime compare` and the view.
void tables(const Table& t, size_t maxRows, QString* md, QString* html)
{
    std::vector<size_t> cols;
    for (size_t c = 0; c < t.columns.size(); ++c)
        if (t.columns[c].inText)
            cols.push_back(c);
    const size_t rows = t.rows.size();
    QStringList head;
    for (size_t c : cols)
        head << q(t.columns[c].title);
    *md += QStringLiteral("| ") + head.join(QStringLiteral(" | ")) + QStringLiteral(" |\n|");
    for (size_t c : cols)
        *md += t.columns[c].unit == Unit::Text ? QStringLiteral("---|") : QStringLiteral("---:|");
    *md += QLatin1Char('\n');
    *html += QStringLiteral("<table><tr>");
    for (const QString& h : head)
        *html += QStringLiteral("<th>%1</th>").arg(h.toHtmlEscaped());
    *html += QStringLiteral("</tr>\n");
    for (size_t r = 0; r < rows; ++r) {
        // Past maxRows only the last row (the total, when there is one) is shown.
        if (r >= maxRows && r != rows - 1)
            continue;
        QStringList cells;
        *html += QStringLiteral("<tr>");
        for (size_t c : cols) {
            const QString text = q(render::cellText(t.columns[c], t.rows[r][c]));
            cells << mdCell(text);
            *html += QStringLiteral("<td>%1</td>").arg(text.toHtmlEscaped());
        }
        *md += QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
        *html += QStringLiteral("</tr>\n");
    }
    *html += QStringLiteral("</table>\n");
    if (rows > maxRows + 1) {
        *md += QStringLiteral("\n(%1 more rows in the CSV)\n").arg(rows - maxRows - 1);
        *html += QStringLiteral("<p><i>%1 more rows in the CSV</i></p>\n").arg(rows - maxRows - 1);
    }
}

}  // namespace

bool writeCompareReport(const QString& dirPath, const CompareRuns& runs, QSize chartSize, double pngScale,
                        CompareReportSection* out, QString* error)
{
    QDir dir(dirPath);
    std::vector<const CompareRun*> ptrs;
    for (const auto& r : runs)
        ptrs.push_back(r.get());
    QStringList captionLines;
    for (size_t i = 0; i < runs.size(); ++i)
        captionLines << runTag(i, runs.size()) + QStringLiteral(": ") + runCaption(runs[i]->info);
    auto chart = [&](ComparePlot& plot, const QString& base, const QString& how) -> bool {
        ExportOptions eo;
        eo.caption = captionLines.join(QLatin1Char('\n')) + QLatin1Char('\n') + how;
        eo.title = plot.chart().title;
        eo.size = QSize(chartSize.width(), std::max(chartSize.height(), plot.preferredHeight()) + captionHeight(eo.caption));
        eo.scale = pngScale;
        for (auto [ext, fmt] : {std::pair{QStringLiteral(".png"), ExportFormat::Png}, std::pair{QStringLiteral(".svg"), ExportFormat::Svg}}) {
            if (!exportChart(plotPainter(&plot), dir.filePath(base + ext), fmt, eo, error))
                return false;
            out->files << base + ext;
        }
        return true;
    };
    // Every CSV is the writer's CSV of analysis's table: `wheretime compare --csv` byte for byte.
    auto csv = [&](const QString& name, const Table& table) -> bool {
        if (!writeTextFile(dir.filePath(name), q(render::csv(table)), error))
            return false;
        out->files << name;
        return true;
    };

    Comparison top;
    try {
        top = compareRuns(ptrs, {});
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    const QString per = perLabel(top.per, top.runs);
    const QString by = q(std::string(toString(top.groupBy)));
    QString& md = out->markdown;
    QString& html = out->html;
    md += QStringLiteral("\n## Compare\n\n");
    html += QStringLiteral("<h2>Compare</h2>\n<ul>\n");
    for (const QString& line : captionLines) {
        md += QStringLiteral("- %1\n").arg(line);
        html += QStringLiteral("<li>%1</li>\n").arg(line.toHtmlEscaped());
    }
    html += QStringLiteral("</ul>\n");
    md += QStringLiteral("\nMatched by structure (scope paths, then kernel names), %1.").arg(per);
    html += QStringLiteral("<p>Matched by structure (scope paths, then kernel names), %1.").arg(per.toHtmlEscaped());
    for (const std::string& n : top.notes) {
        md += QLatin1Char(' ') + q(n) + QLatin1Char('.');
        html += QLatin1Char(' ') + q(n).toHtmlEscaped() + QLatin1Char('.');
    }
    md += QStringLiteral("\n\n");
    html += QStringLiteral("</p>\n");

    ComparePlot bars(ComparePlot::Kind::Bars), delta(ComparePlot::Kind::Delta);
    bars.setData(chartData(top, QStringLiteral("Kernel time by %1").arg(by), ComparePlot::kMaxRows));
    delta.setData(chartData(top, QStringLiteral("Change of kernel time by %1").arg(by), ComparePlot::kMaxRows));
    if (!chart(bars, QStringLiteral("compare-%1-bars").arg(by), per) || !chart(delta, QStringLiteral("compare-%1-delta").arg(by), per))
        return false;
    const Table topTable = compareTable(top);
    if (!csv(QStringLiteral("compare-%1.csv").arg(by), topTable))
        return false;
    md += QStringLiteral("### Kernel time by %1, %2\n\n![compare bars](compare-%1-bars.png)\n\n![compare delta](compare-%1-delta.png)\n\n")
              .arg(by, per);
    html += QStringLiteral("<h3>Kernel time by %1, %2</h3>\n<img src=\"compare-%1-bars.png\" alt=\"compare bars\">\n"
                           "<img src=\"compare-%1-delta.png\" alt=\"compare delta\">\n")
                .arg(by, per.toHtmlEscaped());
    tables(topTable, 40, &md, &html);
    md += QStringLiteral("\nTable: `compare-%1.csv`; vector charts: `compare-%1-bars.svg`, `compare-%1-delta.svg`.\n").arg(by);

    // By kernel name too, when the top level is not already: what a change of kernels did to
    // the whole run (`wheretime compare --group-by kernel --csv`).
    if (top.groupBy != GroupBy::Kernel) {
        CompareOptions ko;
        ko.groupBy = GroupBy::Kernel;
        Comparison byKernel;
        try {
            byKernel = compareRuns(ptrs, ko);
        } catch (const std::exception& e) {
            if (error)
                *error = QString::fromUtf8(e.what());
            return false;
        }
        if (!csv(QStringLiteral("compare-kernel.csv"), compareTable(byKernel)))
            return false;
        md += QStringLiteral("By kernel name: `compare-kernel.csv`.\n");
        html += QStringLiteral("<p>By kernel name: <a href=\"compare-kernel.csv\">compare-kernel.csv</a></p>\n");
    }

    // The layer that changed most (present in BASE and the first OTHER): its ops and kernels.
    if (top.groupBy == GroupBy::Layer && runs.size() >= 2) {
        const CompareGroup* layer = nullptr;
        for (const CompareGroup& g : top.groups)
            if (g.cells[0].present && g.cells[1].present) {
                layer = &g;
                break;
            }
        if (layer) {
            CompareOptions o;
            o.groupBy = GroupBy::Op;
            o.filters = {{GroupBy::Layer, layer->path}};
            KernelDiffOptions ko;
            ko.filters = o.filters;
            Comparison ops;
            KernelDiff kd;
            try {
                ops = compareRuns(ptrs, o);
                kd = diffKernels(*ptrs[0], *ptrs[1], ko);
            } catch (const std::exception& e) {
                if (error)
                    *error = QString::fromUtf8(e.what());
                return false;
            }
            const QString name = q(layer->path);
            ComparePlot opBars(ComparePlot::Kind::Bars), kernelDelta(ComparePlot::Kind::Delta);
            opBars.setData(chartData(ops, QStringLiteral("Kernel time by op in layer %1").arg(name), ComparePlot::kMaxRows));
            kernelDelta.setData(chartData(kd, QStringLiteral("Kernel diff of layer %1").arg(name), ComparePlot::kMaxRows));
            const QString how = per + QStringLiteral(" \u00b7 layer ") + name;
            if (!chart(opBars, QStringLiteral("compare-layer-ops-bars"), how) || !chart(kernelDelta, QStringLiteral("compare-layer-kernels-delta"), how))
                return false;
            const Table kdTable = kernelDiffTable(kd);
            if (!csv(QStringLiteral("compare-layer-ops.csv"), compareTable(ops)) || !csv(QStringLiteral("compare-layer-kernels.csv"), kdTable))
                return false;
            const QString counts = q(kernelChangeSummary(kd));
            md += QStringLiteral("\n### The layer that changed most: %1\n\n![ops](compare-layer-ops-bars.png)\n\n"
                                 "![kernel diff](compare-layer-kernels-delta.png)\n\nKernels: %2.\n\n")
                      .arg(mdCell(name), counts);
            html += QStringLiteral("<h3>The layer that changed most: %1</h3>\n<img src=\"compare-layer-ops-bars.png\" alt=\"ops\">\n"
                                   "<img src=\"compare-layer-kernels-delta.png\" alt=\"kernel diff\">\n<p>Kernels: %2.</p>\n")
                        .arg(name.toHtmlEscaped(), counts.toHtmlEscaped());
            tables(kdTable, 30, &md, &html);
            md += QStringLiteral("\nTables: `compare-layer-ops.csv`, `compare-layer-kernels.csv`.\n");
        }
    }
    html += QStringLiteral("<p>Compare files: ");
    for (const QString& f : out->files)
        html += QStringLiteral("<a href=\"%1\">%1</a> ").arg(f.toHtmlEscaped());
    html += QStringLiteral("</p>\n");
    return true;
}

}  // namespace wt::gui
