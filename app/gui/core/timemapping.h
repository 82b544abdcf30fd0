// Time-to-pixel arithmetic of the timeline as a small value type, testable without a widget.
// A mapping shows the time window [startNs, endNs) of the run (ns relative to the run's origin)
// across widthPx pixels; x = 0 is the window's left edge. Zoom and pan keep the window inside
// limits (the run's span plus a margin) and never narrower than kMinSpanNs.
#pragma once

#include <cstdint>

namespace wt::gui {

class TimeMapping {
public:
    static constexpr double kMinSpanNs = 10.0;   // deepest zoom: 10 ns across the plot

    TimeMapping() = default;
    TimeMapping(double startNs, double endNs, int widthPx);

    double startNs() const { return m_startNs; }
    double endNs() const { return m_startNs + m_nsPerPx * m_widthPx; }
    double spanNs() const { return m_nsPerPx * m_widthPx; }
    double nsPerPx() const { return m_nsPerPx; }
    int widthPx() const { return m_widthPx; }
    bool isValid() const { return m_widthPx > 0 && m_nsPerPx > 0; }

    double x(double timeNs) const { return (timeNs - m_startNs) / m_nsPerPx; }
    double timeAt(double x) const { return m_startNs + x * m_nsPerPx; }

    // Shows [t0, t1) (swapped when reversed), clamped to the limits.
    void setRange(double t0, double t1);
    // Keeps the visible time range when the plot gets wider or narrower.
    void setWidth(int widthPx);
    // factor > 1 zooms in; the time under pixel x stays under x.
    void zoomAt(double x, double factor);
    // Moves the view by dx pixels: positive dx shows later times (content moves left).
    void panPx(double dx);
    void panNs(double dt) { setRange(m_startNs + dt, endNs() + dt); }

    // Limits: the view never leaves [lo, hi] and is never wider than hi - lo.
    void setLimits(double lo, double hi);
    double limitLo() const { return m_lo; }
    double limitHi() const { return m_hi; }

    bool operator==(const TimeMapping&) const = default;

private:
    void clamp();

    double m_startNs = 0;
    double m_nsPerPx = 1;
    int m_widthPx = 0;
    double m_lo = -1e300;
    double m_hi = 1e300;
};

}  // namespace wt::gui
