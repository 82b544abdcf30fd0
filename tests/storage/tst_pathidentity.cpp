// storage/pathidentity: outputs that would overwrite an input are found by identity (device and
// inode), through hard links, symlinks (also dangling and chained ones), `..` and relative
// paths, and for the SQLite sidecars (-wal, -shm, -journal) before they exist.
#include "storage/pathidentity.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <unistd.h>

using namespace wt;

class TestPathIdentity : public QObject {
    Q_OBJECT
    std::string m_dir;

    std::string path(const char* name) const { return m_dir + "/" + name; }

private slots:
    void initTestCase()
    {
        const QString dir = QString::fromStdString(test::tempPath("ids"));
        QVERIFY(QDir().mkpath(dir));
        m_dir = QDir(dir).canonicalPath().toStdString();   // the temp folder itself may sit behind a link
        QFile f(QString::fromStdString(path("db.wt")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x");
        f.close();
        QVERIFY(::link(path("db.wt").c_str(), path("hard.wt").c_str()) == 0);
        QVERIFY(::symlink("db.wt", path("rel-link").c_str()) == 0);
        QVERIFY(::symlink("rel-link", path("chain").c_str()) == 0);
        QVERIFY(::symlink("db.wt-wal", path("to-wal").c_str()) == 0);   // dangling: no -wal yet
        QVERIFY(QDir().mkpath(QString::fromStdString(path("sub"))));
        QVERIFY(::symlink("..", path("sub/up").c_str()) == 0);
    }

    void canonical()
    {
        QCOMPARE(canonicalPath(path("db.wt")), path("db.wt"));
        QCOMPARE(canonicalPath(path("chain")), path("db.wt"));
        QCOMPARE(canonicalPath(path("to-wal")), path("db.wt-wal"));
        QCOMPARE(canonicalPath(path("sub/up/db.wt")), path("db.wt"));
        QCOMPARE(canonicalPath(path("sub/../missing/x")), path("missing/x"));
        QCOMPARE(canonicalPath("/"), std::string("/"));
    }

    void same()
    {
        QVERIFY(sameFile(path("db.wt"), path("hard.wt")));
        QVERIFY(sameFile(path("chain"), path("hard.wt")));
        QVERIFY(sameFile(path("to-wal"), path("db.wt-wal")));        // neither exists: by canonical path
        QVERIFY(!sameFile(path("db.wt"), path("db.wt-wal")));
        QVERIFY(!sameFile(path("missing"), path("db.wt")));
        // Relative to the working directory.
        const QString cwd = QDir::currentPath();
        QVERIFY(QDir::setCurrent(QString::fromStdString(m_dir + "/sub")));
        QVERIFY(sameFile("../db.wt", path("db.wt")));
        QVERIFY(sameFile("up/chain", path("hard.wt")));
        QVERIFY(sameFile("../new.json", path("new.json")));
        QVERIFY(QDir::setCurrent(cwd));
    }

    void overwrite()
    {
        Overwrite o = overwrittenInput({path("out.json"), path("sub/up/rel-link")}, {path("other"), path("hard.wt")});
        QVERIFY(o);
        QCOMPARE(o.output, path("sub/up/rel-link"));
        QCOMPARE(o.input, path("hard.wt"));
        QCOMPARE(o.message(), "refusing to write " + path("sub/up/rel-link") + ": it is the input " + path("hard.wt"));
        // Sidecars of an input reached through a symlink sit beside its real path.
        o = overwrittenInput({path("to-wal")}, {path("chain")});
        QVERIFY(o);
        QCOMPARE(o.file, path("db.wt-wal"));
        QVERIFY(o.message().find("part of the input") != std::string::npos);
        QVERIFY(overwrittenInput({path("db.wt-shm")}, {path("db.wt")}));
        QVERIFY(overwrittenInput({path("db.wt-journal")}, {path("db.wt")}));
        // Not an input: no match; "-" never matches.
        QVERIFY(!overwrittenInput({path("db.json"), path("db.wt.part"), "-"}, {path("db.wt"), "-"}));
    }
};

QTEST_GUILESS_MAIN(TestPathIdentity)
#include "tst_pathidentity.moc"
