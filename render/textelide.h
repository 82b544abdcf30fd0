// Long names (C++ kernel names, autograd op names) shortened for a fixed width: the one
// middle-elide rule of the CLI and the GUI's plain-string fallbacks, so both keep the start
// (namespace, op) and the end (template arguments, suffix) that tell names apart.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace wt {

// Characters (UTF-8 code points) in a text.
size_t displayLength(std::string_view text);
// `text` when it has at most `width` code points; else its start and end around "…" (one
// code point), `width` code points in all, never splitting a UTF-8 sequence. width 0: the
// text unchanged (no limit). Widths below 3 give the start alone.
std::string elideMiddle(std::string_view text, size_t width);

}  // namespace wt
