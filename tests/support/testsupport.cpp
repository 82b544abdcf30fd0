#include "testsupport.h"

#include "wheretime_config.h"

#include "storage/database.h"
#include "storage/reader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>

#include <zlib.h>

#include <algorithm>

namespace wt::test {

std::string tempPath(const std::string& fileName)
{
    static QTemporaryDir dir;
    static int counter = 0;
    return QDir(dir.path()).filePath(QString::number(++counter) + QStringLiteral("-") + QString::fromStdString(fileName)).toStdString();
}

ProcessResult runProgram(const QString& program, const QStringList& arguments, int timeoutMs)
{
    QProcess p;
    p.start(program, arguments);
    ProcessResult r;
    if (!p.waitForStarted()) {
        r.err = QStringLiteral("could not start ") + program;
        return r;
    }
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

ProcessResult runCli(const QStringList& arguments, int timeoutMs)
{
    return runProgram(qEnvironmentVariable("WHERETIME_CLI"), arguments, timeoutMs);
}

QString sourcePath(const QString& relative)
{
    QString root = qEnvironmentVariable("WHERETIME_SOURCE_DIR", QStringLiteral(WHERETIME_SOURCE_DIR));
    return QDir(root).filePath(relative);
}

QString sharedTrace(const QString& fileName)
{
    QString path = QDir(sourcePath(QStringLiteral("../shared/traces"))).filePath(fileName);
    return QFileInfo::exists(path) ? path : QString();
}

std::string gunzipped(const std::string& path)
{
    std::string out;
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz)
        return out;
    char chunk[1 << 16];
    int n;
    while ((n = gzread(gz, chunk, sizeof chunk)) > 0)
        out.append(chunk, size_t(n));
    gzclose(gz);
    return out;
}

std::vector<std::string> csvFields(const std::string& line)
{
    std::vector<std::string> out(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                out.back() += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                out.back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

bool inCi()
{
    return qEnvironmentVariable("CI") == QStringLiteral("true");
}

QString missingTraceMessage(const QString& fileName)
{
    return QStringLiteral("../shared/traces/%1 is missing (%2)")
        .arg(fileName, QDir(sourcePath(QStringLiteral("../shared/traces"))).absolutePath());
}

OneRunFile captureOrImport(const QString& trace, const std::string& tag)
{
    OneRunFile one;
    const QString file = QString::fromStdString(tempPath(tag + ".wt"));
    const ProcessResult made =
        trace.isEmpty() ? runCli({QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                                  QStringLiteral("tiny"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                                  QStringLiteral("2"), QStringLiteral("-o"), file})
                        : runCli({QStringLiteral("import"), trace, QStringLiteral("-o"), file});
    if (made.exitCode != 0) {
        one.err = made.err;
        return one;
    }
    Database db(file.toStdString(), OpenMode::ReadOnly);
    Reader reader(db);
    if (reader.runs().size() != 1) {
        one.err = QStringLiteral("%1 holds %2 runs, not 1").arg(file).arg(reader.runs().size());
        return one;
    }
    one.path = file;
    one.runId = reader.runs().front().id;
    return one;
}

QByteArray cliBytes(const QStringList& arguments, QString* err)
{
    QProcess p;
    p.start(qEnvironmentVariable("WHERETIME_CLI"), arguments);
    if (!p.waitForStarted() || !p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *err = QString::fromUtf8(p.readAllStandardError());
        return {};
    }
    return p.readAllStandardOutput();
}

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString firstDifference(const QByteArray& a, const QByteArray& b)
{
    const QList<QByteArray> la = a.split('\n'), lb = b.split('\n');
    for (qsizetype i = 0; i < std::max(la.size(), lb.size()); ++i) {
        const QByteArray x = i < la.size() ? la[i] : QByteArray("(none)"), y = i < lb.size() ? lb[i] : QByteArray("(none)");
        if (x != y)
            return QStringLiteral("line %1:\n  %2\n  %3").arg(i + 1).arg(QString::fromUtf8(x), QString::fromUtf8(y));
    }
    return QStringLiteral("(equal)");
}

QJsonObject jsonObject(const QString& text)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        qWarning("not a JSON object: %s: %s", qPrintable(err.errorString()), qPrintable(text.left(300)));
    return doc.object();
}

}  // namespace wt::test
