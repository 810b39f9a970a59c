"""Each module imports only what docs/architecture.md's module table lets it ("may import").

The table is the rule: this reads it, so the rule is written once, where a reader looks for it.
A Swift module (a folder of Sources/ holding .swift files) may import the modules its row names,
what "all of the above" names (the rows above and what they may import), the standard library's
own modules and the C library; never Foundation. libparallax includes only C11 and POSIX headers,
and no thread's; the Python module imports only the standard library at its top level.

Why: the layers are what keeps the daemon small (no Foundation: ICU costs 8-15 MB of RSS), the
C client loadable into a compositor (no threads), and the pure parts (ParallaxMotion,
ParallaxProtocol) testable without a device. An import is the first step across a layer, and
the compiler does not stop one that SwiftPM's graph already makes reachable."""
import os
import re
import sys

import plx

ROOT = plx.REPO_ROOT
SOURCES = os.path.join(ROOT, 'Sources')
TABLE = os.path.join(ROOT, 'docs', 'architecture.md')

# What every Swift module may import besides its row: the standard library's own modules and
# the C library.
ALWAYS = {'Swift', 'Synchronization', 'Glibc', 'Musl'}
NEVER = {'Foundation', 'FoundationEssentials', 'FoundationNetworking', 'FoundationXML'}
# The table's names for the packages of the local Swift package mirror.
PACKAGE_MODULES = {'swift-system': 'SystemPackage', 'swift-log': 'Logging', 'swift-argument-parser': 'ArgumentParser'}
# Tools beside the product: they may import what they measure, and have no row.
TOOLS = {'parallax-bench': {'CLinux'}, 'parallax-bench-motion': {'ParallaxMotion'}}

SWIFT_IMPORT = re.compile(r'^\s*(?:@[\w()]+\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_]\w*)', re.M)
C_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
# C11's headers and the POSIX ones a socket client needs; threads are not among them.
C_HEADERS = {
    'assert.h', 'complex.h', 'ctype.h', 'errno.h', 'fenv.h', 'float.h', 'inttypes.h', 'iso646.h',
    'limits.h', 'locale.h', 'math.h', 'setjmp.h', 'signal.h', 'stdalign.h', 'stdarg.h',
    'stdatomic.h', 'stdbool.h', 'stddef.h', 'stdint.h', 'stdio.h', 'stdlib.h', 'stdnoreturn.h',
    'string.h', 'tgmath.h', 'time.h', 'uchar.h', 'wchar.h', 'wctype.h',
    'fcntl.h', 'poll.h', 'unistd.h', 'strings.h', 'sys/socket.h', 'sys/un.h', 'sys/types.h',
    'sys/stat.h', 'sys/time.h', 'sys/uio.h', 'netinet/in.h', 'arpa/inet.h'}


def module_rules(text):
    """{module: allowed imports} from the table's rows, in order; "all of the above" expanded."""
    rules = {}
    in_table = False
    for line in text.splitlines():
        if line.startswith('| module | holds | may import |'):
            in_table = True
            continue
        if not in_table:
            continue
        if not line.startswith('|'):
            break
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) < 3 or set(cells[0]) <= {'-'}:
            continue
        name = cells[0].strip('`')
        allowed = set()
        for part in split_list(cells[-1]):
            if part.startswith('all of the above'):
                for above, theirs in rules.items():
                    allowed |= {above} | theirs
            else:
                allowed.add(PACKAGE_MODULES.get(part, part))
        rules[name] = allowed
    return rules


def split_list(cell):
    """The names of a "may import" cell: comma-separated, parenthesised remarks dropped."""
    cell = re.sub(r'\([^)]*\)', '', cell)
    names = []
    for part in cell.split(','):
        part = re.sub(r'^and\s+|\s+only$', '', part.strip()).strip('`')
        if part:
            names.append(part)
    return names


def swift_modules():
    """{module: {file: text}} for each folder of Sources/ with Swift files."""
    modules = {}
    for name in sorted(os.listdir(SOURCES)):
        folder = os.path.join(SOURCES, name)
        files = {}
        for dirpath, _, filenames in os.walk(folder):
            for f in filenames:
                if f.endswith('.swift'):
                    path = os.path.join(dirpath, f)
                    with open(path, encoding='utf-8') as fh:
                        files[os.path.relpath(path, ROOT)] = fh.read()
        if files:
            modules[name] = files
    return modules


