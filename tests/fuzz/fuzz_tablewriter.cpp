// libFuzzer target: bytes as an analysis table (analysis/table.h), rendered by the one writer
// (render/tablewriter.h). Checks what the writer promises for any table: the CSV parses back
// (RFC 4180) to one header of the column ids and one record per row, each field the cell's raw
// value (text cells as given, after UTF-8 repair); the JSON is one valid document (simdjson)
// with the right number of rows; the text is valid UTF-8 with one line per note, the header and
// one per row; every output is valid UTF-8.
// Input: byte 0 = columns (1..8), byte 1 = rows (0..31), byte 2 = flags (bit 0: a note,
// bit 1: text width 12); then per column a unit byte and per cell a type byte and, for text, a
// length byte and the bytes; integers and reals take 8 bytes. Short inputs end the table early.
#include "render/tablewriter.h"
#include "storage/utf8.h"

#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace wt;

[[noreturn]] void fail(const char* what, const std::string& detail = {})
{
    std::fprintf(stderr, "fuzz_tablewriter: %s %s\n", what, detail.c_str());
    std::abort();
}

struct Bytes {
    const uint8_t* p;
    size_t n;
    bool take(size_t k, const uint8_t*& out)
    {
        if (n < k)
            return false;
        out = p;
        p += k;
        n -= k;
        return true;
    }
    int byte()
    {
        const uint8_t* b = nullptr;
        return take(1, b) ? *b : -1;
    }
};

// RFC 4180 records of a CSV text (quoted fields may hold commas, quotes and newlines).
std::vector<std::vector<std::string>> parseCsv(const std::string& text)
{
    std::vector<std::vector<std::string>> out;
    std::vector<std::string> rec;
    std::string field;
    bool quoted = false, any = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"' && field.empty()) {
            quoted = any = true;
        } else if (c == ',') {
            rec.push_back(field);
            field.clear();
        } else if (c == '\n') {
            rec.push_back(field);
            out.push_back(rec);
            rec.clear();
            field.clear();
        } else {
            field += c;
        }
        any = true;
    }
    if (quoted)
        fail("CSV ends inside a quoted field");
    if (!field.empty() || !rec.empty())
        fail("CSV does not end with a newline");
    (void)any;
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    Bytes in{data, size};
    const int nc = in.byte(), nr = in.byte(), flags = in.byte();
    if (nc < 0 || nr < 0 || flags < 0)
        return 0;
    Table t;
    t.id = "fuzz";
    const size_t columns = 1 + size_t(nc) % 8, rows = size_t(nr) % 32;
    for (size_t c = 0; c < columns; ++c) {
        const int u = in.byte();
        t.add("c" + std::to_string(c), "col " + std::to_string(c), Unit(u < 0 ? 0 : u % 11), (u & 0x80) == 0);
    }
    if (flags & 1)
        t.notes.push_back("note\nwith a newline");
    for (size_t r = 0; r < rows; ++r) {
        auto& row = t.addRow();
        for (size_t c = 0; c < columns; ++c) {
            const int kind = in.byte();
            const uint8_t* b = nullptr;
            if (kind < 0)
                break;
            switch (kind % 4) {
            case 0: break;   // none
            case 1: {
                int64_t v = 0;
                if (in.take(8, b))
                    std::memcpy(&v, b, 8);
                row[c] = v;
                break;
            }
            case 2: {
                double v = 0;
                if (in.take(8, b))
                    std::memcpy(&v, b, 8);
                row[c] = v;
                break;
            }
            default: {
                const int len = in.byte();
                std::string s;
                if (len > 0 && in.take(size_t(len), b))
                    s.assign(reinterpret_cast<const char*>(b), size_t(len));
                row[c] = s;
            }
            }
        }
    }

    // CSV: valid UTF-8, the ids, then each row's raw values.
    const std::string csv = render::csv(t);
    if (!utf8::isValid(csv))
        fail("CSV is not valid UTF-8");
    const auto records = parseCsv(csv);
    if (records.size() != t.rows.size() + 1)
        fail("CSV records", std::to_string(records.size()));
    for (size_t c = 0; c < columns; ++c)
        if (records[0].size() != columns || records[0][c] != t.columns[c].id)
            fail("CSV header");
    for (size_t r = 0; r < t.rows.size(); ++r) {
        if (records[r + 1].size() != columns)
            fail("CSV fields in a record");
        for (size_t c = 0; c < columns; ++c) {
            const Cell& cell = t.rows[r][c];
            const std::string& f = records[r + 1][c];
            if (const auto* s = std::get_if<std::string>(&cell)) {
                if (f != utf8::repaired(*s))
                    fail("CSV text field");
            } else if (const auto* i = std::get_if<int64_t>(&cell)) {
                if (f != std::to_string(*i))
                    fail("CSV integer");
            } else if (const auto* d = std::get_if<double>(&cell)) {
                if (std::isfinite(*d) ? std::strtod(f.c_str(), nullptr) != *d : !f.empty())
                    fail("CSV real does not read back", f);
            } else if (!f.empty()) {
                fail("CSV none is not empty");
            }
        }
    }

    // JSON: one valid document with every row.
    const std::string json = render::json(t);
    if (!utf8::isValid(json))
        fail("JSON is not valid UTF-8");
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(json).get(doc) != simdjson::SUCCESS)
        fail("JSON does not parse", json.substr(0, 4000));
    simdjson::dom::array jrows;
    if (doc["rows"].get(jrows) != simdjson::SUCCESS || jrows.size() != t.rows.size())
        fail("JSON rows");

    // Text: valid UTF-8, one line each for the note, the header and every row.
    render::TextOptions o;
    o.width = (flags & 2) ? 12 : 0;
    const std::string text = render::text(t, o);
    if (!utf8::isValid(text))
        fail("text is not valid UTF-8");
    size_t lines = 0;
    for (char ch : text)
        lines += ch == '\n';
    if (lines != t.notes.size() + 1 + t.rows.size())
        fail("text lines", std::to_string(lines));
    return 0;
}
