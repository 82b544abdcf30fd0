// wheretime sql FILE ["QUERY"] [--csv|--json]: plain SQL over a wheretime file, with the
// chunked records as the tables activities, kernels, scope_instances and api_calls (sql/, the
// same code as the loadable extension, registered in-process). Without a query it reads SQL
// from standard input, statement by statement. The file is opened read-only.
#include "render/textelide.h"
#include "app/cli/command.h"
#include "sql/sqltables.h"
#include "storage/csv.h"
#include "storage/database.h"
#include "storage/json.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace wt::cli {
namespace {

using wt::sql::SqlTables;

const char* kUsage =
    "usage: wheretime sql FILE [\"QUERY\"] [--csv|--json]\n\n"
    "  Runs SQL on FILE (opened read-only). Besides the file's own tables (docs/schema.md), the\n"
    "  chunked records read as tables: activities, kernels, scope_instances, api_calls.\n"
    "  Without QUERY, statements are read from standard input (end each with ';').\n"
    "  --csv     CSV with a header row\n"
    "  --json    a JSON array of row objects per statement\n"
    "  default   aligned columns\n"
    "The same tables in the sqlite3 shell or Python: load libwheretime_sqlite.so (docs/schema.md).\n";

enum class Format { Table, Csv, Json };

std::string cellText(sqlite3_stmt* s, int i)
{
    switch (sqlite3_column_type(s, i)) {
    case SQLITE_NULL:
        return {};
    case SQLITE_INTEGER:
        return std::to_string(sqlite3_column_int64(s, i));
    case SQLITE_FLOAT: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.15g", sqlite3_column_double(s, i));
        return buf;
    }
    default: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
        return text ? std::string(text, size_t(sqlite3_column_bytes(s, i))) : std::string();
    }
    }
}

std::string cellJson(sqlite3_stmt* s, int i)
{
    switch (sqlite3_column_type(s, i)) {
    case SQLITE_NULL:
        return "null";
    case SQLITE_INTEGER:
        return std::to_string(sqlite3_column_int64(s, i));
    case SQLITE_FLOAT:
        return json::number(sqlite3_column_double(s, i));
    default:
        return json::quote(cellText(s, i));
    }
}

