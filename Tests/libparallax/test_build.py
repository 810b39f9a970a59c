"""libparallax as a packager and a client author see it: `make install DESTDIR=…` stages header,
library, parallax.pc and the man page; a program builds with `pkg-config --cflags --libs parallax`
alone; the library has soname libparallax.so.1, exports only px_ symbols and needs only libc."""
import os
import re
import shutil
import subprocess

import libpx


def test_staged_tree(staged):
    p = staged.prefix
    assert os.path.isfile(os.path.join(p, 'include/parallax.h'))
    assert os.path.isfile(os.path.join(staged.libdir, 'libparallax.so.1.0.0'))
    assert os.readlink(os.path.join(staged.libdir, 'libparallax.so.1')) == 'libparallax.so.1.0.0'
    assert os.readlink(os.path.join(staged.libdir, 'libparallax.so')) == 'libparallax.so.1'
    assert os.path.isfile(os.path.join(p, 'share/man/man3/libparallax.3'))
    with open(os.path.join(staged.libdir, 'pkgconfig/parallax.pc')) as f:
        pc = f.read()
    assert 'prefix=%s\n' % libpx.PREFIX in pc
    assert 'libdir=${prefix}/lib/%s\n' % libpx.MULTIARCH in pc


def test_library_goes_to_the_multiarch_directory(staged):
    """Debian's ld.so and pkg-config look in lib/<triplet>: nothing of libparallax in lib/ itself."""
    assert libpx.MULTIARCH, 'cc -print-multiarch names no triplet on this Debian system'
    assert staged.libdir == os.path.join(staged.prefix, 'lib', libpx.MULTIARCH)
    assert [f for f in os.listdir(os.path.join(staged.prefix, 'lib')) if f != libpx.MULTIARCH] == []


def test_pkg_config_names_the_staged_files(staged):
    cflags = staged.pkg_config('--cflags')
    libs = staged.pkg_config('--libs')
    assert cflags == ['-I' + os.path.join(staged.prefix, 'include')]
    assert libs == ['-L' + staged.libdir, '-lparallax']


def test_program_built_with_pkg_config_links_the_soname(staged):
    out = subprocess.run(['readelf', '-d', staged.unit], capture_output=True, text=True, check=True).stdout
    assert '[libparallax.so.1]' in out, out
    ldd = subprocess.run(['ldd', staged.unit], env=staged.run_env(), capture_output=True, text=True, check=True).stdout
    assert os.path.join(staged.libdir, 'libparallax.so.1') in ldd, ldd


def test_unit_program(staged):
    """px_interpolate, px_predict and px_client_new's argument checks (unit.c)."""
    out = subprocess.run([staged.unit], env=staged.run_env(), capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r'^\d+ passed, 0 failed$', out.stdout, re.M), out.stdout


def test_soname_and_dependencies(staged):
    out = subprocess.run(['readelf', '-d', os.path.join(staged.libdir, 'libparallax.so.1.0.0')],
                         capture_output=True, text=True, check=True).stdout
    assert re.search(r'\(SONAME\)\s+Library soname: \[libparallax\.so\.1\]', out), out
    needed = re.findall(r'\(NEEDED\)\s+Shared library: \[(.*?)\]', out)
    assert needed == ['libc.so.6'], needed


def test_only_px_symbols_exported(staged):
    out = subprocess.run(['nm', '-D', '--defined-only', os.path.join(staged.libdir, 'libparallax.so.1.0.0')],
                         capture_output=True, text=True, check=True).stdout
    names = [line.split()[-1] for line in out.splitlines() if line.strip()]
    assert names, 'no exported symbols'
    assert [n for n in names if not n.startswith('px_')] == []
    # The fixed API of parallax.h is all there.
    for fn in ('px_client_new', 'px_client_fd', 'px_client_dispatch', 'px_client_timeout_ms', 'px_client_offset',
               'px_client_state', 'px_client_free', 'px_interpolate', 'px_predict'):
        assert fn in names, fn


