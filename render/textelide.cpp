#include "textelide.h"

#include <vector>

namespace wt {

namespace {

bool isContinuation(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

size_t displayLength(std::string_view text)
{
    size_t n = 0;
    for (char c : text)
        if (!isContinuation(c))
            ++n;
    return n;
}

std::string elideMiddle(std::string_view text, size_t width)
{
    const size_t length = displayLength(text);
    if (width == 0 || length <= width)
        return std::string(text);
    // Byte offset of each code point's start.
    std::vector<size_t> starts;
    starts.reserve(length + 1);
    for (size_t i = 0; i < text.size(); ++i)
        if (!isContinuation(text[i]))
            starts.push_back(i);
    starts.push_back(text.size());
    if (width < 3)
        return std::string(text.substr(0, starts[width]));
    const size_t keep = width - 1;           // code points besides the ellipsis
    const size_t head = (keep + 1) / 2;      // the start gets the odd one: it names the thing
    const size_t tail = keep - head;
    return std::string(text.substr(0, starts[head])) + "\xE2\x80\xA6" + std::string(text.substr(starts[length - tail]));
}

}  // namespace wt
