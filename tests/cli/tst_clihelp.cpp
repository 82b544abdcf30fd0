// `wheretime help COMMAND`, `COMMAND --help`, the bash/zsh completions and the man page: all
// generated from the registered commands and their option tables, so every command has them.
#include "tests/support/testsupport.h"

#include <QFile>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QtTest>

using namespace wt::test;

class TestCliHelp : public QObject {
    Q_OBJECT

    QStringList m_commands;

    static QString writeTemp(const QString& name, const QString& text)
    {
        QString path = QString::fromStdString(tempPath(name.toStdString()));
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(text.toUtf8());
        return path;
    }

private slots:
    void initTestCase()
    {
        auto r = runCli({QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        // "  name        summary" lines after "commands:".
        const QString list = r.out.section(QStringLiteral("commands:\n"), 1);
        static const QRegularExpression line(QStringLiteral("^  ([a-z][a-z-]*) "), QRegularExpression::MultilineOption);
        for (auto it = line.globalMatch(list); it.hasNext();) {
            QString name = it.next().captured(1);
            if (name != QLatin1String("help"))
                m_commands << name;
        }
        // At least the commands of this tree; others register more.
        for (const char* c : {"capture", "compare", "completion", "export", "import", "runs", "stats", "workloads"})
            QVERIFY2(m_commands.contains(QLatin1String(c)), c);
    }

    void helpForEveryCommand()
    {
        for (const QString& c : m_commands) {
            auto help = runCli({QStringLiteral("help"), c});
            QVERIFY2(help.exitCode == 0, qPrintable(c));
            QVERIFY2(help.out.contains(QStringLiteral("wheretime ") + c), qPrintable(c + QStringLiteral(": ") + help.out.left(80)));
            auto dash = runCli({c, QStringLiteral("--help")});
            QCOMPARE(dash.exitCode, 0);
            QCOMPARE(dash.out, help.out);
        }
        auto r = runCli({QStringLiteral("help"), QStringLiteral("no-such-command")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("unknown command 'no-such-command'")));
    }

    void bashCompletion()
    {
        auto r = runCli({QStringLiteral("completion"), QStringLiteral("bash")});
        QCOMPARE(r.exitCode, 0);
        const QString s = r.out;
        QVERIFY(s.contains(QStringLiteral("complete -o filenames -F _wheretime wheretime")));
        for (const QString& c : m_commands) {
            QVERIFY2(s.contains(QStringLiteral("        ") + c + QStringLiteral(") opts=\"")), qPrintable(c));
            QVERIFY2(s.section(QStringLiteral("compgen -W \""), 1, 1).section(QLatin1Char('"'), 0, 0).split(QLatin1Char(' ')).contains(c),
                     qPrintable(c));
        }
        // From an option table (runs, import) and from a usage text (capture).
        QVERIFY(s.contains(QStringLiteral("runs) opts=\"--json --help\"")));
        QVERIFY(s.contains(QStringLiteral("import) opts=\"-o --output --name --one-run --step --layer-depth --categories --timing --help\"")));
        QString capture = s.section(QStringLiteral("capture) opts=\""), 1).section(QLatin1Char('"'), 0, 0);
        for (const char* o : {"--workload", "--backend", "--steps", "--no-trace", "--json", "-o"})
            QVERIFY2(capture.split(QLatin1Char(' ')).contains(QLatin1String(o)), o);
        // predict's table: --fit, and not the --ops its usage text mentions (of workloads).
        QVERIFY(s.contains(QStringLiteral("predict) opts=\"--workload --variant --preset --set --sweep --device --model --steps "
                                          "--name -o --output --fit --evaluate --hold-out --ops-by-group --json --csv --help\"")));
        // It is valid bash, and it completes: "wheretime ru<TAB>" -> runs.
        QString file = writeTemp(QStringLiteral("wheretime.bash"), s);
        auto syntax = runProgram(QStringLiteral("bash"), {QStringLiteral("-n"), file});
        QVERIFY2(syntax.exitCode == 0, qPrintable(syntax.err));
        auto complete = runProgram(QStringLiteral("bash"),
                                   {QStringLiteral("-c"), QStringLiteral("source '%1'; COMP_WORDS=(wheretime ru); COMP_CWORD=1; _wheretime; "
                                                                         "echo \"${COMPREPLY[*]}\"; COMP_WORDS=(wheretime runs --j); COMP_CWORD=2; "
                                                                         "_wheretime; echo \"${COMPREPLY[*]}\"").arg(file)});
        QCOMPARE(complete.out, QStringLiteral("runs\n--json\n"));
    }

    void zshCompletion()
    {
        auto r = runCli({QStringLiteral("completion"), QStringLiteral("zsh")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("#compdef wheretime\n")));
        for (const QString& c : m_commands) {
            QVERIFY2(r.out.contains(QStringLiteral("        '") + c + QLatin1Char(':')), qPrintable(c));
            QVERIFY2(r.out.contains(QStringLiteral("        ") + c + QStringLiteral(") _arguments")), qPrintable(c));
        }
        QVERIFY(r.out.contains(QStringLiteral("'-o[the wheretime file to add runs to]:FILE:_files'")));
        QVERIFY(r.out.contains(QStringLiteral("'--fit[fit a predictor on these runs (every FILE\\[\\:RUN\\] up to the next "
                                              "option)]:FILE\\[\\:RUN\\]...:_files'")));
        if (!QStandardPaths::findExecutable(QStringLiteral("zsh")).isEmpty()) {
            auto syntax = runProgram(QStringLiteral("zsh"), {QStringLiteral("-n"), writeTemp(QStringLiteral("_wheretime"), r.out)});
            QVERIFY2(syntax.exitCode == 0, qPrintable(syntax.err));
        }
        r = runCli({QStringLiteral("completion"), QStringLiteral("fish")});
        QCOMPARE(r.exitCode, 2);
    }

    void manPage()
    {
        auto r = runCli({QStringLiteral("help"), QStringLiteral("--man")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral(".TH WHERETIME 1 ")));
        for (const QString& c : m_commands)
            QVERIFY2(r.out.contains(QStringLiteral("\n.SS ") + c + QLatin1Char('\n')), qPrintable(c));
        QVERIFY(r.out.contains(QStringLiteral(".B \\-\\-timing\nalso print parse and write times\n")));
        QVERIFY(r.out.contains(QStringLiteral(".B \\-\\-fit \\fIFILE[:RUN]...\\fR\nfit a predictor on these runs")));
        // No line may start with a stray request character from a usage text.
        for (const QString& l : r.out.split(QLatin1Char('\n')))
            QVERIFY2(!l.startsWith(QLatin1Char('\'')), qPrintable(l));
        if (!QStandardPaths::findExecutable(QStringLiteral("groff")).isEmpty()) {
            auto g = runProgram(QStringLiteral("groff"), {QStringLiteral("-man"), QStringLiteral("-Tutf8"), QStringLiteral("-ww"),
                                                          writeTemp(QStringLiteral("wheretime.1"), r.out)});
            QCOMPARE(g.exitCode, 0);
            QVERIFY2(g.err.isEmpty(), qPrintable(g.err.left(400)));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliHelp)
#include "tst_clihelp.moc"
