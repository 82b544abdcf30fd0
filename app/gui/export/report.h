// The headless report: `wheretime-gui --report OUTDIR FILE[:RUN] [--compare FILE[:RUN]] [--variants]
// [--sweep ID]`.
// Renders with the same charts and numbers as the GUI (BreakdownPlot, TimelineWidget,
// BreakdownSource) into OUTDIR: the timeline of one step, the layer pie, the kernel pie, the
// sorted kernel bars (PNG and SVG each), breakdown CSVs, index.md and index.html. Needs a
// QApplication (the offscreen platform is enough); never shows a window.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

namespace wt::gui {

struct ReportOptions {
    QString outDir;
    QString file;
    QString run;              // run id or name, empty = newest
    QString compareFile;      // empty = no compare
    QString compareRun;
    bool variants = false;    // the variants section: the run's variants (variants/variantsreport)
    bool sweep = false;       // the scaling section of sweep sweepId (empty: the newest)
    QString sweepId;
    QSize chartSize{1200, 800};      // logical px of each chart, caption included
    QSize timelineSize{1600, 900};
    double pngScale = 1.0;
};

struct ReportResult {
    bool ok = false;
    QString error;            // one line when !ok
    QStringList files;        // written, relative to outDir
    double seconds = 0;
};

ReportResult writeReport(const ReportOptions& options);

}  // namespace wt::gui
