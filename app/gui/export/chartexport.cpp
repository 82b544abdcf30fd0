#include "chartexport.h"

#include "app/gui/charts/chartplot.h"

#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/timelinewidget.h"

#include <QFile>
#include <QFileInfo>
#include <QPageLayout>
#include <QPageSize>
#include <QRegularExpression>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <qcustomplot.h>

namespace wt::gui {

namespace {

QFont captionFont()
{
    QFont f;
    f.setPixelSize(12);
    return f;
}

constexpr int kCaptionPad = 6;   // px above and below the caption text

// Paints chart + caption on an active painter whose coordinates are logical px.
void paintAll(QCPPainter& painter, const ChartPainter& paint, const ExportOptions& o)
{
    const int capH = captionHeight(o.caption);
    const QSize chart(o.size.width(), std::max(1, o.size.height() - capH));
    painter.fillRect(QRect(QPoint(0, 0), o.size), Qt::white);
    painter.save();
    painter.setClipRect(QRect(QPoint(0, 0), chart));
    paint(painter, chart);
    painter.restore();
    if (capH > 0) {
        painter.save();
        painter.setPen(QColor(200, 200, 200));
        painter.drawLine(QPointF(8, chart.height() + 0.5), QPointF(o.size.width() - 8, chart.height() + 0.5));
        painter.setPen(QColor(60, 60, 60));
        painter.setFont(captionFont());
        painter.drawText(QRect(10, chart.height() + kCaptionPad, o.size.width() - 20, capH - 2 * kCaptionPad),
                         Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, o.caption);
        painter.restore();
    }
}

}  // namespace

std::optional<ExportFormat> exportFormatOf(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return ExportFormat::Png;
    if (suffix == QLatin1String("svg"))
        return ExportFormat::Svg;
    if (suffix == QLatin1String("pdf"))
        return ExportFormat::Pdf;
    return std::nullopt;
}

int captionHeight(const QString& caption)
{
    if (caption.isEmpty())
        return 0;
    QFontMetrics fm(captionFont());
    return int(caption.count(QLatin1Char('\n')) + 1) * fm.lineSpacing() + 2 * kCaptionPad;
}

QString runCaption(const RunInfo& run)
{
    QStringList parts;
    parts << (QString::fromStdString(run.workload.empty() ? std::string("run") : run.workload) +
              (run.preset.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(run.preset))));
    parts << QStringLiteral("variant %1").arg(run.variant.empty() ? QStringLiteral("-") : QString::fromStdString(run.variant));
    parts << QString::fromStdString(run.device.empty() ? std::string("unknown device") : run.device);
    if (!run.startedAt.empty())
        parts << QString::fromStdString(run.startedAt);
    parts << QStringLiteral("run %1 '%2'").arg(run.id).arg(QString::fromStdString(run.name));
    if (run.droppedRecords > 0)
        parts << QStringLiteral("%1 dropped records").arg(run.droppedRecords);
    if (run.status != RunStatus::Complete)
        parts << QString::fromLatin1(toString(run.status).data(), qsizetype(toString(run.status).size()));
    return parts.join(QStringLiteral(" \u00b7 "));
}

bool useGenericFontFamily(const QString& path, QString* error)
{
    // Qt names the platform's default family ("Sans Serif" from fontconfig), which no browser
    // knows: they fall back to a serif face. Each family becomes itself followed by the generic
    // family, and Qt's alias names the generic family alone.
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(path, in.errorString());
        return false;
    }
    const QString svg = QString::fromUtf8(in.readAll());
    in.close();
    static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
    QString out;
    qsizetype last = 0;
    for (auto it = family.globalMatch(svg); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QString name = m.captured(1).trimmed();
        const QString lower = name.toLower();
        QString value;
        if (lower.isEmpty() || lower == QLatin1String("sans serif") || lower == QLatin1String("sans") || lower == QLatin1String("sans-serif"))
            value = QStringLiteral("sans-serif");
        else if (lower.endsWith(QLatin1String("sans-serif")) || lower.endsWith(QLatin1String("monospace")) || lower.endsWith(QLatin1String("serif")))
            value = name;   // already ends in a generic family
        else
            value = QStringLiteral("'%1', sans-serif").arg(name);
        out += QStringView(svg).mid(last, m.capturedStart(0) - last);
        out += QStringLiteral("font-family=\"%1\"").arg(value);
        last = m.capturedEnd(0);
    }
    out += QStringView(svg).mid(last);
    return writeTextFile(path, out, error);
}

