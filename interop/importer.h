// Entry point of `wheretime import`: detects the format of a file from its content (Nsight
// Systems SQLite export, Kineto or Chrome trace JSON, plain or gzip) and imports it as one run
// in a single transaction: on any error nothing of the run remains in the output file.
#pragma once

#include "importedtrace.h"

#include <string>
#include <utility>
#include <vector>

namespace wt {
class Database;
}

namespace wt::interop {

enum class TraceFormat { Unknown, NsysSqlite, Json, GzipJson };

// From the first bytes of a text (at most 16 are looked at).
TraceFormat detectFormat(const char* data, size_t size);
// From the first bytes of the file; throws ImportError when it cannot be read.
TraceFormat detectFormat(const std::string& path);

// Reads and parses a trace (no database involved). Throws ImportError naming the file.
// "-" is standard input. A regular file is mapped; anything else that is not a directory (a
// FIFO, a pipe, a character device) is read once, to its end, and never opened twice; a FIFO
// without a writer fails after a few seconds instead of waiting for one. Nsight SQLite
// exports must be regular files. A gzip file is inflated and parsed slice by slice (never
// the whole text in memory); a large plain one is parsed in slices from its mapping.
// sliceBytes: the slice (window) size, 0 = TraceEventImporter::kSliceBytes; a test hook.
// threads: the threads that parse a JSON's slices (TraceEventTokenizer::setThreads()); any
// count gives the same trace.
ImportedTrace parseTraceFile(const std::string& path, size_t sliceBytes = 0, int threads = 2);

struct ImportOptions {
    std::string name;                // run name; empty = the input file's base name
    // Steps (steprecognition.h): ranges whose name matches become steps; empty = the default
    // pattern (kDefaultStepPattern).
    std::string stepPattern;
    // More run metadata to store with the run (the analysis settings of `--layer-depth` and
    // `--categories`; analysis/runprofile.h names the keys).
    std::vector<std::pair<std::string, std::string>> metadata;
    // Test hook: JSON is cut into slices (windows) of about this many bytes; 0 = the default
    // (TraceEventImporter::kSliceBytes). Any size gives the same run.
    size_t sliceBytes = 0;
    // Threads that parse a JSON's slices (this one included); any count gives the same run.
    int parseThreads = 2;
};

struct ImportResult {
    WriteResult written;
    std::vector<int> ranks;          // importRanks(): the rank of each device of the run, in order
    bool ranksFromFile = false;      // importRanks(): ranks from distributedInfo (else file order)
    std::string format;              // nsys, kineto, chrome
    ImportedTrace::Counts counts;
    int64_t steps = 0;               // ranges recognised as steps
    int64_t slices = 0;              // JSON parsed in this many slices (windows); 0 = one pass
    bool streamed = false;           // JSON read as a stream, a slice at a time (gzip)
    double parseSeconds = 0;         // reading + parsing
    double writeSeconds = 0;         // attribution + storage writes + commit
};

// Imports one file as one run into an open ReadWrite database. Throws ImportError (input
// problems) or StorageError (output problems); either way the database is left as it was.
ImportResult importTrace(Database& db, const std::string& path, const ImportOptions& options = {});

// Imports the files (one per rank of a distributed job) as ONE run with one device per rank
// (mergeRanks() in multirank.h: the rule that decides they are one job, the clock alignment).
// Files are parsed on a few threads. Throws ImportError (a file fails to parse, or the files
// are not one job: the message says why) or StorageError; either way nothing is written.
// options.name empty: "<first file's name> (+N ranks)".
ImportResult importRanks(Database& db, const std::vector<std::string>& paths, const ImportOptions& options = {});

}  // namespace wt::interop
