#include "variantsactions.h"

#include "scalingview.h"
#include "variantsview.h"

#include "analysis/sweep.h"
#include "analysis/variants.h"
#include "app/gui/core/rundata.h"
#include "app/gui/widgets/mainwindow.h"
#include "app/gui/widgets/runbrowser.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <QAction>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>

#include <algorithm>
#include <exception>

namespace wt::gui {

VariantsActions* VariantsActions::install(MainWindow* window)
{
    return new VariantsActions(window);
}

VariantsActions::VariantsActions(MainWindow* window)
    : QObject(window), m_window(window), m_variantsAction(new QAction(QStringLiteral("Compare &variants"), window)),
      m_sweepAction(new QAction(QStringLiteral("Show sweep &scaling"), window))
{
    m_variantsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
    m_variantsAction->setShortcutContext(Qt::ApplicationShortcut);
    m_variantsAction->setToolTip(QStringLiteral("The runs of this run's workload, preset and sizes that differ only in the softmax variant, side by side"));
    m_sweepAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    m_sweepAction->setShortcutContext(Qt::ApplicationShortcut);
    m_sweepAction->setToolTip(QStringLiteral("Layer time and share against the swept value, for a run captured with --sweep"));
    connect(m_variantsAction, &QAction::triggered, this, &VariantsActions::compareVariants);
    connect(m_sweepAction, &QAction::triggered, this, &VariantsActions::showSweepOfCurrent);
    QMenu* file = m_window->fileMenu();
    QList<QAction*> actions = file->actions();
    // After "Compare selected runs" (the third entry), before the rest.
    QAction* before = actions.size() > 3 ? actions[3] : nullptr;
    file->insertAction(before, m_variantsAction);
    file->insertAction(before, m_sweepAction);
    RunBrowser* browser = m_window->runBrowser();
    browser->addContextAction(m_variantsAction);
    browser->addContextAction(m_sweepAction);
    // In the context menu, Show sweep scaling is there for runs of a sweep only.
    connect(browser, &RunBrowser::contextMenuAboutToShow, this, [this] {
        auto [f, id] = anchor();
        QString sweep;
        try {
            sweep = id ? sweepIdOf(f, id) : QString();
        } catch (const std::exception&) {
        }
        m_sweepAction->setEnabled(!sweep.isEmpty());
        m_variantsAction->setEnabled(id != 0);
    });
    connect(browser, &RunBrowser::contextMenuHidden, this, [this] {
        m_sweepAction->setEnabled(true);
        m_variantsAction->setEnabled(true);
    });
}

VariantsView* VariantsActions::variantsView() const
{
    return m_variants;
}

ScalingView* VariantsActions::scalingView() const
{
    return m_scaling;
}

std::pair<QString, int64_t> VariantsActions::anchor() const
{
    auto current = m_window->runBrowser()->currentRun();
    if (current.second != 0)
        return current;
    if (const auto& run = m_window->viewState()->run())
        return {m_window->currentFile(), run->run.id};
    return {QString(), 0};
}

std::vector<int64_t> VariantsActions::variantRunsOf(const QString& file, int64_t runId, const std::string& setting)
{
    Database db(file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    const std::vector<RunInfo> runs = reader.runs();
    auto it = std::find_if(runs.begin(), runs.end(), [&](const RunInfo& r) { return r.id == runId; });
    if (it == runs.end())
        return {};
    return selectVariantRuns(runs, *it, setting);
}

QString VariantsActions::sweepIdOf(const QString& file, int64_t runId)
{
    Database db(file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    std::optional<SweepTag> tag = sweepTagOf(reader.metadata(runId));
    return tag ? QString::fromStdString(tag->id) : QString();
}

bool VariantsActions::compareVariants()
{
    auto [file, id] = anchor();
    if (id == 0) {
        m_window->statusBar()->showMessage(QStringLiteral("Open a run first: Compare variants shows the variants of its workload"), 5000);
        return false;
    }
    return compareVariantsOf(file, id);
}

bool VariantsActions::compareVariantsOf(const QString& file, int64_t runId, const std::string& setting)
{
    std::vector<int64_t> ids;
    try {
        ids = variantRunsOf(file, runId, setting);
    } catch (const std::exception& e) {
        m_window->statusBar()->showMessage(QString::fromUtf8(e.what()), 8000);
        return false;
    }
    if (ids.size() < 2) {
        m_window->statusBar()->showMessage(
            QStringLiteral("Run %1 has no other variant in %2 with the same workload, preset and sizes (capture them: scripts/variants.sh)")
                .arg(runId)
                .arg(QFileInfo(file).fileName()),
            8000);
        return false;
    }
    // Select them in the run browser, as if picked there.
    RunBrowser* browser = m_window->runBrowser();
    QItemSelection selection;
    for (int64_t id : ids) {
        const int row = browser->model()->rowOfRun(id, file);
        if (row < 0)
            continue;
        const QModelIndex i = browser->proxy()->mapFromSource(browser->model()->index(row, 0));
        selection.select(i, i);
    }
    browser->view()->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    std::vector<CompareSelector> runs;
    for (int64_t id : ids)
        runs.push_back({file, id});
    showVariants(std::move(runs));
    return true;
}

void VariantsActions::showVariants(std::vector<CompareSelector> runs)
{
    if (!m_variants) {
        m_variants = new VariantsView(m_window);
        m_variants->setWindowFlag(Qt::Window);
        m_variants->setWindowTitle(QStringLiteral("Compare variants - wheretime"));
        m_variants->resize(1500, 1000);
    }
    m_variants->load(std::move(runs));
    m_variants->show();
    m_variants->raise();
}

bool VariantsActions::showSweepOfCurrent()
{
    auto [file, id] = anchor();
    QString sweep;
    try {
        sweep = id ? sweepIdOf(file, id) : QString();
    } catch (const std::exception& e) {
        m_window->statusBar()->showMessage(QString::fromUtf8(e.what()), 8000);
        return false;
    }
    if (sweep.isEmpty()) {
        m_window->statusBar()->showMessage(QStringLiteral("Run %1 is not part of a sweep (capture one: wheretime capture --sweep hidden=256,512,1024)").arg(id), 8000);
        return false;
    }
    showSweep(file, sweep);
    return true;
}

void VariantsActions::showSweep(const QString& file, const QString& sweepId)
{
    if (!m_scaling) {
        m_scaling = new ScalingView(m_window);
        m_scaling->setWindowFlag(Qt::Window);
        m_scaling->setWindowTitle(QStringLiteral("Sweep scaling - wheretime"));
        m_scaling->resize(1500, 800);
        // A point is a run: open it in the main window (timeline, breakdown) and pick it in the browser.
        connect(m_scaling, &ScalingView::runClicked, this, [this](const QString& f, qint64 runId) {
            if (m_window->runBrowser()->model()->rowOfRun(runId, f) < 0)
                m_window->addFile(f);
            m_window->loadRun(f, runId);
            m_window->runBrowser()->setCurrentRun(runId, f);
            m_window->statusBar()->showMessage(QStringLiteral("Opened run %1 of the sweep").arg(runId), 5000);
        });
    }
    m_scaling->load(file, sweepId);
    m_scaling->show();
    m_scaling->raise();
}

}  // namespace wt::gui
