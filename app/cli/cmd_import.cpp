// wheretime import INPUT... -o FILE: other tools' traces (Nsight Systems SQLite exports,
// PyTorch profiler / Kineto JSON, Chrome trace JSON; .gz or plain) as runs of a wheretime file.
#include "analysis/kernelcategory.h"
#include "analysis/runprofile.h"
#include "app/cli/command.h"
#include "storage/database.h"
#include "interop/importer.h"
#include "interop/importerror.h"
#include "interop/multirank.h"
#include "storage/pathidentity.h"
#include "storage/reader.h"
#include "storage/storageerror.h"

#include <cstdio>
#include <functional>
#include <limits>
#include <iostream>
#include <optional>
#include <regex>

#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime import INPUT... -o FILE [--name NAME] [--one-run] [--timing]\n"
    "                        [--step REGEX] [--layer-depth N] [--categories FILE]\n\n"
    "Imports each INPUT as one run of FILE (created when missing). The format is found from the\n"
    "content: Nsight Systems SQLite export (nsys export --type sqlite), PyTorch profiler (Kineto)\n"
    "trace JSON, or Chrome trace JSON (X events, B/E pairs), plain or gzip-compressed.\n"
    "NVTX ranges, CPU ops and annotations become scopes; each kernel is attributed to the\n"
    "innermost range open on its launching thread when it was launched.\n"
    "An input that fails leaves nothing behind; the others are still imported (exit status 1).\n"
    "INPUT '-' is standard input; FIFOs are read in one pass. FILE must not be an INPUT.\n"
    "  -o FILE     the wheretime file to add runs to\n"
    "  --name N    run name (default: the input's file name; with several inputs, N #2, N #3...)\n"
    "  --one-run   the INPUTs are the ranks of one distributed job: ONE run, one device per\n"
    "              rank (\"rank R: GPU d\"), ranks from Kineto distributedInfo (else file order),\n"
    "              clocks aligned on absolute time; files of different jobs are refused\n"
    "              (docs/interop.md). A directory INPUT means its trace files, as one run.\n"
    "  --timing    also print parse and write times\n"
    "Analysis settings, stored with each run (docs/interop.md, docs/categories.md):\n"
    "  --step REGEX  ranges whose whole name matches (case-insensitive) are steps; default:\n"
    "              ProfilerStep#N and names like step, step 12, train_step, iteration 3\n"
    "  --layer-depth N  the layer level, counted below the steps (a step is never a layer):\n"
    "              1 (default) = the ranges right below a step, or the top level without steps\n"
    "  --categories FILE  kernel category rules (REGEX -> CATEGORY a line, first match wins)\n"
    "              checked before the built-in ones\n";

// What was at the output path before the import. A run of failures into a new (or empty) path
// leaves nothing behind: the file is created here, exclusively, so only a file this command
// made is ever removed; an existing file keeps its runs (each import rolls back on error).
class OutputGuard {
public:
    explicit OutputGuard(const std::string& path) : m_files(occupiedFiles(path)), m_existed(m_files.size(), false)
    {
        for (size_t i = 0; i < m_files.size(); ++i) {
            struct stat st {};
            m_existed[i] = ::lstat(m_files[i].c_str(), &st) == 0;
            if (i == 0 && m_existed[0] && S_ISREG(st.st_mode) && st.st_size == 0)
                m_wasEmpty = true;
        }
        if (!m_existed[0]) {
            int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd >= 0) {
                m_created = true;
                ::close(fd);
            }
        }
        struct stat st {};
        if ((m_created || m_wasEmpty) && ::stat(path.c_str(), &st) == 0) {
            m_dev = st.st_dev;
            m_ino = st.st_ino;
        }
    }
    // True when the file may be put back: made or empty before, and no run in it now.
    bool restorable(Database* db) const
    {
        if (!m_created && !m_wasEmpty)
            return false;
        if (!db)
            return true;
        try {
            return Reader(*db).runs().empty();
        } catch (const std::exception&) {
            return false;
        }
    }
    // Removes what this command created (call with the database closed).
    void restore() const
    {
        struct stat st {};
        if (::stat(m_files[0].c_str(), &st) != 0 || st.st_dev != m_dev || st.st_ino != m_ino)
            return;   // replaced meanwhile: not ours
        if (m_created)
            ::unlink(m_files[0].c_str());
        else if (::truncate(m_files[0].c_str(), 0) != 0)
            return;
        for (size_t i = 1; i < m_files.size(); ++i)
            if (!m_existed[i])
                ::unlink(m_files[i].c_str());
    }

private:
    std::vector<std::string> m_files;   // the file, then its -wal, -shm, -journal
    std::vector<bool> m_existed;
    bool m_created = false;
    bool m_wasEmpty = false;
    dev_t m_dev = 0;
    ino_t m_ino = 0;
};

// --step, --layer-depth, --categories: checked before anything is imported, stored with
// every run as metadata that analysis/ reads (RunProfile).
struct AnalysisSettings {
    std::string stepPattern;
    std::vector<std::pair<std::string, std::string>> metadata;
};

AnalysisSettings analysisSettings(const Args& args)
{
    AnalysisSettings s;
    if (auto step = args.value("--step")) {
        try {
            std::regex check(*step, std::regex::ECMAScript | std::regex::icase);
        } catch (const std::regex_error& e) {
            throw UsageError("--step '" + *step + "' is not a valid regular expression: " + e.what());
        }
        s.stepPattern = *step;
    }
    if (args.value("--layer-depth")) {
        const int64_t depth = args.integer("--layer-depth", 1);
        if (depth < 1 || depth > kMaxScopeDepth)
            throw UsageError("--layer-depth must be between 1 and " + std::to_string(kMaxScopeDepth));
        s.metadata.emplace_back(kLayerDepthKey, std::to_string(depth));
    }
    // A missing or bad rules file fails the command (exit 1, "FILE:LINE: ...") before the
    // output file is touched.
    if (auto file = args.value("--categories"))
        s.metadata.emplace_back(kCategoriesKey, KernelCategories::load(*file).text());
    return s;
}

