// TEST ONLY (Tests/gnome): unsafe mode lets the test's own process call org.gnome.Shell.Screenshot
// and org.gnome.Shell.Eval, which GNOME otherwise answers only for its own callers. The shipped
// extension never touches unsafe mode; this one is installed only into a test's throwaway HOME.
/* exported init */
const Main = imports.ui.main;

class Helper {
    enable() {
        global.context.unsafe_mode = true;
        // The shell announces it with a notification at once; the screenshots should not show it.
        for (const source of Main.messageTray.getSources())
            source.destroy();
    }

    disable() {
        global.context.unsafe_mode = false;
    }
}

function init() {
    return new Helper();
}
