// `wheretime upgrade FILE`: an older (schema-5) file gets its scope lanes, one line per run on
// stderr and one per file on stdout; commands that do not need them (`runs`, `stats`) compute
// none and print nothing extra; a second upgrade has nothing to do; a missing FILE is one line,
// exit 1, and no file is created.
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/tabledump.h"
#include "tests/support/synthrun.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QTest>

#include <sqlite3.h>

using namespace wt;
using namespace wt::test;

namespace {

using wt::test::laneSets;

}  // namespace

class TestCliUpgrade : public QObject {
    Q_OBJECT

private slots:
    void upgradeComputesWhatOtherCommandsDoNot()
    {
        const std::string path = tempPath("cli-upgrade-v5.wt");
        {
            Database db(path, OpenMode::ReadWrite);
            for (int i = 0; i < 2; ++i) {
                Writer w(db);
                synth::Options o;
                o.kernels = 20000;
                o.seed = uint64_t(i + 1);
                synth::generate(w, o);
            }
        }
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
        QCOMPARE(sqlite3_exec(h, "DROP TABLE scope_lane_chunks; DROP TABLE scope_lanes; DROP TABLE scope_lane_sets; PRAGMA user_version=5;",
                              nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(h);
        const QString file = QString::fromStdString(path);

        for (const QStringList& args : {QStringList{QStringLiteral("runs"), file}, QStringList{QStringLiteral("stats"), file}}) {
            const ProcessResult r = runCli(args);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QCOMPARE(r.err, QString());
            QCOMPARE(laneSets(path), int64_t(0));   // migrated, nothing computed
        }

        const ProcessResult up = runCli({QStringLiteral("upgrade"), file});
        QVERIFY2(up.exitCode == 0, qPrintable(up.err));
        QCOMPARE(up.out, file + QStringLiteral(": schema 6, 2 runs given their summary and scope lanes\n"));
        QCOMPARE(up.err.count(QStringLiteral(": computing its scope lanes...")), 2);
        QVERIFY(up.err.contains(QStringLiteral("run 1 (1 of 2, 20")));
        QCOMPARE(up.err.count(QStringLiteral(": stored in ")), 2);
        QCOMPARE(laneSets(path), int64_t(2));

        const ProcessResult again = runCli({QStringLiteral("upgrade"), file});
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(again.out, file + QStringLiteral(": schema 6, every finished run has its summary and scope lanes\n"));
        QCOMPARE(again.err, QString());
    }

    void missingFileIsAnError()
    {
        const QString missing = QString::fromStdString(tempPath("cli-upgrade-missing.wt"));
        const ProcessResult r = runCli({QStringLiteral("upgrade"), missing});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no such file")), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY(!QFile::exists(missing));
    }
};

QTEST_GUILESS_MAIN(TestCliUpgrade)
#include "tst_cliupgrade.moc"