int runImport(Args& args)
{
    args.parse();
    const AnalysisSettings settings = analysisSettings(args);
    auto out = args.value("-o");
    if (!out)
        out = args.value("--output");
    if (!out)
        throw UsageError("missing -o FILE");
    if (args.positionals().empty())
        throw UsageError("expected at least one INPUT");
    // A directory stands for its trace files, as the ranks of one run.
    std::vector<std::string> inputs;
    bool oneRun = args.flag("--one-run");
    for (const auto& in : args.positionals()) {
        struct stat st {};
        if (in != "-" && ::stat(in.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
            try {
                for (auto& f : interop::traceFilesIn(in))
                    inputs.push_back(std::move(f));
            } catch (const interop::ImportError& e) {
                return fail(e.what());
            }
            oneRun = true;
        } else {
            inputs.push_back(in);
        }
    }
    // Writing the output must not destroy an input (the same file, a link to it, its -wal).
    if (Overwrite o = overwrittenInput(occupiedFiles(*out), inputs))
        return fail(o.message());
    OutputGuard guard(*out);
    std::optional<Database> db;
    try {
        db.emplace(*out, OpenMode::ReadWrite);
    } catch (const StorageError&) {
        if (guard.restorable(nullptr))
            guard.restore();
        throw;
    }
    int failures = 0, imported = 0;
    auto putBack = [&] {
        if (imported == 0 && guard.restorable(&*db)) {
            db.reset();
            guard.restore();
        }
    };
    // One import: its line ("run N: K kernels, D devices" and `detail`), --timing; a failure is
    // reported and counted (the other inputs still import), a storage error named by `where`.
    auto importOne = [&](const std::function<interop::ImportResult()>& import,
                         const std::function<std::string(const interop::ImportResult&)>& detail, const std::string& where) {
        try {
            const interop::ImportResult r = import();
            std::printf("run %lld: %lld kernels, %d device%s%s\n", static_cast<long long>(r.written.runId),
                        static_cast<long long>(r.written.kernels), r.written.devices, r.written.devices == 1 ? "" : "s",
                        detail(r).c_str());
            ++imported;
            if (args.flag("--timing"))
                std::printf("  parse %.3f s, write %.3f s\n", r.parseSeconds, r.writeSeconds);
        } catch (const interop::ImportError& e) {
            fail(e.what());
            ++failures;
        } catch (const StorageError& e) {
            fail(where + ": " + e.what());
            ++failures;
        }
    };
    try {
        if (oneRun) {
            interop::ImportOptions options;
            if (auto name = args.value("--name"))
                options.name = *name;
            options.stepPattern = settings.stepPattern;
            options.metadata = settings.metadata;
            importOne([&] { return interop::importRanks(*db, inputs, options); },
                      [&](const interop::ImportResult& r) {
                          std::string ranks;
                          for (int k : r.ranks)
                              ranks += (ranks.empty() ? "" : ",") + std::to_string(k);
                          return ", ranks " + ranks + " (" +
                                 (r.ranksFromFile ? "from distributedInfo" : "from the file order: the files say no rank") +
                                 ") (" + r.format + ", " + std::to_string(inputs.size()) + " files)";
                      },
                      "--one-run");
        }
#ifdef __GLIBC__
        // A trace's import allocates and frees arrays of hundreds of MB phase after phase (the
        // parse's records, the lanes, the scope order, the writer's): kept in the heap and reused
        // rather than unmapped and faulted in afresh (a fault and a page clear each 4 KiB: a
        // quarter fewer faults on a 2 GB Kineto trace). Not for --one-run, whose parses on
        // several threads would then share one heap.
        if (!oneRun) {
            mallopt(M_MMAP_MAX, 0);
            mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
        }
#endif
        for (size_t i = 0; i < inputs.size() && !oneRun; ++i) {
            interop::ImportOptions options;
            options.stepPattern = settings.stepPattern;
            options.metadata = settings.metadata;
            if (auto name = args.value("--name"))
                options.name = i == 0 ? *name : *name + " #" + std::to_string(i + 1);
            importOne([&] { return interop::importTrace(*db, inputs[i], options); },
                      [&](const interop::ImportResult& r) { return " (" + r.format + ", " + inputs[i] + ")"; }, inputs[i]);
        }
    } catch (...) {
        putBack();   // out of memory and the like: still leave no empty file behind
        throw;
    }
    putBack();
    return failures ? 1 : 0;
}

const RegisterCommand reg{{"import", "import Nsight Systems, Kineto or Chrome traces as runs", kUsage, runImport,
                           {{"-o", "FILE", "the wheretime file to add runs to"},
                            {"--output", "FILE", "the same as -o"},
                            {"--name", "NAME", "run name (default: the input's file name)"},
                            {"--one-run", "", "the INPUTs are the ranks of one job: one run, one device per rank"},
                            {"--step", "REGEX", "ranges whose whole name matches are steps"},
                            {"--layer-depth", "N", "the layer level, counted below the steps"},
                            {"--categories", "FILE", "kernel category rules (REGEX -> CATEGORY), before the built-in ones"},
                            {"--timing", "", "also print parse and write times"}}}};

}  // namespace
}  // namespace wt::cli
