// resources/wheretime-mime.xml, compiled by update-mime-database and read by Qt the way a
// desktop reads it once the package installed it: a wheretime file is application/x-wheretime by its name
// (*.wt) and its content rule matches what storage writes (SQLite header + application_id
// "WTME"); any other SQLite file (an Nsight Systems export) is not ours, and the .desktop entry
// claims only our type.
#include "storage/database.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>
#include <QMimeDatabase>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

using namespace wt;

class TestMimeType : public QObject {
    Q_OBJECT

    QTemporaryDir m_data;

private slots:
    void initTestCase()
    {
        // Our package file in a data dir of its own, searched before the system's.
        QVERIFY(m_data.isValid());
        QVERIFY(QDir(m_data.path()).mkpath(QStringLiteral("mime/packages")));
        QVERIFY(QFile::copy(qEnvironmentVariable("WHERETIME_SOURCE_DIR") + QStringLiteral("/resources/wheretime-mime.xml"),
                            m_data.filePath(QStringLiteral("mime/packages/wheretime.xml"))));
        // As the package's trigger does: compile the folder's mime.cache (what desktops read).
        const QString update = QStandardPaths::findExecutable(QStringLiteral("update-mime-database"));
        if (update.isEmpty())
            QSKIP("update-mime-database (shared-mime-info) is not installed");
        QCOMPARE(QProcess::execute(update, {m_data.filePath(QStringLiteral("mime"))}), 0);
        qputenv("XDG_DATA_DIRS", (m_data.path() + QStringLiteral(":/usr/local/share:/usr/share")).toUtf8());
    }

    void wheretimeFileByNameAndContent()
    {
        const std::string path = test::tempPath("profile.wt");
        { Database db(path, OpenMode::ReadWrite); }
        QMimeDatabase mime;
        QCOMPARE(mime.mimeTypeForFile(QString::fromStdString(path)).name(), QStringLiteral("application/x-wheretime"));
        // The content rule: the magic names the SQLite header and, at offset 68, the big-endian
        // application_id storage writes (checked against a real file). Qt 6.4's mimeTypeForData
        // did not apply a magic rule of an extra data dir here (not even a flat one), so the
        // rule is checked as data; desktops read it through shared-mime-info.
        QFile xml(m_data.filePath(QStringLiteral("mime/packages/wheretime.xml")));
        QVERIFY(xml.open(QIODevice::ReadOnly));
        const QByteArray rules = xml.readAll();
        QVERIFY(rules.contains(R"(<match type="string" value="SQLite format 3" offset="0">)"));
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray head = f.read(72);
        QCOMPARE(head.left(15), QByteArray("SQLite format 3"));
        const QByteArray id = head.mid(68, 4);
        QCOMPARE(uint32_t((uint8_t(id[0]) << 24) | (uint8_t(id[1]) << 16) | (uint8_t(id[2]) << 8) | uint8_t(id[3])),
                 uint32_t(Database::kApplicationId));
        QVERIFY2(rules.contains(R"(<match type="string" value=")" + id + R"(" offset="68"/>)"), id.constData());
        QVERIFY(mime.mimeTypeForName(QStringLiteral("application/x-wheretime")).inherits(QStringLiteral("application/vnd.sqlite3")));
    }

    void otherSqliteIsNotOurs()
    {
        // A SQLite file without our application_id, like an Nsight Systems export.
        const std::string path = test::tempPath("report.sqlite");
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
        QCOMPARE(sqlite3_exec(h, "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT)", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(h);
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(72).mid(68, 4) != QByteArray("WTME"));
        // By name it is no wheretime file either (the .desktop entry claims only ours).
        QMimeDatabase mime;
        QVERIFY(mime.mimeTypeForFile(QString::fromStdString(path), QMimeDatabase::MatchExtension).name() !=
                QStringLiteral("application/x-wheretime"));
        QFile desktop(qEnvironmentVariable("WHERETIME_SOURCE_DIR") + QStringLiteral("/resources/wheretime.desktop"));
        QVERIFY(desktop.open(QIODevice::ReadOnly));
        const QByteArray entry = desktop.readAll();
        QVERIFY(entry.contains("\nMimeType=application/x-wheretime;\n"));
        QVERIFY(!entry.contains("sqlite"));
    }
};

QTEST_GUILESS_MAIN(TestMimeType)
#include "tst_mimetype.moc"
