#!/bin/sh
# Assembles the GNOME Shell extension parallax@parallaxd from this folder (docs/gnome.md):
#
#   assemble.sh legacy|esm OUTDIR [VERSION]
#
# legacy: GNOME Shell 43 and 44 (imports.*; Debian 12 ships 43); esm: GNOME Shell 45 and later
# (ES modules). The shared files are the same source in both: for esm, the "/* exported A, B */"
# comment each one carries becomes an "export {A, B};" line at its end (in legacy scripts, var
# and function declarations are what imports.* sees). The entry files of the chosen form become
# extension.js and prefs.js; metadata.json names the shell versions of the form (shell-versions,
# the one list the package and the tests read too). The schema is
# copied into OUTDIR/schemas (compile it there for a per-user install; a system install puts it in
# /usr/share/glib-2.0/schemas instead).
set -eu
FORM=$1 OUT=$2 VERSION=${3:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
UUID=parallax@parallaxd
SHARED="protocol.js placement.js subscriber.js mover.js controller.js preferences.js"
case $FORM in
  legacy|esm) ;;
  *) echo "assemble.sh: the form is legacy or esm, not $FORM" >&2; exit 64 ;;
esac
VERSIONS=$(sed -n "s/^$FORM[[:space:]]\{1,\}//p" "$HERE/shell-versions" | sed 's/[[:space:]]\{1,\}/", "/g; s/^/"/; s/$/"/')
mkdir -p "$OUT/schemas"
for f in $SHARED; do
  cp "$HERE/$f" "$OUT/$f"
  if [ "$FORM" = esm ]; then
    names=$(sed -n 's|^/\* exported \(.*\) \*/$|\1|p' "$HERE/$f")
    [ -n "$names" ] || { echo "assemble.sh: $f has no /* exported … */ line" >&2; exit 1; }
    printf '\nexport {%s};\n' "$names" >> "$OUT/$f"
  fi
done
cp "$HERE/entry/extension-$FORM.js" "$OUT/extension.js"
cp "$HERE/entry/prefs-$FORM.js" "$OUT/prefs.js"
cp "$HERE/schemas/org.gnome.shell.extensions.parallax.gschema.xml" "$OUT/schemas/"
cat > "$OUT/metadata.json" <<JSON
{
  "uuid": "$UUID",
  "name": "Parallax background",
  "description": "Moves GNOME's background with the device's tilt, as parallaxd measures it from the accelerometer and gyroscope: the iOS parallax effect on the desktop, in the overview and on the lock screen.",
  "shell-version": [$VERSIONS],
  "settings-schema": "org.gnome.shell.extensions.parallax",
  "session-modes": ["user", "unlock-dialog"],
  "version-name": "$VERSION"
}
JSON
