#include "comparehistogram.h"

#include "analysis/histogramtable.h"
#include "render/textformat.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>

namespace wt::gui {

namespace {

const QColor kBase(70, 120, 200);
const QColor kOther(230, 130, 30);

QString duration(double ns)
{
    return QString::fromStdString(formatDuration(ns));
}

struct Pair {
    Histogram base, other;
};

Histogram readSide(const CompareSelector& s, const HistogramGroup& group)
{
    Database db(s.file.toStdString(), OpenMode::ReadOnly);
    db.exec("BEGIN");   // one read snapshot
    Reader reader(db);
    HistogramOptions o;
    o.slowest = 0;
    Histogram h = histogramOfRun(reader, s.runId, group, o);
    db.rollback();
    return h;
}

QString sideText(const char* tag, const Histogram& h)
{
    QString t = QStringLiteral("%1 n %2").arg(QString::fromUtf8(tag)).arg(h.count);
    if (h.count > 0)
        t += QStringLiteral(", median %1, p95 %2").arg(duration(double(h.medianNs)), duration(double(h.p95Ns)));
    if (h.steps > 0)
        t += QStringLiteral(" (%1 steps)").arg(h.steps);
    return t;
}

}  // namespace

CompareHistogram::CompareHistogram(QWidget* parent) : QWidget(parent), m_job(new AsyncJob(this))
{
    setObjectName(QStringLiteral("compareHistogram"));
    setMinimumHeight(120);
    connect(m_job, &AsyncJob::failed, this, [this](const QString& message) {
        m_status = message;
        update();
    });
    clear();
}

void CompareHistogram::clear()
{
    m_job->cancel();
    m_overlay = Table{};
    m_base = m_other = Histogram{};
    m_label.clear();
    m_status = QStringLiteral("Click a row: BASE's and OTHER's durations of its group, per step");
    update();
}

bool CompareHistogram::isComputing() const
{
    return m_job->isRunning();
}

void CompareHistogram::waitForOverlay()
{
    for (int i = 0; i < 1000 && m_job->isRunning(); ++i) {
        m_job->wait();
        QCoreApplication::processEvents();
    }
}

void CompareHistogram::setGroup(const std::vector<CompareSelector>& runs, const HistogramGroup& group, const QString& label)
{
    if (runs.size() < 2) {
        clear();
        return;
    }
    m_label = label;
    m_status = QStringLiteral("%1: reading both runs...").arg(label);
    m_overlay = Table{};
    update();
    const CompareSelector base = runs[0], other = runs[1];
    m_job->start<std::shared_ptr<const Pair>>(
        [base, other, group](const JobControl& control) -> std::shared_ptr<const Pair> {
            auto p = std::make_shared<Pair>();
            p->base = readSide(base, group);
            if (control.cancelled())
                return nullptr;
            p->other = readSide(other, group);
            return p;
        },
        [this](std::shared_ptr<const Pair> p) {
            m_base = p->base;
            m_other = p->other;
            m_overlay = histogramOverlayTable(m_base, m_other);
            m_status = m_overlay.rows.empty() ? QStringLiteral("%1: no instances in either run").arg(m_label) : QString();
            update();
            emit overlayReady();
        });
}

void CompareHistogram::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const int line = fontMetrics().height();
    if (!m_status.isEmpty() || m_overlay.rows.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(6, 0, -6, 0), Qt::AlignCenter | Qt::TextWordWrap, m_status);
        return;
    }
    // Per step when both runs have steps, else counts.
    const bool perStep = m_base.steps > 0 && m_other.steps > 0;
    const size_t cb = m_overlay.column(perStep ? "base_per_step" : "base_count");
    const size_t co = m_overlay.column(perStep ? "other_per_step" : "other_count");
    double most = 0;
    for (const auto& r : m_overlay.rows)
        most = std::max({most, numberOf(r[cb]), numberOf(r[co])});
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(6, 2, width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("%1  (%2)").arg(m_label, perStep ? QStringLiteral("instances per step") : QStringLiteral("instances")));
    p.setPen(kBase);
    p.drawText(QRect(6, 2 + line, width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter, sideText("\u25a0 BASE", m_base));
    p.setPen(kOther);
    p.drawText(QRect(6, 2 + 2 * line, width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter, sideText("\u25a0 OTHER", m_other));
    const QRect a = rect().adjusted(6, 3 * line + 8, -6, -(line + 6));
    if (a.height() < 10 || most <= 0)
        return;
    const int n = int(m_overlay.rows.size());
    for (int i = 0; i < n; ++i) {
        const int x0 = a.left() + int(int64_t(a.width()) * i / n), x1 = a.left() + int(int64_t(a.width()) * (i + 1) / n);
        const int w = std::max(1, (x1 - x0 - 1) / 2);
        for (int side = 0; side < 2; ++side) {
            const double v = numberOf(m_overlay.rows[size_t(i)][side == 0 ? cb : co]);
            if (v <= 0)
                continue;
            const int h = std::max(1, int(double(a.height()) * v / most));
            p.fillRect(QRect(x0 + side * w, a.bottom() - h + 1, w, h), side == 0 ? kBase : kOther);
        }
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(a.bottomLeft() + QPoint(0, 1), a.bottomRight() + QPoint(0, 1));
    p.setPen(palette().color(QPalette::Text));
    const QRect below(a.left(), a.bottom() + 4, a.width(), line);
    p.drawText(below, Qt::AlignLeft | Qt::AlignVCenter, duration(numberOf(m_overlay.rows.front()[0])));
    p.drawText(below, Qt::AlignRight | Qt::AlignVCenter, duration(numberOf(m_overlay.rows.back()[1])));
}

}  // namespace wt::gui
