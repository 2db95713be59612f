"""The wire format between machines (iris_gui/engine/remote/framing.py and wire.py):
length-prefixed JSON of [kind, job, payload], arrays as base64 of little-endian numbers, a
MAGIC preamble, never pickle, and what arrives bounded and cleaned before it is read."""

from __future__ import annotations

import io
import json
import math
import pickle
import struct

import numpy as np
import pytest

from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.remote import framing
from iris_gui.engine.remote import wire as framing_wire
from iris_gui.engine.remote.framing import (
    MAGIC,
    MAX_FRAME,
    MAX_NOISE,
    FramingError,
    StreamClosed,
    decode,
    encode,
    read_frame,
    skip_to_magic,
    write_frame,
)
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.workers.messages import Asked, MessageError, checked


def round_trip(kind: str, payload: object, job: int = 7) -> tuple[str, object]:
    """Through a byte stream, as the two ends see it."""
    stream = io.BytesIO()
    write_frame(stream, kind, payload, job)
    stream.seek(0)
    got_kind, got_job, got = read_frame(stream)
    assert stream.read() == b"", "a frame left bytes behind"
    assert got_job == (0 if kind in framing.GREETINGS else job)
    return got_kind, got


class Trickle(io.RawIOBase):
    """A pipe that hands out at most ``step`` bytes per read, as a pipe or socket may."""

    def __init__(self, data: bytes, step: int = 1) -> None:
        self._data, self._step, self._at = data, step, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        size = self._step if size < 0 else min(size, self._step)
        part = self._data[self._at: self._at + size]
        self._at += len(part)
        return part


def assert_same_array(got: object, want: np.ndarray) -> None:
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == want.dtype.newbyteorder("=")
    assert got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=want.dtype.kind == "f")


# -- payloads -------------------------------------------------------------------------------

def test_nested_plain_data_round_trips() -> None:
    payload = {"a": 1, "b": [1, 2.5, "three", None, True, False],
               "c": {"d": {"e": [[], {}, ""]}}, "unicode": "µs/epoch → naïve"}
    assert round_trip("job", payload) == ("job", payload)


def test_tuples_arrive_as_lists_and_numpy_scalars_as_python_numbers() -> None:
    kind, payload = round_trip("x", (1, (2, 3), np.float32(1.5), np.int64(7)))
    assert kind == "x"
    assert payload == [1, [2, 3], 1.5, 7]
    assert type(payload[2]) is float and type(payload[3]) is int


def test_no_payload_is_none() -> None:
    assert round_trip("quit", None) == ("quit", None)


def test_nan_and_infinities_survive() -> None:
    _, payload = round_trip("v", [math.nan, math.inf, -math.inf, -0.0, 1e-310])
    assert math.isnan(payload[0])
    assert payload[1] == math.inf and payload[2] == -math.inf
    assert payload[3] == 0.0 and math.copysign(1, payload[3]) == -1
    assert payload[4] == 1e-310


@pytest.mark.parametrize("array", [
    np.array([0.1, -2.5, np.nan, np.inf, -np.inf, 3.4e38], dtype=np.float32),
    np.array([0.1, 1e-300, np.nan, -np.inf], dtype=np.float64),
    np.array([0, -1, 2**62, -(2**63)], dtype=np.int64),
    np.array([0, -1, 2**31 - 1], dtype=np.int32),
    np.zeros(0, dtype=np.float32),
    np.zeros(0, dtype=np.int64),
    np.zeros((0, 3), dtype=np.float64),
    np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
    np.arange(24, dtype=np.int64).reshape(2, 3, 4),
], ids=["f4", "f8", "i8", "i4", "empty-f4", "empty-i8", "empty-2d", "2d-f4", "3d-i8"])
def test_arrays_round_trip_exactly(array: np.ndarray) -> None:
    _, payload = round_trip("arrays", {"a": array, "in": [array]})
    assert_same_array(payload["a"], array)
    assert_same_array(payload["in"][0], array)


def test_float32_bits_are_kept() -> None:
    """Not through a decimal: every float32 bit pattern comes back (what makes a remote curve
    equal to a local one)."""
    rng = np.random.default_rng(1)
    array = rng.standard_normal(1000).astype(np.float32) * np.float32(1e-3)
    _, got = round_trip("curve", array)
    assert got.tobytes() == array.tobytes()


