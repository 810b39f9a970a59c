"""The host's paths reach the guest unchanged: the repository and any share are mounted at their
host paths whatever those hold (spaces, quotes, commas, %, non-ASCII) and wherever they are
(under /tmp, where the guest mounts its own tmpfs)."""
import json

from labvm import REPO


def mounts(lab):
    """{mount point: (fstype, source)} from the guest's /proc/self/mountinfo (octal escapes decoded)."""
    out = {}
    for line in lab.read('/proc/self/mountinfo').splitlines():
        fields, _, rest = line.partition(' - ')
        point = fields.split()[4]
        fstype, source = rest.split()[:2]
        decode = lambda s: s.encode().decode('unicode_escape').encode('latin-1').decode()  # noqa: E731
        out[decode(point)] = (fstype, decode(source))
    return out


def test_shares_are_mounted_at_their_host_paths_above_the_guests_tmpfs(lab):
    m = mounts(lab)
    assert m.get(REPO) == ('9p', 'repo'), {k: v for k, v in m.items() if v[0] == '9p'}
    assert m.get(lab.odd_share) == ('9p', 'odd'), {k: v for k, v in m.items() if v[0] == '9p'}
    # The guest's own /tmp and /run are tmpfs, mounted before the shares, not over them.
    assert m.get('/tmp', ('?',))[0] == 'tmpfs' and m.get('/run', ('?',))[0] == 'tmpfs', m
    # The awkward directory's file, by its exact name (a request carries it as JSON, no shell).
    assert lab.read(lab.odd_share + '/marker') == lab.odd_share
    r = lab.run(['python3', '-c', 'import json, os, sys; print(json.dumps(sorted(os.listdir(sys.argv[1]))))',
                 lab.odd_share])
    assert r.rc == 0 and json.loads(r.stdout) == ['marker'], r
