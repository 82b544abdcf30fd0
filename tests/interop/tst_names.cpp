// Names through import and export: a name that is not valid UTF-8 (an Nsight export's
// StringIds) is repaired where it enters storage (U+FFFD, counted in the run's metadata), and
// no export carries invalid UTF-8, also for names an older version stored raw; a cut name
// fits the 4 KiB limit with its marker and survives Chrome export, re-import and CSV byte for
// byte.
#include "interop/chromeexporter.h"
#include "interop/csvexporter.h"
#include "interop/importedtrace.h"
#include "interop/importer.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/utf8.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QFileInfo>
#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace wt;
using namespace wt::interop;

namespace {

const std::string kReplacement = "\xEF\xBF\xBD";   // U+FFFD

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

// Valid UTF-8 by Qt's decoder (which replaces every ill-formed sequence): decoding and encoding
// again gives the same bytes only for valid text.
bool qtValidUtf8(const QByteArray& bytes)
{
    return QString::fromUtf8(bytes).toUtf8() == bytes;
}

void execSql(sqlite3* h, const char* sql)
{
    char* error = nullptr;
    if (sqlite3_exec(h, sql, nullptr, nullptr, &error) != SQLITE_OK) {
        QString why = QString::fromUtf8(error ? error : "?");
        sqlite3_free(error);
        QFAIL(qPrintable(why));
    }
}

// An Nsight-like export: kernel `kernel\xff\xfe_x` (StringIds) and `good` launched on thread 5
// inside the NVTX range `layer\xc3` (a sequence cut short), on a device named `GPU\xff`.
std::string nsysWithBadNames()
{
    std::string path = wt::test::tempPath("bad-names.sqlite");
    sqlite3* h = nullptr;
    sqlite3_open(path.c_str(), &h);
    execSql(h,
            "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT); CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
            "INSERT INTO StringIds VALUES(1, CAST(X'6b65726e656cfffe5f78' AS TEXT)), (2, 'good'), (3, 'cudaLaunchKernel');"
            "CREATE TABLE TARGET_INFO_GPU(id INTEGER, name TEXT); INSERT INTO TARGET_INFO_GPU VALUES(0, CAST(X'475055ff' AS TEXT));"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
            " correlationId INTEGER, demangledName INTEGER, shortName INTEGER);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000, 2000, 0, 7, 1, 1, 1), (3000, 4000, 0, 7, 2, 2, 2);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(500, 600, 5, 1, 3), (700, 800, 5, 2, 3);"
            "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT, textId INTEGER, globalTid INTEGER);"
            "INSERT INTO NVTX_EVENTS VALUES(100, 5000, 59, CAST(X'6c61796572c3' AS TEXT), NULL, 5);");
    sqlite3_close(h);
    return path;
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
    void nsightNamesNotUtf8();
    void storedNamesNotUtf8AreExportedValid();
    void repairFunctions();
    void cutNames_data();
    void cutNames();
    void cutBoundaries();
};

// The issue's case: an Nsight kernel name with bytes ff fe imports, and the Chrome export must
// be JSON (json.load, and wheretime's own import) and the CSV valid UTF-8.
void TestNames::nsightNamesNotUtf8()
{
    const std::string input = nsysWithBadNames();
    const std::string db = wt::test::tempPath("bad-names.wt");
    auto p = wt::test::runCli({QStringLiteral("import"), QString::fromStdString(input), QStringLiteral("-o"), QString::fromStdString(db)});
    QCOMPARE(p.exitCode, 0);
    QVERIFY2(p.out.startsWith(QStringLiteral("run 1: 2 kernels")), qPrintable(p.out));

    const std::string json = wt::test::tempPath("bad-names.json");
    p = wt::test::runCli({QStringLiteral("export"), QString::fromStdString(db), QStringLiteral("--format"), QStringLiteral("chrome"),
                          QStringLiteral("-o"), QString::fromStdString(json)});
    QCOMPARE(p.exitCode, 0);
    const std::string csv = wt::test::tempPath("bad-names.csv");
    p = wt::test::runCli({QStringLiteral("export"), QString::fromStdString(db), QStringLiteral("--format"), QStringLiteral("csv"),
                          QStringLiteral("-o"), QString::fromStdString(csv)});
    QCOMPARE(p.exitCode, 0);
    const std::string summary = csv.substr(0, csv.size() - 4) + "_kern_sum.csv";

    const std::string kernel = "kernel" + kReplacement + kReplacement + "_x";
    const std::string layer = "layer" + kReplacement;
    for (const std::string& file : {json, csv, summary}) {
        QByteArray bytes = readAll(file);
        QVERIFY2(!bytes.isEmpty(), file.c_str());
        QVERIFY2(qtValidUtf8(bytes), file.c_str());
        QVERIFY2(bytes.contains(QByteArray::fromStdString(kernel)), file.c_str());
    }
    QVERIFY(readAll(json).contains(QByteArray::fromStdString(layer)));
    QVERIFY(readAll(json).contains("GPU\xEF\xBF\xBD"));
    if (QFileInfo::exists(QStringLiteral("/usr/bin/python3"))) {
        auto py = wt::test::runProgram(QStringLiteral("/usr/bin/python3"),
                                       {QStringLiteral("-c"), QStringLiteral("import json,sys; d=json.load(open(sys.argv[1], encoding='utf-8')); print(len(d['traceEvents']))"),
                                        QString::fromStdString(json)});
        QVERIFY2(py.exitCode == 0, qPrintable(py.err));
    }

    // Stored repaired, counted in the metadata like cut names.
    {
        Database d(db, OpenMode::ReadOnly);
        Reader reader(d);
        RunNames n = namesOf(reader, 1);
        QCOMPARE(n.kernels, (std::multiset<std::string>{kernel, "good"}));
        QCOMPARE(n.scopes, (std::set<std::string>{layer}));
        QCOMPARE(reader.devices(1).at(0).name, std::string("GPU") + kReplacement);
        QCOMPARE(metadataValue(reader, 1, "import.names_invalid_utf8"), std::string("2"));   // the kernel and the range
    }

    // The export imports back: the same kernels and the repaired names.
    p = wt::test::runCli({QStringLiteral("import"), QString::fromStdString(json), QStringLiteral("-o"), QString::fromStdString(db)});
    QCOMPARE(p.exitCode, 0);
    QVERIFY2(p.out.startsWith(QStringLiteral("run 2: 2 kernels")), qPrintable(p.out));
    Database d(db, OpenMode::ReadOnly);
    Reader reader(d);
    RunNames back = namesOf(reader, 2);
    QCOMPARE(back.kernels, (std::multiset<std::string>{kernel, "good"}));
    QCOMPARE(back.scopes, (std::set<std::string>{layer}));
    QCOMPARE(back.calls, (std::set<std::string>{"cudaLaunchKernel"}));
    QCOMPARE(metadataValue(reader, 2, "import.names_invalid_utf8"), std::string("<absent>"));   // nothing left to repair
}

// Files written before names were repaired hold them raw: the exporters repair what they write.
void TestNames::storedNamesNotUtf8AreExportedValid()
{
    const std::string db = wt::test::tempPath("raw-names.wt");
    {
        Database d(db, OpenMode::ReadWrite);
        importTrace(d, nsysWithBadNames());
    }
    {
        sqlite3* h = nullptr;
        sqlite3_open(db.c_str(), &h);
        // As an older version stored them: `go\xffd` (kernel), the run's name and device raw.
        execSql(h, "UPDATE strings SET value = CAST(X'676fff64' AS TEXT) WHERE value = 'good';"
                   "UPDATE runs SET name = CAST(X'72756eed' AS TEXT), device = CAST(X'f0808080' AS TEXT);");
        sqlite3_close(h);
    }
    Database d(db, OpenMode::ReadOnly);
    Reader reader(d);
    QCOMPARE(namesOf(reader, 1).kernels.count(std::string("go\xff" "d")), size_t(1));
    const std::string json = exportChrome(reader, 1, "raw-names.json");
    std::ostringstream acts, summary;
    CsvExporter::writeActivities(reader, 1, acts);
    CsvExporter::writeKernelSummary(reader, 1, summary);
    const std::string good = "go" + kReplacement + "d";
    for (const QByteArray& bytes : {readAll(json), QByteArray::fromStdString(acts.str()), QByteArray::fromStdString(summary.str())}) {
        QVERIFY(qtValidUtf8(bytes));
        QVERIFY(bytes.contains(QByteArray::fromStdString(good)));
    }
    // ed (a 3-byte lead at the end): one replacement; f0 80 80 80 (an overlong form): four.
    QVERIFY(readAll(json).contains("\"name\":\"run" + QByteArray::fromStdString(kReplacement) + "\""));
    QVERIFY(readAll(json).contains("\"device\":\"" + QByteArray::fromStdString(kReplacement + kReplacement + kReplacement + kReplacement) + "\""));

    Database out(wt::test::tempPath("raw-names-back.wt"), OpenMode::ReadWrite);
    ImportResult r = importTrace(out, json);
    QCOMPARE(r.written.kernels, int64_t(2));
    QCOMPARE(namesOf(Reader(out), r.written.runId).kernels, (std::multiset<std::string>{"kernel" + kReplacement + kReplacement + "_x", good}));
}

// The repair itself: valid text unchanged, each maximal ill-formed subpart one U+FFFD
// (Unicode's recommended practice; Python's bytes.decode('utf-8', 'replace') gives the same
// counts for these cases), idempotent.
void TestNames::repairFunctions()
{
    const std::string r = kReplacement;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", ""},
        {"plain ascii", "plain ascii"},
        {"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
        {std::string("a\0b", 3), std::string("a\0b", 3)},
        {"kernel\xFF\xFE_x", "kernel" + r + r + "_x"},
        {"\xC3", r},                           // cut short at the end
        {"\xE2\x82", r},                       // a 3-byte sequence cut short is one subpart
        {"\xE2\x82x", r + "x"},
        {"\xC0\xAF", r + r},                   // overlong '/'
        {"\xE0\x80\xAF", r + r + r},           // overlong, 3 bytes
        {"\xED\xA0\x80", r + r + r},           // a surrogate (U+D800)
        {"\xF4\x90\x80\x80", r + r + r + r},   // above U+10FFFF
        {"\xF0\x9F\x98", r},
        {"\x80\xBF", r + r},                   // lone continuation bytes
        {"\xF8\x88\x80\x80\x80", r + r + r + r + r},
    };
    for (const auto& [in, expected] : cases) {
        const std::string out = utf8::repaired(in);
        QCOMPARE(out, expected);
        QCOMPARE(utf8::isValid(in), in == expected);
        QVERIFY(utf8::isValid(out));
        QCOMPARE(utf8::repaired(out), out);
        QVERIFY(qtValidUtf8(QByteArray::fromStdString(out)));
    }
    // The stored form: repaired, then cut; applying it again changes nothing.
    const std::string bad = std::string(5000, '\xFF');
    const std::string stored = storedName(bad);
    QVERIFY(stored.size() <= kMaxNameBytes);
    QVERIFY(utf8::isValid(stored));
    QCOMPARE(storedName(stored), stored);
    QVERIFY(stored.rfind(r + r, 0) == 0);
}

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
    QVERIFY(qtValidUtf8(QByteArray::fromStdString(stored)));
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
    QVERIFY(qtValidUtf8(readAll(exported)));
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
    QCOMPARE(storedName(atLimit), atLimit);
}

QTEST_GUILESS_MAIN(TestNames)
#include "tst_names.moc"