# libc calls that keep state shared between threads (glibc's man pages: MT-Unsafe race:<name>, or
# static result buffers). parallax.h lets separate clients run on separate threads, so the library
# must use none of them; strerror has strerror_r, the others are not needed.
THREAD_UNSAFE_LIBC = ('strerror', 'strtok', 'localtime', 'gmtime', 'getgrnam', 'getpwnam', 'rand', 'srand',
                      'readdir', 'ctime', 'asctime', 'setlocale')


def test_no_thread_unsafe_libc_calls(staged):
    out = subprocess.run(['nm', '-D', '--undefined-only', os.path.join(staged.libdir, 'libparallax.so.1.0.0')],
                         capture_output=True, text=True, check=True).stdout
    imported = {line.split()[-1].split('@')[0] for line in out.splitlines() if line.strip()}
    assert sorted(imported.intersection(THREAD_UNSAFE_LIBC)) == []


def test_header_is_valid_cplusplus(staged, tmp_path):
    """Compositors in C++ (KWin) include it too: extern "C" and no C-only syntax."""
    if shutil.which('c++') is None:
        import pytest
        pytest.fail('no C++ compiler (setup.sh installs g++)')
    src = tmp_path / 'use.cc'
    src.write_text('#include <parallax.h>\nint main() { px_offset o{}; return (int)px_interpolate(o.x, 0, 0); }\n')
    out = subprocess.run(['c++', '-Wall', '-Wextra', '-Werror'] + staged.pkg_config('--cflags') + [str(src), '-o',
                         str(tmp_path / 'use')] + staged.pkg_config('--libs'), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_uninstall_removes_everything(staged, workdir):
    dest = os.path.join(workdir, 'dest')
    build = os.path.join(staged.scratch, 'build')
    for target in ('install-libparallax', 'uninstall-libparallax'):
        out = subprocess.run(['make', '-C', libpx.REPO_ROOT, '--no-print-directory', target, 'DESTDIR=' + dest,
                              'PREFIX=/usr/local', 'LIBPX_BUILD=' + build], capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr
    left = [os.path.join(d, f) for d, _, files in os.walk(dest) for f in files]
    assert left == []


def test_man_page_renders(staged):
    page = os.path.join(staged.prefix, 'share/man/man3/libparallax.3')
    out = subprocess.run(['groff', '-man', '-Tutf8', '-ww', '-z', page], capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr == '', out.stderr


def test_smallest_client_in_the_docs_builds_and_runs(staged, workdir, socket_path, fake_daemons):
    """docs/client-kit.md's "smallest complete client", compiled as printed, reads an offset."""
    import select
    import signal
    with open(os.path.join(libpx.REPO_ROOT, 'docs', 'client-kit.md')) as f:
        text = f.read()
    section = text[text.index('## C: libparallax'):]
    code = re.search(r'```c\n(.*?)```', section, re.S).group(1)
    source = os.path.join(workdir, 'tilt.c')
    with open(source, 'w') as f:
        f.write(code)
    binary = staged.build(source, os.path.join(workdir, 'tilt'))
    server = libpx.FakeDaemon(socket_path)
    fake_daemons.append(server)
    # stdbuf: line-buffered stdout, as on a terminal (the example does not flush).
    proc = subprocess.Popen(['stdbuf', '-oL', binary], stdout=subprocess.PIPE,
                            env=staged.run_env({'PARALLAXD_SOCKET': socket_path}))
    try:
        conn, _ = server.handshake()
        conn.line(libpx.offset_line(1, 0.5, -0.25))
        r, _, _ = select.select([proc.stdout], [], [], 10)
        assert r, 'the docs client printed nothing'
        assert proc.stdout.readline().decode() == 'x +0.5000  y -0.2500  -> layer at +10.0 px\n'
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