def test_non_contiguous_and_big_endian_arrays_arrive_as_their_values() -> None:
    matrix = np.arange(6, dtype=np.float64).reshape(2, 3)
    _, got = round_trip("t", matrix.T)
    assert_same_array(got, np.ascontiguousarray(matrix.T))
    big = np.array([1.5, -2.25], dtype=">f4")
    _, got = round_trip("b", big)
    assert got.dtype == np.float32 and got.tolist() == [1.5, -2.25]


def test_an_array_is_tagged_base64_in_json() -> None:
    body = encode("a", np.array([1.0], dtype=np.float32), 3)[4:]
    kind, job, payload = json.loads(body)
    assert (kind, job) == ("a", 3)
    assert payload == {"$nd": "<f4", "shape": [1], "b64": "AACAPw=="}


def test_a_chunk_round_trips_as_its_fields_and_is_read_back_as_a_chunk() -> None:
    chunk = Chunk(first_epoch=200, losses=np.array([1.25, 0.5, np.nan], dtype=np.float32),
                  stride=2, epochs_done=206, stamp=1764612345.25)
    _, fields = round_trip("chunk", chunk)
    assert isinstance(fields, dict) and set(fields) == set(vars(chunk))
    got = checked("chunk", fields, Asked(7, "run", RunConfig(epochs=300, record="every:2")))
    assert isinstance(got, Chunk)
    assert (got.first_epoch, got.stride, got.epochs_done, got.stamp) == (200, 2, 206,
                                                                           1764612345.25)
    assert_same_array(got.losses, chunk.losses)


def test_the_result_message_round_trips() -> None:
    """("result", (record, losses, (epochs, seconds))), as the worker answers a run."""
    config = RunConfig(epochs=300, seed=3, device="cpu")
    result = RunResult(
        config=config, status=RunStatus.COMPLETED, message="", epochs_completed=300,
        losses=np.linspace(1.1, 0.3, 300).astype(np.float32), final_loss=0.3,
        train_accuracy=0.9, test_accuracy=math.nan, confusion_matrix=[[1, 0], [0, 1]],
        timings=Timings(setup_seconds=0.5), env=EnvRecord(device="cpu", execution="process"),
        chunk_epochs=np.array([100, 100, 100], dtype=np.int64),
        chunk_seconds=np.array([0.01, 0.02, 0.015], dtype=np.float64))
    message = (result.to_dict(), result.losses, (result.chunk_epochs, result.chunk_seconds))
    kind, payload = round_trip("result", message)
    assert kind == "result"
    record, losses, chunks = payload
    assert record == json.loads(json.dumps(result.to_dict()))
    assert_same_array(losses, result.losses)
    assert_same_array(chunks[0], result.chunk_epochs)
    assert_same_array(chunks[1], result.chunk_seconds)
    again = checked("result", payload, Asked(7, "run", config))
    assert again.config == config
    assert again.status is RunStatus.COMPLETED and again.epochs_completed == 300
    assert np.array_equal(again.losses, result.losses)
    assert math.isnan(again.test_accuracy) and again.train_accuracy == 0.9


# -- refusals -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float16, np.complex64, np.uint8, np.bool_])
def test_arrays_of_other_dtypes_are_not_sent(dtype: type) -> None:
    with pytest.raises(MessageError, match="cannot be sent"):
        encode("a", {"x": np.zeros(3, dtype=dtype)})


def test_an_object_array_is_not_sent() -> None:
    with pytest.raises(MessageError):
        encode("a", np.array([object()], dtype=object))


@pytest.mark.parametrize("code", ["<f2", "|O", "<c8", "bogus"])
def test_an_array_of_an_unknown_dtype_is_refused_on_arrival(code: str) -> None:
    body = json.dumps(["a", 0, {"$nd": code, "shape": [1], "b64": "AAAAAA=="}]).encode()
    with pytest.raises(MessageError, match="allowed"):
        decode(body)


class Arbitrary:
    def __reduce__(self):  # what pickle would run on the far end
        return (print, ("pwned",))


def test_arbitrary_objects_are_never_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pickle(*args, **kwargs):
        raise AssertionError("pickle was used")

    monkeypatch.setattr(pickle, "dumps", no_pickle)
    monkeypatch.setattr(pickle, "loads", no_pickle)
    monkeypatch.setattr(pickle, "Pickler", no_pickle)
    monkeypatch.setattr(pickle, "Unpickler", no_pickle)
    for payload in (Arbitrary(), {"x": Arbitrary()}, [1, {1, 2}], b"bytes", {"f": print}):
        with pytest.raises((TypeError, MessageError)):
            encode("job", payload)
    # and what does go is plain JSON, readable without any Python object
    body = encode("job", {"x": [1, 2]}, 2)[4:]
    assert json.loads(body) == ["job", 2, {"x": [1, 2]}]


