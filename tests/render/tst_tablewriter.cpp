// The one writer of analysis tables: CSV (RFC 4180, raw values, ids as header), JSON (raw
// values, valid UTF-8, parses back to the same values), text (units rendered, alignment,
// escapes, eliding, hidden columns).
#include "render/tablewriter.h"

#include "render/shortname.h"
#include "render/textelide.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <limits>

using namespace wt;

namespace {

Table sample()
{
    Table t;
    t.id = "sample";
    t.add("name", "layer", Unit::Text)
        .add("time_ns", "time", Unit::Ns)
        .add("share", "share", Unit::Share)
        .add("count", "count", Unit::Count)
        .add("mean_ns", "mean", Unit::Ns)
        .add("flop_per_s", "FLOP/s", Unit::FlopPerS)
        .add("ratio", "ratio", Unit::Ratio)
        .add("delta_pct", "delta", Unit::Percent)
        .add("path", "path", Unit::Text, false);
    auto& a = t.addRow();
    a = {std::string("softmax"), int64_t(12500), 0.25, int64_t(3), 4166.666666666667, 1.23e10, 1.5, 12.5, std::string("softmax")};
    auto& b = t.addRow();
    b = {std::string("conv, \"gated\"\nblock"), int64_t(950), 0.1, int64_t(1), 950.0, Cell{}, 0.8, -20.0, std::string("a/b")};
    t.notes.push_back("per step (mean of 3 steps)");
    return t;
}

}  // namespace

