#include "parallaxoffset.h"

#include "desktopmotion.h"
#include "screenlock.h"

#include <QCoreApplication>
#include <QFile>
#include <QGuiApplication>
#include <QLoggingCategory>
#include <QScreen>

#include <cerrno>
#include <cstring>
#include <ctime>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(PARALLAX, "org.parallaxd.plasma", QtInfoMsg)

namespace
{
constexpr int DefaultRate = 60;
constexpr int MaxRate = 1000;
// Used when no screen says its refresh rate (Hz).
constexpr qreal DefaultRefreshHz = 60.0;

int64_t monotonicNs()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

/// When the frame being prepared will be shown: about one refresh from now.
int64_t nextFrameNs()
{
    qreal hz = DefaultRefreshHz;
    if (auto *app = qobject_cast<QGuiApplication *>(QCoreApplication::instance())) {
        if (const QScreen *screen = app->primaryScreen(); screen && screen->refreshRate() >= 1.0) {
            hz = screen->refreshRate();
        }
    }
    return monotonicNs() + int64_t(1e9 / hz);
}

void logFromLibrary(void *, int level, const char *message)
{
    switch (level) {
    case PX_LOG_ERROR:
        qCWarning(PARALLAX, "%s", message);
        break;
    case PX_LOG_WARNING:
        qCInfo(PARALLAX, "%s", message);
        break;
    default:
        qCDebug(PARALLAX, "%s", message);
        break;
    }
}
}

ParallaxOffset::ParallaxOffset(QObject *parent)
    : QObject(parent)
    , m_inLockScreen(QCoreApplication::applicationName() == u"kscreenlocker_greet"_s)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ParallaxOffset::dispatch);
    m_stillReason = computeStillReason();
}

ParallaxOffset::~ParallaxOffset() = default;

void ParallaxOffset::classBegin()
{
}

void ParallaxOffset::componentComplete()
{
    m_complete = true;
    m_desktopMotion = new DesktopMotion(this);
    connect(m_desktopMotion, &DesktopMotion::reducedChanged, this, [this] {
        Q_EMIT desktopReducesMotionChanged();
        updateSubscription();
    });
    m_screenLock = new ScreenLock(this);
    connect(m_screenLock, &ScreenLock::activeChanged, this, [this] {
        Q_EMIT screenLockedChanged();
        updateSubscription();
    });
    createClient();
}

QString ParallaxOffset::socketPath() const
{
    return m_socketPath;
}

void ParallaxOffset::setSocketPath(const QString &path)
{
    if (path == m_socketPath) {
        return;
    }
    m_socketPath = path;
    Q_EMIT socketPathChanged();
    createClient();
}

int ParallaxOffset::rate() const
{
    return m_rate;
}

void ParallaxOffset::setRate(int rate)
{
    const int valid = (rate >= 1 && rate <= MaxRate) ? rate : DefaultRate;
    if (rate != valid) {
        qCWarning(PARALLAX, "Rate %d is not a number of frames per second from 1 to %d: using %d", rate, MaxRate, DefaultRate);
    }
    if (valid == m_rate) {
        return;
    }
    m_rate = valid;
    Q_EMIT rateChanged();
    createClient();
}

bool ParallaxOffset::active() const
{
    return m_active;
}

void ParallaxOffset::setActive(bool active)
{
    if (active == m_active) {
        return;
    }
    m_active = active;
    Q_EMIT activeChanged();
    updateSubscription();
}

QString ParallaxOffset::reduceMotion() const
{
    return m_reduceMotion;
}

void ParallaxOffset::setReduceMotion(const QString &mode)
{
    QString valid = mode;
    if (mode != u"system"_s && mode != u"on"_s && mode != u"off"_s) {
        qCWarning(PARALLAX, "ReduceMotion \"%s\" is not system, on or off: using system", qUtf8Printable(mode));
        valid = u"system"_s;
    }
    if (valid == m_reduceMotion) {
        return;
    }
    m_reduceMotion = valid;
    Q_EMIT reduceMotionChanged();
    updateSubscription();
}

qreal ParallaxOffset::x() const
{
    return m_x;
}

qreal ParallaxOffset::y() const
{
    return m_y;
}

bool ParallaxOffset::connected() const
{
    return m_state.connected;
}

bool ParallaxOffset::daemonReduceMotion() const
{
    return m_state.reduce_motion;
}

bool ParallaxOffset::desktopReducesMotion() const
{
    return m_desktopMotion && m_desktopMotion->reduced();
}

bool ParallaxOffset::screenLocked() const
{
    return m_screenLock && m_screenLock->active();
}

bool ParallaxOffset::inLockScreen() const
{
    return m_inLockScreen;
}

bool ParallaxOffset::subscribed() const
{
    return m_subscribed;
}

QString ParallaxOffset::stillReason() const
{
    return m_stillReason;
}

QString ParallaxOffset::error() const
{
    return m_error;
}

