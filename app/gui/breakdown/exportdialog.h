// Asks where and how to export a chart: file (format from its suffix: PNG, SVG, PDF), size in
// logical px, and the pixel scale of a PNG.
#pragma once

#include "chartexport.h"

#include <QDialog>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace wt::gui {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(const QString& defaultPath, QSize defaultSize, QWidget* parent = nullptr);

    QString path() const;
    ExportFormat format() const;   // valid after accept
    ExportOptions options() const; // size and scale (title and caption are the caller's)

    void accept() override;

private:
    QLineEdit* m_path;
    QSpinBox* m_width;
    QSpinBox* m_height;
    QComboBox* m_scale;
};

// Runs the dialog and exports; reports failures in a message box. Returns the written path or
// an empty string.
QString exportChartInteractive(QWidget* parent, const ChartPainter& paint, const QString& defaultName, QSize defaultSize,
                               const QString& title, const QString& caption);

}  // namespace wt::gui
