#include "tablewriter.h"

#include "render/shortname.h"
#include "render/textformat.h"
#include "render/textelide.h"
#include "storage/csv.h"
#include "storage/json.h"
#include "storage/utf8.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace wt::render {

namespace {

std::string rawText(const Cell& c)
{
    if (const auto* i = std::get_if<int64_t>(&c))
        return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&c))
        return std::isfinite(*d) ? shortestNumber(*d) : std::string();
    if (const auto* s = std::get_if<std::string>(&c))
        return *s;
    return {};
}

// A number cell's raw text appended without temporaries (integers, finite reals; nothing else).
void appendRaw(std::string& out, const Cell& c)
{
    char buf[64];
    if (const auto* i = std::get_if<int64_t>(&c)) {
        auto r = std::to_chars(buf, buf + sizeof buf, *i);
        out.append(buf, r.ptr);
    } else if (const auto* d = std::get_if<double>(&c); d && std::isfinite(*d)) {
        out += shortestNumber(*d);
    }
}

}  // namespace

std::string printable(std::string_view raw)
{
    // Most cells are printable ASCII: nothing to check or escape.
    if (std::all_of(raw.begin(), raw.end(), [](char ch) { return ch >= 0x20 && ch < 0x7f; }))
        return std::string(raw);
    const std::string s = utf8::isValid(raw) ? std::string(raw) : utf8::repaired(raw);
    std::string out;
    out.reserve(s.size());
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c != 0x7f) {
            out += ch;
        } else if (c == 0) {
            out += "\\0";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
    }
    return out;
}

namespace {

std::string fixed(double v, int decimals) { return fixedText(v, decimals); }

}  // namespace

std::string shortestNumber(double value)
{
    if (!std::isfinite(value))
        return "null";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    std::string s(buf, r.ptr);
    // A large integral real written as digits ("36895890067321151488") reads as an integer that
    // overflows 64 bits in JSON readers (simdjson, our importer's): write it with an exponent.
    if (std::fabs(value) >= 1e15 && s.find_first_of(".e") == std::string::npos) {
        r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
        s.assign(buf, r.ptr);
    }
    return s;
}

std::string csv(const Table& table)
{
    std::string out;
    out.reserve(64 + table.rows.size() * table.columns.size() * 12);
    for (size_t i = 0; i < table.columns.size(); ++i) {
        if (i)
            out += ',';
        out += csv::field(table.columns[i].id);
    }
    out += '\n';
    for (const auto& row : table.rows) {
        for (size_t i = 0; i < row.size(); ++i) {
            if (i)
                out += ',';
            if (const auto* s = std::get_if<std::string>(&row[i]))
                out += csv::field(*s);
            else
                appendRaw(out, row[i]);
        }
        out += '\n';
    }
    return out;
}

std::string jsonRows(const Table& table)
{
    // The keys are the same in every row: quoted once.
    std::vector<std::string> keys;
    for (size_t i = 0; i < table.columns.size(); ++i)
    {
        std::string key = i ? "," : "";
        key += json::quote(table.columns[i].id);
        key += ':';
        keys.push_back(std::move(key));
    }
    std::string out = "[";
    out.reserve(64 + table.rows.size() * table.columns.size() * 24);
    for (size_t r = 0; r < table.rows.size(); ++r) {
        out += r ? ",\n {" : "\n {";
        for (size_t i = 0; i < table.columns.size(); ++i) {
            out += keys[i];
            const Cell& c = table.rows[r][i];
            if (const auto* s = std::get_if<std::string>(&c))
                out += json::quote(*s);
            else if (isNone(c))
                out += "null";
            else if (const auto* d = std::get_if<double>(&c); d && !std::isfinite(*d))
                out += "null";
            else
                appendRaw(out, c);
        }
        out += '}';
    }
    out += table.rows.empty() ? "]" : "\n]";
    return out;
}

