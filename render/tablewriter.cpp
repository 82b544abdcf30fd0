#include "tablewriter.h"

#include "analysis/duration.h"
#include "analysis/textelide.h"
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

std::string jsonValue(const Cell& c)
{
    if (const auto* i = std::get_if<int64_t>(&c))
        return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&c))
        return shortestNumber(*d);
    if (const auto* s = std::get_if<std::string>(&c))
        return json::quote(*s);
    return "null";
}

// One line per cell, valid UTF-8: control characters as C escapes (an embedded NUL, newlines,
// tabs), ill-formed UTF-8 as U+FFFD.
std::string printable(std::string_view raw)
{
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

std::string fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

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
    for (size_t i = 0; i < table.columns.size(); ++i)
        out += (i ? "," : "") + csv::field(table.columns[i].id);
    out += '\n';
    for (const auto& row : table.rows) {
        for (size_t i = 0; i < row.size(); ++i) {
            if (i)
                out += ',';
            out += std::holds_alternative<std::string>(row[i]) ? csv::field(textOf(row[i])) : rawText(row[i]);
        }
        out += '\n';
    }
    return out;
}

std::string jsonRows(const Table& table)
{
    std::string out = "[";
    for (size_t r = 0; r < table.rows.size(); ++r) {
        out += r ? ",\n {" : "\n {";
        for (size_t i = 0; i < table.columns.size(); ++i)
            out += (i ? "," : "") + json::quote(table.columns[i].id) + ":" + jsonValue(table.rows[r][i]);
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
        out += std::string(i ? "," : "") + "{\"id\":" + json::quote(c.id) + ",\"title\":" + json::quote(c.title) +
               ",\"unit\":" + json::quote(toString(c.unit)) + "}";
    }
    out += "],\"rows\":" + jsonRows(table) + ",\"notes\":[";
    for (size_t i = 0; i < table.notes.size(); ++i)
        out += (i ? "," : "") + json::quote(table.notes[i]);
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
    case Unit::Share: return fixed(100.0 * v, 1) + "%";
    case Unit::Count: return std::holds_alternative<int64_t>(cell) ? rawText(cell) : fixed(v, 1);
    case Unit::Ratio: return fixed(v, 3) + "x";
    case Unit::Percent: return (v > 0 ? "+" : "") + fixed(v, 1) + "%";
    case Unit::Flops: return formatQuantity(v, "FLOP");
    case Unit::FlopPerS: return formatQuantity(v, "FLOP/s");
    case Unit::Bytes: return formatQuantity(v, "B");
    case Unit::BytesPerS: return formatQuantity(v, "B/s");
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
    std::vector<std::vector<std::string>> cells(table.rows.size() + 1);
    for (size_t c : shown)
        cells[0].push_back(printable(table.columns[c].title));
    for (size_t r = 0; r < table.rows.size(); ++r)
        for (size_t c : shown) {
            std::string s = printable(cellText(table.columns[c], table.rows[r][c]));
            if (options.width > 0 && table.columns[c].unit == Unit::Text)
                s = elideMiddle(s, options.width);
            cells[r + 1].push_back(std::move(s));
        }
    std::vector<size_t> width(shown.size(), 0);
    for (const auto& line : cells)
        for (size_t i = 0; i < line.size(); ++i)
            width[i] = std::max(width[i], displayLength(line[i]));
    std::string out;
    if (options.notes)
        for (const std::string& n : table.notes)
            out += printable(n) + "\n";
    for (const auto& line : cells) {
        std::string l;
        for (size_t i = 0; i < line.size(); ++i) {
            const size_t pad = width[i] - displayLength(line[i]);
            const bool left = table.columns[shown[i]].unit == Unit::Text;
            if (i)
                l += "  ";
            l += left ? line[i] + std::string(i + 1 < line.size() ? pad : 0, ' ') : std::string(pad, ' ') + line[i];
        }
        out += l + "\n";
    }
    return out;
}

}  // namespace wt::render
