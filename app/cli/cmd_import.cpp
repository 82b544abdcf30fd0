// wheretime import INPUT... -o FILE: other tools' traces (Nsight Systems SQLite exports,
// PyTorch profiler / Kineto JSON, Chrome trace JSON; .gz or plain) as runs of a wheretime file.
#include "app/cli/command.h"
#include "storage/database.h"
#include "interop/importer.h"
#include "interop/importerror.h"
#include "storage/pathidentity.h"
#include "storage/reader.h"
#include "storage/storageerror.h"

#include <cstdio>
#include <iostream>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime import INPUT... -o FILE [--name NAME] [--timing]\n\n"
    "Imports each INPUT as one run of FILE (created when missing). The format is found from the\n"
    "content: Nsight Systems SQLite export (nsys export --type sqlite), PyTorch profiler (Kineto)\n"
    "trace JSON, or Chrome trace JSON (X events, B/E pairs), plain or gzip-compressed.\n"
    "NVTX ranges, CPU ops and annotations become scopes; each kernel is attributed to the\n"
    "innermost range open on its launching thread when it was launched.\n"
    "An input that fails leaves nothing behind; the others are still imported (exit status 1).\n"
    "INPUT '-' is standard input; FIFOs are read in one pass. FILE must not be an INPUT.\n"
    "  -o FILE     the wheretime file to add runs to\n"
    "  --name N    run name (default: the input's file name; with several inputs, N #2, N #3...)\n"
    "  --timing    also print parse and write times\n";

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

int runImport(Args& args)
{
    args.parse();
    auto out = args.value("-o");
    if (!out)
        out = args.value("--output");
    if (!out)
        throw UsageError("missing -o FILE");
    if (args.positionals().empty())
        throw UsageError("expected at least one INPUT");
    const auto& inputs = args.positionals();
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
    try {
        for (size_t i = 0; i < inputs.size(); ++i) {
            interop::ImportOptions options;
            if (auto name = args.value("--name"))
                options.name = i == 0 ? *name : *name + " #" + std::to_string(i + 1);
            try {
                interop::ImportResult r = interop::importTrace(*db, inputs[i], options);
                std::printf("run %lld: %lld kernels, %d device%s (%s, %s)\n", static_cast<long long>(r.written.runId),
                            static_cast<long long>(r.written.kernels), r.written.devices, r.written.devices == 1 ? "" : "s",
                            r.format.c_str(), inputs[i].c_str());
                ++imported;
                if (args.flag("--timing"))
                    std::printf("  parse %.3f s, write %.3f s\n", r.parseSeconds, r.writeSeconds);
            } catch (const interop::ImportError& e) {
                fail(e.what());
                ++failures;
            } catch (const StorageError& e) {
                fail(inputs[i] + ": " + e.what());
                ++failures;
            }
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
                            {"--timing", "", "also print parse and write times"}}}};

}  // namespace
}  // namespace wt::cli
