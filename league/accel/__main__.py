"""``python -m league.accel build|status|clean``: see league/accel/__init__.py."""

from __future__ import annotations

import json
import sys

from league.accel import BuildError, build, clean, compiler, enabled, status
from league.accel import __doc__ as DOC


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m league.accel", description=(DOC or "").split("\n\n")[0])
    ap.add_argument("command", choices=["build", "status", "clean"])
    ap.add_argument("--force", action="store_true", help="build: recompile every module")
    ap.add_argument(
        "--optional",
        action="store_true",
        help="build: a machine that cannot compile (no C compiler) warns and exits 0 (plain Python)",
    )
    args = ap.parse_args(argv)
    if args.command == "status":
        print(json.dumps({"enabled": enabled(), "modules": status()}, indent=1))
        return 0
    if args.command == "clean":
        print(f"league.accel: removed {clean()} builds")
        return 0
    try:
        st = build(force=args.force)
    except BuildError as e:
        if args.optional and compiler() is None:
            print(f"warning: league.accel: {e}", file=sys.stderr)
            return 0
        print(f"error: league.accel: {e}", file=sys.stderr)
        return 1
    n = sum(v == "compiled" for v in st.values())
    print(f"league.accel: {n}/{len(st)} modules compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
