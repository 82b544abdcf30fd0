// A layout that places its items left to right and wraps to a new row when the width runs
// out: toolbars of side views (the breakdown's grouping, threshold, chart kind, range, export)
// keep every control whole in a narrow panel instead of cutting them ("by la", "Selec").
// Height for width, so the rows below move down as it wraps. Items keep their size hints.
#pragma once

#include <QLayout>
#include <QList>

namespace wt::gui {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr, int spacing = 6);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override { return int(m_items.size()); }
    QLayoutItem* itemAt(int index) const override { return m_items.value(index); }
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
    QSize sizeHint() const override;
    QSize minimumSize() const override;
    void setGeometry(const QRect& rect) override;
    // Rows the items take at `width` (tests: a narrow panel wraps instead of cutting).
    int rowsAt(int width) const;

private:
    // Places the items in `rect` (when `apply`); returns the height they take.
    int arrange(const QRect& rect, bool apply, int* rows = nullptr) const;

    QList<QLayoutItem*> m_items;
    int m_spacing;
};

}  // namespace wt::gui
