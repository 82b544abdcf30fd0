// The variants and scaling sections of the headless report (`wheretime-gui --report OUTDIR FILE
// --variants` / `--sweep ID`): the variants view's four charts and the scaling view's two (PNG
// and SVG), their CSVs, and the Markdown and HTML of each section, rendered by the views
// themselves (never shown) from analysis/variants and analysis/sweep.
#pragma once

#include "app/gui/variants/scalingview.h"

#include "app/gui/compare/compareloader.h"

#include <QSize>
#include <QString>
#include <QStringList>

namespace wt::gui {

struct VariantsReportSection {
    QString markdown;
    QString html;
    QStringList files;   // written, relative to the directory
};

// Every file name the sections may write (the report's overwrite check).
QStringList variantsReportFiles();
QStringList scalingReportFiles();

// False with *error (one line: e.g. analysis's refusal naming both settings) on failure.
bool writeVariantsReport(const QString& dir, const CompareRuns& runs, QSize chartSize, double pngScale,
                         VariantsReportSection* out, QString* error);
bool writeScalingReport(const QString& dir, std::shared_ptr<const ScalingResult> sweep, QSize chartSize, double pngScale,
                        VariantsReportSection* out, QString* error);

}  // namespace wt::gui
