#include "runbrowser.h"

#include <algorithm>

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace wt::gui {

RunBrowser::RunBrowser(QWidget* parent)
    : QWidget(parent), m_model(new RunListModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTableView(this)), m_filter(new QLineEdit(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RunListModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter->setPlaceholderText(QStringLiteral("Filter runs (name, workload, variant, device, status)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RunListModel::Date, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // The runs of a sweep differ at the end of their names ("gcn-adaptive-tiny-hidden=128"):
    // keep both ends.
    m_view->setTextElideMode(Qt::ElideMiddle);
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex& index) { activate(index); });
    // One run selected (a click, the arrow keys) opens it; Ctrl/Shift-clicks that select
    // several (to compare them) open nothing.
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        if (m_settingCurrent)
            return;
        const QModelIndexList rows = m_view->selectionModel()->selectedRows();
        if (rows.size() == 1)
            activate(rows.front());
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        fitNameColumn();
        if (m_currentId > 0)   // another file listed: the run on screen stays the current row
            setCurrentRun(m_currentId, m_currentFile);
    });
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        if (m_contextActions.isEmpty())
            return;
        QMenu menu;
        menu.addActions(m_contextActions);
        emit contextMenuAboutToShow();
        menu.exec(m_view->viewport()->mapToGlobal(pos));
        emit contextMenuHidden();
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_filter);
    layout->addWidget(m_view);
}

void RunBrowser::activate(const QModelIndex& index)
{
    const qint64 id = m_proxy->data(index, RunListModel::RunIdRole).toLongLong();
    emit runActivated(id);
    emit runInFileActivated(m_proxy->data(index, RunListModel::FileRole).toString(), id);
}

void RunBrowser::fitNameColumn()
{
    // The whole name where it fits in the panel's first ~60%, else elided in the middle.
    m_view->resizeColumnToContents(RunListModel::Name);
    const int cap = std::max(160, m_view->viewport()->width() * 6 / 10);
    if (m_view->columnWidth(RunListModel::Name) > cap)
        m_view->setColumnWidth(RunListModel::Name, cap);
}

std::vector<std::pair<QString, int64_t>> RunBrowser::selectedRuns() const
{
    // selection() keeps its ranges in the order they were added (Ctrl-click appends one).
    std::vector<std::pair<QString, int64_t>> out;
    for (const QItemSelectionRange& range : m_view->selectionModel()->selection())
        for (int r = range.top(); r <= range.bottom(); ++r) {
            QModelIndex i = m_proxy->index(r, 0);
            std::pair<QString, int64_t> run{m_proxy->data(i, RunListModel::FileRole).toString(),
                                            m_proxy->data(i, RunListModel::RunIdRole).toLongLong()};
            if (std::find(out.begin(), out.end(), run) == out.end())
                out.push_back(run);
        }
    return out;
}

std::pair<QString, int64_t> RunBrowser::currentRun() const
{
    const QModelIndex i = m_view->currentIndex();
    if (!i.isValid())
        return {QString(), 0};
    return {m_proxy->data(i, RunListModel::FileRole).toString(), m_proxy->data(i, RunListModel::RunIdRole).toLongLong()};
}

void RunBrowser::addContextAction(QAction* action)
{
    m_contextActions.append(action);
}

void RunBrowser::setCurrentRun(int64_t runId, const QString& file)
{
    m_currentId = runId;
    m_currentFile = file;
    int row = m_model->rowOfRun(runId, file);
    if (row < 0)
        return;
    QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    if (m_view->selectionModel()->isRowSelected(index.row(), {}) && m_view->currentIndex().row() == index.row())
        return;   // keep a multi-selection that holds the run (Ctrl-clicks to compare)
    m_settingCurrent = true;
    m_view->setCurrentIndex(index);
    m_settingCurrent = false;
}

}  // namespace wt::gui