// Runs every statement of `sql`, printing the rows of those that return some. Returns false
// (with `error` set) at the first failing statement.
bool runSql(sqlite3* db, const std::string& sql, Format format, std::ostream& out, std::string& error)
{
    const char* at = sql.c_str();
    const char* end = at + sql.size();
    while (at < end) {
        sqlite3_stmt* s = nullptr;
        const char* tail = nullptr;
        if (sqlite3_prepare_v2(db, at, int(end - at), &s, &tail) != SQLITE_OK) {
            error = sqlite3_errmsg(db);
            return false;
        }
        at = tail;
        if (!s)
            continue;   // whitespace or a comment
        // A statement that writes is refused before it runs: query_only refuses it too, but only
        // once it runs, and VACUUM INTO would have created its target file by then.
        if (!sqlite3_stmt_readonly(s)) {
            std::string text;
            for (const char* c = sqlite3_sql(s); *c; ++c)   // one line: runs of blanks and newlines read as one space
                if (static_cast<unsigned char>(*c) > ' ' || (!text.empty() && text.back() != ' '))
                    text += static_cast<unsigned char>(*c) > ' ' ? *c : ' ';
            while (!text.empty() && text.back() == ' ')
                text.pop_back();
            error = "refusing a statement that writes (" + elideMiddle(text, 60) + "): sql only reads";
            sqlite3_finalize(s);
            return false;
        }
        int columns = sqlite3_column_count(s);
        std::vector<std::string> names;
        for (int i = 0; i < columns; ++i)
            names.emplace_back(sqlite3_column_name(s, i));
        std::vector<std::vector<std::string>> table;   // Format::Table: printed once widths are known
        bool first = true;
        if (columns > 0 && format == Format::Csv) {
            for (int i = 0; i < columns; ++i)
                out << (i ? "," : "") << csv::field(names[size_t(i)]);
            out << '\n';
        }
        if (columns > 0 && format == Format::Json)
            out << '[';
        int rc = SQLITE_OK;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            if (format == Format::Csv) {
                for (int i = 0; i < columns; ++i)
                    out << (i ? "," : "") << csv::field(cellText(s, i));
                out << '\n';
            } else if (format == Format::Json) {
                out << (first ? "\n  {" : ",\n  {");
                for (int i = 0; i < columns; ++i)
                    out << (i ? ", " : "") << json::quote(names[size_t(i)]) << ": " << cellJson(s, i);
                out << '}';
            } else {
                std::vector<std::string> row;
                for (int i = 0; i < columns; ++i)
                    row.push_back(cellText(s, i));
                table.push_back(std::move(row));
            }
            first = false;
        }
        if (rc != SQLITE_DONE) {
            error = sqlite3_errmsg(db);
            sqlite3_finalize(s);
            if (format == Format::Json && columns > 0)
                out << "\n]\n";
            return false;
        }
        sqlite3_finalize(s);
        if (columns > 0 && format == Format::Json)
            out << (first ? "]\n" : "\n]\n");
        if (columns > 0 && format == Format::Table) {
            std::vector<size_t> width(static_cast<size_t>(columns));
            for (size_t i = 0; i < names.size(); ++i)
                width[i] = names[i].size();
            for (const auto& row : table)
                for (size_t i = 0; i < row.size(); ++i)
                    width[i] = std::max(width[i], row[i].size());
            auto line = [&](const std::vector<std::string>& cells) {
                std::string text;
                for (size_t i = 0; i < cells.size(); ++i) {
                    text += cells[i];
                    if (i + 1 < cells.size())
                        text += std::string(width[i] - cells[i].size() + 2, ' ');
                }
                out << text << '\n';
            };
            line(names);
            for (const auto& row : table)
                line(row);
        }
    }
    out.flush();
    return true;
}

int runSqlCommand(Args& args)
{
    args.parse({}, {"--csv", "--json"});
    const auto& pos = args.positionals();
    if (pos.empty() || pos.size() > 2)
        throw UsageError("expected FILE and at most one QUERY");
    if (args.flag("--csv") && args.flag("--json"))
        throw UsageError("--csv and --json exclude each other");
    Format format = args.flag("--csv") ? Format::Csv : args.flag("--json") ? Format::Json : Format::Table;

    Database db(pos[0], OpenMode::ReadOnly);
    // Read-only twice over: the connection is opened read-only, and no statement may write.
    db.exec("PRAGMA query_only=1");
    std::string error;
    if (SqlTables::registerOn(db.handle(), error) != SQLITE_OK)
        return fail(pos[0] + ": " + error);

    if (pos.size() == 2) {
        if (!runSql(db.handle(), pos[1], format, std::cout, error))
            return fail("sql: " + error);
        return 0;
    }
    // No query: statements from standard input, each run once it is complete.
    bool interactive = ::isatty(STDIN_FILENO);
    bool failed = false;
    std::string buffer, line;
    auto prompt = [&] {
        if (interactive)
            std::cerr << (buffer.empty() ? "sql> " : "...> ") << std::flush;
    };
    prompt();
    while (std::getline(std::cin, line)) {
        buffer += line;
        buffer += '\n';
        if (sqlite3_complete(buffer.c_str())) {
            if (!runSql(db.handle(), buffer, format, std::cout, error)) {
                std::cerr << "wheretime: error: sql: " << error << "\n";
                failed = true;
            }
            buffer.clear();
        }
        prompt();
    }
    if (buffer.find_first_not_of(" \t\r\n") != std::string::npos && !runSql(db.handle(), buffer, format, std::cout, error)) {
        std::cerr << "wheretime: error: sql: " << error << "\n";
        failed = true;
    }
    return failed ? 1 : 0;
}

const RegisterCommand reg{{"sql", "query a file with SQL (kernels, scope instances, API calls as tables)", kUsage, runSqlCommand}};

}  // namespace
}  // namespace wt::cli
