// Exact decimal timestamps: Kineto writes absolute microseconds (~1.7e15) with a fractional
// part; a double keeps only ~16 significant digits, so the nanoseconds would be lost. These
// parse the JSON number text with integer arithmetic only.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace wt::interop {

// A JSON number (optionally with fraction and exponent) times 10^scaleDigits, rounded half away
// from zero to an integer; nullopt when the text is not a number or the result overflows.
// microsToNs("1712195495505583.987") == 1712195495505583987.
std::optional<int64_t> parseScaledDecimal(std::string_view text, int scaleDigits);
inline std::optional<int64_t> microsToNs(std::string_view text) { return parseScaledDecimal(text, 3); }

// The common case of microsToNs() at the cost of a few instructions: digits (1 to 16), then
// optionally '.' and up to 3 digits, and nothing else; every ts and dur Kineto writes. false
// otherwise (a sign, an exponent, more digits): then microsToNs() decides. Where it returns
// true, `ns` is what microsToNs() gives. Eight digits at a time (SWAR).
inline bool quickMicrosToNs(std::string_view text, int64_t& ns)
{
    const char* p = text.data();
    const char* const e = p + text.size();
    auto digit = [](char c) { return unsigned(c - '0') < 10u; };
    uint64_t v = 0;
    int intLen = 0;
    while (e - p >= 8 && intLen <= 8) {
        uint64_t chunk;
        std::memcpy(&chunk, p, 8);
        // All eight bytes '0'..'9': high nibbles 3, and adding 6 carries into none of them.
        if ((chunk & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull ||
            ((chunk + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull)
            break;
        chunk -= 0x3030303030303030ull;   // little-endian: the first digit in the lowest byte
        chunk = chunk * 10 + (chunk >> 8);   // pairs
        chunk = (((chunk & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
                 (((chunk >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
        v = v * 100000000ull + chunk;
        p += 8;
        intLen += 8;
    }
    for (; p < e && digit(*p) && intLen <= 16; ++p, ++intLen)
        v = v * 10 + uint64_t(*p - '0');
    if (intLen == 0 || intLen > 16)
        return false;
    int frac = 0;
    if (p < e && *p == '.')
        for (++p; p < e && digit(*p) && frac < 3; ++p, ++frac)
            v = v * 10 + uint64_t(*p - '0');
    if (p != e)
        return false;
    for (; frac < 3; ++frac)
        v *= 10;
    if (v > uint64_t(INT64_MAX))   // 19 digits fit in uint64_t, not all in int64_t
        return false;
    ns = int64_t(v);
    return true;
}

// Nanoseconds as microseconds with exactly three decimals ("1712195495505583.987").
std::string nsToMicrosText(int64_t ns);

}  // namespace wt::interop
