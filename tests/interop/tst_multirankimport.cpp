// `import --one-run` and files that say no rank: one file given twice (the same path, a
// symlink, a hard link, a byte-identical copy) is refused in one line naming both arguments,
// exit status 1 and no output file, as files whose distributedInfo says the same rank already
// are; two different rankless files still make one run of two ranks.
#include "interop/importer.h"
#include "interop/importerror.h"
#include "interop/multirank.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTest>

#include <sqlite3.h>
#include <unistd.h>

using namespace wt;
using namespace wt::interop;

namespace {

void writeBytes(const std::string& path, const QByteArray& bytes)
{
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

// An Nsight-like export without rank information: two kernels, `k` microseconds apart.
void writeNsys(const std::string& path, int k)
{
    QFile::remove(QString::fromStdString(path));
    sqlite3* h = nullptr;
    sqlite3_open(path.c_str(), &h);
    const std::string second = std::to_string(3000 + k * 1000);
    const std::string sql =
        "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT); CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO StringIds VALUES(1, 'k');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER, demangledName INTEGER, shortName INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000, 2000, 0, 7, 1, 1, 1), (" + second + ", " + second + " + 500, 0, 7, 2, 1, 1);";
    QCOMPARE(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(h);
}

// A Kineto trace without distributedInfo: one kernel of `durUs` in a ProfilerStep.
QByteArray kinetoTrace(int durUs)
{
    return "{\"schemaVersion\": 1, \"traceEvents\": [\n"
           "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#7\", \"pid\": 5, \"tid\": 5, \"ts\": 1700000000000000, \"dur\": 100},\n"
           "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1700000000000010, \"dur\": " +
           QByteArray::number(durUs) + ", \"args\": {\"device\": 0, \"stream\": 7}}\n]}";
}

}  // namespace

class TestMultiRank : public QObject {
    Q_OBJECT

private slots:
    void oneFileTwiceRefused_data();
    void oneFileTwiceRefused();
    void twoRanklessFilesAreTwoRanks_data();
    void twoRanklessFilesAreTwoRanks();
};

void TestMultiRank::oneFileTwiceRefused_data()
{
    QTest::addColumn<QString>("format");     // nsys or kineto
    QTest::addColumn<QString>("second");     // how the second argument names the first file
    QTest::addColumn<QString>("why");        // what the error says
    for (const char* format : {"nsys", "kineto"}) {
        QTest::addRow("%s, same path", format) << QString::fromLatin1(format) << QStringLiteral("same") << QStringLiteral("is the same file as");
        QTest::addRow("%s, symlink", format) << QString::fromLatin1(format) << QStringLiteral("symlink") << QStringLiteral("is the same file as");
        QTest::addRow("%s, hard link", format) << QString::fromLatin1(format) << QStringLiteral("hardlink") << QStringLiteral("is the same file as");
        QTest::addRow("%s, copy", format) << QString::fromLatin1(format) << QStringLiteral("copy") << QStringLiteral("has the same bytes as");
        QTest::addRow("%s, ./ and the path", format) << QString::fromLatin1(format) << QStringLiteral("dotslash") << QStringLiteral("is the same file as");
    }
}

// `import X X --one-run` made 2x the kernels as "ranks 0,0,1,1".
void TestMultiRank::oneFileTwiceRefused()
{
    QFETCH(QString, format);
    QFETCH(QString, second);
    QFETCH(QString, why);
    const std::string dir = wt::test::tempPath("twice");
    QDir().mkpath(QString::fromStdString(dir));
    const std::string first = dir + (format == QLatin1String("nsys") ? "/rank.sqlite" : "/rank.json");
    if (format == QLatin1String("nsys"))
        writeNsys(first, 1);
    else
        writeBytes(first, kinetoTrace(20));
    std::string other = first;
    if (second == QLatin1String("symlink")) {
        other = dir + "/link-to-rank";
        QCOMPARE(::symlink(first.c_str(), other.c_str()), 0);
    } else if (second == QLatin1String("hardlink")) {
        other = dir + "/hard-link";
        QCOMPARE(::link(first.c_str(), other.c_str()), 0);
    } else if (second == QLatin1String("copy")) {
        other = dir + "/copy-of-rank";
        QVERIFY(QFile::copy(QString::fromStdString(first), QString::fromStdString(other)));
    } else if (second == QLatin1String("dotslash")) {
        other = dir + "/./" + first.substr(dir.size() + 1);
    }
    const std::string out = dir + "/out.wt";
    auto p = wt::test::runCli({QStringLiteral("import"), QString::fromStdString(first), QString::fromStdString(other), QStringLiteral("--one-run"),
                               QStringLiteral("-o"), QString::fromStdString(out)});
    QCOMPARE(p.exitCode, 1);
    QCOMPARE(p.out, QString());
    const QString line = p.err.trimmed();
    QVERIFY2(!line.contains(QLatin1Char('\n')), qPrintable(p.err));
    QVERIFY2(line.contains(why) && line.contains(QStringLiteral("one file given twice")), qPrintable(line));
    // Both arguments, as given: "OTHER: is the same file as FIRST: ...".
    QVERIFY2(line.contains(QString::fromStdString(other) + QStringLiteral(": ") + why + QLatin1Char(' ') + QString::fromStdString(first)),
             qPrintable(line));
    QVERIFY2(!QFile::exists(QString::fromStdString(out)), "a refused import left a file");
    // The library call says the same and writes nothing into an open file.
    Database db(dir + "/lib.wt", OpenMode::ReadWrite);
    try {
        importRanks(db, {first, other});
        QFAIL("importRanks accepted one file twice");
    } catch (const ImportError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(why), e.what());
    }
    QVERIFY(Reader(db).runs().empty());
    // Among more files too: the third argument repeats the first.
    const std::string different = dir + (format == QLatin1String("nsys") ? "/other.sqlite" : "/other.json");
    if (format == QLatin1String("nsys"))
        writeNsys(different, 2);
    else
        writeBytes(different, kinetoTrace(30));
    QVERIFY_THROWS_EXCEPTION(ImportError, importRanks(db, {first, different, other}));
    QVERIFY(Reader(db).runs().empty());
}

void TestMultiRank::twoRanklessFilesAreTwoRanks_data()
{
    QTest::addColumn<QString>("format");
    QTest::newRow("nsys") << QStringLiteral("nsys");
    QTest::newRow("kineto") << QStringLiteral("kineto");
}

// Files of the same size that differ (only in a kernel's time) are two ranks, not a copy.
void TestMultiRank::twoRanklessFilesAreTwoRanks()
{
    QFETCH(QString, format);
    const std::string dir = wt::test::tempPath("two-ranks");
    QDir().mkpath(QString::fromStdString(dir));
    const bool nsys = format == QLatin1String("nsys");
    const std::string a = dir + (nsys ? "/a.sqlite" : "/a.json"), b = dir + (nsys ? "/b.sqlite" : "/b.json");
    if (nsys) {
        writeNsys(a, 1);
        writeNsys(b, 2);
    } else {
        writeBytes(a, kinetoTrace(20));
        writeBytes(b, kinetoTrace(30));
    }
    QCOMPARE(QFileInfo(QString::fromStdString(a)).size(), QFileInfo(QString::fromStdString(b)).size());
    const std::string out = dir + "/out.wt";
    auto p = wt::test::runCli({QStringLiteral("import"), QString::fromStdString(a), QString::fromStdString(b), QStringLiteral("--one-run"),
                               QStringLiteral("-o"), QString::fromStdString(out)});
    QCOMPARE(p.exitCode, 0);
    const QString kernels = nsys ? QStringLiteral("4 kernels") : QStringLiteral("2 kernels");
    QVERIFY2(p.out.contains(kernels + QStringLiteral(", 2 devices, ranks 0,1 (from the file order")), qPrintable(p.out));
}

QTEST_GUILESS_MAIN(TestMultiRank)
#include "tst_multirankimport.moc"
