#include "timeformat.h"

#include "render/textformat.h"

#include <cmath>

namespace wt::gui {

namespace {

QString withUnit(double value, int decimals, const char* unit)
{
    return QString::number(value, 'f', decimals) + QLatin1Char(' ') + QLatin1String(unit);
}

}  // namespace

QString formatDuration(double ns)
{
    return QString::fromStdString(wt::formatDuration(ns));
}

double tickStepNs(double nsPerPx, double minMajorPx)
{
    double minStep = std::max(nsPerPx * minMajorPx, 1.0);
    double p = std::pow(10.0, std::floor(std::log10(minStep)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= minStep)
            return m * p;
    return 10 * p;
}

namespace {

std::vector<Tick> ticksIn(const TimeMapping& mapping, double originNs, double minMajorPx, const TimeUnit* unit)
{
    std::vector<Tick> out;
    if (!mapping.isValid())
        return out;
    double step = tickStepNs(mapping.nsPerPx(), minMajorPx);
    double minor = step / 5;
    TimeUnit u = unit ? *unit : unitFor(step);
    // Decimals so that consecutive labels differ: step expressed in the unit.
    double stepInUnit = step / u.ns;
    int decimals = stepInUnit >= 1 ? 0 : stepInUnit >= 0.1 ? 1 : 2;
    double first = std::floor((mapping.startNs() - originNs) / minor) * minor;
    double last = mapping.endNs() - originNs;
    for (long long i = 0;; ++i) {
        double rel = first + double(i) * minor;
        if (rel > last)
            break;
        Tick t;
        t.timeNs = rel + originNs;
        t.x = mapping.x(t.timeNs);
        double q = rel / step;
        t.major = std::fabs(q - std::round(q)) < 1e-6;
        if (t.major)
            t.label = withUnit(std::round(q) * stepInUnit, decimals, u.name);
        if (t.x >= -0.5)
            out.push_back(t);
        if (i > 100000)
            break;   // cannot happen with a valid mapping; guards a degenerate one
    }
    return out;
}

}  // namespace

std::vector<Tick> rulerTicks(const TimeMapping& mapping, double originNs, double minMajorPx)
{
    return ticksIn(mapping, originNs, minMajorPx, nullptr);
}

QString formatTimeAt(double ns, double stepNs)
{
    const TimeUnit u = unitFor(std::max(std::fabs(ns), 1.0));
    const double ratio = u.ns / std::max(stepNs, 1.0);
    const int decimals = ratio <= 1 ? 0 : std::min(9, int(std::ceil(std::log10(ratio) - 1e-9)));
    return withUnit(ns / u.ns, decimals, u.name);
}

Ruler timeRuler(const TimeMapping& mapping, double minMajorPx)
{
    Ruler r;
    if (!mapping.isValid())
        return r;
    const double step = tickStepNs(mapping.nsPerPx(), minMajorPx);
    const TimeUnit u = unitFor(step);
    const double far = std::max(std::fabs(mapping.startNs()), std::fabs(mapping.endNs()));
    if (far / u.ns >= 1e4) {
        r.hasOffset = true;
        r.offsetNs = std::floor(mapping.startNs() / step) * step;
        r.offsetLabel = formatTimeAt(r.offsetNs, step);
    }
    // Relative labels in the window's unit ("+2.5 us", not "+2500 ns"): a few digits each.
    const TimeUnit windowUnit = unitFor(mapping.spanNs());
    r.ticks = ticksIn(mapping, r.offsetNs, minMajorPx, r.hasOffset ? &windowUnit : nullptr);
    if (r.hasOffset)
        for (Tick& t : r.ticks)
            if (t.major)
                t.label.prepend(QLatin1Char('+'));
    return r;
}

TimeUnit unitFor(double maxNs)
{
    if (maxNs >= 1e9)
        return {1e9, "s"};
    if (maxNs >= 1e6)
        return {1e6, "ms"};
    if (maxNs >= 1e3)
        return {1e3, "us"};
    return {1, "ns"};
}

}  // namespace wt::gui
