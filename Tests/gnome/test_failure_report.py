"""When the extension does not load, the harness's failure says why: its state and error as
`gnome-extensions info` and the shell report them (an OUT OF DATE metadata, a JavaScript error at
enable), at once rather than after a timeout."""
import json
import os
import time

import pytest



def declare(versions):
    def alter(folder):
        path = os.path.join(folder, 'metadata.json')
        with open(path) as f:
            metadata = json.load(f)
        metadata['shell-version'] = versions
        with open(path, 'w') as f:
            json.dump(metadata, f)
    return alter


def throw_at_enable(folder):
    path = os.path.join(folder, 'controller.js')
    with open(path) as f:
        text = f.read()
    with open(path, 'w') as f:
        f.write(text.replace('    enable() {\n', "    enable() {\n        throw new Error('parallax-test-broken');\n", 1))


def test_an_extension_for_another_gnome_is_reported_out_of_date(shells):
    started = time.monotonic()
    with pytest.raises(AssertionError) as failure:
        shells(alter=declare(['3']))
    text = str(failure.value)
    assert 'gnome-extensions info parallax@parallaxd' in text and 'OUT OF DATE' in text, text
    assert time.monotonic() - started < 60


def test_an_error_at_enable_is_reported_with_its_message(shells):
    with pytest.raises(AssertionError) as failure:
        shells(alter=throw_at_enable)
    text = str(failure.value)
    assert 'ERROR' in text and 'parallax-test-broken' in text, text
