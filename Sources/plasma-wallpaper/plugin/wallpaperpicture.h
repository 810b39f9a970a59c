// WallpaperPicture: which picture the wallpaper shows (docs/plasma.md "Which picture"):
//  1. the wallpaper's own Image setting, when set;
//  2. else the picture Plasma's Image wallpaper showed in the same place before: the containment's
//     Wallpaper/org.kde.image/General/Image in plasma-org.kde.plasma.desktop-appletsrc (in the
//     lock screen: kscreenlockerrc's Greeter/Wallpaper/org.kde.image/General/Image);
//  3. else the look-and-feel package's default wallpaper (its contents/defaults [Wallpaper]
//     Image, found under wallpapers/), else wallpapers/Next, as Plasma's own DefaultWallpaper.
// A value may be a file, a file: URL, or a wallpaper package (a folder with contents/images/
// holding WIDTHxHEIGHT.ext pictures, of which the one that best fits targetSize is taken); a
// "#dark"/"#day-night" fragment of Plasma's is ignored.
#pragma once

#include <QObject>
#include <QQmlEngine>
#include <QSize>
#include <QUrl>

class WallpaperPicture : public QObject
{
    Q_OBJECT
    QML_ELEMENT

    /// The wallpaper's Image setting (a path or URL); empty: Plasma's current picture.
    Q_PROPERTY(QString image READ image WRITE setImage NOTIFY inputsChanged)
    /// The containment this wallpaper belongs to (Plasma::Applet::id); -1 when there is none.
    Q_PROPERTY(int containmentId READ containmentId WRITE setContainmentId NOTIFY inputsChanged)
    /// The size the picture is drawn at (device pixels), to pick from a wallpaper package.
    Q_PROPERTY(QSize targetSize READ targetSize WRITE setTargetSize NOTIFY inputsChanged)
    /// The picture to show; empty when none was found.
    Q_PROPERTY(QUrl source READ source NOTIFY sourceChanged)
    /// Where it came from: "image" (the setting), "previous" (Plasma's Image wallpaper),
    /// "default" (the look and feel's), or "" (nothing found).
    Q_PROPERTY(QString origin READ origin NOTIFY sourceChanged)

public:
    explicit WallpaperPicture(QObject *parent = nullptr);

    QString image() const;
    void setImage(const QString &image);
    int containmentId() const;
    void setContainmentId(int id);
    QSize targetSize() const;
    void setTargetSize(const QSize &size);
    QUrl source() const;
    QString origin() const;

Q_SIGNALS:
    void inputsChanged();
    void sourceChanged();

private:
    void resolve();
    QString previousImage() const;
    static QString defaultWallpaperPath();
    QUrl pictureOf(const QString &value) const;
    QUrl bestInPackage(const QString &folder) const;

    QString m_image;
    int m_containmentId = -1;
    QSize m_targetSize;
    QUrl m_source;
    QString m_origin;
};
