// The timeline: a custom widget that paints a prepared draw list (no widget or plot item per
// kernel). Layout, folding and hit testing live in core/; this class handles input, keeps the
// TimeMapping in sync with the ViewState and paints. Navigation as in Perfetto and Tracy:
// Ctrl+wheel zooms at the cursor, the wheel scrolls rows, Shift+wheel and the horizontal wheel
// pan (as in Perfetto and Nsight Systems), drag pans, double-click zooms to a slice, W/S zoom,
// A/D pan, F fits the selection (or the run),
// Shift-drag selects a time range; Shift+wheel scrolls rows; clicking a lane label collapses
// the levels below it; Ctrl+F or / finds by name (timelinefind.cpp).
#pragma once

#include "app/gui/core/timelinelayout.h"
#include "app/gui/core/timelinesearch.h"
#include "app/gui/core/viewstate.h"

#include <QImage>
#include <QWidget>

#include <map>
#include <unordered_map>

class QScrollBar;

namespace wt::gui {

class FindBar;

class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    static constexpr int kGutterWidth = 170;   // px: row labels
    static constexpr int kRulerHeight = 26;    // px: time ruler

    explicit TimelineWidget(ViewState* state, QWidget* parent = nullptr);

    // The run's overview from its stored summary (RunLoader::overviewLoaded), drawn until the
    // ViewState's run changes to the loaded run, which keeps the window the user moved to.
    // Nothing is selectable or searched in it; a caption says the detail is loading. nullptr:
    // back to the ViewState's run (the load failed or was cancelled).
    void showOverview(std::shared_ptr<const RunData> overview);
    bool showsOverview() const { return m_run && m_run->overviewOnly; }
    // A window of a run over the memory cap (RunData::windowed, core/windowedrun.h) in place of
    // the overview or the previous window: same view, rows and folds. Drawn like the overview
    // (nothing selectable); the caption names what is summary.
    void showWindow(std::shared_ptr<const RunData> window);
    // The caption while the view is not covered by loaded detail (empty: "loading the
    // activities").
    void setDetailNote(const QString& note);
    // What the caption says now (empty: none).
    QString caption() const;
    int plotWidth() const { return plotRect().width(); }
    double viewStartNs() const { return m_mapping.startNs(); }
    double viewEndNs() const { return m_mapping.endNs(); }

    const TimeMapping& mapping() const { return m_mapping; }
    const TimelineLayout& layout() const { return m_layout; }
    const DrawList& drawList() const { return m_draw; }
    // Membership the draw list marks (null: none): the find bar's matches while it is open,
    // else the ViewState's group selection.
    const GroupMarks* groupMarks() const;

    // Find (Ctrl+F or /; timelinefind.cpp): opens the find bar, searches as it is edited
    // (every match marked), steps to the next or previous match (selected, centred and zoomed
    // to), closes (Escape: marks gone).
    void openFind();
    void findText(const QString& text, bool regex = false);   // opens the bar with the text
    void findStep(bool forward);
    void closeFind();
    FindBar* findBar() const { return m_find; }

    // Flows (timelineflows.cpp): a selected kernel's launching API call, or a selected API
    // call's kernels (by correlation id), highlighted and joined by arrows.
    struct FlowEnd {
        Row::Kind kind = Row::Track;   // Track (an activity), Api or HostLane (the CPU op around the call)
        uint32_t row = 0;              // RunData::tracks, apiRows or hostLanes index
        uint32_t index = 0;
    };
    const std::vector<FlowEnd>& flowTargets() const { return m_flowTo; }
    // The CPU op (a range on the launching thread's host lanes) around the flow's API call;
    // kind None-like (row = kNone) when the run has no host lanes or no range holds the call.
    const FlowEnd& flowOp() const { return m_flowOp; }
    // The span (ns from the run's origin) of the flow's other end: a selected kernel's launching
    // call, or a selected call's first kernel; false without a flow. Find brings it into view.
    bool flowPartnerSpan(int64_t& t0, int64_t& t1) const;
    // The arrow from that op to the call, in widget coordinates (at the call's start, from the
    // op's bottom edge to the call row's top); false when there is none or a row is folded.
    bool flowOpSegment(QPointF& from, QPointF& to) const;
    const SearchResult* search() const { return m_search ? m_search.get() : nullptr; }
    QRect plotRect() const;
    // Content y at the top of the plot (the vertical scroll position).
    int scrollY() const { return m_scrollY; }

