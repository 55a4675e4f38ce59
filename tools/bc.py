"""Behaviour cloning from Showdown battle logs.

    python -m tools.bc generate -n N --out LOG_DIR [--p1 SPEC --p2 SPEC] [--teams DIR] [--format ID]
                                [--servers K] [--concurrency C]
    python -m tools.bc parse LOG_DIR [--out DATA_DIR]
    python -m tools.bc parse-replays SRC --out DATA_DIR [--heldout-share S] [--workers K] [--only-format F] [--min-rating R] [--foe-sheets]
    python -m tools.bc as-replays LOG_DIR --out REPLAY_DIR
    python -m tools.bc validate-replays LOG_DIR
    python -m tools.bc train DATA_DIR --out OUT_DIR [--epochs E] [--model-size small|default] [--imitate P,...]
                             [--init SPEC]
    python -m tools.bc eval MODEL LOG_DIR [--policies maxdamage]

generate: plays battles of ``--format`` (default Reg C) on a fresh fleet and writes one
log per battle (league/bc/record.py: Showdown's protocol as each side saw it, with its
choices; the format in its ``>meta`` line). With
``--p1/--p2`` every battle is that pairing (SPEC: maxdamage, random, mixed =
epsilon-maxdamage, checkpoint:PATH, agent:NAME, search:SPEC on the stream backend); without, the mix maxdamage vs maxdamage (40 %),
maxdamage vs random (30 %) and mixed vs mixed (30 %). Teams are drawn per battle from
``--teams`` (default: the pool shipped for the format), validated for the format before the
fleet starts. parse: replays every log from each side into
trajectories (league/bc/dataset.py); malformed logs are reported with file and line and
skipped. parse-replays: real Showdown replays (SRC: a directory of the replay site's
``.json`` / raw ``.log`` files, a JSON-lines file of them, or a dump {id: [time, log]};
read as a stream on ``--workers`` processes, ``--only-format`` / ``--min-rating`` filters) read from both players'
views, each decision rebuilt from public information (league/bc/replays.py; a foe's open
team sheet in the observation with ``--foe-sheets``), into the
same data set format (policy ``human``; a decision whose one slot the log shows and the
other not is kept with a partial label); prints each replay's decisions reconstructed /
total and its shown choices rebuilt, a malformed replay is reported with file and line
and skipped. as-replays: our own battle logs written as the replay site's ``.json``
(the public protocol and both open team sheets, no requests or choices: what
parse-replays reads; ``--no-sheets``: none, as a ladder game whose players did not
agree, each side's sheet then rebuilt from its log). validate-replays: each of LOG_DIR's logs read back as a replay and
every rebuilt decision compared with what was recorded (league/bc/validate.py: the mask
with Showdown's own, a whole label with the choice, a partial label's set holding it).
train: supervised training of the RL network (league/bc/train.py); DATA_DIR
may be a log directory (it is parsed into DATA_DIR/dataset first, reused while the
number of logs and the encoder version are the same). eval: top-1 agreement of MODEL with
the recorded choices of ``--policies`` over every decision of LOG_DIR's logs (all of
them held out), split by kind and by whether the side's team was one MODEL trained on.
Last stdout line of each: JSON (parse-replays: ``decisions``, ``decisions_partial``,
``decisions_total``, ``illegal``, ``shown_reconstructed`` (the choices the logs show that
were rebuilt), ``all_reconstructed`` (the decisions kept), ``replays``, ...;
validate-replays: ``battles``, ``rejected``, ``labels_checked``, ``wrong_label``,
``wrong_mask``, ``shown_reconstructed``, ``ok``, ...; train: ``top1``, ``uniform_top1``, ``decisions``,
``checkpoint``; eval: ``top1``, ``uniform_top1``, ``decisions``, ``top1_unseen_teams``, ...).
Only generate takes ``--format``: parse, train and eval read logs (each records its
format) and data sets of any format, and parse-replays reads each replay's own format.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import tempfile
import time
from pathlib import Path

from tools import cli
from tools.cli import FORMAT

MIX = (("maxdamage", "maxdamage", 0.4), ("maxdamage", "random", 0.3), ("mixed", "mixed", 0.3))


def _advance_from(bar: cli.Progress, before: int, done: int) -> None:
    """A progress bar over every pairing's battles: ``done`` of this pairing, after ``before``."""
    bar.advance(before + done)


