/*
    The Parallax wallpaper's page in Plasma's wallpaper dialog: the picture (a file, or Plasma's
    current picture), the depth, the rate and reduce motion (docs/plasma.md "Settings").
*/

import QtQuick
import QtQuick.Controls as QQC2
import QtQuick.Dialogs as Dialogs
import QtQuick.Layouts
import org.kde.kirigami as Kirigami

Kirigami.FormLayout {
    id: page

    property string cfg_Image
    property alias cfg_Depth: depthField.value
    property alias cfg_Rate: rateField.value
    property string cfg_ReduceMotion
    // Plasma's dialog also sets the defaults (cfg_NameDefault); declared so it has somewhere to.
    property string cfg_ImageDefault
    property int cfg_DepthDefault
    property int cfg_RateDefault
    property string cfg_ReduceMotionDefault

    readonly property var reduceMotionModes: ["system", "on", "off"]

    RowLayout {
        Kirigami.FormData.label: i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Picture:")

        QQC2.Label {
            Layout.maximumWidth: Kirigami.Units.gridUnit * 16
            elide: Text.ElideMiddle
            text: page.cfg_Image.length > 0
                ? decodeURIComponent(page.cfg_Image.replace(/^file:\/\//, ""))
                : i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Plasma's current picture")
        }
        QQC2.Button {
            icon.name: "document-open"
            text: i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Choose…")
            onClicked: fileDialog.open()
        }
        QQC2.Button {
            icon.name: "edit-undo"
            text: i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Use Plasma's current picture")
            enabled: page.cfg_Image.length > 0
            onClicked: page.cfg_Image = ""
        }
    }

    QQC2.SpinBox {
        id: depthField
        Kirigami.FormData.label: i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Depth (pixels at full tilt):")
        from: -500
        to: 500
        QQC2.ToolTip.visible: hovered
        QQC2.ToolTip.text: i18nd("plasma_wallpaper_org.parallaxd.wallpaper",
            "Negative: the picture sits behind the screen and moves against the tilt. Positive: it floats and moves with it.")
    }

    QQC2.SpinBox {
        id: rateField
        Kirigami.FormData.label: i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Updates per second:")
        from: 1
        to: 240
    }

    QQC2.ComboBox {
        id: reduceMotionField
        Kirigami.FormData.label: i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Reduce motion:")
        model: [
            i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "As the system says (animation speed Instant)"),
            i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Always still"),
            i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Always move"),
        ]
        currentIndex: Math.max(0, page.reduceMotionModes.indexOf(page.cfg_ReduceMotion))
        onActivated: index => page.cfg_ReduceMotion = page.reduceMotionModes[index]
    }

    Dialogs.FileDialog {
        id: fileDialog
        title: i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Choose a Picture")
        fileMode: Dialogs.FileDialog.OpenFile
        nameFilters: [i18nd("plasma_wallpaper_org.parallaxd.wallpaper", "Pictures (*.png *.jpg *.jpeg *.webp *.avif *.bmp *.svg)")]
        onAccepted: page.cfg_Image = selectedFile.toString()
    }
}
