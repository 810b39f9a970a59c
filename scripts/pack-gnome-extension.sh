#!/bin/sh
# The GNOME Shell extension as zips for extensions.gnome.org, one per form, made by GNOME's own
# `gnome-extensions pack` (docs/gnome.md "extensions.gnome.org"):
#
#   scripts/pack-gnome-extension.sh [OUTDIR]     # default .build-gnome-zips/
#
# writes OUTDIR/parallax@parallaxd.gnome-43-44.shell-extension.zip (legacy, imports.*) and
# OUTDIR/parallax@parallaxd.gnome-45-51.shell-extension.zip (ES modules), the versions taken from
# Sources/gnome-extension/shell-versions, and prints their paths. Needs gnome-extensions (Debian's
# gnome-shell package) and glib-compile-schemas.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/.build-gnome-zips}
command -v gnome-extensions >/dev/null || { echo "pack-gnome-extension: gnome-extensions is missing (the gnome-shell package has it)" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
VERSION=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$ROOT/debian/changelog")
for form in legacy esm; do
  versions=$(sed -n "s/^$form[[:space:]]\{1,\}//p" "$ROOT/Sources/gnome-extension/shell-versions")
  first=${versions%% *} last=${versions##* }
  src=$work/$form
  "$ROOT/Sources/gnome-extension/assemble.sh" "$form" "$src" "$VERSION"
  # pack takes the schema from its own option, and every file but extension.js, prefs.js,
  # metadata.json and stylesheet.css as an extra source.
  extra=
  for f in "$src"/*.js; do
    case ${f##*/} in extension.js|prefs.js) ;; *) extra="$extra --extra-source=${f##*/}" ;; esac
  done
  mkdir -p "$work/zip-$form"     # (GNOME 43's pack crashes on an out-dir that is not there yet)
  (cd "$src" && gnome-extensions pack --force --out-dir="$work/zip-$form" \
     --schema=schemas/org.gnome.shell.extensions.parallax.gschema.xml $extra .)
  zip=$OUT/parallax@parallaxd.gnome-$first-$last.shell-extension.zip
  if [ "$form" = esm ]; then
    # GNOME 44 and later compile an extension's schemas when they install it, and
    # extensions.gnome.org's review asks that a 45+ upload carry none compiled; GNOME 43's pack
    # adds one.
    python3 - "$work/zip-$form/parallax@parallaxd.shell-extension.zip" "$zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as dst:
    for item in src.infolist():
        if not item.filename.endswith('gschemas.compiled'):
            dst.writestr(item, src.read(item))
PY
  else
    mv "$work/zip-$form/parallax@parallaxd.shell-extension.zip" "$zip"
  fi
  printf '%s\n' "$zip"
done
