/*
    The Parallax wallpaper (docs/plasma.md): a picture scaled to cover the screen plus |Depth| on
    every side, moved Depth*x to the right and Depth*y down by parallaxd's viewer offset (negative
    Depth: recessed, it moves against the tilt). Centred without a daemon and under reduce motion;
    unsubscribed while a fullscreen window covers the desktop on this screen or the screen is
    locked. Also loads in the lock screen (kscreenlockerrc [Greeter] WallpaperPlugin), where it
    keeps moving while locked.
*/

import QtQuick
import QtQml.Models
import org.kde.plasma.plasmoid
import org.kde.taskmanager as TaskManager
import org.parallaxd.plasma as Parallax

WallpaperItem {
    id: root

    // The desktop's containment (Plasma::Containment) when on the desktop; null in the lock
    // screen, whose greeter has none.
    readonly property var containment: (root.parent && root.parent.plasmoid) ? root.parent.plasmoid : null
    readonly property int depth: {
        const d = Number(root.configuration.Depth);
        return Number.isFinite(d) ? d : -24;
    }
    readonly property real margin: Math.abs(depth)
    // Whether a fullscreen window covers this screen's desktop (not in the lock screen).
    readonly property bool coveredByFullscreen: !offset.inLockScreen && fullscreenWatch.fullscreenCount > 0

    clip: true

    Parallax.ParallaxOffset {
        id: offset
        rate: root.configuration.Rate
        reduceMotion: root.configuration.ReduceMotion
        active: !root.coveredByFullscreen
    }

    Parallax.WallpaperPicture {
        id: picture
        image: root.configuration.Image
        containmentId: root.containment ? root.containment.id : -1
        targetSize: Qt.size((root.width + 2 * root.margin) * Screen.devicePixelRatio,
                            (root.height + 2 * root.margin) * Screen.devicePixelRatio)
    }

    // Behind the picture while it loads, and where there is none.
    Rectangle {
        anchors.fill: parent
        color: "black"
    }

    Image {
        id: image
        objectName: "parallaxPicture"
        source: picture.source
        fillMode: Image.PreserveAspectCrop
        asynchronous: true
        smooth: true
        sourceSize: picture.targetSize
        width: root.width + 2 * root.margin
        height: root.height + 2 * root.margin
        x: -root.margin + root.depth * offset.x
        y: -root.margin + root.depth * offset.y
        onStatusChanged: {
            if (status === Image.Error) {
                console.warn("Parallax wallpaper: cannot load the picture", source);
            }
        }
    }

    // The windows on this screen's current desktop and activity that are fullscreen and not
    // minimized, as KDE's video wallpapers find them.
    QtObject {
        id: fullscreenWatch
        property int fullscreenCount: 0

        function recount() {
            let count = 0;
            for (let i = 0; i < tasksInstantiator.count; ++i) {
                const task = tasksInstantiator.objectAt(i);
                if (task && task.fullscreen) {
                    ++count;
                }
            }
            fullscreenCount = count;
        }
    }

    TaskManager.VirtualDesktopInfo {
        id: virtualDesktopInfo
    }

    TaskManager.ActivityInfo {
        id: activityInfo
    }

    TaskManager.TasksModel {
        id: tasksModel
        groupMode: TaskManager.TasksModel.GroupDisabled
        filterByScreen: root.containment !== null
        screenGeometry: root.containment ? root.containment.screenGeometry : Qt.rect(0, 0, 0, 0)
        filterByVirtualDesktop: true
        virtualDesktop: virtualDesktopInfo.currentDesktop
        filterByActivity: true
        activity: activityInfo.currentActivity
        filterMinimized: true
    }

    Instantiator {
        id: tasksInstantiator
        active: !offset.inLockScreen
        model: tasksModel
        delegate: QtObject {
            // The model's IsFullScreen role (undefined for a launcher).
            readonly property bool fullscreen: model.IsFullScreen === true
            onFullscreenChanged: fullscreenWatch.recount()
        }
        onObjectAdded: fullscreenWatch.recount()
        onObjectRemoved: fullscreenWatch.recount()
    }
}
