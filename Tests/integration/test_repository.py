"""The repository stands alone: no tracked file names a path outside it.

A clone is all a user, a packager or a CI runner has. A README, doc, comment or test that cites a
document beside the repository (the team's shared folder), a `../` path that leaves the checkout,
or an absolute path into the machine it was written on points at nothing for them. This scans every
git-tracked text file for those, and every relative Markdown link for a target that exists.

What is flagged (each rule is precise enough to leave real paths alone: `../iio:device0` inside the
tree, system paths such as /usr/lib/parallaxd or /run/parallaxd, URLs):
- a relative path with `../` that, taken from the file's own folder, leaves the repository root;
- the team folder `shared/…` (only `.ci/` may use it: CI runs an extra check when it exists);
- a document name in capitals ending in .md (the team's contract documents are named so) that no
  file of the repository has;
- an absolute path into the team's workplace (WORKPLACE below);
- a relative Markdown link whose target does not exist in the repository.
These need no dependency beyond git, which a clone already has."""
import os
import re
import subprocess

import pytest

import plx

ROOT = plx.REPO_ROOT

# Folders whose files may name the team folder beside the repository (CI's optional extra check).
TEAM_FOLDER_ALLOWED = ('.ci/',)

RELATIVE_UP = re.compile(r'(?<![\w/.$])((?:\.\./)+[\w.@:+-]+(?:/[\w.@:+-]+)*)')
TEAM_FOLDER = re.compile(r'(?:(?<![\w/.-])|(?<=\.\./))shared/(?=[\w.-])')
UPPERCASE_DOC = re.compile(r'(?<![\w/.-])((?:[\w.-]+/)*[A-Z][A-Z0-9_]*\.md)\b')
WORKPLACE = re.compile(r'(?<![\w.~-])/' + r'work(?:/|\b)')  # split: this file must pass itself
MARKDOWN_LINK = re.compile(r'\]\(([^)\s#]*)(?:#[^)\s]*)?\)')
URL_SCHEME = re.compile(r'^[a-zA-Z][\w+.-]*:')


def tracked_files(root):
    """Repository-relative paths of the tracked files (git ls-files)."""
    out = subprocess.run(['git', '-C', root, 'ls-files', '-z'], capture_output=True, timeout=60)
    assert out.returncode == 0, 'git ls-files failed in %s: %s' % (root, out.stderr.decode(errors='replace'))
    return [p for p in out.stdout.decode().split('\0') if p]


def read_text(root, rel):
    """The file's text, or None for binary files and tracked files missing from the work tree."""
    path = os.path.join(root, rel)
    if not os.path.isfile(path):
        return None
    with open(path, 'rb') as f:
        data = f.read()
    if b'\0' in data[:8192]:
        return None
    return data.decode('utf-8', errors='replace')


def escapes(root, rel, target):
    """True when `target` taken from the folder of file `rel` lies outside `root`."""
    resolved = os.path.normpath(os.path.join(root, os.path.dirname(rel), target))
    return os.path.relpath(resolved, root).split(os.sep)[0] == '..'


def problems_in(rel, text, root, basenames):
    """['file:line: what'] for every path in `text` (file `rel`) that points outside the repository."""
    found = []
    team_folder_allowed = rel.startswith(TEAM_FOLDER_ALLOWED)
    for number, line in enumerate(text.splitlines(), 1):
        where = '%s:%d: ' % (rel, number)
        for m in RELATIVE_UP.finditer(line):
            if not team_folder_allowed and escapes(root, rel, m.group(1)):
                found.append(where + '%s leaves the repository' % m.group(1))
        if not team_folder_allowed and TEAM_FOLDER.search(line):
            found.append(where + 'names the team folder beside the repository: %s' % line.strip()[:120])
        for m in UPPERCASE_DOC.finditer(line):
            if os.path.basename(m.group(1)) not in basenames:
                found.append(where + '%s is no file of the repository' % m.group(1))
        if WORKPLACE.search(line):
            found.append(where + 'an absolute path into the workplace: %s' % line.strip()[:120])
        if rel.endswith('.md'):
            for m in MARKDOWN_LINK.finditer(line):
                target = m.group(1)
                if not target or URL_SCHEME.match(target) or target.startswith('/'):
                    continue
                path = os.path.normpath(os.path.join(root, os.path.dirname(rel), target))
                if escapes(root, rel, target) or not os.path.exists(path):
                    found.append(where + 'link target %s is not in the repository' % target)
    return found


def test_no_tracked_file_points_outside_the_repository():
    files = tracked_files(ROOT)
    assert 'README.md' in files, 'not the repository root: %s' % ROOT
    basenames = {os.path.basename(p) for p in files}
    found = []
    for rel in files:
        text = read_text(ROOT, rel)
        if text is not None:
            found += problems_in(rel, text, ROOT, basenames)
    assert not found, '%d references outside the repository:\n%s' % (len(found), '\n'.join(found))


# The rules themselves, on lines that must and must not be flagged (a file in a subfolder, so
# that `../` inside the tree is exercised). The outside names are assembled so that this file
# does not name them itself.
OUTSIDE_DOC = 'DESIGN' + '.md'
FLAGGED = [
    'The contract is `../' + 'shared/' + OUTSIDE_DOC + '`.',
    'see ' + 'shared/' + 'conformance/check_protocol.py',
    '// Viewer offset (' + OUTSIDE_DOC + ' "Conventions")',
    'cp /wo' + 'rk/main/README.md .',
    'template = "' + '../' * 3 + 'etc/passwd"',
    'Details: [the contract](../../' + OUTSIDE_DOC + ')',
    'Details: [frames](no-such-doc.md)',
]
NOT_FLAGGED = [
    "lrwxrwxrwx 246:0 -> ../iio:device0",
    "run: '/usr/lib/parallaxd/parallaxd-iio-access /sys/devices/platform/x'",
    'Socket=/run/parallaxd/parallaxd.sock',
    'See [the README](../../README.md) and [BENCHMARKS.md](../../BENCHMARKS.md).',
    'Link: [W3C](https://www.w3.org/TR/generic-sensor/#x) and [top](#limits)',
    'cd "$(dirname "$0")/.." && ./scripts/test.sh',
    'a shared library and a sharedlib/ folder',
    'https://example.org/work/a',
]


@pytest.mark.parametrize('line', FLAGGED)
def test_the_check_flags_paths_outside(line):
    found = problems_in('Tests/integration/example.md', line, ROOT, {'README.md', 'BENCHMARKS.md'})
    assert found, 'not flagged: %r' % line


@pytest.mark.parametrize('line', NOT_FLAGGED)
def test_the_check_leaves_real_paths_alone(line):
    found = problems_in('Tests/integration/example.md', line, ROOT, {'README.md', 'BENCHMARKS.md'})
    assert not found, found


def test_the_team_folder_is_allowed_only_in_ci():
    line = 'checker=../' + 'shared/' + 'conformance/check_protocol.py'
    assert problems_in('scripts/x.sh', line, ROOT, set())
    assert not problems_in('.ci/run', line, ROOT, set())
