// Export of any chart (pie, bars, timeline) to PNG (size and scale), SVG and PDF, with the
// run's metadata as a caption strip at the bottom. Every format goes through one painter
// callback, so a chart looks the same in all three: QCustomPlot charts through toPainter,
// the timeline through QWidget::render of an offscreen TimelineWidget.
#pragma once

#include "storage/types.h"

#include <QSize>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QCPPainter;
class QCustomPlot;

namespace wt::gui {

class RunData;

enum class ExportFormat { Png, Svg, Pdf };
// From the file suffix (.png, .svg, .pdf), nullopt for anything else.
std::optional<ExportFormat> exportFormatOf(const QString& path);

struct ExportOptions {
    QSize size{1200, 800};   // logical px of the whole picture, caption included
    double scale = 1.0;      // PNG only: pixels per logical px (the PNG is size * scale)
    QString title;           // SVG/PDF document title
    QString caption;         // metadata line(s) drawn under the chart; empty = none
};

// Paints a chart into a logical-pixel area of the given size starting at (0, 0).
using ChartPainter = std::function<void(QCPPainter& painter, QSize size)>;

ChartPainter plotPainter(QCustomPlot* plot);
// The timeline of a run over [t0, t1) ns (the timeline's and ViewState's time axis), rendered by a fresh
// offscreen TimelineWidget at the export size, so the on-screen view is untouched.
ChartPainter timelinePainter(std::shared_ptr<const RunData> run, double t0, double t1);

// Writes the chart; returns false and sets *error (one line) on failure.
bool exportChart(const ChartPainter& paint, const QString& path, ExportFormat format, const ExportOptions& options,
                 QString* error = nullptr);

// A view's export to `path`: ".csv" writes `csv` (the view's table, as the writer's CSV), ".png",
// ".svg", ".pdf" the chart at `size` when it is valid and not empty, else at options.size;
// anything else fails with one line naming the formats.
bool exportChartOrCsv(const ChartPainter& paint, const QString& csv, const QString& path, ExportOptions options, QSize size,
                      QString* error = nullptr);

// "gcn · variant adaptive · CPU: ... · 2024-05-01 12:00 UTC · run 3 'name' · 12 dropped records"
QString runCaption(const RunInfo& run);
// Height in logical px the caption takes at the bottom of an export.
int captionHeight(const QString& caption);

// Rewrites every font-family of an SVG file to end in the generic family (Qt writes the
// platform's "Sans Serif", which browsers render in a serif face): "sans-serif" for Qt's
// aliases, "'Family', sans-serif" otherwise. exportChart does it to every SVG it writes.
bool useGenericFontFamily(const QString& path, QString* error = nullptr);

// Writes text to a file (UTF-8); false and *error on failure.
bool writeTextFile(const QString& path, const QString& text, QString* error = nullptr);

}  // namespace wt::gui
