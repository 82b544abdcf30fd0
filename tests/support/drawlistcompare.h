// The draw lists of two runs over the same layout rows, compared item by item (position, width,
// fold count, colour, flags) and span by span, indices aside (a window numbers its items from
// its own first one): the windowed timeline's tests (tst_windoweddetail, tst_storedlanewindows).
#pragma once

#include "app/gui/core/drawlist.h"

#include <QString>

namespace wt::test {

// Empty when equal, else where they first differ.
inline QString compareDrawLists(const gui::DrawList& a, const gui::DrawList& b)
{
    if (a.rows.size() != b.rows.size())
        return QStringLiteral("rows %1 != %2").arg(a.rows.size()).arg(b.rows.size());
    for (size_t r = 0; r < a.rows.size(); ++r) {
        const auto& x = a.rows[r];
        const auto& y = b.rows[r];
        if (x.size() != y.size())
            return QStringLiteral("row %1: %2 items != %3").arg(r).arg(x.size()).arg(y.size());
        for (size_t i = 0; i < x.size(); ++i)
            if (x[i].x0 != y[i].x0 || x[i].x1 != y[i].x1 || x[i].count != y[i].count || x[i].color != y[i].color ||
                x[i].flags != y[i].flags)
                return QStringLiteral("row %1 item %2: [%3, %4) x%5 #%6 != [%7, %8) x%9 #%10")
                    .arg(r)
                    .arg(i)
                    .arg(double(x[i].x0))
                    .arg(double(x[i].x1))
                    .arg(x[i].count)
                    .arg(x[i].color, 0, 16)
                    .arg(double(y[i].x0))
                    .arg(double(y[i].x1))
                    .arg(y[i].count)
                    .arg(y[i].color, 0, 16);
        const auto& sa = a.spans[r];
        const auto& sb = b.spans[r];
        if (sa.size() != sb.size())
            return QStringLiteral("row %1: %2 spans != %3").arg(r).arg(sa.size()).arg(sb.size());
        for (size_t i = 0; i < sa.size(); ++i)
            if (sa[i].x0 != sb[i].x0 || sa[i].x1 != sb[i].x1)
                return QStringLiteral("row %1 span %2 differs").arg(r).arg(i);
    }
    return {};
}

}  // namespace wt::test
