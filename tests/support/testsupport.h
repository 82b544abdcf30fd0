// Helpers shared by the tests: temporary files, running the CLI, fixture paths.
#pragma once

#include <QString>
#include <QStringList>

#include <string>

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

// Path of a file in ../shared/traces, or empty when the folder is not there.
QString sharedTrace(const QString& fileName);
QString sourcePath(const QString& relative);

}  // namespace wt::test