def generate(
    n: int,
    out: Path,
    servers: int,
    teams: list[str],
    concurrency: int,
    seed: int,
    pairing: tuple[str, str] | None = None,
    backend: str = "stream",
    battle_format: str = FORMAT,
) -> dict:
    """``n`` battles of ``battle_format`` with ``teams`` (packed, validated for it: see
    ``tools.cli.format_pool``), one log each in ``out``."""
    from league.bc.record import recording_factory, write_battle_logs
    from league.match import play_matches
    from league.showdown import locate_showdown, make_fleet

    install = locate_showdown()
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    written, errors, counts = 0, 0, {}
    with (
        tempfile.TemporaryDirectory(prefix="bc-generate-") as tmp,
        make_fleet(backend, servers, tmp, install=install) as fleet,
        cli.Progress(n, "battles") as bar,
    ):
        mix = ((*pairing, 1.0),) if pairing else MIX
        for k, (a, b, share) in enumerate(mix):
            m = round(n * share) if k < len(mix) - 1 else n - sum(round(n * s) for *_, s in mix[:-1])
            players: list = []

            def factory(spec, side_seed):
                make_player = recording_factory(spec, seed=side_seed, format_id=battle_format, backend=backend)

                def make(**kw):
                    p = make_player(**kw)
                    players.append(p)  # noqa: B023 - used within this iteration
                    return p

                return make

            r = asyncio.run(
                play_matches(
                    fleet,
                    factory(a, seed + 2 * k),
                    factory(b, seed + 2 * k + 1),
                    m,
                    teams,
                    teams,
                    battle_format=battle_format,
                    concurrency=concurrency,
                    seed=seed + k,
                    on_progress=functools.partial(_advance_from, bar, written),
                )
            )
            got = write_battle_logs(out, players, battle_format)
            written += got
            errors += r.showdown_errors
            counts[f"{a}-vs-{b}"] = got
            print(f"{a} vs {b}: {got} logs ({r.battles} battles, {r.unfinished} unfinished)", flush=True)
    return {
        "format": battle_format,
        "logs": written,
        "by_matchup": counts,
        "showdown_errors": errors,
        "out": str(out),
        "wall_s": round(time.monotonic() - t0, 1),
    }