std::string json(const Table& table)
{
    std::string out = "{\"table\":" + json::quote(table.id) + ",\"columns\":[";
    for (size_t i = 0; i < table.columns.size(); ++i) {
        const Column& c = table.columns[i];
        if (i)
            out += ',';
        out += std::string("{\"id\":") + json::quote(c.id) + ",\"title\":" + json::quote(c.title) +
               ",\"unit\":" + json::quote(toString(c.unit)) + "}";
    }
    out += "],\"rows\":" + jsonRows(table) + ",\"notes\":[";
    for (size_t i = 0; i < table.notes.size(); ++i) {
        if (i)
            out += ',';
        out += json::quote(table.notes[i]);
    }
    out += "]}\n";
    return out;
}

std::string cellText(const Column& column, const Cell& cell)
{
    if (isNone(cell))
        return "-";
    if (const auto* s = std::get_if<std::string>(&cell))
        return *s;
    const double v = numberOf(cell);
    if (std::holds_alternative<double>(cell) && !std::isfinite(v))
        return "-";
    switch (column.unit) {
    case Unit::Text: return rawText(cell);
    case Unit::Ns: return formatDuration(v);
    case Unit::Share: return formatShare(v);
    case Unit::Count: return std::holds_alternative<int64_t>(cell) ? rawText(cell) : fixed(v, 1);
    case Unit::Ratio: return fixed(v, 3) + "x";
    case Unit::Percent: return formatPercent(v);
    case Unit::Flops: return formatQuantity(v, "FLOP");
    case Unit::FlopPerS: return formatQuantity(v, "FLOP/s");
    case Unit::Bytes: return formatQuantity(v, "B");
    case Unit::BytesPerS: return formatQuantity(v, "B/s");
    case Unit::ExpPerS: return formatQuantity(v, "exp/s");
    case Unit::Number: return rawText(cell);
    }
    return rawText(cell);
}

std::string text(const Table& table, const TextOptions& options)
{
    std::vector<size_t> shown;
    for (size_t i = 0; i < table.columns.size(); ++i)
        if (table.columns[i].inText)
            shown.push_back(i);
    // One pass renders every cell (and its display length), a second writes the lines.
    const size_t nc = shown.size();
    std::vector<std::string> cells((table.rows.size() + 1) * nc);
    std::vector<size_t> length(cells.size());
    for (size_t i = 0; i < nc; ++i)
        cells[i] = printable(table.columns[shown[i]].title);
    for (size_t r = 0; r < table.rows.size(); ++r)
        for (size_t i = 0; i < nc; ++i) {
            const size_t c = shown[i];
            cells[(r + 1) * nc + i] = printable(cellText(table.columns[c], table.rows[r][c]));
        }
    // --width: a text column's cells as the column's distinct labels (render/shortname.h:
    // short names, longer forms where two would read alike).
    if (options.width > 0)
        for (size_t i = 0; i < nc; ++i) {
            if (table.columns[shown[i]].unit != Unit::Text)
                continue;
            std::vector<std::string> column(table.rows.size());
            for (size_t r = 0; r < table.rows.size(); ++r)
                column[r] = std::move(cells[(r + 1) * nc + i]);
            std::vector<std::string> labels = distinctLabels(column, options.width);
            for (size_t r = 0; r < table.rows.size(); ++r)
                cells[(r + 1) * nc + i] = std::move(labels[r]);
        }
    std::vector<size_t> width(nc, 0);
    size_t total = 0;
    for (size_t k = 0; k < cells.size(); ++k) {
        length[k] = displayLength(cells[k]);
        width[k % nc] = std::max(width[k % nc], length[k]);
        total += cells[k].size();
    }
    std::string out;
    out.reserve(total + cells.size() * 4 + 64);
    if (options.notes)
        for (const std::string& n : table.notes)
            out += printable(n) + "\n";
    // One line for the header and each row, even when no column is shown (all inText false).
    for (size_t line = 0; line <= table.rows.size(); ++line) {
        const size_t k = line * nc;
        for (size_t i = 0; i < nc; ++i) {
            const size_t pad = width[i] - length[k + i];
            if (i)
                out.append(2, ' ');
            if (table.columns[shown[i]].unit == Unit::Text) {
                out += cells[k + i];
                if (i + 1 < nc)
                    out.append(pad, ' ');
            } else {
                out.append(pad, ' ');
                out += cells[k + i];
            }
        }
        out += '\n';
    }
    return out;
}

}  // namespace wt::render
