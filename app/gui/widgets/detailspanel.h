// Fields of the selected kernel or scope, or, for a selected time range, the time by layer
// and the top kernels inside it. Listens to the ViewState.
#pragma once

#include "app/gui/core/viewstate.h"

#include <QWidget>

class QTreeWidget;

namespace wt::gui {

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(ViewState* state, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return m_tree; }

private:
    void refresh();

    ViewState* m_state;
    QTreeWidget* m_tree;
};

}  // namespace wt::gui
