"""Messages between machines: length-prefixed JSON, arrays as base64 of little-endian numbers.

Never pickle across machines: unpickling runs whatever the other side names, and the other side
is a process reached over a network. A frame is a 4-byte big-endian length, that many bytes
of UTF-8 JSON holding ``[kind, payload]``, and a newline the reader checks and skips: a launcher
between the ends that forwards output a line at a time (Slurm's ``srun`` without ``-u``, a pipe
through ``stdbuf -oL``) passes each frame on whole instead of holding it for a newline that
would never come. JSON escapes the newlines in its strings, so the last byte is the only one.
NaN and infinities pass as Python's JSON writes them (both ends are this program). An array
is ``{"$nd": dtype, "shape": [...], "b64": ...}`` with dtype one of ``ARRAY_DTYPES``; a
``Chunk`` is ``{"$chunk": {...}}``; tuples arrive as lists.

The stream starts with ``MAGIC``, written by the remote end before its first frame: a login
shell that prints a banner to stdout (a ``.bashrc`` echo) would otherwise be read as a length.
The reader skips up to ``MAX_NOISE`` bytes of such text and keeps it for the error message.
"""

from __future__ import annotations

import base64
import json
import struct
from typing import IO, Any

import numpy as np

from iris_gui.engine.records.result import Chunk
from iris_gui.engine.spec.errors import EngineError

MAGIC = b"\x00IRIS-GUI-WORKER\n"
MAX_NOISE = 64 * 1024
# The largest frame accepted: a run of 10 million epochs recorded every epoch is 40 MB of
# float32, 53 MB in base64. Anything larger is a corrupt length, not a message.
MAX_FRAME = 256 * 2**20
ARRAY_DTYPES = {"<f4": np.float32, "<f8": np.float64, "<i4": np.int32, "<i8": np.int64}
_LENGTH = struct.Struct(">I")
_END = b"\n"


class FramingError(EngineError):
    """The stream is not this protocol: a corrupt frame, or the wrong program at the far end."""


class StreamClosed(FramingError):
    """The other end closed the channel (between frames or in the middle of one)."""


def to_wire(value: Any) -> Any:
    """``value`` as JSON-ready data: arrays and chunks tagged, tuples as lists."""
    if isinstance(value, np.ndarray):
        dtype = value.dtype.newbyteorder("<")
        code = dtype.str
        if code not in ARRAY_DTYPES:
            raise FramingError(f"an array of {value.dtype} cannot be sent; allowed: "
                               f"{', '.join(ARRAY_DTYPES)}")
        data = np.ascontiguousarray(value, dtype=dtype).tobytes()
        return {"$nd": code, "shape": list(value.shape), "b64": base64.b64encode(data).decode()}
    if isinstance(value, Chunk):
        return {"$chunk": {"first_epoch": value.first_epoch, "losses": to_wire(value.losses),
                           "stride": value.stride, "epochs_done": value.epochs_done,
                           "stamp": value.stamp}}
    if isinstance(value, dict):
        return {str(key): to_wire(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_wire(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _from_wire(obj: dict[str, Any]) -> Any:
    if "$nd" in obj:
        dtype = ARRAY_DTYPES.get(obj["$nd"])
        if dtype is None:
            raise FramingError(f"an array of {obj['$nd']!r} was received; allowed: "
                               f"{', '.join(ARRAY_DTYPES)}")
        array = np.frombuffer(base64.b64decode(obj["b64"]), dtype=np.dtype(obj["$nd"]))
        return array.astype(dtype).reshape(obj["shape"])
    if "$chunk" in obj:
        return Chunk(**obj["$chunk"])
    return obj


def encode(kind: str, payload: Any = None) -> bytes:
    body = json.dumps([kind, to_wire(payload)], separators=(",", ":")).encode()
    if len(body) > MAX_FRAME:
        raise FramingError(f"a {kind!r} message of {len(body):,} bytes is over the "
                           f"{MAX_FRAME:,} byte limit")
    return _LENGTH.pack(len(body)) + body + _END


def decode(body: bytes) -> tuple[str, Any]:
    try:
        kind, payload = json.loads(body.decode(), object_hook=_from_wire)
    except (ValueError, TypeError) as error:
        raise FramingError(f"a message could not be read: {error}") from None
    if not isinstance(kind, str):
        raise FramingError("a message had no kind")
    return kind, payload


def write_frame(stream: IO[bytes], kind: str, payload: Any = None) -> None:
    stream.write(encode(kind, payload))
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


def read_frame(stream: IO[bytes]) -> tuple[str, Any]:
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