def main(argv=None) -> dict:
    from tools import cli

    ap = cli.parser("python -m tools.bc", __doc__)
    sub = cli.subparsers(ap)
    g = sub.add_parser("generate", help="play battles and write their logs (protocol + choices)")
    cli.add_battles(g, None)
    cli.add_out(g, "the log directory", required=True)
    cli.add_fleet(g)
    cli.add_teams(g)
    cli.add_format(g)
    cli.add_seed(g)
    g.add_argument(
        "--p1",
        default=None,
        help="player SPEC of side 1 (with --p2): maxdamage, random, mixed, checkpoint:PATH, agent:NAME",
    )
    g.add_argument("--p2", default=None, help="player SPEC of side 2 (with --p1)")
    p = sub.add_parser("parse", help="battle logs -> a data set")
    p.add_argument("log_dir", help="a directory of battle logs written by generate")
    cli.add_out(p, "the data set directory (default: LOG_DIR/dataset)")
    r = sub.add_parser("parse-replays", help="real Showdown replays -> a data set")
    r.add_argument(
        "src",
        help="a directory of replay .json/.log files, a JSON-lines file of replays, or a dump "
        "{battle_id: [timestamp, log], ...}",
    )
    r.add_argument("--out", required=True, help="the data set directory (what train reads)")
    r.add_argument("--heldout-share", type=float, default=0.1, help="share of the replays held out")
    r.add_argument("--workers", type=int, default=1, help="processes parsing replays (the cores to use)")
    r.add_argument("--only-format", default=None, help="keep only the replays of this format id")
    r.add_argument("--min-rating", type=float, default=None, help="keep only replays stating at least this rating")
    r.add_argument("--quiet", action="store_true", help="no line per replay (the JSON only)")
    r.add_argument(
        "--foe-sheets",
        action="store_true",
        help="observations read the foe's open team sheet where it has one (encoder version 4's sheets flag); "
        "default: the foe as play revealed it, as in the league's battles and tools.play, which have no sheets",
    )
    a = sub.add_parser("as-replays", help="battle logs written as the replay site's .json replays")
    a.add_argument("log_dir", help="a directory of battle logs written by generate")
    a.add_argument("--out", required=True, help="the replay directory (what parse-replays reads)")
    v = sub.add_parser("validate-replays", help="battle logs read back as replays, checked against their choices")
    v.add_argument("log_dir", help="a directory of battle logs written by generate")
    for x in (a, v):
        x.add_argument(
            "--no-sheets",
            action="store_true",
            help="replays without open team sheets (each side's sheet rebuilt from the log; masks not compared)",
        )
    t = sub.add_parser("train", help="behaviour cloning on a data set (or a log directory, parsed first)")
    t.add_argument("data_dir", help="a data set directory, or a log directory")
    cli.add_out(t, "where bc.pt and its metrics go", required=True)
    t.add_argument("--epochs", type=int, default=10, help="passes over the training trajectories")
    t.add_argument("--batch", type=int, default=32, help="trajectories per step")
    t.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    t.add_argument(
        "--model-size",
        choices=("small", "default"),
        default="default",
        help="default: the RL model's default sizes (so run.init_checkpoint fits reg_c)",
    )
    cli.add_seed(t, "seeds initialisation and shuffling")
    t.add_argument(
        "--id-dropout",
        type=float,
        default=None,
        help="training only: probability that a species/item/ability/move id is hidden (default: BCConfig's)",
    )
    t.add_argument(
        "--init",
        default=None,
        help="start from this network (checkpoint:PATH or agent:NAME; its sizes, not --model-size)",
    )
    t.add_argument(
        "--imitate",
        default="maxdamage,mixed,human",
        help="whose recorded choices the policy learns (comma-separated policies: maxdamage, mixed, human, "
        "search, checkpoint, random)",
    )
    e = sub.add_parser("eval", help="a model's top-1 agreement with recorded choices")
    e.add_argument("model", help="a BC or league checkpoint")
    e.add_argument("log_dir", help="battle logs the model did not train on (parsed into LOG_DIR/dataset)")
    e.add_argument("--policies", default="maxdamage", help="whose recorded choices count (comma-separated)")
    args = ap.parse_args(argv)

    from league.bc.dataset import LogError, build_dataset, dataset_matches

    def err(msg: str) -> None:
        print(msg, file=sys.stderr)

    def parsed(log_dir: Path) -> Path:
        """LOG_DIR's parsed data set (LOG_DIR itself when it is one), parsed now if needed."""
        if (log_dir / "manifest.json").exists():
            return log_dir
        if not dataset_matches(log_dir / "dataset", len(list(log_dir.glob("*.log")))):
            try:
                m = build_dataset(log_dir, log_dir / "dataset", on_error=err)
            except LogError as e:
                cli.bad_input(str(e))
            print(f"parsed {m['battles']} battles ({m['decisions']} decisions, {len(m['errors'])} skipped)", flush=True)
        return log_dir / "dataset"

    if args.cmd == "generate":
        cli.check_positive(**{"-n": args.battles, "--servers": args.servers, "--concurrency": args.concurrency})
        if (args.p1 is None) != (args.p2 is None):
            cli.bad_input("give both --p1 and --p2, or neither (the default mix)")
        from league.bc.record import recording_factory
        from league.checkpoint import CheckpointError
        from league.players import PlayerSpecError

        try:  # a SPEC is known, a network fits the format and a search player the backend, before the fleet starts
            for spec in (args.p1, args.p2) if args.p1 else ():
                recording_factory(spec, format_id=args.format, backend=args.backend)
        except (PlayerSpecError, CheckpointError) as e:
            cli.bad_input(str(e))
        teams = cli.format_pool(args.format, args.teams)
        try:
            out = generate(
                args.battles,
                Path(args.out),
                args.servers,
                teams,
                args.concurrency,
                args.seed,
                (args.p1, args.p2) if args.p1 else None,
                args.backend,
                args.format,
            )
        except (PlayerSpecError, CheckpointError) as e:
            cli.bad_input(str(e))
    elif args.cmd == "parse":
        try:
            m = build_dataset(args.log_dir, args.out or Path(args.log_dir) / "dataset", on_error=err)
        except LogError as e:
            cli.bad_input(str(e))
        out = {k: m[k] for k in ("logs", "battles", "trajectories", "decisions")} | {"errors": len(m["errors"])}
    elif args.cmd == "parse-replays":
        from league.bc.replays import ReplayError, build_replay_dataset

        if not 0.0 <= args.heldout_share < 1.0:
            cli.bad_input("--heldout-share must be in [0, 1)")
        cli.check_positive(**{"--workers": args.workers})
        t0 = time.monotonic()
        try:
            with cli.Progress(None, "replays") as bar:
                m = build_replay_dataset(
                    args.src,
                    args.out,
                    heldout_share=args.heldout_share,
                    on_error=err,
                    on_replay=(lambda s: None) if args.quiet else (lambda s: print(s, flush=True)),
                    workers=args.workers,
                    fmt=args.only_format,
                    min_rating=args.min_rating,
                    on_progress=bar.advance,
                    foe_sheets=args.foe_sheets,
                )
        except ReplayError as e:
            cli.bad_input(str(e))
        keys = (
            *("logs", "battles", "trajectories", "decisions", "decisions_partial", "decisions_total", "illegal"),
            *("choices", "choices_shown", "choices_rebuilt", "shown_reconstructed", "all_reconstructed"),
        )
        out = {k: m[k] for k in keys} | {k: m[k] for k in ("target_open", "not_shown", "open_team_sheets")}
        wall = time.monotonic() - t0
        out |= {
            "errors": len(m["errors"]),
            "filtered": m["filtered"],
            "ignored_lines": m["ignored_lines"],
            "out": str(args.out),
            "wall_s": round(wall, 2),
            "replays_per_s": round(m["logs"] / max(wall, 1e-9), 2),
        }
        if m["battles"] + len(m["errors"]) <= 100:  # per replay only where it stays readable
            from league.bc.replays import read_replay_counts

            out["replays"] = {
                r["name"]: f"{r['reconstructed'] + r['partial']}/{r['decisions']} ({r['partial']} partial)"
                for r in read_replay_counts(args.out)
            }
    elif args.cmd in ("as-replays", "validate-replays"):
        from league.bc.replays import ReplayError

        logs = Path(args.log_dir)
        if not logs.is_dir():
            cli.bad_input(f"no log directory at {logs}; record battles with python -m tools.bc generate")
        try:
            if args.cmd == "as-replays":
                found = sorted(p for p in logs.iterdir() if p.name.endswith((".log", ".log.gz")))
                if not found:
                    cli.bad_input(f"{logs}: no *.log battle logs; record some with python -m tools.bc generate")
                from league.bc.record import write_replays

                out = {"replays": len(write_replays(found, args.out, not args.no_sheets)), "out": str(args.out)}
            else:
                from league.bc.validate import validate

                with cli.Progress(None, "battles") as bar:
                    n = 0

                    def seen(_a) -> None:
                        nonlocal n
                        n += 1
                        bar.advance(n)

                    out = validate(logs, on_battle=seen, sheets=not args.no_sheets)
        except (ReplayError, LogError) as e:
            cli.bad_input(str(e))
    elif args.cmd == "eval":
        from league.bc.train import eval_bc
        from league.checkpoint import CheckpointError

        if not Path(args.model).is_file():
            cli.bad_input(f"no model file at {args.model}")
        if not Path(args.log_dir).is_dir():
            cli.bad_input(f"no log directory at {args.log_dir}")
        data = parsed(Path(args.log_dir))
        try:
            out = eval_bc(args.model, data, tuple(p for p in args.policies.split(",") if p))
        except (CheckpointError, ValueError) as e:
            cli.bad_input(str(e))
    else:
        from league.bc.replays import reads_sheets
        from league.bc.train import BCConfig, train_bc
        from league.checkpoint import CheckpointError
        from league.model.net import ModelConfig

        data = parsed(Path(args.data_dir))
        mc = ModelConfig(mon_dim=32, torso_dim=64, core_dim=64) if args.model_size == "small" else ModelConfig()
        mc.sheets = reads_sheets(json.loads((data / "manifest.json").read_text()))  # replays with and without sheets
        if args.id_dropout is not None and not 0.0 <= args.id_dropout < 1.0:
            cli.bad_input("--id-dropout must be in [0, 1)")
        extra = {} if args.id_dropout is None else {"id_dropout": args.id_dropout}
        imitate = tuple(x for x in args.imitate.split(",") if x)
        if not imitate:
            cli.bad_input("--imitate names no policy: give one or more, e.g. --imitate maxdamage")
        cfg = BCConfig(
            epochs=args.epochs, batch_trajectories=args.batch, lr=args.lr, seed=args.seed, imitate=imitate, **extra
        )
        try:
            init = None
            if args.init:
                from league.checkpoint import load_policy_net
                from league.players import PlayerSpecError
                from league.specs import policy_path

                try:
                    path = policy_path(args.init)
                except PlayerSpecError as e:
                    cli.bad_input(str(e))
                if path is None:
                    cli.bad_input(f"--init {args.init!r}: give a network, checkpoint:PATH or agent:NAME")
                init = load_policy_net(path, name=args.init)
            out = train_bc(data, args.out, mc, cfg, init=init)
        except (ValueError, CheckpointError) as e:  # LogError, DatasetError: ValueErrors
            cli.bad_input(str(e))
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
