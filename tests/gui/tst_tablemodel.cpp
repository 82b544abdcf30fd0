// The GUI's adapter over analysis tables, under QAbstractItemModelTester: the text of every
// cell is the writer's (the CLI's), sorting is by raw value (none first), colours sit on the
// first column, and the CSV export is the writer's CSV byte for byte.
#include "app/gui/core/tablemodel.h"
#include "render/tablewriter.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace wt;
using wt::gui::TableModel;

class TstTableModel : public QObject {
    Q_OBJECT
private slots:
    void adaptsTheTable()
    {
        Table t;
        t.id = "breakdown";
        t.add("name", "layer", Unit::Text).add("time_ns", "time", Unit::Ns).add("share", "share", Unit::Share)
            .add("flop_per_s", "FLOP/s", Unit::FlopPerS);
        t.addRow() = {std::string("softmax"), int64_t(12500), 0.5, 2.5e9};
        t.addRow() = {std::string("conv1, gated"), int64_t(950), 0.25, Cell{}};
        t.addRow() = {std::string("embedding"), int64_t(120000), 0.25, 1e12};
        TableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTable(t, {QColor(Qt::red), QColor(), QColor(Qt::blue)});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 4);
        QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("time"));
        QCOMPARE(model.headerData(1, Qt::Horizontal, TableModel::ColumnIdRole).toString(), QStringLiteral("time_ns"));
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c)
                QCOMPARE(model.data(model.index(r, c)).toString(),
                         QString::fromStdString(render::cellText(t.columns[size_t(c)], t.rows[size_t(r)][size_t(c)])));
        QCOMPARE(model.data(model.index(0, 1)).toString(), QStringLiteral("12.50 us"));
        QCOMPARE(model.data(model.index(1, 3)).toString(), QStringLiteral("-"));
        QCOMPARE(model.data(model.index(0, 0), Qt::DecorationRole).value<QColor>(), QColor(Qt::red));
        QVERIFY(!model.data(model.index(1, 0), Qt::DecorationRole).isValid());
        QCOMPARE(model.columnOf("share"), 2);
        QCOMPARE(model.columnOf("nope"), -1);

        // Sorted by raw value: time as numbers (950 < 12500 < 120000, not as text), none first.
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(TableModel::SortRole);
        proxy.sort(1, Qt::AscendingOrder);
        QCOMPARE(proxy.data(proxy.index(0, 0)).toString(), QStringLiteral("conv1, gated"));
        QCOMPARE(proxy.data(proxy.index(2, 0)).toString(), QStringLiteral("embedding"));
        proxy.sort(3, Qt::AscendingOrder);
        QCOMPARE(proxy.data(proxy.index(0, 0)).toString(), QStringLiteral("conv1, gated"));

        // The export is the writer's CSV, all rows or some.
        QCOMPARE(model.toCsv(), QString::fromStdString(render::csv(t)));
        QCOMPARE(model.toCsv({2}), QStringLiteral("name,time_ns,share,flop_per_s\nembedding,120000,0.25,1e+12\n"));
    }
};

QTEST_GUILESS_MAIN(TstTableModel)
#include "tst_tablemodel.moc"
