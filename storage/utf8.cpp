#include "utf8.h"

namespace wt::utf8 {

// The ranges are Unicode's table 3-7 of well-formed byte sequences.
size_t sequenceAt(std::string_view text, size_t i, bool& valid)
{
    const auto lead = static_cast<unsigned char>(text[i]);
    valid = true;
    if (lead < 0x80)
        return 1;
    size_t follow = 0;
    unsigned char lo = 0x80, hi = 0xBF;   // the allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        follow = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        follow = 2;
        if (lead == 0xE0)
            lo = 0xA0;                    // no overlong forms
        else if (lead == 0xED)
            hi = 0x9F;                    // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        follow = 3;
        if (lead == 0xF0)
            lo = 0x90;
        else if (lead == 0xF4)
            hi = 0x8F;                    // nothing above U+10FFFF
    } else {
        valid = false;                    // a continuation byte, C0, C1 or F5-FF
        return 1;
    }
    for (size_t k = 1; k <= follow; ++k) {
        if (i + k >= text.size()) {
            valid = false;
            return k;
        }
        const auto b = static_cast<unsigned char>(text[i + k]);
        if (b < lo || b > hi) {
            valid = false;
            return k;
        }
        lo = 0x80;
        hi = 0xBF;
    }
    return follow + 1;
}

bool isValid(std::string_view text)
{
    for (size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        bool valid = false;
        i += sequenceAt(text, i, valid);
        if (!valid)
            return false;
    }
    return true;
}

std::string repaired(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    size_t clean = 0;   // start of the valid stretch not appended yet
    for (size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        bool valid = false;
        size_t n = sequenceAt(text, i, valid);
        if (!valid) {
            out.append(text.substr(clean, i - clean));
            out.append(kReplacement);
            clean = i + n;
        }
        i += n;
    }
    out.append(text.substr(clean));
    return out;
}

}  // namespace wt::utf8
