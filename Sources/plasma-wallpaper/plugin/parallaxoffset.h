// ParallaxOffset: parallaxd's viewer offset for QML, read through libparallax on the GUI thread
// (its one socket watched with a QSocketNotifier, its reconnect back-off with a single-shot
// QTimer; no threads). x and y are the newest offset predicted for the frame it will be shown in
// (about one refresh after it arrived, from its vx and vy), as the GNOME extension does; (0, 0)
// while there is no live offset to follow: no daemon, the daemon's reduce motion or no sensor,
// the desktop's reduce motion, or while paused.
//
// The subscription is paused (px_client_pause: the daemon may close its sensors) while `active`
// is false, while the screen locker is up (except inside the locker's own greeter, where this
// picture is what the user sees), and under the desktop's reduce motion; it resumes on the same
// connection when all that ends.
#pragma once

#include <QObject>
#include <QQmlEngine>
#include <QQmlParserStatus>
#include <QSocketNotifier>
#include <QTimer>

#include <memory>

#include <parallax.h>

class DesktopMotion;
class ScreenLock;

class ParallaxOffset : public QObject, public QQmlParserStatus
{
    Q_OBJECT
    QML_ELEMENT
    Q_INTERFACES(QQmlParserStatus)

    /// The daemon's socket; empty: libparallax's default ($PARALLAXD_SOCKET when set and not
    /// empty, else /run/parallaxd/parallaxd.sock).
    Q_PROPERTY(QString socketPath READ socketPath WRITE setSocketPath NOTIFY socketPathChanged)
    /// Frames per second asked of the daemon (1 to 1000; other values count as 60).
    Q_PROPERTY(int rate READ rate WRITE setRate NOTIFY rateChanged)
    /// Whether the picture can be seen; false pauses the subscription.
    Q_PROPERTY(bool active READ active WRITE setActive NOTIFY activeChanged)
    /// "system" (the desktop's setting), "on" (always still) or "off" (ignore the desktop's).
    Q_PROPERTY(QString reduceMotion READ reduceMotion WRITE setReduceMotion NOTIFY reduceMotionChanged)

    Q_PROPERTY(qreal x READ x NOTIFY offsetChanged)
    Q_PROPERTY(qreal y READ y NOTIFY offsetChanged)
    /// The daemon answered the subscription (stays true while paused on a live connection).
    Q_PROPERTY(bool connected READ connected NOTIFY stateChanged)
    Q_PROPERTY(bool daemonReduceMotion READ daemonReduceMotion NOTIFY stateChanged)
    /// Plasma's animation speed at "Instant" or the portal's reduced-motion.
    Q_PROPERTY(bool desktopReducesMotion READ desktopReducesMotion NOTIFY desktopReducesMotionChanged)
    /// The session's screen locker is up.
    Q_PROPERTY(bool screenLocked READ screenLocked NOTIFY screenLockedChanged)
    /// Running inside the screen locker's greeter (kscreenlocker_greet).
    Q_PROPERTY(bool inLockScreen READ inLockScreen CONSTANT)
    /// Frames are wanted from the daemon now (not paused).
    Q_PROPERTY(bool subscribed READ subscribed NOTIFY subscribedChanged)
    /// Why the picture holds still, in a few words; empty while it follows the offset.
    Q_PROPERTY(QString stillReason READ stillReason NOTIFY offsetChanged)
    /// libparallax's sentence for why it is not subscribed; empty while it is.
    Q_PROPERTY(QString error READ error NOTIFY stateChanged)

public:
    explicit ParallaxOffset(QObject *parent = nullptr);
    ~ParallaxOffset() override;

    void classBegin() override;
    void componentComplete() override;

    QString socketPath() const;
    void setSocketPath(const QString &path);
    int rate() const;
    void setRate(int rate);
    bool active() const;
    void setActive(bool active);
    QString reduceMotion() const;
    void setReduceMotion(const QString &mode);

    qreal x() const;
    qreal y() const;
    bool connected() const;
    bool daemonReduceMotion() const;
    bool desktopReducesMotion() const;
    bool screenLocked() const;
    bool inLockScreen() const;
    bool subscribed() const;
    QString stillReason() const;
    QString error() const;

Q_SIGNALS:
    void socketPathChanged();
    void rateChanged();
    void activeChanged();
    void reduceMotionChanged();
    void offsetChanged();
    void stateChanged();
    void desktopReducesMotionChanged();
    void screenLockedChanged();
    void subscribedChanged();

private:
    struct ClientDeleter {
        void operator()(px_client *client) const
        {
            px_client_free(client);
        }
    };

    void createClient();
    void dispatch();
    void watchClient();
    void updateSubscription();
    void updateOffset();
    bool wanted() const;
    QString computeStillReason() const;

    QString m_socketPath;
    int m_rate = 60;
    bool m_active = true;
    QString m_reduceMotion = QStringLiteral("system");
    bool m_complete = false;

    std::unique_ptr<px_client, ClientDeleter> m_client;
    std::unique_ptr<QSocketNotifier> m_notifier;
    int m_watchedFd = -1;
    QTimer m_timer;

    DesktopMotion *m_desktopMotion = nullptr;
    ScreenLock *m_screenLock = nullptr;
    const bool m_inLockScreen;

    px_state m_state{};
    bool m_subscribed = false;
    qreal m_x = 0.0;
    qreal m_y = 0.0;
    QString m_stillReason;
    QString m_error;
};
