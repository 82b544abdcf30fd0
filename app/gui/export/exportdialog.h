// Asks where and how to export a chart: file (format from its suffix: PNG, SVG, PDF), size in
// logical px, and the pixel scale of a PNG.
#pragma once

#include "chartexport.h"

#include <QDialog>

#include <functional>

class QAction;

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace wt::gui {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(const QString& defaultPath, QSize defaultSize, QWidget* parent = nullptr);
    // The file the chart was drawn from: a path that would overwrite it (or its -wal/-shm) is
    // refused at accept().
    void setInputFile(const QString& file) { m_inputFile = file; }

    QString path() const;
    ExportFormat format() const;   // valid after accept
    ExportOptions options() const; // size and scale (title and caption are the caller's)

    void accept() override;

private:
    QLineEdit* m_path;
    QSpinBox* m_width;
    QSpinBox* m_height;
    QComboBox* m_scale;
    QString m_inputFile;
};

// True (after a warning box titled `title`) when writing `path` would overwrite `inputFile`,
// one of its hard links or symlinks, or its -wal/-shm/-journal. For every file the GUI saves.
bool refuseInputOverwrite(QWidget* parent, const QString& title, const QString& path, const QString& inputFile);

// Runs the dialog and exports; reports failures in a message box. Returns the written path or
// an empty string. inputFile: the wheretime file the chart shows (never overwritten).
QString exportChartInteractive(QWidget* parent, const ChartPainter& paint, const QString& defaultName, QSize defaultSize,
                               const QString& title, const QString& caption, const QString& inputFile = QString());

// Ctrl+E on `window` runs exportCurrent: a window shortcut, so each window (main, compare,
// variants, scaling) exports its own chart, never another window's. Returns the action (added
// to the window; put it in a menu too where the window has one).
QAction* addExportShortcut(QWidget* window, std::function<void()> exportCurrent);

}  // namespace wt::gui