bool ParallaxOffset::wanted() const
{
    if (!m_active) {
        return false;
    }
    if (screenLocked() && !m_inLockScreen) {
        return false;
    }
    if (m_reduceMotion == u"on"_s) {
        return false;
    }
    if (m_reduceMotion == u"system"_s && desktopReducesMotion()) {
        return false;
    }
    return true;
}

QString ParallaxOffset::computeStillReason() const
{
    if (m_reduceMotion == u"on"_s) {
        return u"reduce motion (the wallpaper's setting)"_s;
    }
    if (m_reduceMotion == u"system"_s && desktopReducesMotion()) {
        return u"reduce motion (the desktop's setting)"_s;
    }
    if (!m_active) {
        return u"the desktop cannot be seen"_s;
    }
    if (screenLocked() && !m_inLockScreen) {
        return u"the screen is locked"_s;
    }
    if (!m_client) {
        return u"no client (see the log)"_s;
    }
    if (!m_state.connected) {
        return u"not connected to parallaxd"_s;
    }
    if (m_state.reduce_motion) {
        return u"reduce motion (parallaxd's)"_s;
    }
    if (m_state.sensor != PX_SENSOR_OK) {
        return u"parallaxd has no working motion sensor"_s;
    }
    px_offset latest{};
    if (!px_client_offset(m_client.get(), &latest)) {
        return u"no offset yet"_s;
    }
    return QString();
}

void ParallaxOffset::createClient()
{
    if (!m_complete) {
        return;
    }
    m_notifier.reset();
    m_watchedFd = -1;
    m_timer.stop();
    m_client.reset();
    m_state = px_state{};

    const QByteArray path = QFile::encodeName(m_socketPath);
    px_client *client = px_client_new(m_socketPath.isEmpty() ? nullptr : path.constData(), m_rate, 0);
    if (!client) {
        m_error = u"cannot use the socket path \"%1\": %2"_s.arg(m_socketPath, QString::fromLocal8Bit(std::strerror(errno)));
        qCWarning(PARALLAX, "%s", qUtf8Printable(m_error));
        Q_EMIT stateChanged();
        updateOffset();
        return;
    }
    m_client.reset(client);
    px_client_set_log(client, logFromLibrary, nullptr);
    m_subscribed = true;
    updateSubscription();
    dispatch();
}

void ParallaxOffset::updateSubscription()
{
    const bool want = wanted();
    if (m_client) {
        if (want) {
            px_client_resume(m_client.get());
        } else {
            px_client_pause(m_client.get());
        }
        // The command goes out with the next dispatch, which is due now.
        watchClient();
    }
    if (want != m_subscribed) {
        qCDebug(PARALLAX, "%s (active %d, screen locked %d, reduce motion %s, the desktop reduces motion %d)",
                want ? "subscribing" : "pausing", m_active, screenLocked(), qUtf8Printable(m_reduceMotion),
                desktopReducesMotion());
        m_subscribed = want;
        Q_EMIT subscribedChanged();
    }
    updateOffset();
}

void ParallaxOffset::dispatch()
{
    if (!m_client) {
        return;
    }
    const int result = px_client_dispatch(m_client.get());
    if (result != 0) {
        px_state state{};
        px_client_state(m_client.get(), &state);
        const QString error = QString::fromUtf8(px_client_error_message(m_client.get()));
        const bool stateDiffers = state.connected != m_state.connected || state.reduce_motion != m_state.reduce_motion
            || state.sensor != m_state.sensor || error != m_error;
        m_state = state;
        m_error = error;
        if (stateDiffers) {
            Q_EMIT stateChanged();
        }
        updateOffset();
    }
    watchClient();
}

void ParallaxOffset::watchClient()
{
    if (!m_client) {
        return;
    }
    const int fd = px_client_fd(m_client.get());
    if (fd != m_watchedFd) {
        qCDebug(PARALLAX, "watching descriptor %d (was %d)", fd, m_watchedFd);
        m_notifier.reset();
        m_watchedFd = fd;
        if (fd >= 0) {
            m_notifier = std::make_unique<QSocketNotifier>(fd, QSocketNotifier::Read);
            connect(m_notifier.get(), &QSocketNotifier::activated, this, &ParallaxOffset::dispatch);
        }
    }
    const int timeout = px_client_timeout_ms(m_client.get());
    if (timeout < 0) {
        m_timer.stop();
    } else {
        m_timer.start(timeout);
    }
}

void ParallaxOffset::updateOffset()
{
    const QString reason = computeStillReason();
    qreal x = 0.0;
    qreal y = 0.0;
    px_offset latest{};
    if (reason.isEmpty() && m_subscribed && px_client_offset(m_client.get(), &latest)) {
        const px_offset shown = px_predict(&latest, nextFrameNs());
        x = shown.x;
        y = shown.y;
    }
    if (x != m_x || y != m_y || reason != m_stillReason) {
        m_stillReason = reason;
        m_x = x;
        m_y = y;
        Q_EMIT offsetChanged();
    }
}
