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


def test_remove_stale_takes_only_the_halves_a_killed_writer_left(tmp_path):
    from league.atomic import remove_stale

    (tmp_path / "checkpoints").mkdir()
    done = atomic_write_text(tmp_path / "checkpoints" / "ckpt_000000004.pt", "whole")
    half = tmp_path / "checkpoints" / ".ckpt_000000006.pt.x1y2.tmp"
    half.write_text("hal")
    keep = tmp_path / "notes.tmp"  # not one of ours (no leading dot): kept
    keep.write_text("mine")
    assert remove_stale(tmp_path) == [half]
    assert done.read_text() == "whole" and keep.exists() and not half.exists()
