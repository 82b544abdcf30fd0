// UTF-8 checks and repair for text read from files (names, paths, metadata), so that nothing
// written as JSON or CSV is ill-formed: Python's json.load and wheretime's own importer
// (simdjson) refuse such text. No Qt.
#pragma once

#include <string>
#include <string_view>

namespace wt::utf8 {

// The Unicode replacement character U+FFFD, encoded.
inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// True when `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF, no sequence cut short).
bool isValid(std::string_view text);

// `text` with each ill-formed part replaced by U+FFFD: one per maximal subpart (the longest
// start of a well-formed sequence, else one byte), as Unicode recommends and Python's decoder
// does. Valid text comes back unchanged, so repairing twice is repairing once.
std::string repaired(std::string_view text);

// The bytes of the sequence starting at text[i] (i < size): a well-formed sequence (valid =
// true), else its maximal subpart (valid = false; at least 1), which one U+FFFD replaces.
size_t sequenceAt(std::string_view text, size_t i, bool& valid);

}  // namespace wt::utf8
