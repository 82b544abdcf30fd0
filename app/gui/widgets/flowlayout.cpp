#include "flowlayout.h"

#include <QWidget>

#include <algorithm>

namespace wt::gui {

FlowLayout::FlowLayout(QWidget* parent, int spacing) : QLayout(parent), m_spacing(spacing)
{
    setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem* item = takeAt(0))
        delete item;
}

void FlowLayout::addItem(QLayoutItem* item)
{
    m_items.append(item);
}

QLayoutItem* FlowLayout::takeAt(int index)
{
    return index >= 0 && index < m_items.size() ? m_items.takeAt(index) : nullptr;
}

QSize FlowLayout::sizeHint() const
{
    // One row: every item beside the next.
    int w = 0, h = 0, shown = 0;
    for (QLayoutItem* item : m_items) {
        if (item->isEmpty())
            continue;
        const QSize s = item->sizeHint();
        w += s.width() + (shown++ ? m_spacing : 0);
        h = std::max(h, s.height());
    }
    const QMargins m = contentsMargins();
    return QSize(w + m.left() + m.right(), h + m.top() + m.bottom());
}

QSize FlowLayout::minimumSize() const
{
    // As narrow as the widest item: the rest wraps.
    QSize size;
    for (QLayoutItem* item : m_items)
        if (!item->isEmpty())
            size = size.expandedTo(item->sizeHint());
    const QMargins m = contentsMargins();
    return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

void FlowLayout::setGeometry(const QRect& rect)
{
    QLayout::setGeometry(rect);
    arrange(rect, true);
}

int FlowLayout::rowsAt(int width) const
{
    int rows = 0;
    arrange(QRect(0, 0, width, 0), false, &rows);
    return rows;
}

int FlowLayout::arrange(const QRect& rect, bool apply, int* rows) const
{
    const QRect area = rect.marginsRemoved(contentsMargins());
    int x = area.x(), y = area.y(), rowHeight = 0, rowCount = 0;
    for (QLayoutItem* item : m_items) {
        if (item->isEmpty())
            continue;
        const QSize s = item->sizeHint();
        if (x > area.x() && x + s.width() > area.right() + 1) {   // no room left on this row
            x = area.x();
            y += rowHeight + m_spacing;
            rowHeight = 0;
        }
        if (x == area.x())
            ++rowCount;
        if (apply)
            item->setGeometry(QRect(QPoint(x, y), s));
        x += s.width() + m_spacing;
        rowHeight = std::max(rowHeight, s.height());
    }
    if (rows)
        *rows = rowCount;
    const QMargins m = contentsMargins();
    return y + rowHeight - rect.y() + m.bottom();
}

}  // namespace wt::gui