def import_problems(module, files, allowed):
    """One line per import of files (path: text) that module may not make."""
    problems = []
    for path, text in sorted(files.items()):
        for imported in SWIFT_IMPORT.findall(text):
            if imported in NEVER:
                problems.append('%s imports %s: no module links Foundation' % (path, imported))
            elif imported not in allowed | ALWAYS:
                problems.append('%s imports %s, which %s may not (docs/architecture.md: %s)'
                                % (path, imported, module, ', '.join(sorted(allowed)) or 'nothing'))
    return problems


def rules():
    with open(TABLE, encoding='utf-8') as f:
        return module_rules(f.read())


def test_the_table_reads_as_rules():
    table = rules()
    # The layers as the table states them, read back: a misread table would pass anything.
    assert table['ParallaxMotion'] == {'Swift stdlib', 'Glibc'}
    assert table['ParallaxIIO'] >= {'ParallaxMotion', 'CIIO', 'SystemPackage', 'Logging'}
    assert 'ParallaxDaemon' not in table['ParallaxIIO']
    assert table['ParallaxDaemon'] >= {'ParallaxMotion', 'ParallaxProtocol', 'ParallaxIIO', 'ParallaxConfig', 'ParallaxClient'}
    assert 'ParallaxWallpaper' not in table['ParallaxDaemon']


def test_the_check_catches_an_import_across_a_layer():
    table = rules()
    files = {'Sources/ParallaxIIO/Bad.swift': 'import ParallaxMotion\n@testable import ParallaxDaemon\n'}
    assert import_problems('ParallaxIIO', files, table['ParallaxIIO']) == [
        'Sources/ParallaxIIO/Bad.swift imports ParallaxDaemon, which ParallaxIIO may not (docs/architecture.md: '
        + ', '.join(sorted(table['ParallaxIIO'])) + ')']
    assert import_problems('ParallaxDaemon', {'x.swift': 'import struct Foundation.Date\n'}, table['ParallaxDaemon'])
    assert not import_problems('ParallaxProtocol', {'x.swift': '#if canImport(Glibc)\nimport Glibc\n#endif\n'}, set())


def test_every_swift_module_imports_only_what_its_row_allows():
    table = rules()
    problems = []
    for module, files in swift_modules().items():
        if module in TOOLS:
            allowed = TOOLS[module]
        elif module in table:
            allowed = table[module]
        else:
            problems.append('Sources/%s has no row in docs/architecture.md\'s module table' % module)
            continue
        problems += import_problems(module, files, allowed)
    assert not problems, '\n'.join(problems)


def test_libparallax_includes_only_libc():
    folder = os.path.join(SOURCES, 'libparallax')
    own = set(os.listdir(folder))
    problems = []
    for name in sorted(own):
        if not name.endswith(('.c', '.h')):
            continue
        with open(os.path.join(folder, name), encoding='utf-8') as f:
            for quote, header in C_INCLUDE.findall(f.read()):
                if quote == '"' and header in own:
                    continue
                if quote == '<' and header in C_HEADERS:
                    continue
                problems.append('Sources/libparallax/%s includes %s%s: libparallax is C11 on libc, with no threads'
                                % (name, quote, header))
    assert not problems, '\n'.join(problems)


def test_the_python_module_imports_only_the_standard_library_at_its_top_level():
    folder = os.path.join(SOURCES, 'python', 'parallax')
    top_level = re.compile(r'^(?:import|from)\s+([A-Za-z_]\w*)', re.M)
    problems = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith('.py'):
            continue
        with open(os.path.join(folder, name), encoding='utf-8') as f:
            for imported in top_level.findall(f.read()):
                if imported != 'parallax' and imported not in sys.stdlib_module_names:
                    problems.append('Sources/python/parallax/%s imports %s at its top level' % (name, imported))
    assert not problems, '\n'.join(problems)
