#include "comparetimelines.h"

#include "compareplot.h"

#include "app/gui/export/chartexport.h"
#include "app/gui/export/exportdialog.h"
#include "app/gui/widgets/timelinewidget.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace wt::gui {

namespace {

std::vector<int64_t> stepStarts(const RunData& run)
{
    std::vector<int64_t> starts;
    for (uint32_t i = 0; i < run.instances.size(); ++i) {
        const ScopeNodeData& n = run.nodes[run.instances.node[i]];
        if (n.level == QLatin1String("step") && n.depth == 1 && run.instances.hasSpan(i))
            starts.push_back(run.instances.gpuStart(i));
    }
    std::sort(starts.begin(), starts.end());
    return starts;
}

}  // namespace

double stepStartNs(const RunData& run, int step)
{
    std::vector<int64_t> starts = stepStarts(run);
    if (step < 0 || size_t(step) >= starts.size())
        return double(run.spanStartNs);
    return double(starts[size_t(step)]);
}

int stepCount(const RunData& run)
{
    return int(stepStarts(run).size());
}

CompareTimelines::CompareTimelines(QWidget* parent)
    : QWidget(parent), m_base(new ViewState(this)), m_other(new ViewState(this)), m_baseLoader(new RunLoader(this)),
      m_otherLoader(new RunLoader(this)), m_baseTimeline(new TimelineWidget(m_base, this)),
      m_otherTimeline(new TimelineWidget(m_other, this)), m_baseLabel(new QLabel(this)), m_otherLabel(new QLabel(this)),
      m_stepBox(new QSpinBox(this)), m_offsetBox(new QDoubleSpinBox(this))
{
    setObjectName(QStringLiteral("compareTimelines"));
    m_baseTimeline->setObjectName(QStringLiteral("baseTimeline"));
    m_otherTimeline->setObjectName(QStringLiteral("otherTimeline"));
    m_stepBox->setPrefix(QStringLiteral("align at step "));
    m_stepBox->setRange(1, 1);
    m_stepBox->setToolTip(QStringLiteral("Both timelines start this step at the same x"));
    m_offsetBox->setPrefix(QStringLiteral("OTHER offset "));
    m_offsetBox->setSuffix(QStringLiteral(" us"));
    m_offsetBox->setRange(-1e9, 1e9);
    m_offsetBox->setDecimals(3);
    m_offsetBox->setToolTip(QStringLiteral("Moves OTHER against BASE (positive: OTHER's later times under the same x)"));
    auto* tools = new QHBoxLayout;
    tools->addWidget(new QLabel(QStringLiteral("Zoom and pan either timeline: the other follows."), this), 1);
    tools->addWidget(m_stepBox);
    tools->addWidget(m_offsetBox);
    auto* split = new QSplitter(Qt::Vertical, this);
    for (auto [label, timeline] : {std::pair{m_baseLabel, m_baseTimeline}, std::pair{m_otherLabel, m_otherTimeline}}) {
        auto* box = new QWidget(split);
        auto* l = new QVBoxLayout(box);
        l->setContentsMargins(0, 0, 0, 0);
        l->setSpacing(2);
        label->setTextFormat(Qt::RichText);
        l->addWidget(label);
        l->addWidget(timeline, 1);
        split->addWidget(box);
    }
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(tools);
    layout->addWidget(split, 1);

    connect(m_baseLoader, &RunLoader::loaded, this, [this](std::shared_ptr<const RunData> run) {
        m_baseRun = std::move(run);
        onLoaded();
    });
    connect(m_otherLoader, &RunLoader::loaded, this, [this](std::shared_ptr<const RunData> run) {
        m_otherRun = std::move(run);
        onLoaded();
    });
    connect(m_baseLoader, &RunLoader::failed, this, &CompareTimelines::failed);
    connect(m_otherLoader, &RunLoader::failed, this, &CompareTimelines::failed);
    connect(m_base, &ViewState::viewRangeChanged, this, [this] { sync(m_baseTimeline, m_otherTimeline, m_shiftNs); });
    connect(m_other, &ViewState::viewRangeChanged, this, [this] { sync(m_otherTimeline, m_baseTimeline, -m_shiftNs); });
    // A scope picked in either timeline: its layer is marked in both.
    for (ViewState* s : {m_base, m_other})
        connect(s, &ViewState::selectionChanged, this, [this, s] {
            const Selection& sel = s->selection();
            const auto& run = s->run();
            if (!run || sel.kind != Selection::Scope || sel.index >= run->instances.size())
                return;
            const ScopeNodeData& n = run->nodes[run->instances.node[sel.index]];
            highlightLayer(run->layerNames[n.layerIndex]);
        });
    connect(m_stepBox, &QSpinBox::valueChanged, this, [this](int v) {
        setAlignment(v - 1, m_offsetNs);
        showStep(v - 1);
    });
    connect(m_offsetBox, &QDoubleSpinBox::valueChanged, this, [this](double us) { setAlignment(m_step, us * 1e3); });
}

CompareTimelines::~CompareTimelines()
{
    m_baseLoader->cancel();
    m_otherLoader->cancel();
}

void CompareTimelines::load(const CompareSelector& base, const CompareSelector& other)
{
    m_baseRun.reset();
    m_otherRun.reset();
    m_baseLabel->setText(QStringLiteral("BASE: loading..."));
    m_otherLabel->setText(QStringLiteral("OTHER: loading..."));
    // Both load at once, each on its own worker.
    m_baseLoader->start(base.file, base.runId);
    m_otherLoader->start(other.file, other.runId);
}

void CompareTimelines::setRuns(std::shared_ptr<const RunData> base, std::shared_ptr<const RunData> other)
{
    m_baseRun = std::move(base);
    m_otherRun = std::move(other);
    onLoaded();
}

