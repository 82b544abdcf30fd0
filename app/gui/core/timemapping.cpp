#include "timemapping.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace wt::gui {

TimeMapping::TimeMapping(double startNs, double endNs, int widthPx) : m_widthPx(std::max(widthPx, 1))
{
    setRange(startNs, endNs);
}

void TimeMapping::setLimits(double lo, double hi)
{
    if (hi < lo)
        std::swap(lo, hi);
    if (hi - lo < kMinSpanNs)
        hi = lo + kMinSpanNs;
    m_lo = lo;
    m_hi = hi;
    clamp();
}

void TimeMapping::setRange(double t0, double t1)
{
    if (t1 < t0)
        std::swap(t0, t1);
    double span = std::max(t1 - t0, kMinSpanNs);
    double mid = t0 + (t1 - t0) / 2;
    if (m_widthPx <= 0)
        m_widthPx = 1;
    m_nsPerPx = span / m_widthPx;
    m_startNs = mid - span / 2;
    clamp();
}

void TimeMapping::setWidth(int widthPx)
{
    widthPx = std::max(widthPx, 1);
    double t0 = m_startNs, t1 = endNs();
    m_widthPx = widthPx;
    setRange(t0, t1);
}

void TimeMapping::zoomAt(double x, double factor)
{
    if (!(factor > 0) || !std::isfinite(factor))
        return;
    double anchor = timeAt(x);
    double span = std::clamp(spanNs() / factor, kMinSpanNs, m_hi - m_lo);
    m_nsPerPx = span / m_widthPx;
    m_startNs = anchor - x * m_nsPerPx;
    clamp();
}

void TimeMapping::panPx(double dx)
{
    m_startNs += dx * m_nsPerPx;
    clamp();
}

void TimeMapping::clamp()
{
    double span = std::clamp(spanNs(), kMinSpanNs, std::max(m_hi - m_lo, kMinSpanNs));
    m_nsPerPx = span / m_widthPx;
    if (m_startNs < m_lo)
        m_startNs = m_lo;
    if (m_startNs + span > m_hi)
        m_startNs = m_hi - span;
    if (m_startNs < m_lo)   // wider than the limits: left-align
        m_startNs = m_lo;
}

}  // namespace wt::gui
