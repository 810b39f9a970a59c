#include "screenlock.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>

using namespace Qt::StringLiterals;

namespace
{
const auto ScreenSaverService = u"org.freedesktop.ScreenSaver"_s;
const auto ScreenSaverInterface = u"org.freedesktop.ScreenSaver"_s;
// KDE's ksmserver serves the interface at both paths; a signal from either counts.
const QString ScreenSaverPaths[] = {u"/ScreenSaver"_s, u"/org/freedesktop/ScreenSaver"_s};
}

ScreenLock::ScreenLock(QObject *parent)
    : QObject(parent)
{
    auto bus = QDBusConnection::sessionBus();
    for (const auto &path : ScreenSaverPaths) {
        bus.connect(QString(), path, ScreenSaverInterface, u"ActiveChanged"_s, this, SLOT(setActive(bool)));
    }
    auto message = QDBusMessage::createMethodCall(ScreenSaverService, ScreenSaverPaths[0], ScreenSaverInterface, u"GetActive"_s);
    message.setAutoStartService(false);
    auto *watcher = new QDBusPendingCallWatcher(bus.asyncCall(message), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *call) {
        const QDBusPendingReply<bool> reply = *call;
        // No screen saver service: never locked as far as this can tell.
        if (!reply.isError()) {
            setActive(reply.value());
        }
        call->deleteLater();
    });
}

void ScreenLock::setActive(bool active)
{
    if (active != m_active) {
        m_active = active;
        Q_EMIT activeChanged();
    }
}
