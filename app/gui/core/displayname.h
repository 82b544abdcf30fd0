// Names as the GUI shows them: render/shortname.h's short forms and distinct labels as
// QStrings, and the pixel-width elision of the timeline's item labels (the short form; a
// memcpy's kind when nothing else fits). Full names stay in tooltips and the details.
#pragma once

#include <QFontMetrics>
#include <QString>
#include <QStringList>

namespace wt::gui {

// View > Full names: every view shows names in full (elided only where they do not fit) in
// place of their short forms. One setting for the whole application; views re-read it when the
// run is updated (MainWindow does that on the toggle).
void setFullNames(bool full);
bool fullNames();

// The short form of `name` (its full form with View > Full names).
QString displayName(const QString& name);
// The names of one view labelled distinctly (no width limit: Qt elides further); with View >
// Full names, the names themselves.
QStringList distinctNames(const QStringList& names);
// The label of a name in `px` pixels: its short form, a memcpy's kind, or the short form elided
// in the middle.
QString elideName(const QFontMetrics& fm, const QString& name, int px);
// The same from a name's short form already made (displayName), for labels painted per frame.
QString elideShort(const QFontMetrics& fm, const QString& shortForm, int px);

}  // namespace wt::gui