def test_a_received_object_description_stays_data() -> None:
    """A far end naming a class gets a dict back, never an instance."""
    body = json.dumps(["job", 1, {"py/object": "os.system", "__reduce__": ["rm", "-rf"]}]).encode()
    assert decode(body) == ("job", 1, {"py/object": "os.system", "__reduce__": ["rm", "-rf"]})


@pytest.mark.parametrize("body", [
    b"not json", b"\xff\xfe", b"", b'["a"]', b"[1, 2]", b'["a", 1, 2, 3]', b'["chunk", {}]',
    b'["a", -1, 2]', b'["a", true, 2]', b'["a", 1.5, 2]', b'["A B", 1, 2]', b'{"a": 1}',
    b'["a", 0, {"$nd": "<f4", "shape": [3], "b64": "AACAPw=="}]',
    b'["a", 0, {"$nd": "<f4", "shape": [1], "b64": "!!"}]',
    b'["a", 0, {"$nd": "<f4", "shape": [1]}]',
    b'["a", 0, {"$nd": "<f4", "shape": [1], "b64": "AACAPw==", "more": 1}]',
    b'["a", 0, {"$nd": "<f4", "shape": [-1], "b64": "AACAPw=="}]',
    b'["a", 0, {"$nd": "<f4", "shape": "1", "b64": "AACAPw=="}]',
    b'["a", 0, {"$nd": "<f4", "shape": [1, 1, 1, 1, 1], "b64": "AACAPw=="}]',
    b'["a", 0, {"$nd": "<f4", "shape": [1], "b64": 5}]',
    b'["a", 0, ' + b"[" * 5000 + b"]" * 5000 + b"]",
    b'["a", 0, "' + b"x" * 5000 + b'"]',
], ids=lambda body: repr(body[:40]))
def test_corrupt_bodies_are_message_errors(body: bytes) -> None:
    with pytest.raises(MessageError):
        decode(body)


def test_nesting_is_counted_outside_strings() -> None:
    assert framing_wire.nesting(b'["a", 0, {"b": [[1]]}]') == 4
    assert framing_wire.nesting(b'["a", 0, "[[[[{{{{\\\"[["]') == 1
    assert framing_wire.nesting(b"5") == 0


def test_received_text_loses_its_control_characters() -> None:
    """An escape sequence from the far end reaches no terminal or label as one."""
    body = json.dumps(["error", 3, "\x1b]0;pwned\x07\x1b[2Jred\u202eevil\nline\x00"]).encode()
    assert decode(body) == ("error", 3, "]0;pwned[2Jredevilline")
    keys = json.dumps(["x", 1, {"\x1b[31mkey": "v"}]).encode()
    assert decode(keys)[2] == {"[31mkey": "v"}


@pytest.mark.parametrize("size", [MAX_FRAME + 1, 2**32 - 1])
def test_an_oversized_announcement_is_refused_before_reading(size: int) -> None:
    stream = io.BytesIO(struct.pack(">I", size) + b"x" * 100)
    with pytest.raises(FramingError, match="over the") as caught:
        read_frame(stream)
    assert not isinstance(caught.value, StreamClosed)
    assert stream.tell() == 4, "the announced body was read (or allocated) anyway"


def test_a_frame_of_exactly_the_limit_is_announced_fine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "MAX_FRAME", 64)
    small = encode("k", "x" * 10)
    assert read_frame(io.BytesIO(small)) == ("k", 0, "x" * 10)
    with pytest.raises(FramingError, match="over the 64 byte limit"):
        encode("k", "x" * 100)
    exact = json.dumps(["k", 0, "y" * 54], separators=(",", ":")).encode()
    assert len(exact) == 64
    assert read_frame(io.BytesIO(struct.pack(">I", 64) + exact + b"\n")) == ("k", 0, "y" * 54)
    over = json.dumps(["k", 0, "y" * 55], separators=(",", ":")).encode()
    with pytest.raises(FramingError, match="65 bytes was announced"):
        read_frame(io.BytesIO(struct.pack(">I", len(over)) + over + b"\n"))


