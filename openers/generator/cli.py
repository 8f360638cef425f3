"""``openers generate``: write a synthetic cardroom's hand logs and their labels."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated

import typer

from audit.profiles import ProfileError
from openers.generator.cheats import CheatConfig, Collusion, DealerMode
from openers.generator.config import ALL_CODES, GenerateConfig
from openers.generator.generate import generate
from openers.generator.plants import registry


def _share(name: str, value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise typer.BadParameter(f"{name} must be between 0 and 1, not {value}")
    return value


def _collusion(value: str) -> tuple[Collusion, ...]:
    try:
        return tuple(Collusion(v.strip().lower()) for v in value.split(",") if v.strip())
    except ValueError:
        kinds = ", ".join(k.value for k in Collusion)
        raise typer.BadParameter(f"--collusion takes {kinds}, not {value!r}") from None


def _codes(value: str | None) -> tuple[str, ...]:
    if not value:
        return ALL_CODES
    wanted = [c.strip().upper() for c in value.split(",") if c.strip()]
    known = registry()
    codes = [c for c in ALL_CODES if any(c.startswith(w) for w in wanted)]
    unknown = [w for w in wanted if not any(c.startswith(w) for c in ALL_CODES)]
    if unknown or not codes:
        raise typer.BadParameter(f"unknown rule code(s): {', '.join(unknown) or value}")
    missing = [c for c in codes if c not in known]
    if missing:
        typer.echo(f"note: the generator cannot plant {', '.join(missing)} yet", err=True)
    return tuple(codes)


def generate_command(
    hands: Annotated[int, typer.Option("--hands", min=1, help="Hands to write in all.")],
    out: Annotated[Path, typer.Option("--out", help="Output directory (logs/ and labels.jsonl).",
                                      file_okay=False)],
    tables: Annotated[int, typer.Option("--tables", min=1, help="Tables playing.")] = 8,
    seed: Annotated[int, typer.Option("--seed", help="Seed: the same arguments give the same "
                                      "bytes.")] = 0,
    profile: Annotated[str, typer.Option("--profile", help="House profile (robert, house23, "
                                         "foster, laws, or a house TOML file).")] = "robert",
    joker_share: Annotated[float, typer.Option("--joker-share", help="Share of tables that "
                                               "play with the joker.")] = 0.3,
    violations: Annotated[float, typer.Option("--violations", help="Probability that a deal "
                                              "receives a planted violation.")] = 0.0,
    codes: Annotated[str | None, typer.Option("--codes", help="Codes or prefixes to plant, "
                                              "comma-separated (default: all).")] = None,
    unrecorded_share: Annotated[float, typer.Option("--unrecorded-share", help="Share of clean "
                                                    "hands that write ?? for unrecorded cards."
                                                    )] = 0.0,
    broken_share: Annotated[float, typer.Option("--broken-share", help="Share of hands damaged "
                                                "like broken exports.")] = 0.0,
    workers: Annotated[int | None, typer.Option("--workers", min=1, help="Processes (default: "
                                                "the CPUs); the output does not depend on it."
                                                )] = None,
    crooked_dealers: Annotated[int, typer.Option(
        "--crooked-dealers", min=0, help="Crooked dealers to plant, one per table from the "
        "first: each favours one player of his table.")] = 0,
    crooked_share: Annotated[float, typer.Option(
        "--crooked-share", help="Share of a crooked dealer's deals to his confederate that he "
        "arranges.")] = 0.05,
    crooked_mode: Annotated[DealerMode, typer.Option(
        "--crooked-mode", help="What he arranges: the dealt hand, the draw, or both.")
    ] = DealerMode.DEAL,
    crooked_strength: Annotated[int, typer.Option(
        "--crooked-strength", min=1, help="An arranged hand or draw is the best of this many "
        "random ones.")] = 20,
    colluders: Annotated[int, typer.Option(
        "--colluders", min=0, help="Colluding pairs to plant, one per table from the last.")
    ] = 0,
    collusion_share: Annotated[float, typer.Option(
        "--collusion-share", help="Share of a pair's deals together in which it cheats.")] = 0.3,
    collusion: Annotated[str, typer.Option(
        "--collusion", help="What colluders do, comma-separated: soft (no bets into each "
        "other), dump (the first pays the second), whipsaw, pass (openers).")] = "soft",
) -> None:
    """Write realistic hand logs with planted violations and their ground truth.

    DIR/logs/ gets one file per table per day; DIR/labels.jsonl one line per hand:
    hand_id, table_id, codes (planted; [] when clean) and, for damaged input, broken
    (the error kind the ingest must report). With --crooked-dealers or --colluders,
    DIR/integrity_labels.json says who cheats, how and from when (nobody else does).
    """
    cfg = GenerateConfig(
        hands=hands, tables=tables, seed=seed, profile=profile,
        joker_share=_share("--joker-share", joker_share),
        violations=_share("--violations", violations), codes=_codes(codes),
        unrecorded_share=_share("--unrecorded-share", unrecorded_share),
        broken_share=_share("--broken-share", broken_share),
        workers=workers or len(os.sched_getaffinity(0)),
        cheats=CheatConfig(
            crooked_dealers=crooked_dealers,
            crooked_share=_share("--crooked-share", crooked_share), crooked_mode=crooked_mode,
            crooked_strength=crooked_strength, colluders=colluders,
            collusion_share=_share("--collusion-share", collusion_share),
            collusion_kinds=_collusion(collusion),
        ),
    )
    start = time.perf_counter()
    try:
        summary = generate(cfg, out)
    except ProfileError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    seconds = time.perf_counter() - start
    planted = sum(summary.planted.values())
    broken = sum(summary.broken.values())
    typer.echo(f"{summary.hands} hands in {summary.files} files under {out / 'logs'} "
               f"({summary.hands / max(seconds, 1e-9):,.0f} hands/s); {planted} planted codes, "
               f"{broken} broken hands; labels in {out / 'labels.jsonl'}")
    unplanted = [c for c in cfg.codes if c not in summary.planted]
    if violations > 0 and unplanted:
        # Some codes need a house knob (a cap, a penalty, an ante limit) or a rare situation.
        typer.echo(f"note: not planted (not judged under {profile}, or too few hands): "
                   f"{', '.join(unplanted)}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``generate`` to the ``openers`` app."""
    app.command("generate")(generate_command)
