// View > Full names (app/gui/core/displayname.h): by default the views label kernels by their
// short forms (render/shortname.h); with the toggle, by the names themselves, relabelled on the
// run in view without reloading it. On the shared Kineto ResNet trace, where C++ kernel names
// carry templates and parameter lists.
#include "app/gui/breakdown/breakdownmodel.h"
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/breakdown/breakdownview.h"
#include "app/gui/core/displayname.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/widgets/mainwindow.h"
#include "interop/importer.h"
#include "render/shortname.h"
#include "storage/database.h"
#include "tests/support/testsupport.h"

#include <QAction>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTest>

using namespace wt;
using namespace wt::gui;

class TestFullNames : public QObject {
    Q_OBJECT
private slots:
    void breakdownRelabels()
    {
        WT_REQUIRE_TRACE(trace, "kineto-2021_v100_resnet50.pt.trace.json.gz");
        const std::string path = test::tempPath("fullnames.wt");
        {
            Database db(path, OpenMode::ReadWrite);
            interop::importTrace(db, trace.toStdString());
        }
        auto run = std::shared_ptr<const RunData>(loadRun(path, 1));
        QVERIFY(run);
        setFullNames(false);
        ViewState state;
        BreakdownView view(&state);
        view.resize(900, 700);
        QSignalSpy ready(&view, &BreakdownView::sourceReady);
        state.setRun(run);
        QVERIFY(ready.wait(20000));
        view.setGroupBy(GroupBy::Kernel);
        QTRY_VERIFY_WITH_TIMEOUT(view.result().level.groupBy == GroupBy::Kernel && !view.piePlot()->slices().empty(), 20000);
        int shortened = 0;
        for (const PieSlice& s : view.piePlot()->slices())
            if (!s.other && s.label != QString::fromStdString(s.name)) {
                ++shortened;
                // The short form, or as much more as keeps it apart from another kernel's.
                QVERIFY2(s.label.startsWith(QString::fromStdString(shortName(s.name))) && s.label.size() < int(s.name.size()),
                         qPrintable(s.label));
            }
        QVERIFY(shortened > 0);

        ready.clear();
        setFullNames(true);
        state.updateRun(run);
        QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() || [&] {
            for (const PieSlice& s : view.piePlot()->slices())
                if (!s.other && s.label != QString::fromStdString(s.name))
                    return false;
            return true;
        }(), 20000);
        QVERIFY(view.result().level.groupBy == GroupBy::Kernel);   // the view kept its grouping
        for (const PieSlice& s : view.piePlot()->slices())
            if (!s.other)
                QCOMPARE(s.label, QString::fromStdString(s.name));
        // The table's name column too: its display text is the name's full text.
        const QAbstractItemModel* m = view.model();
        QVERIFY(m->rowCount() > 0);
        for (int r = 0; r < m->rowCount(); ++r) {
            const QModelIndex i = m->index(r, BreakdownModel::NameColumn);
            QCOMPARE(m->data(i, Qt::DisplayRole).toString(), m->data(i, Qt::ToolTipRole).toString());
        }
        setFullNames(false);
    }

    void menuTogglesTheSetting()
    {
        setFullNames(false);
        MainWindow window(false);
        QAction* action = nullptr;
        for (QAction* menu : window.menuBar()->actions())
            if (menu->menu())
                for (QAction* a : menu->menu()->actions())
                    if (a->text().remove(QLatin1Char('&')) == QStringLiteral("Full names"))
                        action = a;
        QVERIFY(action);
        QVERIFY(action->isCheckable() && !action->isChecked());
        action->trigger();
        QVERIFY(fullNames());
        QVERIFY(action->isChecked());
        window.showFullNames(false);
        QVERIFY(!fullNames());
        QVERIFY(!action->isChecked());
    }
};

QTEST_MAIN(TestFullNames)
#include "tst_fullnames.moc"
