// wheretime upgrade FILE...: brings an older file up to this build's schema and computes what it
// lacks: the level-of-detail summary (schema 5) and the scope lanes (schema 6) of finished runs
// without them (older files, recovered runs). Every other command only bumps the schema (cheap)
// and reads such runs as before; the GUI computes them in the background.
#include "app/cli/command.h"
#include "storage/database.h"
#include "storage/storageerror.h"
#include "storage/summarybackfill.h"

#include <cstdio>
#include <string>

namespace wt::cli {
namespace {

int runUpgrade(Args& args)
{
    args.parse();
    if (args.positionals().empty())
        throw UsageError("expected at least one FILE");
    int failures = 0;
    for (const std::string& file : args.positionals()) {
        { Database exists(file, OpenMode::ReadOnly); }   // a missing file is an error, not a new one
        Database db(file, OpenMode::ReadWrite);         // migrates: creates the newer tables
        BackfillCallbacks cb;
        cb.before = [&](size_t index, size_t count, const MissingSummary& m) {
            std::fprintf(stderr, "%s: run %lld (%zu of %zu, %lld activities): computing its %s...\n", file.c_str(),
                         static_cast<long long>(m.runId), index + 1, count, static_cast<long long>(m.activities),
                         m.overview ? "summary and scope lanes" : "scope lanes");
        };
        cb.stored = [&](const MissingSummary& m, double seconds) {
            std::fprintf(stderr, "%s: run %lld: stored in %.1f s\n", file.c_str(), static_cast<long long>(m.runId), seconds);
        };
        cb.skipped = [&](const MissingSummary& m, const std::string& error) {
            ++failures;
            std::fprintf(stderr, "wheretime: error: run %lld left without a summary: %s\n", static_cast<long long>(m.runId), error.c_str());
        };
        const int stored = storeMissingRunOverviews(db, cb);
        std::printf("%s: schema %d, %s\n", file.c_str(), db.schemaVersion(),
                    stored == 0 ? "every finished run has its summary and scope lanes"
                                : (std::to_string(stored) + (stored == 1 ? " run given its" : " runs given their") + " summary and scope lanes").c_str());
    }
    return failures == 0 ? 0 : 1;
}

const RegisterCommand reg{{"upgrade", "migrate an older file and compute the summaries it lacks",
                           "usage: wheretime upgrade FILE...\n\n"
                           "Brings each FILE to this build's schema and computes, run by run, what an older\n"
                           "file lacks: the level-of-detail summary (schema 5) and the stored scope lanes\n"
                           "(schema 6) of every finished run without them (also runs recovered from a\n"
                           "writer that died). Each run is stored in its own transaction: an interrupted\n"
                           "upgrade keeps the runs it finished, and running it again does the rest. Other\n"
                           "commands only create the newer tables and read such runs as before; the GUI\n"
                           "computes them in the background. Progress on stderr, one line per FILE on stdout.\n",
                           runUpgrade,
                           {}}};

}  // namespace
}  // namespace wt::cli
