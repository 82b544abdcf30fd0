// Every row of every table of a wheretime file (blobs in hex), sorted: two files that store the
// same runs give the same text (the importers' tests: one thread against many, one pass against
// windows).
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <vector>

namespace wt::test {

inline std::string dumpTables(const std::string& path)
{
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    std::vector<std::string> tables;
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW)
        tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    std::string out;
    for (const auto& t : tables) {
        std::vector<std::string> rows;
        sqlite3_prepare_v2(db, ("SELECT * FROM \"" + t + "\"").c_str(), -1, &st, nullptr);
        while (sqlite3_step(st) == SQLITE_ROW) {
            std::string row;
            for (int c = 0; c < sqlite3_column_count(st); ++c) {
                row += c ? "|" : "";
                if (sqlite3_column_type(st, c) == SQLITE_BLOB) {
                    const auto* b = static_cast<const unsigned char*>(sqlite3_column_blob(st, c));
                    static const char hex[] = "0123456789abcdef";
                    for (int i = 0; i < sqlite3_column_bytes(st, c); ++i)
                        row += {hex[b[i] >> 4], hex[b[i] & 15]};
                } else if (const unsigned char* v = sqlite3_column_text(st, c)) {
                    row += reinterpret_cast<const char*>(v);
                }
            }
            rows.push_back(std::move(row));
        }
        sqlite3_finalize(st);
        std::sort(rows.begin(), rows.end());
        out += "table " + t + " " + std::to_string(rows.size()) + "\n";
        for (const auto& r : rows)
            out += r + "\n";
    }
    sqlite3_close(db);
    return out;
}

// Runs with stored scope lanes (schema 6's scope_lane_sets) in the file at `path`; 0 when the
// file is not migrated yet (no table), -1 when it does not open.
inline int64_t laneSets(const std::string& path)
{
    sqlite3* h = nullptr;
    int64_t n = -1;
    if (sqlite3_open_v2(path.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(h, "SELECT count(*) FROM scope_lane_sets", -1, &st, nullptr) != SQLITE_OK)
            n = 0;   // not migrated: no table
        else if (sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return n;
}

}  // namespace wt::test
