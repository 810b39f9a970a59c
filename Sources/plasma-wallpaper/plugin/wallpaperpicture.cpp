#include "wallpaperpicture.h"

#include <KConfig>
#include <KConfigGroup>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace
{
const auto ImageWallpaperId = u"org.kde.image"_s;
const auto DefaultLookAndFeel = u"org.kde.breeze.desktop"_s;
}

WallpaperPicture::WallpaperPicture(QObject *parent)
    : QObject(parent)
{
    connect(this, &WallpaperPicture::inputsChanged, this, &WallpaperPicture::resolve);
    resolve();
}

QString WallpaperPicture::image() const
{
    return m_image;
}

void WallpaperPicture::setImage(const QString &image)
{
    if (image != m_image) {
        m_image = image;
        Q_EMIT inputsChanged();
    }
}

int WallpaperPicture::containmentId() const
{
    return m_containmentId;
}

void WallpaperPicture::setContainmentId(int id)
{
    if (id != m_containmentId) {
        m_containmentId = id;
        Q_EMIT inputsChanged();
    }
}

QSize WallpaperPicture::targetSize() const
{
    return m_targetSize;
}

void WallpaperPicture::setTargetSize(const QSize &size)
{
    if (size != m_targetSize) {
        m_targetSize = size;
        Q_EMIT inputsChanged();
    }
}

QUrl WallpaperPicture::source() const
{
    return m_source;
}

QString WallpaperPicture::origin() const
{
    return m_origin;
}

void WallpaperPicture::resolve()
{
    QUrl source;
    QString origin;
    if (!m_image.trimmed().isEmpty()) {
        source = pictureOf(m_image.trimmed());
        origin = u"image"_s;
    }
    if (source.isEmpty()) {
        const QString previous = previousImage();
        if (!previous.isEmpty()) {
            source = pictureOf(previous);
            origin = u"previous"_s;
        }
    }
    if (source.isEmpty()) {
        source = pictureOf(defaultWallpaperPath());
        origin = u"default"_s;
    }
    if (source.isEmpty()) {
        origin.clear();
    }
    if (source != m_source || origin != m_origin) {
        m_source = source;
        m_origin = origin;
        Q_EMIT sourceChanged();
    }
}

QString WallpaperPicture::previousImage() const
{
    if (QCoreApplication::applicationName() == u"kscreenlocker_greet"_s) {
        const KConfig config(u"kscreenlockerrc"_s, KConfig::SimpleConfig);
        return config.group(u"Greeter"_s).group(u"Wallpaper"_s).group(ImageWallpaperId).group(u"General"_s).readEntry("Image", QString());
    }
    if (m_containmentId < 0) {
        return QString();
    }
    const KConfig config(u"plasma-org.kde.plasma.desktop-appletsrc"_s, KConfig::SimpleConfig);
    return config.group(u"Containments"_s)
        .group(QString::number(m_containmentId))
        .group(u"Wallpaper"_s)
        .group(ImageWallpaperId)
        .group(u"General"_s)
        .readEntry("Image", QString());
}

QString WallpaperPicture::defaultWallpaperPath()
{
    const KConfig globals(u"kdeglobals"_s, KConfig::SimpleConfig);
    const QString lookAndFeel = globals.group(u"KDE"_s).readEntry("LookAndFeelPackage", DefaultLookAndFeel);
    const QString defaults = QStandardPaths::locate(QStandardPaths::GenericDataLocation, u"plasma/look-and-feel/%1/contents/defaults"_s.arg(lookAndFeel));
    if (!defaults.isEmpty()) {
        const KConfig lookAndFeelDefaults(defaults, KConfig::SimpleConfig);
        const QString name = lookAndFeelDefaults.group(u"Wallpaper"_s).readEntry("Image", QString());
        if (!name.isEmpty()) {
            const QString folder = QStandardPaths::locate(QStandardPaths::GenericDataLocation, u"wallpapers/"_s + name, QStandardPaths::LocateDirectory);
            if (!folder.isEmpty()) {
                return folder;
            }
        }
    }
    return QStandardPaths::locate(QStandardPaths::GenericDataLocation, u"wallpapers/Next"_s, QStandardPaths::LocateDirectory);
}

QUrl WallpaperPicture::pictureOf(const QString &value) const
{
    if (value.isEmpty()) {
        return QUrl();
    }
    QString path = value;
    const QUrl url(value);
    if (url.isValid() && !url.scheme().isEmpty() && !url.isLocalFile()) {
        return url; // a remote picture: Qt's Image loads what it can
    }
    if (url.isLocalFile()) {
        path = url.toLocalFile();
    } else if (const qsizetype hash = path.indexOf(u'#'); hash >= 0 && !QFileInfo::exists(path)) {
        path.truncate(hash);
    }
    const QFileInfo info(path);
    if (info.isDir()) {
        return bestInPackage(info.absoluteFilePath());
    }
    if (info.isFile()) {
        return QUrl::fromLocalFile(info.absoluteFilePath());
    }
    return QUrl();
}

QUrl WallpaperPicture::bestInPackage(const QString &folder) const
{
    // Plasma's wallpaper packages name their pictures by size: contents/images/1920x1080.png.
    static const QRegularExpression sizeName(u"^(\\d+)x(\\d+)\\.[A-Za-z0-9]+$"_s);
    const QDir images(folder + u"/contents/images"_s);
    const QSize target = m_targetSize.isValid() && !m_targetSize.isEmpty() ? m_targetSize : QSize(1920, 1080);
    const double targetAspect = double(target.width()) / target.height();
    QString best;
    double bestScore = std::numeric_limits<double>::max();
    QString anyPicture;
    const auto entries = images.entryInfoList(QDir::Files, QDir::Name);
    for (const QFileInfo &entry : entries) {
        if (anyPicture.isEmpty()) {
            anyPicture = entry.absoluteFilePath();
        }
        const auto match = sizeName.match(entry.fileName());
        if (!match.hasMatch()) {
            continue;
        }
        const int width = match.captured(1).toInt();
        const int height = match.captured(2).toInt();
        if (width <= 0 || height <= 0) {
            continue;
        }
        // The aspect closest to the screen's first, then the smallest that still covers it (a
        // smaller one would be scaled up), then the largest of those too small.
        const double aspectDistance = std::abs(std::log((double(width) / height) / targetAspect));
        const bool covers = width >= target.width() && height >= target.height();
        const double area = double(width) * height;
        const double score = aspectDistance * 1e12 + (covers ? area : 1e11 - area);
        if (score < bestScore) {
            bestScore = score;
            best = entry.absoluteFilePath();
        }
    }
    if (best.isEmpty()) {
        best = anyPicture;
    }
    return best.isEmpty() ? QUrl() : QUrl::fromLocalFile(best);
}
