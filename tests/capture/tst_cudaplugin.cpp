// The CUDA plugin seen from the CLI: without it `capture` works on the CPU, refuses
// --backend cuda in one line and falls back with a notice on --backend auto; a plugin of
// another ABI is refused in one line; commands other than capture map no CUDA library.
#include "capture/cudaplugin.h"
#include "storage/database.h"
#include "tests/support/testsupport.h"
#include "wheretime_config.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace wt;
using namespace wt::test;

class TestCudaPlugin : public QObject {
    Q_OBJECT

    QTemporaryDir m_empty;
    QString m_file;

    static QStringList tinyCapture(const QString& backend, const QString& file)
    {
        return {QStringLiteral("capture"), QStringLiteral("--workload"), QStringLiteral("gcn"), QStringLiteral("--preset"),
                QStringLiteral("tiny"), QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("--warmup"),
                QStringLiteral("0"), QStringLiteral("--backend"), backend, QStringLiteral("-o"), file};
    }
    static int lines(const QString& text) { return int(text.trimmed().split(QLatin1Char('\n')).size()); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_empty.isValid());
        m_file = QString::fromStdString(tempPath("plugin.wt"));
    }
    void cleanup() { qunsetenv("WHERETIME_PLUGIN_DIR"); qunsetenv("LD_DEBUG"); }

    void withoutPluginCapturesOnTheCpu()
    {
        qputenv("WHERETIME_PLUGIN_DIR", m_empty.path().toUtf8());
        auto r = runCli(tinyCapture(QStringLiteral("cpu"), m_file));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("on CPU")));
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    }

    void withoutPluginRefusesCuda()
    {
        qputenv("WHERETIME_PLUGIN_DIR", m_empty.path().toUtf8());
        auto r = runCli(tinyCapture(QStringLiteral("cuda"), m_file));
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(lines(r.err), 1);
        QVERIFY2(r.err.contains(QStringLiteral("--backend cuda: the CUDA plugin libwheretime-cuda.so is not installed")), qPrintable(r.err));
        QVERIFY2(r.err.contains(m_empty.path()), qPrintable(r.err));   // says where it looked
    }

    void autoFallsBackWithNotice()
    {
        // Without a driver (this machine) or without the plugin: the CPU, and one line saying so.
        std::string why;
        if (capture::cudaUsable(&why))
            QSKIP("a usable GPU and plugin: auto captures on the GPU here");
        qputenv("WHERETIME_PLUGIN_DIR", m_empty.path().toUtf8());
        auto r = runCli(tinyCapture(QStringLiteral("auto"), m_file));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("on CPU")));
        QCOMPARE(lines(r.err), 1);
        QVERIFY2(r.err.startsWith(QStringLiteral("wheretime capture: capturing on the CPU: ")), qPrintable(r.err));
        // --backend cpu asks for nothing else: no notice.
        r = runCli(tinyCapture(QStringLiteral("cpu"), m_file));
        QVERIFY(r.err.isEmpty());
    }

    void mismatchedPluginIsOneLine()
    {
        qputenv("WHERETIME_PLUGIN_DIR", QByteArray(FAKE_PLUGIN_DIR));
        auto r = runCli(tinyCapture(QStringLiteral("cuda"), m_file));
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(lines(r.err), 1);
        QString expected = QStringLiteral("has ABI %1, this wheretime %2 needs ABI %3")
                               .arg(capture::kCudaPluginAbi + 1000)
                               .arg(QStringLiteral(WHERETIME_VERSION))
                               .arg(capture::kCudaPluginAbi);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        // --version finds it without loading it.
        r = runCli({QStringLiteral("--version")});
        QVERIFY(r.out.contains(QStringLiteral("cuda plugin: " FAKE_PLUGIN_DIR "/libwheretime-cuda.so")));
    }

    void versionSaysSchemaAndPlugin()
    {
        qputenv("WHERETIME_PLUGIN_DIR", m_empty.path().toUtf8());
        auto r = runCli({QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        QStringList l = r.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(l.size(), 3);
        QCOMPARE(l[0], QStringLiteral("wheretime " WHERETIME_VERSION));
        QCOMPARE(l[1], QStringLiteral("file schema: %1").arg(wt::Database::kSchemaVersion));
        QCOMPARE(l[2], QStringLiteral("cuda plugin: not installed (CPU capture only)"));
    }

    void otherCommandsMapNoCuda()
    {
        // The dynamic loader lists every library it maps (LD_DEBUG=libs, on stderr).
        auto r = runCli(tinyCapture(QStringLiteral("cpu"), m_file));
        QCOMPARE(r.exitCode, 0);
        qputenv("LD_DEBUG", "libs");
        const QList<QStringList> commands{{QStringLiteral("--version")},
                                          {QStringLiteral("runs"), m_file},
                                          {QStringLiteral("stats"), m_file},
                                          {QStringLiteral("capture"), QStringLiteral("--help")}};
        for (const QStringList& c : commands) {
            r = runCli(c);
            QVERIFY2(r.exitCode == 0, qPrintable(c.join(QLatin1Char(' ')) + r.err.right(300)));
            for (const char* lib : {"libwheretime-cuda", "libcuda.so", "libcudart", "libcublas", "libcupti"})
                QVERIFY2(!r.err.contains(QLatin1String(lib)), qPrintable(c.join(QLatin1Char(' ')) + QStringLiteral(" maps ") + QLatin1String(lib)));
        }
        // The check sees a loaded plugin: --backend cuda does load it (when it is built).
        if (WHERETIME_HAVE_CUDA) {
            qputenv("WHERETIME_PLUGIN_DIR", QByteArray(PLUGIN_DIR));
            r = runCli(tinyCapture(QStringLiteral("cuda"), m_file));
            QVERIFY2(r.err.contains(QStringLiteral("libwheretime-cuda")), qPrintable(r.err.right(500)));
        }
    }
};

QTEST_GUILESS_MAIN(TestCudaPlugin)
#include "tst_cudaplugin.moc"