class LineForwarder(io.RawIOBase):
    """What a launcher that forwards output a line at a time (srun without -u) lets through:
    the bytes up to the last newline written; the rest waits for one."""

    def __init__(self, written: bytes) -> None:
        self.released = io.BytesIO(written[: written.rfind(b"\n") + 1])

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.released.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def test_a_line_at_a_time_forwarder_passes_every_frame_whole() -> None:
    frames = [encode("hello", {"text": "two\nlines", "protocol": 2}),
              encode("chunk", {"losses": np.arange(10, dtype=np.float32)}), encode("stop")]
    # A newline in a string is escaped: each frame's own last byte is the newline it ends with.
    assert all(frame.endswith(b"\n") and b"\n" not in frame[4:-1] for frame in frames)
    stream = LineForwarder(b"".join(frames))
    assert [read_frame(stream)[0] for _ in frames] == ["hello", "chunk", "stop"]


def test_a_frame_that_does_not_end_where_its_length_says_is_refused() -> None:
    frame = encode("chunk", [1, 2, 3])
    with pytest.raises(FramingError, match="did not end where its length said") as caught:
        read_frame(io.BytesIO(frame[:-1] + b"x" + encode("stop")))
    assert not isinstance(caught.value, StreamClosed)
    with pytest.raises(StreamClosed):  # the channel closed before the frame's last byte
        read_frame(io.BytesIO(frame[:-1]))


def test_an_empty_stream_is_closed() -> None:
    with pytest.raises(StreamClosed, match="^the channel closed$"):
        read_frame(io.BytesIO(b""))


@pytest.mark.parametrize("cut", [1, 3, 4, 5, 20])
def test_a_stream_that_ends_mid_frame_is_closed(cut: int) -> None:
    frame = encode("chunk", {"losses": np.ones(8, dtype=np.float32)})
    assert len(frame) > 20
    with pytest.raises(StreamClosed) as caught:
        read_frame(io.BytesIO(frame[:cut]))
    if cut != 4:  # cut after the length: the body's read finds nothing ("the channel closed")
        assert "middle of a message" in str(caught.value)


def test_frames_arrive_through_short_reads() -> None:
    frames = encode("a", [1, 2]) + encode("b", np.arange(5, dtype=np.int64), 4) + encode("c")
    stream = Trickle(frames, step=3)
    assert read_frame(stream) == ("a", 0, [1, 2])
    kind, job, array = read_frame(stream)
    assert (kind, job) == ("b", 4) and array.tolist() == [0, 1, 2, 3, 4]
    assert read_frame(stream) == ("c", 0, None)
    with pytest.raises(StreamClosed):
        read_frame(stream)


# -- the preamble ---------------------------------------------------------------------------

def test_skip_to_magic_keeps_a_banner() -> None:
    stream = Trickle(b"Welcome to lab\n" + MAGIC + encode("hello", {"protocol": 1}), step=7)
    assert skip_to_magic(stream) == b"Welcome to lab\n"
    assert read_frame(stream) == ("hello", 0, {"protocol": 1})


def test_skip_to_magic_without_noise() -> None:
    stream = io.BytesIO(MAGIC + encode("hello"))
    assert skip_to_magic(stream) == b""
    assert read_frame(stream) == ("hello", 0, None)


def test_skip_to_magic_takes_up_to_the_limit_of_noise() -> None:
    noise = b"n" * MAX_NOISE
    stream = io.BytesIO(noise + MAGIC + encode("hello"))
    assert skip_to_magic(stream) == noise
    assert read_frame(stream) == ("hello", 0, None)


def test_skip_to_magic_refuses_more_than_64_kib_of_noise() -> None:
    stream = io.BytesIO(b"banner line\n" * (MAX_NOISE // 12 + 10) + MAGIC)
    with pytest.raises(FramingError, match="64 KiB") as caught:
        skip_to_magic(stream)
    assert not isinstance(caught.value, StreamClosed)
    assert stream.tell() <= MAX_NOISE + len(MAGIC) + 1, "it kept reading past the limit"


def test_a_stream_ending_before_magic_says_what_was_printed() -> None:
    stream = io.BytesIO(b"sh: 1: iris-gui: not found\n")
    with pytest.raises(StreamClosed, match="^sh: 1: iris-gui: not found$"):
        skip_to_magic(stream)
