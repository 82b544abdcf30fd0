// Helpers shared by the tests: temporary files, running the CLI, fixture paths.
#pragma once

#include <QJsonObject>
#include <QString>
#include <QTest>
#include <QStringList>

#include <cstdint>
#include <string>
#include <vector>

namespace wt::test {

// A fresh path in a temporary directory that lives as long as the process.
std::string tempPath(const std::string& fileName);

struct ProcessResult {
    int exitCode = -1;
    QString out;
    QString err;
};
// Runs the `wheretime` CLI (found through $WHERETIME_CLI) with arguments.
ProcessResult runCli(const QStringList& arguments, int timeoutMs = 120000);
ProcessResult runProgram(const QString& program, const QStringList& arguments, int timeoutMs = 120000);

// The CLI's standard output as bytes (runCli decodes it); empty, with its stderr in `err`, when
// it fails. For byte-for-byte comparisons of the one writer's outputs.
QByteArray cliBytes(const QStringList& arguments, QString* err);
// A file's bytes; empty when it cannot be read.
QByteArray fileBytes(const QString& path);
// The first line where two texts differ, both shown, for a failure message; "(equal)" if none.
QString firstDifference(const QByteArray& a, const QByteArray& b);

// One run in a fresh file: a 2-step CPU capture of the tiny GCN (`trace` empty) or the import
// of `trace` (a path), in a temporary file named after `tag`. On failure (the CLI failed, or the
// file holds other than one run) `path` is empty and `err` says why.
struct OneRunFile {
    QString path;
    int64_t runId = 0;
    QString err;
};
OneRunFile captureOrImport(const QString& trace, const std::string& tag);

// Path of a file in ../shared/traces, or empty when it is not there.
QString sharedTrace(const QString& fileName);
inline QString sharedTrace(const char* fileName) { return sharedTrace(QString::fromUtf8(fileName)); }
QString sourcePath(const QString& relative);
// The inflated bytes of a gzip file (the shared traces are .json.gz); empty when it cannot be read.
std::string gunzipped(const std::string& path);

// The fields of one CSV line (RFC 4180 quoting: the exporters quote names with commas or
// quotes), for tests that read `wheretime export --format csv` or a table's CSV back.
std::vector<std::string> csvFields(const std::string& line);

// The JSON object a CLI printed (--json); an empty object, with a warning naming the parse
// error and the text's start, when it is not one (the test's own checks then fail).
QJsonObject jsonObject(const QString& text);

// True when the environment says CI=true: tests that need a shared trace fail there.
bool inCi();
// "../shared/traces/NAME is missing (...)": the one line a test says when a trace is missing.
QString missingTraceMessage(const QString& fileName);
inline QString missingTraceMessage(const char* fileName) { return missingTraceMessage(QString::fromUtf8(fileName)); }

}  // namespace wt::test

// A test that needs a file of ../shared/traces and does not have it: under CI=true it fails
// (a skip passes in CTest and would hide a regression), elsewhere it skips with one line
// naming the file.
#define WT_MISSING_TRACE(fileName)                                                  \
    do {                                                                            \
        const QString wtMissing_ = wt::test::missingTraceMessage(fileName);         \
        if (wt::test::inCi())                                                       \
            QFAIL(qPrintable(wtMissing_));                                          \
        QSKIP(qPrintable(wtMissing_));                                              \
    } while (0)

// Declares `const QString var`, the path of a shared trace, or fails / skips as above.
#define WT_REQUIRE_TRACE(var, fileName)                                             \
    const QString var = wt::test::sharedTrace(fileName);                            \
    if (var.isEmpty())                                                              \
    WT_MISSING_TRACE(fileName)

namespace wt::test {

}  // namespace wt::test
