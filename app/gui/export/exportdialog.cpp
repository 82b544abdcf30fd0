#include "exportdialog.h"

#include "storage/pathidentity.h"

#include <QAction>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

namespace wt::gui {

ExportDialog::ExportDialog(const QString& defaultPath, QSize defaultSize, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(QStringLiteral("Export chart"));
    m_path = new QLineEdit(defaultPath, this);
    auto* browse = new QPushButton(QStringLiteral("Browse..."), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        QString p = QFileDialog::getSaveFileName(this, QStringLiteral("Export chart"), m_path->text(),
                                                 QStringLiteral("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
        if (!p.isEmpty())
            m_path->setText(p);
    });
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);
    m_width = new QSpinBox(this);
    m_height = new QSpinBox(this);
    for (QSpinBox* s : {m_width, m_height}) {
        s->setRange(200, 10000);
        s->setSuffix(QStringLiteral(" px"));
    }
    m_width->setValue(defaultSize.width());
    m_height->setValue(defaultSize.height());
    m_scale = new QComboBox(this);
    for (double s : {1.0, 1.5, 2.0, 3.0, 4.0})
        m_scale->addItem(QStringLiteral("%1x").arg(s), s);
    m_scale->setCurrentIndex(2);   // 2x: sharp on high-density screens and in print
    auto* form = new QFormLayout(this);
    form->addRow(QStringLiteral("File (.png, .svg, .pdf)"), pathRow);
    form->addRow(QStringLiteral("Width"), m_width);
    form->addRow(QStringLiteral("Height"), m_height);
    form->addRow(QStringLiteral("PNG scale"), m_scale);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &ExportDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

QString ExportDialog::path() const
{
    return m_path->text().trimmed();
}

ExportFormat ExportDialog::format() const
{
    return exportFormatOf(path()).value_or(ExportFormat::Png);
}

ExportOptions ExportDialog::options() const
{
    ExportOptions o;
    o.size = QSize(m_width->value(), m_height->value());
    o.scale = m_scale->currentData().toDouble();
    return o;
}

void ExportDialog::accept()
{
    if (!exportFormatOf(path())) {
        QMessageBox::warning(this, QStringLiteral("Export chart"),
                             QStringLiteral("The file name must end in .png, .svg or .pdf."));
        return;
    }
    if (refuseInputOverwrite(this, QStringLiteral("Export chart"), path(), m_inputFile))
        return;
    QDialog::accept();
}

bool refuseInputOverwrite(QWidget* parent, const QString& title, const QString& path, const QString& inputFile)
{
    if (path.isEmpty() || inputFile.isEmpty())
        return false;
    Overwrite o = overwrittenInput({path.toStdString()}, {inputFile.toStdString()});
    if (!o)
        return false;
    QMessageBox::warning(parent, title, QString::fromStdString(o.message()));
    return true;
}

QAction* addExportShortcut(QWidget* window, std::function<void()> exportCurrent)
{
    auto* action = new QAction(QStringLiteral("Export &chart..."), window);
    action->setObjectName(QStringLiteral("exportChartAction"));
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    action->setShortcutContext(Qt::WindowShortcut);
    QObject::connect(action, &QAction::triggered, window, [f = std::move(exportCurrent)] { f(); });
    window->addAction(action);
    return action;
}

QString exportChartInteractive(QWidget* parent, const ChartPainter& paint, const QString& defaultName, QSize defaultSize,
                               const QString& title, const QString& caption, const QString& inputFile)
{
    QSettings settings;
    QString dir = settings.value(QStringLiteral("export/dir"), QDir::homePath()).toString();
    ExportDialog dialog(QDir(dir).filePath(defaultName), defaultSize, parent);
    dialog.setObjectName(QStringLiteral("exportDialog"));
    if (!title.isEmpty())
        dialog.setWindowTitle(QStringLiteral("Export chart: %1").arg(title));
    dialog.setInputFile(inputFile);
    if (dialog.exec() != QDialog::Accepted)
        return {};
    ExportOptions o = dialog.options();
    o.title = title;
    o.caption = caption;
    QString error;
    if (!exportChart(paint, dialog.path(), dialog.format(), o, &error)) {
        QMessageBox::warning(parent, QStringLiteral("Export chart"), error);
        return {};
    }
    settings.setValue(QStringLiteral("export/dir"), QFileInfo(dialog.path()).absolutePath());
    return dialog.path();
}

}  // namespace wt::gui