class TstTableWriter : public QObject {
    Q_OBJECT
private slots:
    void csvRawValues()
    {
        const std::string csv = render::csv(sample());
        QCOMPARE(QString::fromStdString(csv),
                 QStringLiteral("name,time_ns,share,count,mean_ns,flop_per_s,ratio,delta_pct,path\n"
                                "softmax,12500,0.25,3,4166.666666666667,1.23e+10,1.5,12.5,softmax\n"
                                "\"conv, \"\"gated\"\"\nblock\",950,0.1,1,950,,0.8,-20,a/b\n"));
    }
    void jsonRoundTrip()
    {
        const Table t = sample();
        QJsonParseError err{};
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(render::json(t)), &err).object();
        QCOMPARE(err.error, QJsonParseError::NoError);
        QCOMPARE(o[QStringLiteral("table")].toString(), QStringLiteral("sample"));
        const QJsonArray cols = o[QStringLiteral("columns")].toArray();
        QCOMPARE(cols.size(), qsizetype(t.columns.size()));
        QCOMPARE(cols[1].toObject()[QStringLiteral("unit")].toString(), QStringLiteral("ns"));
        const QJsonArray rows = o[QStringLiteral("rows")].toArray();
        QCOMPARE(rows.size(), qsizetype(2));
        QCOMPARE(rows[0].toObject()[QStringLiteral("time_ns")].toInteger(), qint64(12500));
        QCOMPARE(rows[0].toObject()[QStringLiteral("mean_ns")].toDouble(), 4166.666666666667);   // exact
        QVERIFY(rows[1].toObject()[QStringLiteral("flop_per_s")].isNull());
        QCOMPARE(rows[1].toObject()[QStringLiteral("name")].toString(), QStringLiteral("conv, \"gated\"\nblock"));
        QCOMPARE(o[QStringLiteral("notes")].toArray()[0].toString(), QStringLiteral("per step (mean of 3 steps)"));
        // Not finite: null, never "inf" (which is not JSON).
        Table inf;
        inf.add("x", "x", Unit::Number).addRow()[0] = std::numeric_limits<double>::infinity();
        QCOMPARE(QString::fromStdString(render::jsonRows(inf)), QStringLiteral("[\n {\"x\":null}\n]"));
        QCOMPARE(QString::fromStdString(render::csv(inf)), QStringLiteral("x\n\n"));
    }
    void textByUnit()
    {
        const std::string text = render::text(sample());
        const QStringList lines = QString::fromStdString(text).split(QLatin1Char('\n'));
        QCOMPARE(lines[0], QStringLiteral("per step (mean of 3 steps)"));
        // Header of titles, the hidden path column left out; units rendered; the newline escaped.
        QVERIFY2(lines[1].startsWith(QStringLiteral("layer")), qPrintable(lines[1]));
        QVERIFY(!lines[1].contains(QStringLiteral("path")));
        QVERIFY2(lines[2].contains(QStringLiteral("12.50 us")) && lines[2].contains(QStringLiteral("25.0%")) &&
                     lines[2].contains(QStringLiteral("12.3 GFLOP/s")) && lines[2].contains(QStringLiteral("1.500x")) &&
                     lines[2].contains(QStringLiteral("+12.5%")),
                 qPrintable(lines[2]));
        QVERIFY2(lines[3].startsWith(QStringLiteral("conv, \"gated\"\\nblock")), qPrintable(lines[3]));
        QVERIFY(lines[3].contains(QStringLiteral("-20.0%")));
        QCOMPARE(lines.size(), qsizetype(5));   // notes, header, 2 rows, and the final newline
        // Numbers right-aligned: every line ends its columns at the same place.
        QCOMPARE(lines[2].size(), lines[3].size());
        QCOMPARE(lines[1].size(), lines[2].size());
        // A none cell reads "-".
        QVERIFY(lines[3].contains(QStringLiteral("  -  ")));
    }
    void textElides()
    {
        Table t;
        t.add("name", "kernel", Unit::Text).add("time_ns", "time", Unit::Ns);
        t.addRow() = {std::string("void at::native::vectorized_elementwise_kernel<4, float>(int)"), int64_t(5)};
        render::TextOptions o;
        o.width = 20;
        const QStringList lines = QString::fromStdString(render::text(t, o)).split(QLatin1Char('\n'));
        // The short name (render/shortname.h), elided to the width.
        QVERIFY2(lines[1].startsWith(QString::fromStdString(fitName("void at::native::vectorized_elementwise_kernel<4, float>(int)", 20)) + QLatin1Char(' ')),
                 qPrintable(lines[1]));
    }
    void noColumnShown()
    {
        // Every column CSV/JSON-only: the text still has a line for the header and each row
        // (fuzz_tablewriter: "text lines 0" for 29 rows).
        Table t;
        t.add("id", "id", Unit::Count, false);
        t.addRow()[0] = int64_t(1);
        t.addRow()[0] = int64_t(2);
        QCOMPARE(QString::fromStdString(render::text(t)), QStringLiteral("\n\n\n"));
        QCOMPARE(QString::fromStdString(render::csv(t)), QStringLiteral("id\n1\n2\n"));
    }
    void shortestNumbers()
    {
        QCOMPARE(QString::fromStdString(render::shortestNumber(0.1)), QStringLiteral("0.1"));
        QCOMPARE(QString::fromStdString(render::shortestNumber(1.0 / 3)), QStringLiteral("0.3333333333333333"));
        QCOMPARE(QString::fromStdString(render::shortestNumber(2.5e-7)), QStringLiteral("2.5e-07"));
        QCOMPARE(std::stod(render::shortestNumber(1.0 / 3)), 1.0 / 3);
        // Integral and large: an exponent, never 20 digits a JSON reader takes for an int64
        // (fuzz_tablewriter found 36895890067321151488, which simdjson refuses).
        QCOMPARE(QString::fromStdString(render::shortestNumber(36895890067321151488.0)), QStringLiteral("3.689589006732115e+19"));
        QCOMPARE(std::stod(render::shortestNumber(36895890067321151488.0)), 36895890067321151488.0);
        QCOMPARE(QString::fromStdString(render::shortestNumber(4096.0)), QStringLiteral("4096"));
    }
};

QTEST_GUILESS_MAIN(TstTableWriter)
#include "tst_tablewriter.moc"
