// The run browser: the runs of every open file in a sortable table with a filter box.
// Selecting one row (a click, the arrow keys) or activating one (double click, Enter) asks for
// that run's timeline. Several rows can be selected (Ctrl/Shift-click) for a comparison:
// selectedRuns() in the order they were picked; that opens nothing. Names elide in the middle.
#pragma once

#include "app/gui/core/runlistmodel.h"

#include <QWidget>

#include <utility>
#include <vector>

class QAction;
class QModelIndex;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace wt::gui {

class RunBrowser : public QWidget {
    Q_OBJECT
public:
    explicit RunBrowser(QWidget* parent = nullptr);
    RunListModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filter() const { return m_filter; }
    void setCurrentRun(int64_t runId, const QString& file = {});
    // The selected runs as (file, run id), in the order they were selected (the first: BASE).
    std::vector<std::pair<QString, int64_t>> selectedRuns() const;
    // The run the browser's current row shows as (file, run id); run id 0 when there is none.
    std::pair<QString, int64_t> currentRun() const;
    // The context menu lists these actions (compare, compare variants, scaling); their owners
    // set them enabled for the selection on contextMenuAboutToShow and back on contextMenuHidden.
    void addContextAction(QAction* action);

signals:
    void runActivated(qint64 runId);
    void runInFileActivated(const QString& file, qint64 runId);
    void contextMenuAboutToShow();
    void contextMenuHidden();

private:
    void activate(const QModelIndex& index);
    void fitNameColumn();

    bool m_settingCurrent = false;
    int64_t m_currentId = 0;         // the run setCurrentRun named (kept across model resets)
    QString m_currentFile;   // setCurrentRun moves the selection: no request back
    RunListModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLineEdit* m_filter;
    QList<QAction*> m_contextActions;
};

}  // namespace wt::gui