ChartPainter plotPainter(QCustomPlot* plot)
{
    return [plot](QCPPainter& painter, QSize size) {
        // A view's chart draws itself for the file: no selection, its own size adjustments.
        auto* chart = qobject_cast<ChartPlot*>(plot);
        if (chart)
            chart->exportBegin(size);
        plot->toPainter(&painter, size.width(), size.height());
        if (chart)
            chart->exportEnd();
    };
}

ChartPainter timelinePainter(std::shared_ptr<const RunData> run, double t0, double t1)
{
    return [run, t0, t1](QCPPainter& painter, QSize size) {
        ViewState state;
        state.setRun(run);
        TimelineWidget timeline(&state);
        timeline.setAttribute(Qt::WA_DontShowOnScreen);
        timeline.setPrintMode(true);
        timeline.resize(size);
        timeline.show();   // offscreen: delivers the resize so the layout matches the size
        timeline.setViewRange(t0, t1);
        timeline.render(&painter, QPoint(0, 0), QRegion(), QWidget::DrawWindowBackground);
    };
}

bool exportChart(const ChartPainter& paint, const QString& path, ExportFormat format, const ExportOptions& o,
                 QString* error)
{
    auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    if (o.size.width() < 50 || o.size.height() < 50 || o.size.width() > 20000 || o.size.height() > 20000)
        return fail(QStringLiteral("bad export size %1x%2").arg(o.size.width()).arg(o.size.height()));
    if (format == ExportFormat::Png) {
        if (!(o.scale >= 0.25 && o.scale <= 8))
            return fail(QStringLiteral("bad export scale %1").arg(o.scale));
        QSize px(int(std::lround(o.size.width() * o.scale)), int(std::lround(o.size.height() * o.scale)));
        QImage image(px, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QCPPainter painter(&image);
            if (o.scale != 1.0) {
                painter.setMode(QCPPainter::pmNonCosmetic);
                painter.scale(o.scale, o.scale);
            }
            paintAll(painter, paint, o);
        }
        if (!image.save(path, "PNG"))
            return fail(QStringLiteral("cannot write %1").arg(path));
        return true;
    }
    if (format == ExportFormat::Svg) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(o.size);
        svg.setViewBox(QRect(QPoint(0, 0), o.size));
        svg.setResolution(96);
        svg.setTitle(o.title);
        svg.setDescription(o.caption);
        QCPPainter painter;
        if (!painter.begin(&svg))
            return fail(QStringLiteral("cannot write %1").arg(path));
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        paintAll(painter, paint, o);
        painter.end();
        if (!QFileInfo(path).isFile() || QFileInfo(path).size() == 0)
            return fail(QStringLiteral("cannot write %1").arg(path));
        QString why;
        if (!useGenericFontFamily(path, &why))
            return fail(why);
        return true;
    }
    // PDF: one page exactly the picture's size; 96 dpi so painter units are logical px.
    {
        QFile probe(path);
        if (!probe.open(QIODevice::WriteOnly))
            return fail(QStringLiteral("cannot write %1: %2").arg(path, probe.errorString()));
    }
    QPdfWriter pdf(path);
    pdf.setResolution(96);
    pdf.setTitle(o.title);
    pdf.setCreator(QStringLiteral("wheretime"));
    pdf.setPageLayout(QPageLayout(QPageSize(QSizeF(o.size) * 72.0 / 96.0, QPageSize::Point), QPageLayout::Portrait,
                                  QMarginsF(0, 0, 0, 0)));
    QCPPainter painter;
    if (!painter.begin(&pdf))
        return fail(QStringLiteral("cannot write %1").arg(path));
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    paintAll(painter, paint, o);
    painter.end();
    return true;
}

bool writeTextFile(const QString& path, const QString& text, QString* error)
{
    QSaveFile f(path);
    QByteArray bytes = text.toUtf8();
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

bool exportChartOrCsv(const ChartPainter& paint, const QString& csv, const QString& path, ExportOptions options, QSize size,
                      QString* error)
{
    if (path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive))
        return writeTextFile(path, csv, error);
    std::optional<ExportFormat> fmt = exportFormatOf(path);
    if (!fmt) {
        if (error)
            *error = QStringLiteral("unknown format of %1 (png, svg, pdf or csv)").arg(path);
        return false;
    }
    if (size.isValid() && !size.isEmpty())
        options.size = size;
    return exportChart(paint, path, *fmt, options, error);
}

}  // namespace wt::gui
