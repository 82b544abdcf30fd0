// Names through import and export: a cut name fits the 4 KiB limit with its marker and
// survives Chrome export, re-import and CSV byte for byte.
#include "interop/chromeexporter.h"
#include "interop/csvexporter.h"
#include "interop/importedtrace.h"
#include "interop/importer.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace wt;
using namespace wt::interop;

namespace {

QByteArray readAll(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

void writeBytes(const std::string& path, const QByteArray& bytes)
{
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

std::string metadataValue(const Reader& reader, int64_t runId, const std::string& key)
{
    for (const auto& [k, v] : reader.metadata(runId))
        if (k == key)
            return v;
    return "<absent>";
}

// Names of a run: kernels, API calls, scopes.
struct RunNames {
    std::multiset<std::string> kernels;
    std::set<std::string> calls, scopes;
};

RunNames namesOf(const Reader& reader, int64_t runId)
{
    RunNames n;
    reader.forEachActivity(runId, [&](const Activity& a) {
        n.kernels.insert(reader.string(a.nameId));
        return true;
    });
    for (const auto& c : reader.apiCalls(runId))
        n.calls.insert(reader.string(c.nameId));
    for (const auto& s : reader.scopes(runId))
        n.scopes.insert(reader.string(s.nameId));
    return n;
}

std::string exportChrome(const Reader& reader, int64_t runId, const char* fileName)
{
    std::string path = wt::test::tempPath(fileName);
    std::ofstream f(path, std::ios::binary);
    ChromeExporter::write(reader, runId, f);
    return path;
}

// A name of `bytes` bytes: `offset` ASCII letters, then `unit` (one code point) repeated, then
// ASCII to the exact length; so a cut anywhere in the middle falls inside or beside `unit`.
std::string nameOf(size_t bytes, const std::string& unit, size_t offset)
{
    std::string s(std::min(offset, bytes), 'a');
    while (s.size() + unit.size() <= bytes)
        s += unit;
    s.append(bytes - s.size(), 'z');
    return s;
}

const char* kMarker = "\xE2\x80\xA6[cut ";   // "…[cut "

// Bytes of the UTF-8 character that starts with `lead` (valid text).
size_t charBytes(char lead)
{
    const auto b = static_cast<unsigned char>(lead);
    return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

}  // namespace

class TestNames : public QObject {
    Q_OBJECT

private slots:
    void cutNames_data();
    void cutNames();
    void cutBoundaries();
};

void TestNames::cutNames_data()
{
    QTest::addColumn<qulonglong>("bytes");
    QTest::addColumn<QByteArray>("unit");
    QTest::addColumn<qulonglong>("offset");
    const QByteArray euro = "\xE2\x82\xAC", emoji = "\xF0\x9F\x98\x80", eAcute = "\xC3\xA9";
    for (qulonglong bytes : {4095ULL, 4096ULL, 4097ULL, 10240ULL, 1048576ULL})
        for (const QByteArray& unit : {euro, emoji, eAcute})
            for (qulonglong offset : {0ULL, 1ULL, 2ULL, 3ULL})
                QTest::addRow("%llu bytes, %d-byte characters from %llu", bytes, int(unit.size()), offset) << bytes << unit << offset;
}

// A cut name is at most 4096 bytes, marker included, never splits a character, says how many
// bytes it dropped, and is not cut again: export + import and CSV keep it byte for byte.
void TestNames::cutNames()
{
    QFETCH(qulonglong, bytes);
    QFETCH(QByteArray, unit);
    QFETCH(qulonglong, offset);
    const std::string name = nameOf(size_t(bytes), unit.toStdString(), size_t(offset));
    QCOMPARE(name.size(), size_t(bytes));

    // One kernel, its launch and a range of that name.
    const QByteArray n = QByteArray::fromStdString(name);
    QByteArray json = R"({"traceEvents":[)"
                      R"({"ph":"X","cat":"cpu_op","name":")" + n + R"(","pid":1,"tid":1,"ts":0,"dur":50},)"
                      R"({"ph":"X","cat":"cuda_runtime","name":")" + n + R"(","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":9}},)"
                      R"({"ph":"X","cat":"kernel","name":")" + n + R"(","pid":0,"tid":7,"ts":10,"dur":2,"args":{"correlation":9}}]})";
    const std::string input = wt::test::tempPath("cut.json");
    writeBytes(input, json);
    Database db(wt::test::tempPath("cut.wt"), OpenMode::ReadWrite);
    ImportResult r = importTrace(db, input);
    Reader reader(db);
    RunNames first = namesOf(reader, r.written.runId);
    QCOMPARE(first.kernels.size(), size_t(1));
    const std::string stored = *first.kernels.begin();
    QCOMPARE(first.calls, (std::set<std::string>{stored}));
    QCOMPARE(first.scopes, (std::set<std::string>{stored}));

    QVERIFY2(stored.size() <= kMaxNameBytes, qPrintable(QString::number(stored.size())));
    QCOMPARE(QString::fromUtf8(QByteArray::fromStdString(stored)).toUtf8(), QByteArray::fromStdString(stored));
    if (name.size() <= kMaxNameBytes) {
        QCOMPARE(stored, name);
        QCOMPARE(metadataValue(reader, r.written.runId, "import.names_cut"), std::string("<absent>"));
    } else {
        // kept + "…[cut N bytes]" with N = the bytes of `name` not kept; nothing more could be kept.
        size_t marker = stored.rfind(kMarker);
        QVERIFY(marker != std::string::npos);
        const std::string kept = stored.substr(0, marker);
        QCOMPARE(stored.substr(marker), kMarker + std::to_string(name.size() - kept.size()) + " bytes]");
        QCOMPARE(name.compare(0, kept.size(), kept), 0);
        // Maximal: the next character and the marker for the fewer bytes dropped would not fit.
        const size_t next = charBytes(name[kept.size()]);
        const size_t dropped = name.size() - kept.size();
        QVERIFY2(kept.size() + next + std::strlen(kMarker) + std::to_string(dropped - next).size() + std::strlen(" bytes]") > kMaxNameBytes,
                 "the cut kept less than it could");
        QCOMPARE(metadataValue(reader, r.written.runId, "import.names_cut"), std::string("1"));
    }
    // Cut twice = cut once.
    QCOMPARE(cutName(stored), stored);
    QCOMPARE(cutName(cutName(name)), cutName(name));
    QCOMPARE(cutName(name), stored);

    // Chrome export and re-import: byte for byte, and not counted as cut again.
    const std::string exported = exportChrome(reader, r.written.runId, "cut-export.json");
    QVERIFY(readAll(exported).contains(QByteArray::fromStdString(stored)));
        ImportResult back = importTrace(db, exported);
    Reader again(db);
    RunNames second = namesOf(again, back.written.runId);
    QCOMPARE(second.kernels, first.kernels);
    QCOMPARE(second.calls, first.calls);
    QCOMPARE(second.scopes, first.scopes);
    QCOMPARE(metadataValue(again, back.written.runId, "import.names_cut"), std::string("<absent>"));

    // CSV: the name as it is stored (it holds no comma or quote, so the field is the name).
    std::ostringstream acts, summary;
    CsvExporter::writeActivities(again, back.written.runId, acts);
    CsvExporter::writeKernelSummary(again, back.written.runId, summary);
    QVERIFY(acts.str().find(",kernel,0,7," + stored + ",") != std::string::npos);
    QVERIFY(summary.str().size() > stored.size() + 1);
    QCOMPARE(summary.str().substr(summary.str().size() - stored.size() - 1), stored + "\n");
}

// Where exactly the cut falls: the marker's digit count is part of the budget.
void TestNames::cutBoundaries()
{
    // 4097 ASCII bytes: "…[cut 18 bytes]" is 17 bytes, so 4079 are kept, 4096 in all.
    QCOMPARE(cutName(std::string(kMaxNameBytes + 1, 'a')), std::string(4079, 'a') + "\xE2\x80\xA6[cut 18 bytes]");
    QCOMPARE(cutName(std::string(kMaxNameBytes, 'a')), std::string(kMaxNameBytes, 'a'));
    // 1 MB: 7 digits, 4074 kept.
    QCOMPARE(cutName(std::string(1 << 20, 'a')), std::string(4074, 'a') + "\xE2\x80\xA6[cut 1044502 bytes]");
    // A euro sign over byte 4079 of the 4097-byte case: the cut backs up to its first byte.
    std::string s(kMaxNameBytes + 1, 'a');
    s.replace(4078, 3, "\xE2\x82\xAC");
    QCOMPARE(cutName(s), std::string(4078, 'a') + "\xE2\x80\xA6[cut 19 bytes]");
    // A name exactly at the limit that already ends in a marker is kept as it is.
    std::string atLimit = std::string(4079, 'b') + "\xE2\x80\xA6[cut 18 bytes]";
    QCOMPARE(atLimit.size(), kMaxNameBytes);
    QCOMPARE(cutName(atLimit), atLimit);
}

QTEST_GUILESS_MAIN(TestNames)
#include "tst_names.moc"