void CompareTimelines::onLoaded()
{
    if (!m_baseRun || !m_otherRun)
        return;
    m_syncing = true;
    m_base->setRun(m_baseRun);
    m_other->setRun(m_otherRun);
    m_syncing = false;
    auto label = [](int i, const RunData& r) {
        return QStringLiteral("<span style=\"color:%1\">\u25a0</span> <b>%2</b>: %3")
            .arg(runColor(size_t(i)).name(), i == 0 ? QStringLiteral("BASE") : QStringLiteral("OTHER"), runCaption(r.run).toHtmlEscaped());
    };
    m_baseLabel->setText(label(0, *m_baseRun));
    m_otherLabel->setText(label(1, *m_otherRun));
    const int steps = std::min(stepCount(*m_baseRun), stepCount(*m_otherRun));
    m_stepBox->blockSignals(true);
    m_stepBox->setRange(1, std::max(steps, 1));
    // The second step when there are several (the first carries warm-up), as the report.
    m_step = steps >= 2 ? 1 : 0;
    m_stepBox->setValue(m_step + 1);
    m_stepBox->setEnabled(steps > 1);
    m_stepBox->blockSignals(false);
    setAlignment(m_step, m_offsetNs);
    showStep(m_step);
    if (!m_layer.isEmpty())
        highlightLayer(m_layer);
    emit ready();
}

void CompareTimelines::setAlignment(int step, double offsetNs)
{
    m_step = step;
    m_offsetNs = offsetNs;
    if (!isReady())
        return;
    m_shiftNs = stepStartNs(*m_otherRun, step) - stepStartNs(*m_baseRun, step) + offsetNs;
    updateLimits();
    sync(m_baseTimeline, m_otherTimeline, m_shiftNs);
}

void CompareTimelines::updateLimits()
{
    // Both may pan over the union of the two runs on the shared axis.
    auto span = [](const RunData& r) { return std::max<double>(double(r.spanEndNs - r.spanStartNs), 1000.0); };
    const double margin = 0.02 * std::max(span(*m_baseRun), span(*m_otherRun));
    const double lo = std::min(double(m_baseRun->spanStartNs), double(m_otherRun->spanStartNs) - m_shiftNs) - margin;
    const double hi = std::max(double(m_baseRun->spanEndNs), double(m_otherRun->spanEndNs) - m_shiftNs) + margin;
    m_syncing = true;
    m_baseTimeline->setTimeLimits(lo, hi);
    m_otherTimeline->setTimeLimits(lo + m_shiftNs, hi + m_shiftNs);
    m_syncing = false;
}

void CompareTimelines::showStep(int step)
{
    if (!isReady())
        return;
    std::vector<int64_t> starts = stepStarts(*m_baseRun);
    double t0 = stepStartNs(*m_baseRun, step);
    double t1 = size_t(step + 1) < starts.size() ? double(starts[size_t(step + 1)]) : double(m_baseRun->spanEndNs);
    // As long as the longer of the two steps, so both show whole.
    std::vector<int64_t> other = stepStarts(*m_otherRun);
    double o0 = stepStartNs(*m_otherRun, step);
    double o1 = size_t(step + 1) < other.size() ? double(other[size_t(step + 1)]) : double(m_otherRun->spanEndNs);
    const double len = std::max(t1 - t0, o1 - o0);
    m_baseTimeline->setViewRange(t0 - 0.02 * len, t0 + 1.02 * len);
}

void CompareTimelines::sync(TimelineWidget* from, TimelineWidget* to, double shift)
{
    if (m_syncing || !isReady())
        return;
    m_syncing = true;
    // Same start and ns per pixel, so a time maps to the same x in both.
    const TimeMapping& m = from->mapping();
    const double t0 = m.startNs() + shift;
    to->setViewRange(t0, t0 + m.nsPerPx() * std::max(to->mapping().widthPx(), 1));
    m_syncing = false;
}

void CompareTimelines::highlightLayer(const QString& layer)
{
    m_layer = layer;
    for (ViewState* s : {m_base, m_other}) {
        const auto& run = s->run();
        if (!run)
            continue;
        if (layer.isEmpty()) {
            s->clearGroupSelection();
            continue;
        }
        GroupSelection g;
        g.label = QStringLiteral("layer ") + layer;
        g.anyScope = false;
        g.nodes.assign(run->nodes.size(), 0);
        for (size_t i = 0; i < run->nodes.size(); ++i)
            g.nodes[i] = run->layerNames[run->nodes[i].layerIndex] == layer ? 1 : 0;
        s->setGroupSelection(std::move(g));
    }
}

QString CompareTimelines::exportInteractive()
{
    if (!isReady())
        return {};
    const ChartPainter base = timelinePainter(m_base->run(), m_base->viewStartNs(), m_base->viewEndNs());
    const ChartPainter other = timelinePainter(m_other->run(), m_other->viewStartNs(), m_other->viewEndNs());
    const ChartPainter both = [base, other](QCPPainter& painter, QSize size) {
        const QSize half(size.width(), size.height() / 2);
        base(painter, half);
        painter.save();
        painter.translate(0, half.height());
        other(painter, half);
        painter.restore();
    };
    const QString caption = QStringLiteral("BASE: %1\nOTHER: %2").arg(runCaption(m_base->run()->run), runCaption(m_other->run()->run));
    const QSize size = QSize(m_baseTimeline->width(), m_baseTimeline->height() + m_otherTimeline->height()).expandedTo(QSize(800, 600));
    return exportChartInteractive(this, both, QStringLiteral("compare-timelines.png"), size, QStringLiteral("BASE and OTHER timelines"),
                                  caption, m_base->run()->filePath);
}

}  // namespace wt::gui
