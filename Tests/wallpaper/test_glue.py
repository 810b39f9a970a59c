"""The committed Wayland glue (Sources/CWaylandProtocols) is exactly what wayland-scanner makes of
the protocol XML: regenerating it into a scratch directory changes nothing."""
import filecmp
import os
import subprocess
import tempfile

from desktop import ROOT

TARGET = os.path.join(ROOT, 'Sources', 'CWaylandProtocols')
GENERATED = [
    'xdg-shell-protocol.c', 'include/xdg-shell-client-protocol.h',
    'presentation-time-protocol.c', 'include/presentation-time-client-protocol.h',
    'wlr-layer-shell-unstable-v1-protocol.c', 'include/wlr-layer-shell-unstable-v1-client-protocol.h',
    'fractional-scale-v1-protocol.c', 'include/fractional-scale-v1-client-protocol.h',
    'viewporter-protocol.c', 'include/viewporter-client-protocol.h',
]


def test_committed_glue_matches_wayland_scanner_output():
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run([os.path.join(ROOT, 'scripts', 'generate-wayland-glue.sh'), scratch], check=True)
        for name in GENERATED:
            fresh = os.path.join(scratch, name)
            assert os.path.exists(fresh), name + ' was not generated'
            assert filecmp.cmp(fresh, os.path.join(TARGET, name), shallow=False), \
                name + ' differs from what scripts/generate-wayland-glue.sh makes; run it and commit'


def test_vendored_protocols_keep_their_licences():
    for name, holder, grant in (('wlr-layer-shell-unstable-v1.xml', 'Copyright © 2017 Drew DeVault', 'Permission to use, copy, modify'),
                                ('fractional-scale-v1.xml', 'Copyright © 2022 Kenny Levinsen', 'Permission is hereby granted'),
                                ('viewporter.xml', 'Copyright © 2013-2016 Collabora, Ltd.', 'Permission is hereby granted')):
        with open(os.path.join(TARGET, 'protocols', name)) as f:
            text = f.read()
        assert holder in text and grant in text, name
