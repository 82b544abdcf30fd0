#include "runbrowser.h"

#include <QHeaderView>
#include <QLineEdit>
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
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex& index) {
        emit runActivated(m_proxy->data(index, RunListModel::RunIdRole).toLongLong());
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_filter);
    layout->addWidget(m_view);
}

void RunBrowser::setCurrentRun(int64_t runId)
{
    int row = m_model->rowOfRun(runId);
    if (row < 0)
        return;
    QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    m_view->setCurrentIndex(index);
}

}  // namespace wt::gui
