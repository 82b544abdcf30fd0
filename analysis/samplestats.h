// Is a change real or noise? The statistics every comparison uses: a side's samples (one per
// step, or per run without steps) summarised (mean, standard deviation, n, median, min, max),
// Welch's 95% interval of the difference of two means, the Student t distribution it needs,
// the verdict (slower, faster, within noise, not enough samples) and Holm's step-down control of
// the family-wise error rate when many groups are tested at once. Why Welch and why Holm:
// docs/compare.md ("Noise").
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace wt {

// The fewest samples a side needs for an interval: with 2 the standard deviation has one degree
// of freedom and the interval is so wide it says nothing; the rule is n >= 3 per side.
inline constexpr size_t kMinSamples = 3;
// The error rate of the tests (two-sided), so the intervals are 95% intervals.
inline constexpr double kAlpha = 0.05;

struct SampleStats {
    size_t n = 0;
    double mean = 0;
    double stddev = 0;     // sample standard deviation (n - 1 in the denominator); 0 when n < 2
    double median = 0;     // the middle value, the mean of the two middle ones for even n
    double min = 0, max = 0;
};
// Of any samples (copied for the median); all zero when empty.
SampleStats summarize(std::vector<double> samples);

// Student's t distribution with `df` degrees of freedom (df > 0, real: Welch's df is):
// P(T <= t), and its inverse (0 < p < 1). The regularized incomplete beta function they use is
// evaluated by its continued fraction.
double studentTCdf(double t, double df);
double studentTQuantile(double p, double df);
// I_x(a, b), the regularized incomplete beta function (0 <= x <= 1, a, b > 0).
double incompleteBeta(double x, double a, double b);

// Welch's interval for mean(b) - mean(a) (OTHER minus BASE), unequal variances.
struct WelchInterval {
    double delta = 0;      // mean(b) - mean(a)
    double se = 0;         // sqrt(var_a / n_a + var_b / n_b)
    double df = 0;         // Welch-Satterthwaite degrees of freedom (infinite when se = 0)
    double low = 0, high = 0;   // the (1 - alpha) interval of delta
    double p = 1;          // two-sided p-value of delta = 0
};
// Needs kMinSamples on both sides (std::nullopt otherwise: not enough samples). When both sides
// are constant (se = 0) the interval is the point delta and p is 0 unless delta is 0.
std::optional<WelchInterval> welchInterval(const SampleStats& a, const SampleStats& b, double alpha = kAlpha);

// The (1 - alpha) Student t interval of one side's mean: mean -+ t(1 - alpha / 2, n - 1) x
// stddev / sqrt(n) (a sweep's point: how far its mean per step may lie from the true one).
struct MeanInterval {
    double low = 0, high = 0;
    double halfWidth = 0;  // t x stddev / sqrt(n): what text shows after the mean as +-
    double df = 0;         // n - 1
};
// Needs kMinSamples (std::nullopt otherwise: not enough samples); constant samples give the
// point mean.
std::optional<MeanInterval> meanInterval(const SampleStats& s, double alpha = kAlpha);

enum class Verdict {
    NotEnoughSamples,   // a side has fewer than kMinSamples samples
    WithinNoise,        // the (Holm-adjusted) test does not reject delta = 0
    Slower,             // OTHER takes more time than BASE
    Faster,
};
std::string_view toString(Verdict v);      // "not_enough_samples", "within_noise", "slower", "faster"
std::string_view verdictLabel(Verdict v);  // "n < 3", "within noise", "slower", "faster" (text tables)

// Holm's step-down adjusted p-values: sorted ascending, p_(i) x (m - i + 1), made monotone and
// capped at 1, returned in the input order. A test rejects when its adjusted p < alpha; this
// controls the chance of any false "slower"/"faster" over the family at alpha.
std::vector<double> holmAdjust(const std::vector<double>& p);

// The verdict of one test: not enough samples (no interval), else by its (adjusted) p and the
// sign of delta.
Verdict verdictOf(const std::optional<WelchInterval>& w, double adjustedP, double alpha = kAlpha);

}  // namespace wt
