"""Reading stored or outside JSON: its nesting counted before json.loads, so a planted or
damaged text is one ValueError, never Python's recursion limit."""

from __future__ import annotations

import pytest

from iris_gui.engine.records.jsonable import MAX_DEPTH, loads, nesting


def test_a_record_within_the_bound_reads_as_json_loads_does() -> None:
    assert loads('{"a": [1, {"b": "[[[not nesting]]]"}]}') == {"a": [1, {"b": "[[[not nesting]]]"}]}
    assert loads(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None
    assert nesting(b'{"q": "a \\" [ quote"}') == 1  # an escaped quote keeps the string open


@pytest.mark.parametrize(("text", "words"), [
    ("[" * 100_000 + "]" * 100_000, "it is nested 100,000 levels deep (at most 64)"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "it is nested 65 levels deep"),
    ("{oops", "Expecting property name"),
])
def test_too_deep_or_not_json_is_one_value_error(text, words) -> None:
    with pytest.raises(ValueError) as refused:
        loads(text)
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_no_text_is_a_type_error_as_json_loads_raises() -> None:
    with pytest.raises(TypeError, match="NoneType is not JSON text"):
        loads(None)  # a QSettings value that was never set
