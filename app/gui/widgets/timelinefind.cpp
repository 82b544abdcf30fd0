// TimelineWidget's find: the find bar over the plot's top right corner, the search
// (core/timelinesearch.h) whose marks replace the group selection's while the bar is open, and
// stepping from match to match.
#include "findbar.h"
#include "timelinewidget.h"

#include <QLineEdit>

#include <algorithm>

namespace wt::gui {

const GroupMarks* TimelineWidget::groupMarks() const
{
    if (m_search && m_search->marks)
        return m_search->marks.get();
    return m_state->groupMarks().get();
}

void TimelineWidget::placeFindBar()
{
    if (!m_find)
        return;
    m_find->adjustSize();
    const QRect plot = plotRect();
    m_find->move(std::max(plot.left(), plot.right() - m_find->width() - 4), plot.top() + 2);
}

void TimelineWidget::openFind()
{
    if (!m_find) {
        m_find = new FindBar(this);
        connect(m_find, &FindBar::searchChanged, this, &TimelineWidget::runSearch);
        connect(m_find, &FindBar::next, this, [this] { findStep(true); });
        connect(m_find, &FindBar::previous, this, [this] { findStep(false); });
        connect(m_find, &FindBar::closed, this, &TimelineWidget::closeFind);
    }
    placeFindBar();
    m_find->activate();
    if (!m_search && !m_find->text().isEmpty())
        runSearch(m_find->text(), m_find->isRegex());
}

void TimelineWidget::findText(const QString& text, bool regex)
{
    openFind();
    m_find->setText(text);   // searches (textChanged) unless the text was there already
    if (!m_search || m_search->text != text || m_search->regex != regex)
        runSearch(text, regex);
}

void TimelineWidget::runSearch(const QString& text, bool regex)
{
    if (!m_run || m_run->overviewOnly || text.isEmpty())   // an overview has no names to search
        m_search.reset();
    else
        m_search = std::make_shared<const SearchResult>(searchRun(*m_run, text, regex));
    updateFindStatus();
    prepare();
    update();
}

void TimelineWidget::updateFindStatus()
{
    if (!m_find)
        return;
    if (!m_search) {
        m_find->setStatus(QString());
        return;
    }
    if (!m_search->error.isEmpty()) {
        m_find->setStatus(m_search->error, true);
        return;
    }
    const int64_t n = m_search->count();
    const int64_t at = m_run && !m_run->overviewOnly ? matchOrdinal(*m_run, *m_search, m_state->selection()) : 0;
    if (n == 0)
        m_find->setStatus(QStringLiteral("no matches"), true);
    else if (at > 0)
        m_find->setStatus(QStringLiteral("%1 of %2").arg(at).arg(n));
    else
        m_find->setStatus(n == 1 ? QStringLiteral("1 match") : QStringLiteral("%1 matches").arg(n));
}

void TimelineWidget::findStep(bool forward)
{
    if (!m_run || m_run->overviewOnly || !m_search)
        return;
    // Without a selected match: the first one from the view's start (the last before its end).
    const double from = forward ? m_mapping.startNs() : m_mapping.endNs();
    const Selection next = stepMatch(*m_run, *m_search, m_state->selection(), from, forward);
    int64_t t0 = 0, t1 = 0;
    if (next.kind == Selection::None || !selectionSpan(*m_run, next, t0, t1))
        return;
    m_state->clearGroupSelection();
    m_state->setSelection(next);
    // Centred, and zoomed so the match takes a tenth of the view (at least 2 us shown).
    const double d = std::max(double(t1 - t0), 200.0);
    const double mid = (double(t0) + double(t1)) / 2;
    double lo = mid - 5 * d, hi = mid + 5 * d;
    // The other end of its launch flow (setSelection computed it: a kernel's launching call, a
    // call's first kernel) is brought into view too, as long as the match stays 2 px wide or
    // more: a kernel queued milliseconds after its launch otherwise has its arrow run off-screen.
    int64_t f0 = 0, f1 = 0;
    if (flowPartnerSpan(f0, f1) && (double(f0) < lo || double(f1) > hi)) {
        const double a = std::min(lo, double(f0)), b = std::max(hi, double(f1));
        const double margin = 0.05 * (b - a);
        if (m_mapping.widthPx() > 0 && double(t1 - t0) / (b - a + 2 * margin) * m_mapping.widthPx() >= 2) {
            lo = a - margin;
            hi = b + margin;
        }
    }
    setViewRange(lo, hi);
    updateFindStatus();
}

void TimelineWidget::closeFind()
{
    if (m_find)
        m_find->hide();
    m_search.reset();
    prepare();
    update();
    setFocus(Qt::OtherFocusReason);
}

}  // namespace wt::gui
