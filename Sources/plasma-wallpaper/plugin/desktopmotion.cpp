#include "desktopmotion.h"

#include <KConfigGroup>
#include <KSharedConfig>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusVariant>
#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(PARALLAX)

using namespace Qt::StringLiterals;

namespace
{
const auto PortalService = u"org.freedesktop.portal.Desktop"_s;
const auto PortalPath = u"/org/freedesktop/portal/desktop"_s;
const auto PortalSettings = u"org.freedesktop.portal.Settings"_s;
const auto AppearanceNamespace = u"org.freedesktop.appearance"_s;
const auto ReducedMotionKey = u"reduced-motion"_s;
const auto GlobalSettingsPath = u"/KGlobalSettings"_s;
const auto GlobalSettingsInterface = u"org.kde.KGlobalSettings"_s;

/// The portal's value is a uint32 (0 no preference, 1 reduced), perhaps wrapped in variants.
bool portalValueIsReduced(QVariant value)
{
    while (value.canConvert<QDBusVariant>() && value.userType() == qMetaTypeId<QDBusVariant>()) {
        value = value.value<QDBusVariant>().variant();
    }
    bool ok = false;
    const uint number = value.toUInt(&ok);
    return ok && number == 1;
}
}

DesktopMotion::DesktopMotion(QObject *parent)
    : QObject(parent)
    , m_watcher(KConfigWatcher::create(KSharedConfig::openConfig(u"kdeglobals"_s)))
{
    connect(m_watcher.data(), &KConfigWatcher::configChanged, this, [this](const KConfigGroup &group) {
        if (group.name() == u"KDE"_s) {
            readAnimationSpeed();
        }
    });
    readAnimationSpeed();
    QDBusConnection::sessionBus().connect(QString(), GlobalSettingsPath, GlobalSettingsInterface, u"notifyChange"_s, this,
                                          SLOT(globalSettingsChanged(int, int)));

    QDBusConnection::sessionBus().connect(QString(), PortalPath, PortalSettings, u"SettingChanged"_s, this,
                                          SLOT(portalSettingChanged(QString, QString, QDBusVariant)));
    readPortal();
}

bool DesktopMotion::reduced() const
{
    return m_instantAnimations || m_portalReduced;
}

void DesktopMotion::readAnimationSpeed()
{
    const bool before = reduced();
    const KConfigGroup kde(m_watcher->config(), u"KDE"_s);
    // Plasma's slider at "Instant" writes 0; a negative or unreadable factor is not "instant".
    m_instantAnimations = kde.readEntry("AnimationDurationFactor", 1.0) == 0.0;
    qCDebug(PARALLAX, "kdeglobals [KDE] AnimationDurationFactor=%s: %s", qUtf8Printable(kde.readEntry("AnimationDurationFactor", QString())),
            m_instantAnimations ? "instant" : "animated");
    if (reduced() != before) {
        Q_EMIT reducedChanged();
    }
}

void DesktopMotion::globalSettingsChanged(int, int)
{
    // Whatever changed: kdeglobals may have been written without its KConfig notification
    // reaching us (seen with kwriteconfig6 --notify on a loaded machine). Reading again is cheap.
    m_watcher->config()->reparseConfiguration();
    readAnimationSpeed();
}

void DesktopMotion::readPortal()
{
    auto message = QDBusMessage::createMethodCall(PortalService, PortalPath, PortalSettings, u"ReadOne"_s);
    message << AppearanceNamespace << ReducedMotionKey;
    message.setAutoStartService(false);
    auto *watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(message), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *call) {
        const QDBusPendingReply<QDBusVariant> reply = *call;
        // No portal, or one without the key: this source stays off.
        if (!reply.isError()) {
            setPortalReduced(portalValueIsReduced(reply.value().variant()));
        }
        call->deleteLater();
    });
}

void DesktopMotion::portalSettingChanged(const QString &nameSpace, const QString &key, const QDBusVariant &value)
{
    if (nameSpace == AppearanceNamespace && key == ReducedMotionKey) {
        setPortalReduced(portalValueIsReduced(value.variant()));
    }
}

void DesktopMotion::setPortalReduced(bool reduced)
{
    const bool before = this->reduced();
    m_portalReduced = reduced;
    if (this->reduced() != before) {
        Q_EMIT reducedChanged();
    }
}
