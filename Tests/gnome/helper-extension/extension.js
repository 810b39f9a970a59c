// TEST ONLY (Tests/gnome): unsafe mode lets the test's own process call org.gnome.Shell.Screenshot
// and org.gnome.Shell.Eval, which GNOME otherwise answers only for its own callers. The shipped
// extension never touches unsafe mode; this one is installed only into a test's throwaway HOME.
/* exported init */
class Helper {
    enable() {
        global.context.unsafe_mode = true;
    }

    disable() {
        global.context.unsafe_mode = false;
    }
}

function init() {
    return new Helper();
}
