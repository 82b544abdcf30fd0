#include "exacttime.h"

#include <limits>

namespace wt::interop {

std::optional<int64_t> parseScaledDecimal(std::string_view s, int scaleDigits)
{
    // Fast path: [-]digits[.digits] with at most 19 digits after scaling, which is
    // every timestamp and duration Kineto writes.
    if (!s.empty() && s.size() <= 24 && scaleDigits >= 0 && scaleDigits <= 9) {
        size_t k = s[0] == '-' ? 1 : 0;
        uint64_t v = 0;
        int intLen = 0, fracLen = 0;
        bool ok = k < s.size();
        for (; k < s.size() && s[k] >= '0' && s[k] <= '9'; ++k, ++intLen)
            v = v * 10 + uint64_t(s[k] - '0');
        if (k < s.size() && s[k] == '.') {
            for (++k; k < s.size() && s[k] >= '0' && s[k] <= '9' && fracLen < scaleDigits; ++k, ++fracLen)
                v = v * 10 + uint64_t(s[k] - '0');
        }
        // Up to 19 digits fit in uint64_t (10^19 < 2^64); the sign range is checked last.
        if (ok && intLen > 0 && k == s.size() && intLen + scaleDigits <= 19) {
            for (int f = fracLen; f < scaleDigits; ++f)
                v *= 10;
            if (v <= uint64_t(std::numeric_limits<int64_t>::max()))
                return s[0] == '-' ? -int64_t(v) : int64_t(v);
        }
    }
    size_t i = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
        negative = s[i] == '-';
        ++i;
    }
    // Collect significant digits and the position of the decimal point.
    std::string digits;
    digits.reserve(s.size());
    int64_t pointPos = -1;
    bool any = false;
    for (; i < s.size(); ++i) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            if (!(digits.empty() && c == '0'))
                digits.push_back(c);
            else if (pointPos >= 0)
                digits.push_back(c);   // leading zeros after the point keep their place
            any = true;
        } else if (c == '.' && pointPos < 0) {
            pointPos = int64_t(digits.size());
        } else {
            break;
        }
    }
    if (!any)
        return std::nullopt;
    if (pointPos < 0)
        pointPos = int64_t(digits.size());
    int64_t exponent = 0;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool expNeg = false;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
            expNeg = s[i] == '-';
            ++i;
        }
        bool expAny = false;
        for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
            expAny = true;
            if (exponent < 100000)
                exponent = exponent * 10 + (s[i] - '0');
        }
        if (!expAny)
            return std::nullopt;
        if (expNeg)
            exponent = -exponent;
    }
    if (i != s.size())
        return std::nullopt;
    // Value = 0.digits * 10^(pointPos) * 10^exponent; keep the digits left of the scaled point.
    int64_t intDigits = pointPos + exponent + scaleDigits;
    if (intDigits > 19)
        return std::nullopt;
    uint64_t value = 0;
    int64_t n = int64_t(digits.size());
    for (int64_t k = 0; k < intDigits; ++k) {
        int d = k < n ? digits[size_t(k)] - '0' : 0;
        if (value > (std::numeric_limits<uint64_t>::max() - uint64_t(d)) / 10)
            return std::nullopt;
        value = value * 10 + uint64_t(d);
    }
    // Round half away from zero on the first dropped digit.
    int64_t firstDropped = intDigits < 0 ? -1 : intDigits;
    if (firstDropped >= 0 && firstDropped < n && digits[size_t(firstDropped)] >= '5')
        ++value;
    if (value > uint64_t(std::numeric_limits<int64_t>::max()))
        return std::nullopt;
    return negative ? -int64_t(value) : int64_t(value);
}

std::string nsToMicrosText(int64_t ns)
{
    bool negative = ns < 0;
    uint64_t v = negative ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    std::string text = std::to_string(v / 1000);
    unsigned frac = unsigned(v % 1000);
    char buf[5] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10), char('0' + frac % 10), 0};
    return (negative ? "-" : "") + text + buf;
}

}  // namespace wt::interop
