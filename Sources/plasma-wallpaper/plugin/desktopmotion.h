// Whether the desktop asks for reduced motion: Plasma's animation speed set to "Instant"
// (kdeglobals [KDE] AnimationDurationFactor=0, followed live through KConfigWatcher and, read
// again, on KGlobalSettings' notifyChange, which KDE's settings modules send after writing
// kdeglobals: a KConfig notification sent by a program that exits at once can be lost) or the
// desktop portal's org.freedesktop.appearance reduced-motion (read once, then its SettingChanged
// signal; no portal is started for it).
#pragma once

#include <KConfigWatcher>
#include <QObject>

class QDBusVariant;

class DesktopMotion : public QObject
{
    Q_OBJECT

public:
    explicit DesktopMotion(QObject *parent = nullptr);

    /// Either source asks for reduced motion.
    bool reduced() const;

Q_SIGNALS:
    void reducedChanged();

private Q_SLOTS:
    void portalSettingChanged(const QString &nameSpace, const QString &key, const QDBusVariant &value);
    void globalSettingsChanged(int type, int arg);

private:
    void readAnimationSpeed();
    void readPortal();
    void setPortalReduced(bool reduced);

    KConfigWatcher::Ptr m_watcher;
    bool m_instantAnimations = false;
    bool m_portalReduced = false;
};
