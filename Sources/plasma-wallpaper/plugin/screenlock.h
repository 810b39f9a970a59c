// Whether the session's screen locker is up (org.freedesktop.ScreenSaver on the session bus:
// GetActive once, then ActiveChanged). On Plasma it goes up when the session locks, and before
// the screen is turned off when Plasma's power settings lock it.
#pragma once

#include <QObject>

class ScreenLock : public QObject
{
    Q_OBJECT

public:
    explicit ScreenLock(QObject *parent = nullptr);

    bool active() const
    {
        return m_active;
    }

Q_SIGNALS:
    void activeChanged();

private Q_SLOTS:
    void setActive(bool active);

private:
    bool m_active = false;
};
