// A figure as analysis/ computes it: a table of named columns, each with an id (the CSV header
// and the JSON key), a title (the text header), a unit, and typed raw values per row, plus
// notes. Every figure a command prints, a view shows or a report writes is such a table, and
// one writer (render/tablewriter.h) renders any table as text, CSV or JSON: the CLI, the GUI's
// exports and the report then write the same bytes by construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace wt {

// What a column's values measure: the writer renders text by it (ns as a duration, share as a
// percentage, rates with SI prefixes); CSV and JSON keep the raw value whatever the unit.
enum class Unit {
    Text,        // names, paths, labels
    Ns,          // a duration or a time from the run's time 0, in ns
    Share,       // a fraction, 0..1 (0.25 reads 25.0%)
    Count,       // instances, kernels, steps
    Ratio,       // a dimensionless factor (speedup, OTHER/BASE): 1.25 reads 1.250x
    Percent,     // a signed change in percent already (12.5 reads +12.5%)
    Flops,       // floating-point operations
    FlopPerS,
    Bytes,
    BytesPerS,
    ExpPerS,     // transcendental calls (exp, log, erf) per second
    Number,      // anything else numeric, written as it is
};
std::string_view toString(Unit unit);

struct Column {
    std::string id;              // "time_ns": CSV header, JSON key; [a-z0-9_]
    std::string title;           // "time": the text table's header
    Unit unit = Unit::Text;
    bool inText = true;          // false: CSV and JSON only (raw ids, duplicates of a shown column)
};

// One value: none (an empty CSV field, JSON null, "-" in text), an integer, a real or text.
using Cell = std::variant<std::monostate, int64_t, double, std::string>;

struct Table {
    std::string id;                          // "breakdown", "compare", ...: names its CSV file in reports
    std::vector<Column> columns;
    std::vector<std::vector<Cell>> rows;     // each as many cells as columns
    std::vector<std::string> notes;          // said once above the text table (not in CSV)

    Table& add(std::string id, std::string title, Unit unit, bool inText = true);
    // A new row of empty cells, to be filled by column index or id.
    std::vector<Cell>& addRow();
    // The column with this id, or npos.
    size_t column(std::string_view id) const;
    static constexpr size_t npos = size_t(-1);
    // The cell of `row` in column `id` (throws std::out_of_range when there is no such column).
    const Cell& at(size_t row, std::string_view id) const;
    Cell& at(size_t row, std::string_view id);
};

// Raw values of a cell, for sorting and for consumers that compute with them.
bool isNone(const Cell& c);
double numberOf(const Cell& c);               // 0 for none and text
const std::string& textOf(const Cell& c);     // "" unless text

}  // namespace wt
