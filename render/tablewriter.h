// The one writer of analysis tables (analysis/table.h): text for people, CSV and JSON for
// scripts. CSV and JSON carry raw values (integers as integers, reals in their shortest exact
// form, none as an empty field / null); text renders each value by its column's unit.
#pragma once

#include "analysis/table.h"

#include <cstddef>
#include <string>

namespace wt::render {

// RFC 4180: a header of the column ids, one line per row, fields quoted where they must be.
std::string csv(const Table& table);

// The rows as a JSON array of objects keyed by column id: what a command embeds in its answer
// ("groups": [...]).
std::string jsonRows(const Table& table);
// The whole table: {"table": id, "columns": [{"id", "title", "unit"}], "rows": [...], "notes": [...]}.
std::string json(const Table& table);

struct TextOptions {
    size_t width = 0;        // > 0: a text column's cells are its distinctLabels at this width (short names)
    bool notes = true;       // the notes above the table
};
// Aligned columns (text left, numbers right, two spaces between), a header of titles; control
// characters in text cells written as C escapes so a cell can neither end early nor break the
// table, ill-formed UTF-8 as U+FFFD (every output is valid UTF-8). Columns with inText false
// are left out.
std::string text(const Table& table, const TextOptions& options = {});

// A name as one line of text, valid UTF-8: control characters as C escapes (\0, \n, \t, \x1b),
// ill-formed UTF-8 as U+FFFD. What text() does to every cell; for the lines around a table too.
std::string printable(std::string_view text);

// The text of one cell as text() writes it (and the GUI shows it): "12.50 us", "25.0%", "-".
std::string cellText(const Column& column, const Cell& cell);

// The shortest decimal that reads back as the same double ("0.1", "1.23e+10"); integral values
// of 1e15 and more always with an exponent (readers take plain digits for an integer, which
// may overflow 64 bits); "null" when not finite.
std::string shortestNumber(double value);

}  // namespace wt::render
