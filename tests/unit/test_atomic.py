"""league/atomic.py: a write that fails part way leaves the previous file whole and no
temporary file behind; text and binary; the directory is made."""

from __future__ import annotations

import pytest

from league.atomic import atomic_write, atomic_write_bytes, atomic_write_text


def test_a_failed_write_leaves_the_previous_file_and_nothing_else(tmp_path):
    path = tmp_path / "sub" / "state.json"
    atomic_write_text(path, '{"v": 1}')

    def half(f):
        f.write('{"v": 2, "trunc')
        raise OSError("disk full (injected)")

    with pytest.raises(OSError, match="injected"):
        atomic_write(path, half)
    assert path.read_text() == '{"v": 1}' and [p.name for p in path.parent.iterdir()] == ["state.json"]
    atomic_write_bytes(path, b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01" and len(list(path.parent.iterdir())) == 1
