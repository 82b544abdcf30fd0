// The timeline's find bar (Ctrl+F or /): a text field matched as a substring
// (case-insensitive) or, with ".*" checked, as a regular expression over kernel, scope and API
// call names; the count of matches ("3 of 120"), previous and next (Shift+Enter, Enter) and
// close (Escape). It only edits and reports; TimelineWidget searches (core/timelinesearch.h)
// and steps.
#pragma once

#include <QFrame>

class QCheckBox;
class QLabel;
class QLineEdit;

namespace wt::gui {

class FindBar : public QFrame {
    Q_OBJECT
public:
    explicit FindBar(QWidget* parent = nullptr);

    QString text() const;
    bool isRegex() const;
    void setText(const QString& text);
    // Takes the focus with the text selected, so typing replaces it.
    void activate();
    // "3 of 120", "120 matches", "no matches", or a bad expression's reason (in red).
    void setStatus(const QString& status, bool error = false);
    QString status() const;
    QLineEdit* lineEdit() const { return m_edit; }

signals:
    void searchChanged(const QString& text, bool regex);
    void next();
    void previous();
    void closed();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QLineEdit* m_edit;
    QCheckBox* m_regex;
    QLabel* m_status;
};

}  // namespace wt::gui
