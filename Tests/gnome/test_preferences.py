"""The preferences window under a real headless gnome-shell 43: `gnome-extensions prefs` opens it
in GNOME's own preferences app (org.gnome.Shell.Extensions, GTK 4 and libadwaita, started by the
session bus), it shows, clicking its "In the overview" switch writes the key, and a key set from
outside moves its switch; the app logs no error. prefs_check.js then builds the same page in both
builds (ES modules and imports.*) and finds, by changing each key and each control, that every key
of the schema has exactly one control bound to it both ways."""
import json
import os

import pytest

from shell import SCHEMA, UUID, assemble, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
TITLE = 'Parallax background'                 # metadata.json's name: the app's window title
SWITCH_ON = (53, 132, 228)                     # Adwaita's accent blue: a switch that is on


def switches_on(pic, rect):
    """Centres (x, y) of the blue switches inside rect, top to bottom."""
    x0, y0, w, h = rect
    rows = []
    for y in range(max(y0, 0), min(y0 + h, pic.height)):
        xs = [x for x in range(max(x0, 0), min(x0 + w, pic.width))
              if max(abs(a - b) for a, b in zip(pic.pixel(x, y)[:3], SWITCH_ON)) <= 12]
        if len(xs) >= 8:
            rows.append((y, xs))
    found = []
    for y, xs in rows:
        if found and y - found[-1][1] <= 2:
            found[-1][1] = y
            found[-1][2].extend(xs)
        else:
            found.append([y, y, list(xs)])
    return [((min(xs) + max(xs)) / 2, (top + bottom) / 2) for top, bottom, xs in found if bottom - top >= 10]


def get(gnome, key):
    import subprocess
    out = subprocess.run(gnome.gsettings_command(SCHEMA) + ['get', SCHEMA, key], env=gnome.env,
                         capture_output=True, text=True, check=True, timeout=30)
    return out.stdout.strip()


def prefs_rect(gnome):
    """The preferences window's frame (x, y, width, height) now: read each time, since Mutter may
    place or size the window again after it first maps it."""
    return [w for w in gnome.windows() if w[0] == TITLE][0][2]


def drawn_switches(gnome):
    """switches_on in the preferences window as it is now; with what the window held when none
    was found (the windows, the commonest colours in it), so that a timeout says why."""
    pic, rect = gnome.screenshot(), prefs_rect(gnome)
    on = switches_on(pic, rect)
    if not on:
        x0, y0, w, h = rect
        counts = {}
        for y in range(max(y0, 0), min(y0 + h, pic.height), 4):
            for x in range(max(x0, 0), min(x0 + w, pic.width), 4):
                c = pic.pixel(x, y)[:3]
                counts[c] = counts.get(c, 0) + 1
        drawn_switches.last = (gnome.windows(), sorted(counts.items(), key=lambda kv: -kv[1])[:8])
    return on


# GNOME's preferences app (org.gnome.Shell.Extensions): gnome-shell-extension-prefs (Debian 12
# and 13), gnome-shell itself (GNOME 50 in forky), gnome-extensions-app (GNOME 51 in sid).
PREFS_APP = '/usr/share/dbus-1/services/org.gnome.Shell.Extensions.service'


def test_gnome_extensions_prefs_opens_a_working_window(shells):
    import subprocess
    assert os.path.exists(PREFS_APP), 'GNOME\'s preferences app is not installed (%s)' % PREFS_APP
    gnome = shells()
    subprocess.run(['gnome-extensions', 'prefs', UUID], env=gnome.env, check=True, timeout=60)
    window = wait_until(lambda: [w for w in gnome.windows() if w[0] == TITLE and w[2][2] > 0], 60,
                        'the preferences window')[0]
    assert window[1] == 'org.gnome.Shell.Extensions'
    # GNOME shows a new window growing and fading in; the switches are where they stay after.
    wait_until(lambda: gnome.eval('String(global.get_window_actors().every(a => a.opacity === 255 && a.scale_x === 1 && '
                                  "!a.get_transition('opacity') && !a.get_transition('scale-x')))") == '"true"',
               20, 'the window opened')
    # Both "Where" switches are on (the defaults): the page was built, its rows bound.
    drawn_switches.last = None
    try:
        on = wait_until(lambda: drawn_switches(gnome), 30, 'the switches drawn')
    except AssertionError as e:
        raise AssertionError('%s; windows and commonest colours in the last picture: %r\n%s'
                             % (e, drawn_switches.last, gnome.services_log()[-3000:])) from None
    assert len(on) == 2, on
    assert get(gnome, 'move-overview') == 'true'
    rect = prefs_rect(gnome)
    # The pointer comes into the window before it clicks, as a hand on a mouse does: GTK 4.18
    # (GNOME 48) drops a press that comes with the pointer's first entry into its surface.
    gnome.point(rect[0] + 100, rect[1] + 100)
    gnome.click_until(*on[0], lambda: get(gnome, 'move-overview') == 'false', 'move-overview written by the click')
    wait_until(lambda: switches_on(gnome.screenshot(), prefs_rect(gnome)) == on[1:], 20, 'the first switch drawn off')
    # The other way: a key set from outside moves its switch.
    gnome.gsettings(SCHEMA, 'move-lock-screen', 'false')
    wait_until(lambda: switches_on(gnome.screenshot(), prefs_rect(gnome)) == [], 20, 'the second switch drawn off')
    log = gnome.services_log()
    assert 'JS ERROR' not in log and 'Gjs-CRITICAL' not in log and 'Gtk-CRITICAL' not in log, log[-3000:]


@pytest.mark.parametrize('form', ['legacy', 'esm'])
def test_every_key_has_one_control_bound_both_ways(shells, workdir, form):
    gnome = shells(extension=False)
    ext = assemble(form, os.path.join(workdir, form))
    check = gnome.client(['gjs', '-m', os.path.join(HERE, 'prefs_check.js'), ext, form],
                         env={'GSETTINGS_BACKEND': 'memory'})
    out, _ = check.communicate(timeout=120)
    assert check.returncode == 0, gnome.log()[-3000:]
    lines = [json.loads(line) for line in out.splitlines() if line.startswith('{')]
    keys = {r['key']: r for r in lines if 'key' in r}
    rows = [r['rows'] for r in lines if 'rows' in r][0]
    with open(os.path.join(ext, 'schemas', 'org.gnome.shell.extensions.parallax.gschema.xml')) as f:
        schema_keys = {part.split('"')[1] for part in f.read().split('<key name=')[1:]}
    assert set(keys) == schema_keys
    for key, r in keys.items():
        assert len(r['controls']) == 1, (key, r)
        assert r['back'], (key, r)
    # Each control belongs to one key: as many rows as keys.
    assert sorted(r['controls'][0] for r in keys.values()) == sorted(rows)
