"""Programs the tests run as another account (`nobody` through setpriv, as root).

Such an account cannot reach a clone inside a 0700 folder (a clone under /root is the usual
case), so whatever it executes or reads from the repository is copied first into a folder under
/tmp that every account can read: `shared_copy(path)`. The copies are made whether or not the
account could reach the original, so a test behaves the same wherever the repository lies; each
file is copied once per process, and the folder is removed when the process exits.

Processes run as the account also start in a folder it can enter (`NEUTRAL_CWD`): the caller's
working directory is usually the clone."""
import atexit
import os
import shutil
import stat
import tempfile

ACCOUNT = 'nobody'
GROUP = 'nogroup'
# A working directory every account may enter (inheriting the clone as cwd fails there).
NEUTRAL_CWD = '/'

_folder = None
_copies = {}


def _shared_folder():
    global _folder
    if _folder is None:
        _folder = tempfile.mkdtemp(prefix='plx-shared-', dir='/tmp')
        os.chmod(_folder, 0o755)
        atexit.register(shutil.rmtree, _folder, True)
    return _folder


def _open_to_everyone(path):
    """Gives everyone read access (and search/execute where the owner had it)."""
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        return
    wanted = 0o755 if stat.S_ISDIR(mode) or mode & stat.S_IXUSR else 0o644
    os.chmod(path, wanted)


def shared_copy(path):
    """A copy of the file or folder `path` that any account can read (executables stay
    executable); the same copy for the same unchanged path within this process."""
    real = os.path.realpath(path)
    st = os.stat(real)
    key = (real, st.st_mtime_ns, st.st_size)
    if key in _copies:
        return _copies[key]
    target_dir = tempfile.mkdtemp(prefix='copy-', dir=_shared_folder())
    os.chmod(target_dir, 0o755)
    target = os.path.join(target_dir, os.path.basename(real))
    if os.path.isdir(real):
        shutil.copytree(real, target, symlinks=True)
        for top, dirs, files in os.walk(target):
            for name in dirs + files:
                _open_to_everyone(os.path.join(top, name))
    else:
        shutil.copy2(real, target)
    _open_to_everyone(target)
    _copies[key] = target
    return target


def account_can_read(path, uid):
    """Whether `uid` (not root, in no group that owns anything here) can open `path`: every folder
    on the way searchable and the file readable by others, or owned by it."""
    real = os.path.realpath(path)
    parts = [real]
    while parts[-1] != '/':
        parts.append(os.path.dirname(parts[-1]))
    for i, p in enumerate(parts):
        st = os.stat(p)
        need = stat.S_IROTH if i == 0 else stat.S_IXOTH
        own = stat.S_IRUSR if i == 0 else stat.S_IXUSR
        if not (st.st_mode & need or (st.st_uid == uid and st.st_mode & own)):
            return False
    return True