    // For files (chart export, report): no fold arrows on the lane labels (nothing to click
    // in a picture).
    void setPrintMode(bool on) { m_printMode = on; update(); }
    void setViewRange(double t0, double t1);
    // Widens (or narrows) how far zoom and pan may go, e.g. so a timeline synchronized with a
    // longer run can show the same window; a new run resets them to its span.
    void setTimeLimits(double lo, double hi);
    void zoomBy(double factor);                // around the cursor if inside the plot, else the center
    void panByFraction(double fraction);       // of the visible span; positive = later
    void fit();                                // range selection, selected item, or everything
    // Every key and mouse gesture of the timeline, for Help > Keyboard shortcuts (one list, so
    // the help says what the handlers do).
    static QString shortcutsHelp();
    // Keys the main window forwards wherever the focus is (W/A/S/D/F, /): true when `key` is one.
    static bool isNavigationKey(int key, Qt::KeyboardModifiers modifiers);
    // Lanes deeper than depth are hidden on that device; depth <= 0 shows all.
    // depth N: lanes deeper than N hidden; 0: all shown; -1: the whole device folded to its
    // header (clicking a device header toggles it: the ranks of a job as groups).
    void setCollapsedDepth(int deviceIndex, int depth);
    int collapsedDepth(int deviceIndex) const;
    // A host process (Row::ProcessHeader) or thread (Row::ThreadHeader) folded to its header;
    // clicking the header toggles it.
    void setHostFolded(Row::Kind kind, int index, bool folded);
    bool hostFolded(Row::Kind kind, int index) const;

    // Text of the tooltip at a widget position (empty when nothing is there).
    QString toolTipAt(const QPoint& pos) const;
    // Selects what lies at a widget position (clears the selection on empty space).
    void selectAt(const QPoint& pos);

    QSize sizeHint() const override { return {1000, 500}; }

signals:
    // The view moved while an overview or window is drawn (the main window loads its detail).
    void summaryViewChanged();

public:
    QSize minimumSizeHint() const override { return {400, 150}; }

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    struct Hit {
        int row = -1;
        int item = -1;   // index into m_draw.rows[row]
    };
    Hit hitAt(const QPoint& pos) const;
    void revealSelection();         // scrolls (and pans) the selected item into view
    void onRunChanged();
    void onRunUpdated();   // a live run grew: new limits and rows, same zoom, scroll and collapsed lanes
    void relayout();
    void prepare();                 // rebuilds the draw list; never called from paintEvent
    void mappingChanged();          // after any change of m_mapping
    void updateScrollBar();
    double plotX(const QPoint& pos) const { return pos.x() - kGutterWidth; }
    QString itemName(const Row& row, const DrawItem& item) const;
    // The short form of an item's name (docs/names.md), cached per name: labels are painted per frame.
    const QString& shortItemName(const Row& row, const DrawItem& item);

    void updateFlows();                 // on a selection change
    void markFlows();                   // at the end of prepare(): the flow ends' items highlighted
    void paintFlows(QPainter& p, int top);
    int layoutRowOf(Row::Kind kind, uint32_t index) const;   // -1 when hidden
    void runSearch(const QString& text, bool regex);
    void updateFindStatus();
    void placeFindBar();

    ViewState* m_state;
    FindBar* m_find = nullptr;
    std::shared_ptr<const SearchResult> m_search;   // while the find bar is open
    FlowEnd m_flowFrom;                              // the launching call (or the selected call)
    FlowEnd m_flowOp{Row::HostLane, kNone, 0};       // the CPU op around that call (row kNone: none)
    std::vector<FlowEnd> m_flowTo;                   // the kernels it launched; empty: no flow
    std::shared_ptr<const RunData> m_run;
    TimeMapping m_mapping;
    TimelineLayout m_layout;
    DrawList m_draw;
    QImage m_strip;                              // the rows' pixels of the last frame (reused)
    std::vector<QRgb> m_lineBody, m_lineBase;    // one row's pixel line: bodies; with fold baselines
    std::vector<uint8_t> m_lineMark;             // one row's device columns holding group members
    std::map<int, int> m_collapsed;
    HostFolds m_hostFolds;
    std::unordered_map<uint64_t, QString> m_shortNames;   // (lane ? node : string id) -> short form; cleared per run
    QScrollBar* m_vbar;
    int m_scrollY = 0;

    enum class Drag { None, Pan, Range };
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    double m_pressTimeNs = 0;
    bool m_moved = false;
    bool m_printMode = false;
    QPoint m_lastPos;
    QString m_detailNote;
};

}  // namespace wt::gui
