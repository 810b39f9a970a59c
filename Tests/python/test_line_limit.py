"""One server line limit in every client kit (docs/decisions.md, "One server line limit"): a line of
exactly MAX_LINE_BYTES is read, one byte more is dropped up to its newline and the connection stays
up. The same boundary is tested for libparallax and the Swift kit."""
import parallax
from hostile_server import HostileServer, offset_line
from pump import pump_until

# The limit the three kits share (bytes without "\n").
SHARED_LIMIT = 65536


def padded_offset(seq, x, length):
    """A valid offset frame of exactly `length` bytes (without "\n"), padded by an unknown field."""
    head = offset_line(seq, x=x)[:-2] + b',"pad":"'
    frame = head + b'p' * (length - len(head) - 2) + b'"}'
    assert len(frame) == length
    return frame + b'\n'


def test_the_limit_is_the_one_all_kits_share():
    assert parallax.MAX_LINE_BYTES == SHARED_LIMIT


def test_a_line_at_the_limit_is_read_and_one_byte_more_is_dropped(sock_path):
    server = HostileServer(sock_path)
    c = parallax.Client(sock_path)
    assert pump_until(c, lambda c: c.state.connected), c.state
    conn = server.wait_connection(0)
    conn.send(padded_offset(2, 0.5, SHARED_LIMIT))
    assert pump_until(c, lambda c: c.offset is not None and c.offset.seq == 2)
    conn.send(padded_offset(3, -0.5, SHARED_LIMIT + 1) + offset_line(4, x=0.75))
    assert pump_until(c, lambda c: c.offset.seq == 4)
    assert c._reader.discarded == 1 and c.state.connected
    c.close()
    server.stop()
