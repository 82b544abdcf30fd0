// Puts variants and sweeps into the main window:
//   File > Compare variants (Ctrl+Shift+V, also in the run browser's context menu): the runs of
//     the current run's file with the same workload, preset and sizes that differ only in the
//     variant (analysis's selectVariantRuns, the newest run per variant) are selected in the run
//     browser and shown in a variants window.
//   File > Show sweep scaling (Ctrl+Shift+S, context menu, enabled for runs with a sweep tag):
//     the scaling window of that run's sweep; clicking a point loads that run in the main window.
#pragma once

#include "app/gui/compare/compareloader.h"

#include <QObject>
#include <QPointer>

class QAction;

namespace wt::gui {

class MainWindow;
class ScalingView;
class VariantsView;

class VariantsActions : public QObject {
    Q_OBJECT
public:
    static VariantsActions* install(MainWindow* window);

    // The runs to show as variants of run `runId` of `file` (the anchor among them), by id;
    // throws StorageError when the file cannot be read.
    static std::vector<int64_t> variantRunsOf(const QString& file, int64_t runId, const std::string& setting = "variant");
    // The sweep id of a run, empty when it is not part of a sweep.
    static QString sweepIdOf(const QString& file, int64_t runId);

    // Compare variants of the browser's current run (else the loaded run); false with a status
    // bar message when there are fewer than two.
    bool compareVariants();
    bool compareVariantsOf(const QString& file, int64_t runId, const std::string& setting = "variant");
    // Shows these runs in the variants window (any runs: the view refuses what differs twice).
    void showVariants(std::vector<CompareSelector> runs);
    // The scaling window of sweep `sweepId` of `file` (empty: the newest sweep).
    void showSweep(const QString& file, const QString& sweepId);
    bool showSweepOfCurrent();

    VariantsView* variantsView() const;
    ScalingView* scalingView() const;
    QAction* variantsAction() const { return m_variantsAction; }
    QAction* sweepAction() const { return m_sweepAction; }

private:
    explicit VariantsActions(MainWindow* window);
    std::pair<QString, int64_t> anchor() const;

    MainWindow* m_window;
    QAction* m_variantsAction;
    QAction* m_sweepAction;
    QPointer<VariantsView> m_variants;
    QPointer<ScalingView> m_scaling;
};

}  // namespace wt::gui
