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
]


def test_committed_glue_matches_wayland_scanner_output():
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run([os.path.join(ROOT, 'scripts', 'generate-wayland-glue.sh'), scratch], check=True)
        for name in GENERATED:
            fresh = os.path.join(scratch, name)
            assert os.path.exists(fresh), name + ' was not generated'
            assert filecmp.cmp(fresh, os.path.join(TARGET, name), shallow=False), \
                name + ' differs from what scripts/generate-wayland-glue.sh makes; run it and commit'


def test_vendored_layer_shell_keeps_its_licence():
    with open(os.path.join(TARGET, 'protocols', 'wlr-layer-shell-unstable-v1.xml')) as f:
        text = f.read()
    assert 'Copyright © 2017 Drew DeVault' in text and 'Permission to use, copy, modify' in text
