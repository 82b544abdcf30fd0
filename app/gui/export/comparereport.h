// The compare section of the headless report (`wheretime-gui --report OUTDIR BASE --compare
// OTHER`): the grouped bars and the delta chart by layer (PNG and SVG), the table as CSV (and by
// kernel name), and the layer that changed most drilled into: its ops (CSV) and its kernel-level
// diff (delta chart, CSV). Returns the Markdown and HTML of the section; the same charts as the
// compare view, and analysis's tables (analysis/comparetable.h) written by render/: every CSV is
// `wheretime compare --csv`'s bytes.
#pragma once

#include "app/gui/compare/compareloader.h"

#include <QSize>
#include <QString>
#include <QStringList>

namespace wt::gui {

struct CompareReportSection {
    QString markdown;
    QString html;
    QStringList files;   // written, relative to the directory
};

bool writeCompareReport(const QString& dir, const CompareRuns& runs, QSize chartWidth, double pngScale,
                        CompareReportSection* out, QString* error);

}  // namespace wt::gui
