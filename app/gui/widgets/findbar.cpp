#include "findbar.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace wt::gui {

FindBar::FindBar(QWidget* parent)
    : QFrame(parent), m_edit(new QLineEdit(this)), m_regex(new QCheckBox(QStringLiteral(".*"), this)), m_status(new QLabel(this))
{
    setObjectName(QStringLiteral("findBar"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_edit->setObjectName(QStringLiteral("findText"));
    m_edit->setPlaceholderText(QStringLiteral("Find kernels, scopes, API calls"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setMinimumWidth(220);
    m_edit->installEventFilter(this);
    m_regex->setToolTip(QStringLiteral("Regular expression (case-insensitive)"));
    m_status->setObjectName(QStringLiteral("findStatus"));
    m_status->setMinimumWidth(90);
    auto button = [this](const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    QToolButton* prev = button(QStringLiteral("\u25b2"), QStringLiteral("Previous match (Shift+Enter)"));
    QToolButton* next = button(QStringLiteral("\u25bc"), QStringLiteral("Next match (Enter)"));
    QToolButton* close = button(QStringLiteral("\u2715"), QStringLiteral("Close (Escape)"));
    auto* l = new QHBoxLayout(this);
    l->setContentsMargins(4, 2, 4, 2);
    l->setSpacing(4);
    l->addWidget(m_edit);
    l->addWidget(m_regex);
    l->addWidget(m_status);
    l->addWidget(prev);
    l->addWidget(next);
    l->addWidget(close);
    connect(m_edit, &QLineEdit::textChanged, this, [this] { emit searchChanged(text(), isRegex()); });
    connect(m_regex, &QCheckBox::toggled, this, [this] { emit searchChanged(text(), isRegex()); });
    connect(prev, &QToolButton::clicked, this, &FindBar::previous);
    connect(next, &QToolButton::clicked, this, &FindBar::next);
    connect(close, &QToolButton::clicked, this, &FindBar::closed);
}

QString FindBar::text() const
{
    return m_edit->text();
}

bool FindBar::isRegex() const
{
    return m_regex->isChecked();
}

void FindBar::setText(const QString& text)
{
    m_edit->setText(text);
}

void FindBar::activate()
{
    show();
    raise();
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

void FindBar::setStatus(const QString& status, bool error)
{
    m_status->setText(status);
    m_status->setStyleSheet(error ? QStringLiteral("color: #c0392b") : QString());
}

QString FindBar::status() const
{
    return m_status->text();
}

bool FindBar::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        auto* k = static_cast<QKeyEvent*>(event);
        if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
            if (k->modifiers() & Qt::ShiftModifier)
                emit previous();
            else
                emit next();
            return true;
        }
        if (k->key() == Qt::Key_Escape) {
            emit closed();
            return true;
        }
    }
    return QFrame::eventFilter(watched, event);
}

}  // namespace wt::gui
