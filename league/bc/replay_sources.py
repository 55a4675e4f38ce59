"""Where replays come from, read as a stream: memory stays flat whatever the input size.

A source (SRC) is one of
- a directory of the replay site's ``.json`` files and raw ``.log`` files;
- a JSON-lines file: one replay object (``{"id", "log", "format", "rating", ...}``, what
  the replay site serves) a line;
- a dump: one JSON object ``{battle_id: [timestamp, log], ...}`` (or ``{battle_id: log}``),
  how public datasets ship a format's battles; read entry by entry, never whole.

Each replay is a :class:`ReplaySource`; what it says of itself (its format and rating,
from the JSON object's fields or from the log's ``|tier|`` and ladder rating lines) lets a
reader filter before parsing (:func:`replay_meta`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CHUNK = 1 << 20  # bytes read at a time from a dump


class ReplayError(ValueError):
    """A malformed or unsupported replay: names the file and the log line."""


def to_id(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@dataclass(frozen=True)
class ReplaySource:
    """One replay to read: a ``.json`` / ``.log`` file, or one record of a JSON-lines file
    or of a dump (its JSON text)."""

    name: str  # what messages name: the file, or FILE:LINE / FILE:ID of a record
    path: Path
    record: str | None = None  # a record's JSON text

    @property
    def is_log(self) -> bool:
        return self.record is None and self.path.suffix == ".log"

    def where(self, line: int | None) -> str:
        """``FILE:LINE`` for a raw log, ``FILE: log line LINE`` for a log inside JSON."""
        if line is None:
            return self.name
        return f"{self.name}:{line}" if self.is_log else f"{self.name}: log line {line}"

    def key(self) -> str:
        """Stable name for the held-out split (independent of where SRC lies)."""
        return self.path.name + (self.name[len(str(self.path)) :] if self.record is not None else "")

    def read(self) -> tuple[str, str]:
        """-> (replay id, log text); ReplayError for an unreadable one."""
        replay_id, log, _ = self.read_object()
        return replay_id, log

    def read_object(self) -> tuple[str, str, dict]:
        """-> (replay id, log text, the replay's JSON object: {} for a raw log)."""
        if self.is_log:
            try:
                return self.path.stem, self.path.read_text(encoding="utf-8"), {}
            except (OSError, UnicodeDecodeError) as e:
                raise ReplayError(f"{self.name}: cannot read ({e})") from None
        try:
            text = self.record if self.record is not None else self.path.read_text(encoding="utf-8")
            obj = json.loads(text)
        except (OSError, UnicodeDecodeError) as e:
            raise ReplayError(f"{self.name}: cannot read ({e})") from None
        except json.JSONDecodeError as e:
            where = self.name if self.record is not None else f"{self.name}:{e.lineno}"
            raise ReplayError(f"{where}: not JSON ({e.msg})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("log"), str):
            raise ReplayError(f"{self.name}: a replay is a JSON object with a 'log' string (the replay site's .json)")
        return str(obj.get("id") or self.path.stem), obj["log"], obj


_RATING = re.compile(r"^\|raw\|.*?'s rating: (\d+)", re.M)


def replay_meta(log: str, obj: dict) -> tuple[str, float | None]:
    """(format id, rating) as the replay states them: the JSON object's ``formatid`` /
    ``format`` and ``rating``, else the log's ``|tier|`` line and the mean of the ladder's
    "NAME's rating: N" lines (the players' ratings before the battle); "" / None when it
    does not say."""
    fmt = obj.get("formatid") or obj.get("format") or ""
    if not fmt and (m := re.search(r"^\|tier\|(.*)$", log, re.M)):
        fmt = m.group(1)
    rating = obj.get("rating")
    if not isinstance(rating, int | float) or isinstance(rating, bool):
        found = [int(r) for r in _RATING.findall(log)]
        rating = sum(found) / len(found) if found else None
    return to_id(str(fmt)), (float(rating) if rating is not None else None)


def iter_replay_sources(src: str | Path) -> Iterator[ReplaySource]:
    """The replays of SRC, one at a time (see the module docstring); ReplayError naming
    the fix when SRC is none of them or holds none."""
    src = Path(src)
    if src.is_dir():
        files = sorted(p for p in src.iterdir() if p.is_file() and p.suffix in (".json", ".log"))
        if not files:
            raise ReplayError(f"{src}: no *.json or *.log replays in this directory")
        for p in files:
            yield ReplaySource(str(p), p)
        return
    if not src.is_file():
        raise ReplayError(
            f"{src}: no such file or directory; give a directory of .json/.log replays, a JSON-lines file or a dump"
        )
    found = False
    reader = _dump_records if _is_dump(src) else _json_lines
    for source in reader(src):
        found = True
        yield source
    if not found:
        raise ReplayError(f"{src}: empty; give a JSON-lines file (one replay object a line), a dump or a directory")


def replay_sources(src: str | Path) -> list[ReplaySource]:
    return list(iter_replay_sources(src))


def _json_lines(src: Path) -> Iterator[ReplaySource]:
    try:
        with open(src, encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                if line.strip():
                    yield ReplaySource(f"{src}:{no}", src, line)
    except (OSError, UnicodeDecodeError) as e:
        raise ReplayError(f"{src}: cannot read ({e})") from None


def _is_dump(src: Path) -> bool:
    """A dump is one object whose first value is a [timestamp, log] pair or a log string
    (a replay object's first value is neither: its keys are "id", "format", ...)."""
    try:
        with open(src, encoding="utf-8") as f:
            head = f.read(4096)
    except (OSError, UnicodeDecodeError) as e:
        raise ReplayError(f"{src}: cannot read ({e})") from None
    m = re.match(r'\s*\{\s*"((?:[^"\\]|\\.)*)"\s*:\s*(\S)', head)
    if not m:
        return False
    return m.group(2) == "[" or (m.group(2) == '"' and m.group(1) not in ("id", "format", "formatid", "log"))


def _dump_records(src: Path) -> Iterator[ReplaySource]:
    """``{battle_id: [timestamp, log], ...}`` entry by entry: each value decoded alone from
    a buffer refilled ``CHUNK`` bytes at a time."""
    dec = json.JSONDecoder()
    try:
        f = open(src, encoding="utf-8")  # noqa: SIM115 - closed in the finally below
    except OSError as e:
        raise ReplayError(f"{src}: cannot read ({e})") from None
    try:
        buf, pos, eof = "", 0, False

        def more() -> bool:
            nonlocal buf, pos, eof
            chunk = f.read(CHUNK)
            eof = not chunk
            buf, pos = buf[pos:] + chunk, 0
            return not eof

        def skip_ws() -> str:
            nonlocal pos
            while True:
                while pos < len(buf) and buf[pos] in " \t\r\n":
                    pos += 1
                if pos < len(buf) or not more():
                    return buf[pos] if pos < len(buf) else ""

        def value():
            nonlocal pos
            while True:
                try:
                    v, end = dec.raw_decode(buf, pos)
                    if end < len(buf) or eof:  # a number may go on in the next chunk
                        pos = end
                        return v
                except json.JSONDecodeError:
                    if eof:
                        raise ReplayError(f"{src}: not a complete JSON object (a truncated dump?)") from None
                more()

        if skip_ws() != "{":
            raise ReplayError(f"{src}: a dump is one JSON object {{battle_id: [timestamp, log], ...}}")
        pos += 1
        while True:
            c = skip_ws()
            if c == "}":
                return
            if c == ",":
                pos += 1
                continue
            key = value()
            if skip_ws() != ":":
                raise ReplayError(f"{src}: after the key {str(key)[:40]!r}: expected ':' (not a dump?)")
            pos += 1
            skip_ws()
            entry = value()
            log = entry[-1] if isinstance(entry, list) and entry else entry
            if not isinstance(log, str):
                raise ReplayError(f"{src}:{key}: expected [timestamp, log] or a log string")
            record = {"id": str(key), "log": log}
            if isinstance(entry, list) and len(entry) >= 2:
                record["uploadtime"] = entry[0]
            yield ReplaySource(f"{src}:{key}", src, json.dumps(record))
    finally:
        f.close()
