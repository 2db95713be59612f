"""Messages between machines: length-prefixed frames of JSON (its values: wire.py).

Never pickle across machines: unpickling runs whatever the other side names, and the other side
is a process reached over a network. A frame is a 4-byte big-endian length, that many bytes
of UTF-8 JSON holding ``[kind, job, payload]``, and a newline the reader checks and skips: a
launcher between the ends that forwards output a line at a time (Slurm's ``srun`` without
``-u``, a pipe through ``stdbuf -oL``) passes each frame on whole instead of holding it for a
newline that would never come. JSON escapes the newlines in its strings, so the last byte is
the only one. ``job`` is the number of the job a message is about (0: none, as for a list of
devices); the greeting alone is ``[kind, payload]``, in every version of the protocol, so that
a worker of another version is still understood well enough to be named.

The stream starts with ``MAGIC``, written by the remote end before its first frame: a login
shell that prints a banner to stdout (a ``.bashrc`` echo) would otherwise be read as a length.
The reader skips up to ``MAX_NOISE`` bytes of such text and keeps it for the error message.
"""

from __future__ import annotations

import json
import re
import struct
from typing import IO, Any

from iris_gui.engine.remote.wire import from_json, to_wire
from iris_gui.engine.workers.messages import MessageError

MAGIC = b"\x00IRIS-GUI-WORKER\n"
MAX_NOISE = 64 * 1024
# The largest frame accepted: a run of 10 million epochs recorded every epoch is 40 MB of
# float32, 53 MB in base64. Anything larger is a corrupt length, not a message.
MAX_FRAME = 256 * 2**20
GREETINGS = ("hello", "refused")  # the kinds sent as [kind, payload], without a job
_KIND = re.compile(r"[a-z][a-z-]{0,31}")
_LEADING_KIND = re.compile(rb'\s*\[\s*"([a-z][a-z-]{0,31})"')  # to name a message that is not read
_LENGTH = struct.Struct(">I")
_END = b"\n"

Frame = tuple[str, int, Any]  # kind, job, payload


class FramingError(MessageError):
    """The stream is not this protocol: a corrupt frame, or the wrong program at the far end."""


class StreamClosed(FramingError):
    """The other end closed the channel (between frames or in the middle of one)."""


def encode(kind: str, payload: Any = None, job: int = 0) -> bytes:
    """A frame; a greeting's has no job."""
    message = [kind, to_wire(payload)] if kind in GREETINGS else [kind, job, to_wire(payload)]
    body = json.dumps(message, separators=(",", ":")).encode()
    if len(body) > MAX_FRAME:
        raise FramingError(f"a {kind!r} message of {len(body):,} bytes is over the "
                           f"{MAX_FRAME:,} byte limit")
    return _LENGTH.pack(len(body)) + body + _END


def decode(body: bytes) -> Frame:
    """``(kind, job, payload)``, the job 0 for a greeting; MessageError for anything else."""
    try:
        message = from_json(body)
    except MessageError as error:
        kind = _LEADING_KIND.match(body)
        named = f"its {kind.group(1).decode()!r} message" if kind else "a message"
        raise MessageError(f"{named} {error}") from None
    if (not isinstance(message, list) or len(message) not in (2, 3)
            or not isinstance(message[0], str) or not _KIND.fullmatch(message[0])):
        raise FramingError("a message is not [kind, job, payload] with a kind of up to 32 "
                           "lowercase letters and dashes")
    if len(message) == 2:
        if message[0] not in GREETINGS:
            raise FramingError(f"a {message[0]!r} message came without its job number")
        return message[0], 0, message[1]
    kind, job, payload = message
    if kind in GREETINGS:
        raise FramingError(f"its {kind!r} message came as [kind, job, payload]; a greeting is "
                           "[kind, payload]: it is not iris-gui's worker of this protocol")
    if not isinstance(job, int) or isinstance(job, bool) or job < 0:
        raise FramingError(f"a {kind!r} message's job is not a number of 0 or more")
    return kind, job, payload


def write_frame(stream: IO[bytes], kind: str, payload: Any = None, job: int = 0) -> None:
    stream.write(encode(kind, payload, job))
    stream.flush()


def read_exactly(stream: IO[bytes], size: int) -> bytes:
    parts: list[bytes] = []
    left = size
    while left:
        part = stream.read(left)
        if not part:
            raise StreamClosed("the channel closed in the middle of a message"
                               if parts or left != size else "the channel closed")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def read_frame(stream: IO[bytes]) -> Frame:
    (size,) = _LENGTH.unpack(read_exactly(stream, _LENGTH.size))
    if size > MAX_FRAME:
        raise FramingError(f"a message of {size:,} bytes was announced (over the {MAX_FRAME:,} "
                           "byte limit): the stream is corrupt")
    body = read_exactly(stream, size)
    if read_exactly(stream, len(_END)) != _END:
        raise FramingError("a message did not end where its length said: the stream is corrupt")
    return decode(body)


def skip_to_magic(stream: IO[bytes]) -> bytes:
    """Read up to and including ``MAGIC``; return what came before it (a banner, an error)."""
    seen = bytearray()
    while not seen.endswith(MAGIC):
        byte = stream.read(1)
        if not byte:
            raise StreamClosed(bytes(seen).decode(errors="replace").strip())
        seen += byte
        if len(seen) > MAX_NOISE + len(MAGIC):
            raise FramingError("the far end printed more than 64 KiB without starting the "
                               "worker protocol: it is not iris-gui's worker")
    return bytes(seen[: -len(MAGIC)])
