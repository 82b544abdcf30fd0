#include "samplestats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace wt {

SampleStats summarize(std::vector<double> samples)
{
    SampleStats s;
    s.n = samples.size();
    if (samples.empty())
        return s;
    std::sort(samples.begin(), samples.end());
    s.min = samples.front();
    s.max = samples.back();
    // Mean by the compensated running sum would be overkill: per-step ns are far below 2^53.
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(s.n);
    const size_t mid = s.n / 2;
    s.median = s.n % 2 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
    if (s.n >= 2) {
        double ss = 0;
        for (double v : samples)
            ss += (v - s.mean) * (v - s.mean);
        s.stddev = std::sqrt(ss / double(s.n - 1));
    }
    return s;
}

namespace {

// The continued fraction of I_x(a, b) (modified Lentz), good where x < (a + 1) / (a + b + 2).
double betaFraction(double x, double a, double b)
{
    constexpr double tiny = 1e-300, eps = 1e-15;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (std::abs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 500; ++m) {
        const double m2 = 2.0 * m;
        // The even step, then the odd step of the fraction.
        double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        d = std::abs(d) < tiny ? tiny : d;
        c = 1 + aa / c;
        c = std::abs(c) < tiny ? tiny : c;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        d = std::abs(d) < tiny ? tiny : d;
        c = 1 + aa / c;
        c = std::abs(c) < tiny ? tiny : c;
        d = 1 / d;
        const double del = d * c;
        h *= del;
        if (std::abs(del - 1) < eps)
            break;
    }
    return h;
}

double normalCdf(double z)
{
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

// Beyond this many degrees of freedom t is the normal distribution to double precision.
constexpr double kNormalDf = 1e7;

}  // namespace

double incompleteBeta(double x, double a, double b)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const double lnFront = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    const double front = std::exp(lnFront);
    if (x < (a + 1) / (a + b + 2))
        return front * betaFraction(x, a, b) / a;
    return 1 - front * betaFraction(1 - x, b, a) / b;
}

double studentTCdf(double t, double df)
{
    if (std::isnan(t) || !(df > 0))
        return std::numeric_limits<double>::quiet_NaN();
    if (std::isinf(t))
        return t > 0 ? 1 : 0;
    if (df > kNormalDf)
        return normalCdf(t);
    // P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
    const double tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
    return t > 0 ? 1 - tail : tail;
}

double studentTQuantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0))
        return std::numeric_limits<double>::quiet_NaN();
    if (p == 0.5)
        return 0;
    // Symmetric: solve the upper half, by bisection on the monotone CDF (then a Newton polish is
    // not needed: 200 halvings of a bracket of width 2^k reach double precision).
    const bool lower = p < 0.5;
    const double q = lower ? 1 - p : p;
    double lo = 0, hi = 1;
    while (studentTCdf(hi, df) < q && hi < 1e300)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (studentTCdf(mid, df) < q ? lo : hi) = mid;
    }
    const double t = (lo + hi) / 2;
    return lower ? -t : t;
}

std::optional<WelchInterval> welchInterval(const SampleStats& a, const SampleStats& b, double alpha)
{
    if (a.n < kMinSamples || b.n < kMinSamples)
        return std::nullopt;
    WelchInterval w;
    w.delta = b.mean - a.mean;
    const double va = a.stddev * a.stddev / double(a.n), vb = b.stddev * b.stddev / double(b.n);
    w.se = std::sqrt(va + vb);
    if (w.se == 0) {
        w.df = std::numeric_limits<double>::infinity();
        w.low = w.high = w.delta;
        w.p = w.delta == 0 ? 1 : 0;
        return w;
    }
    w.df = (va + vb) * (va + vb) / (va * va / double(a.n - 1) + vb * vb / double(b.n - 1));
    const double t = studentTQuantile(1 - alpha / 2, w.df);
    w.low = w.delta - t * w.se;
    w.high = w.delta + t * w.se;
    w.p = std::min(1.0, 2 * (1 - studentTCdf(std::abs(w.delta) / w.se, w.df)));
    return w;
}

std::optional<MeanInterval> meanInterval(const SampleStats& s, double alpha)
{
    if (s.n < kMinSamples)
        return std::nullopt;
    MeanInterval m;
    m.df = double(s.n - 1);
    m.halfWidth = s.stddev > 0 ? studentTQuantile(1 - alpha / 2, m.df) * s.stddev / std::sqrt(double(s.n)) : 0.0;
    m.low = s.mean - m.halfWidth;
    m.high = s.mean + m.halfWidth;
    return m;
}

std::string_view toString(Verdict v)
{
    switch (v) {
    case Verdict::NotEnoughSamples: return "not_enough_samples";
    case Verdict::WithinNoise: return "within_noise";
    case Verdict::Slower: return "slower";
    case Verdict::Faster: return "faster";
    }
    return "within_noise";
}

std::string_view verdictLabel(Verdict v)
{
    switch (v) {
    case Verdict::NotEnoughSamples: return "n < 3";
    case Verdict::WithinNoise: return "within noise";
    case Verdict::Slower: return "slower";
    case Verdict::Faster: return "faster";
    }
    return "within noise";
}

std::vector<double> holmAdjust(const std::vector<double>& p)
{
    const size_t m = p.size();
    std::vector<size_t> order(m);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return p[i] < p[j]; });
    std::vector<double> out(m);
    double running = 0;
    for (size_t r = 0; r < m; ++r) {
        running = std::max(running, std::min(1.0, p[order[r]] * double(m - r)));
        out[order[r]] = running;
    }
    return out;
}

Verdict verdictOf(const std::optional<WelchInterval>& w, double adjustedP, double alpha)
{
    if (!w)
        return Verdict::NotEnoughSamples;
    if (!(adjustedP < alpha) || w->delta == 0)
        return Verdict::WithinNoise;
    return w->delta > 0 ? Verdict::Slower : Verdict::Faster;
}

}  // namespace wt
