#include "histogramview.h"

#include "histogramplot.h"

#include "analysis/histogramtable.h"
#include "app/gui/core/asyncjob.h"
#include "app/gui/core/tablemodel.h"
#include "render/textformat.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace wt::gui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString duration(int64_t ns)
{
    return qs(formatDuration(double(ns)));
}

bool sameGroup(const HistogramGroup& a, const HistogramGroup& b)
{
    return a.key == b.key && a.of == b.of && a.steps == b.steps && a.level == b.level;
}

}  // namespace

HistogramView::HistogramView(ViewState* state, QWidget* parent)
    : QWidget(parent), m_state(state), m_title(new QLabel(this)), m_plot(new HistogramPlot(this)), m_slowestTitle(new QLabel(this)),
      m_slowest(new QTableView(this)), m_slowestModel(new TableModel(this)), m_job(new AsyncJob(this))
{
    setObjectName(QStringLiteral("histogramView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);
    layout->addWidget(m_plot, 1);
    m_slowestTitle->setText(QStringLiteral("Slowest instances (click: go there)"));
    layout->addWidget(m_slowestTitle);
    m_slowest->setObjectName(QStringLiteral("slowestTable"));
    m_slowest->setModel(m_slowestModel);
    m_slowest->verticalHeader()->hide();
    m_slowest->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_slowest->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_slowest->setSelectionMode(QAbstractItemView::SingleSelection);
    m_slowest->setTextElideMode(Qt::ElideMiddle);
    m_slowest->setWordWrap(false);
    m_slowest->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_slowest, 1);
    m_plot->setToolTip(QString());
    connect(m_plot, &HistogramPlot::binClicked, this, &HistogramView::chooseBin);
    connect(m_slowest, &QAbstractItemView::clicked, this, [this](const QModelIndex& index) { jumpToSlowest(index.row()); });
    connect(m_state, &ViewState::selectionChanged, this, &HistogramView::refresh);
    connect(m_state, &ViewState::runChanged, this, &HistogramView::refresh);
    connect(m_state, &ViewState::runUpdated, this, [this] {
        m_hasGroup = false;   // more data: compute again
        refresh();
    });
    connect(m_state, &ViewState::groupSelectionChanged, this, [this] {
        // Another view's group selection (or a cleared one) unchooses the bin.
        if (m_plot->chosenBin() >= 0 && m_state->groupSelection().minDurationNs == 0 && m_state->groupSelection().maxDurationNs == INT64_MAX)
            m_plot->setChosenBin(-1);
    });
    refresh();
}

bool HistogramView::groupOfSelection(HistogramGroup& group, QString& label) const
{
    const RunData* run = m_state->run().get();
    const Selection& sel = m_state->selection();
    if (!run || !run->profile)
        return false;
    const ScopeTree& tree = run->profile->tree;
    group = {};
    if (sel.kind == Selection::Activity && sel.track < run->tracks.size() && sel.index < run->tracks[sel.track].size()) {
        const TrackData& t = run->tracks[sel.track];
        if (t.kind == TrackKind::Kernel) {
            group.level.groupBy = GroupBy::Kernel;
            group.key = groupKey(ActivityKind::Kernel, 0, t.nameId[sel.index], tree, run->strings(), GroupBy::Kernel);
            label = QStringLiteral("kernel ") + qs(group.key);
        } else {
            group.level.groupBy = GroupBy::Kind;
            group.key = std::string(toString(ActivityKind(t.activityKind[sel.index])));
            label = QStringLiteral("every ") + qs(group.key);
        }
        return true;
    }
    if (sel.kind == Selection::Scope && sel.index < run->instances.size()) {
        const uint32_t node = run->instances.node[sel.index];
        if (node >= tree.nodes().size())
            return false;
        const int64_t id = tree.nodes()[node].id;
        group.of = HistogramOf::Scopes;
        if (tree.isStep(id)) {
            group.steps = true;
            group.key = tree.name(id);
            label = QStringLiteral("step ") + qs(group.key);
        } else if (layerScope(tree, id) == id) {
            group.level.groupBy = GroupBy::Layer;
            group.key = tree.name(id);
            label = QStringLiteral("layer ") + qs(group.key);
        } else if (tree.level(id) == "phase" || tree.level(id) == "op") {
            group.level.groupBy = tree.level(id) == "op" ? GroupBy::Op : GroupBy::Phase;
            group.key = tree.name(id);
            label = qs(tree.level(id)) + QLatin1Char(' ') + qs(group.key);
        } else {
            group.level.groupBy = GroupBy::Scope;
            group.level.depth = tree.nodes()[node].depth;
            group.key = tree.path(id, group.level.depth);
            label = QStringLiteral("scope ") + qs(group.key);
        }
        return true;
    }
    return false;
}

void HistogramView::refresh()
{
    HistogramGroup group;
    QString label;
    if (!groupOfSelection(group, label)) {
        m_job->cancel();
        m_hasGroup = false;
        m_result.reset();
        m_title->setText(QStringLiteral("Select a kernel or a scope: the durations of its group"));
        m_plot->setBins({});
        m_slowestModel->setTable(Table{});
        emit hasGroupChanged(false);
        return;
    }
    emit hasGroupChanged(true);
    const RunData* run = m_state->run().get();
    if (m_hasGroup && m_groupRun == run && sameGroup(group, m_group)) {
        markSelected();   // another instance of the group shown: only the marked bin moves
        return;
    }
    m_group = group;
    m_hasGroup = true;
    m_groupRun = run;
    m_title->setText(label + QStringLiteral(": computing..."));
    std::shared_ptr<const RunData> shared = m_state->run();
    m_job->start<std::shared_ptr<const Result>>(
        [shared, group, label](const JobControl&) {
            auto r = std::make_shared<Result>();
            HistogramOptions o;
            o.steps = shared->stepCount;
            r->histogram = computeHistogram(shared->activities(), shared->profile->tree, shared->strings(), group, o);
            r->run = shared;
            r->label = label;
            return std::shared_ptr<const Result>(std::move(r));
        },
        [this](std::shared_ptr<const Result> r) { showResult(std::move(r)); });
}

void HistogramView::showResult(std::shared_ptr<const Result> result)
{
    m_result = std::move(result);
    const Histogram& h = m_result->histogram;
    QString text = QStringLiteral("<b>%1</b> (%2): n %3").arg(m_result->label.toHtmlEscaped(), qs(std::string(toString(h.group.of)))).arg(h.count);
    if (h.count > 0)
        text += QStringLiteral(", min %1, median %2, p95 %3, max %4").arg(duration(h.minNs), duration(h.medianNs), duration(h.p95Ns), duration(h.maxNs));
    if (h.steps > 0)
        text += QStringLiteral(", %1 per step").arg(QString::number(double(h.count) / double(h.steps), 'g', 4));
    m_title->setText(text);
    m_plot->setBins(h.bins);
    const RunData& run = *m_result->run;
    m_slowestModel->setTable(histogramSlowestTable(h, run.activities(), run.profile->tree, run.strings()));
    for (int c = 0; c < m_slowestModel->columnCount(); ++c)
        m_slowest->setColumnHidden(c, !m_slowestModel->table().columns[size_t(c)].inText);
    m_slowest->resizeColumnsToContents();
    markSelected();
    emit histogramReady();
}

void HistogramView::markSelected()
{
    if (!m_result)
        return;
    const RunData& run = *m_result->run;
    const Selection& sel = m_state->selection();
    int64_t d = -1;
    if (sel.kind == Selection::Activity && sel.track < run.tracks.size() && sel.index < run.tracks[sel.track].size())
        d = int64_t(run.tracks[sel.track].durationNs[sel.index]);
    else if (sel.kind == Selection::Scope && sel.index < run.instances.size() && run.instances.hasSpan(sel.index))
        d = run.instances.gpuEnd(sel.index) - run.instances.gpuStart(sel.index);
    m_plot->setMarkedBin(d < 0 ? -1 : m_result->histogram.binOf(d));
}

void HistogramView::chooseBin(int bin)
{
    if (!m_result || bin < 0 || size_t(bin) >= m_result->histogram.bins.size())
        return;
    if (bin == m_plot->chosenBin()) {   // the same bin again: marks off
        m_plot->setChosenBin(-1);
        m_state->clearGroupSelection();
        return;
    }
    const Histogram& h = m_result->histogram;
    const RunData& run = *m_result->run;
    const HistogramBin& b = h.bins[size_t(bin)];
    GroupSelection g;
    g.minDurationNs = b.loNs;
    g.maxDurationNs = b.hiNs;
    g.label = QStringLiteral("%1, %2 .. %3 (%4)").arg(m_result->label, duration(b.loNs), duration(b.hiNs)).arg(b.count);
    if (h.group.of == HistogramOf::Scopes) {
        g.anyScope = false;
        g.scopeSpans = true;
        g.nodes = histogramNodes(run.profile->tree, h.group);
    } else if (h.group.level.groupBy == GroupBy::Kind) {
        for (int k = 0; k <= int(ActivityKind::Memset); ++k)
            if (toString(ActivityKind(k)) == h.group.key)
                g.kinds = uint8_t(1u << k);
    } else {   // a kernel name: every name id that reads so
        g.anyName = false;
        for (const auto& [id, text] : run.strings())
            if (text == h.group.key)
                g.nameIds.push_back(id);
        std::sort(g.nameIds.begin(), g.nameIds.end());
    }
    m_state->setGroupSelection(std::move(g));
    m_plot->setChosenBin(bin);
}

void HistogramView::jumpToSlowest(int row)
{
    if (!m_result || row < 0 || row >= m_slowestModel->rowCount())
        return;
    const HistogramInstance& in = m_result->histogram.slowest[size_t(row)];
    Selection sel;
    if (in.track == kScopeInstanceTrack) {
        sel.kind = Selection::Scope;
        sel.index = in.index;
    } else {
        sel.kind = Selection::Activity;
        sel.track = in.track;
        sel.index = in.index;
    }
    m_state->setSelection(sel);
    // Centred, the instance a tenth of the view (at least 2 us shown), as the find bar steps.
    const double d = std::max(double(in.durationNs), 200.0);
    const double mid = double(in.startNs) + double(in.durationNs) / 2;
    m_state->setViewRange(mid - 5 * d, mid + 5 * d);
}

void HistogramView::waitForHistogram()
{
    for (int i = 0; i < 1000 && m_job->isRunning(); ++i) {
        m_job->wait();
        QCoreApplication::processEvents();
    }
}

}  // namespace wt::gui
