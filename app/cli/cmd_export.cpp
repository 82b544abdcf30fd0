// wheretime export FILE[:RUN] --format chrome|csv -o OUT: a run as Chrome trace JSON (Perfetto,
// chrome://tracing) or CSV (activities, plus a kernel summary beside it).
#include "app/cli/command.h"
#include "storage/database.h"
#include "interop/chromeexporter.h"
#include "interop/csvexporter.h"
#include "storage/pathidentity.h"
#include "storage/reader.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <vector>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime export FILE[:RUN] --format chrome|csv -o OUT\n\n"
    "  --format chrome  Chrome trace JSON: one process per device, one thread per stream, scopes\n"
    "                   as nested slices, flow arrows from API calls to kernels; opens in Perfetto\n"
    "                   and chrome://tracing, and `wheretime import` reads it back\n"
    "  --format csv     OUT: one row per activity (ns relative to the run's start); beside it,\n"
    "                   OUT without .csv + _kern_sum.csv: kernel summary like nsys cuda_gpu_kern_sum\n"
    "  -o OUT           output file ('-' = standard output, chrome only)\n";

// Writes through a temporary file and renames, so a failed export never leaves half a file.
bool writeFile(const std::string& path, const std::function<void(std::ostream&)>& body, std::string& error)
{
    std::string tmp = path + ".part";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) {
            error = "cannot write " + path;
            return false;
        }
        std::vector<char> buffer(1 << 20);
        f.rdbuf()->pubsetbuf(buffer.data(), std::streamsize(buffer.size()));
        body(f);
        f.flush();
        if (!f) {
            error = "write failed: " + path;
            std::remove(tmp.c_str());
            return false;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        error = "cannot rename " + tmp + " to " + path;
        std::remove(tmp.c_str());
        return false;
    }
    return true;
}

int runExport(Args& args)
{
    args.parse();
    if (args.positionals().size() != 1)
        throw UsageError("expected one FILE[:RUN]");
    std::string format = args.value("--format", "");
    if (format != "chrome" && format != "csv")
        throw UsageError("--format must be chrome or csv");
    auto out = args.value("-o");
    if (!out)
        out = args.value("--output");
    if (!out)
        throw UsageError("missing -o OUT");

    auto [file, selector] = splitRunSelector(args.positionals()[0]);
    std::string stem = out->size() > 4 && out->compare(out->size() - 4, 4, ".csv") == 0 ? out->substr(0, out->size() - 4) : *out;
    std::string summary = stem + "_kern_sum.csv";
    // Never write over the database being read (or its -wal/-shm), also through links; the
    // temporary .part files count as written too.
    std::vector<std::string> written{*out};
    if (*out != "-")
        written.push_back(*out + ".part");
    if (format == "csv")
        written.insert(written.end(), {summary, summary + ".part"});
    if (Overwrite o = overwrittenInput(written, {file}))
        return fail(o.message());
    Database db(file, OpenMode::ReadOnly);
    Reader reader(db);
    int64_t runId = reader.resolveRun(selector);
    std::string error;
    if (format == "chrome") {
        if (*out == "-") {
            interop::ChromeExporter::write(reader, runId, std::cout);
            return 0;
        }
        if (!writeFile(*out, [&](std::ostream& o) { interop::ChromeExporter::write(reader, runId, o); }, error))
            return fail(error);
        std::printf("run %lld -> %s\n", static_cast<long long>(runId), out->c_str());
        return 0;
    }
    if (*out == "-")
        throw UsageError("--format csv writes two files; give -o OUT.csv");
    if (!writeFile(*out, [&](std::ostream& o) { interop::CsvExporter::writeActivities(reader, runId, o); }, error) ||
        !writeFile(summary, [&](std::ostream& o) { interop::CsvExporter::writeKernelSummary(reader, runId, o); }, error))
        return fail(error);
    std::printf("run %lld -> %s, %s\n", static_cast<long long>(runId), out->c_str(), summary.c_str());
    return 0;
}

const RegisterCommand reg{{"export", "export a run as Chrome trace JSON or CSV", kUsage, runExport,
                           {{"--format", "chrome|csv", "Chrome trace JSON or CSV (one row per activity)"},
                            {"-o", "OUT", "output file ('-' = standard output, chrome only)"},
                            {"--output", "OUT", "the same as -o"}}}};

}  // namespace
}  // namespace wt::cli
