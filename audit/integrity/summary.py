"""The integrity section of the nightly report: the latest analysis run and its top alerts.

Read from the store's integrity tables (``schemas/ddl/40_integrity.sql``), so the report
needs nothing but the store; a store that has never had an analysis (or was made before
the integrity tables existed) gives no section.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import duckdb

#: Alerts listed in the report (all of them are in the store and on the dashboard).
REPORT_ALERTS = 10
#: Hands named under each listed alert.
REPORT_HANDS = 3


@dataclass(frozen=True)
class AlertLine:
    """One alert as the report lists it."""

    rank: int
    code: str
    name: str
    family: str
    subject: str
    q_value: float
    effect_label: str
    effect: float
    ci_low: float
    ci_high: float
    message: str
    hands_total: int
    hands: tuple[str, ...]


@dataclass(frozen=True)
class IntegritySummary:
    """The latest integrity run of a store."""

    computed_at: datetime
    hands: int
    cells: int
    fdr: float
    method: str
    alerts: int
    dealing: int
    collusion: int
    new_keys: int  #: alerts whose key the previous run did not flag
    top: tuple[AlertLine, ...]

    def summary(self) -> dict[str, Any]:
        """For ``summary.json``."""
        return {
            "computed_at": self.computed_at.isoformat(), "hands": self.hands,
            "cells": self.cells, "fdr": self.fdr, "method": self.method, "alerts": self.alerts,
            "dealing_alerts": self.dealing, "collusion_alerts": self.collusion,
            "new_alerts": self.new_keys,
            "top": [{"rank": a.rank, "code": a.code, "subject": a.subject, "q_value": a.q_value,
                     "message": a.message, "hands": list(a.hands)} for a in self.top],
        }


def _subject(dealer: str | None, table: str | None, player: str | None,
             partner: str | None, level: str) -> str:
    parts = [f"dealer {dealer}" if dealer else "", f"table {table}" if table else ""]
    if partner:
        parts.append(f"{player} {'→' if level == 'player-to-player' else '&'} {partner}")
    elif player:
        parts.append(f"player {player}")
    return ", ".join(p for p in parts if p)


def integrity_summary(con: duckdb.DuckDBPyConnection) -> IntegritySummary | None:
    """The latest run's figures and top alerts, or None when the store has no run."""
    try:
        runs = con.execute(
            "SELECT integrity_run_id, computed_at, hands, cells, fdr, method, alerts "
            "FROM integrity_runs ORDER BY integrity_run_id DESC LIMIT 2").fetchall()
    except duckdb.CatalogException:
        return None
    if not runs:
        return None
    run_id, computed_at, hands, cells, fdr, method, alerts = runs[0]
    families = dict(con.execute(
        "SELECT family, count(*) FROM integrity_alerts WHERE integrity_run_id = ? GROUP BY ALL",
        [run_id]).fetchall())
    previous = runs[1][0] if len(runs) > 1 else -1
    new_keys = con.execute(
        "SELECT count(*) FROM integrity_alerts a WHERE a.integrity_run_id = ? AND NOT EXISTS "
        "(SELECT 1 FROM integrity_alerts b WHERE b.integrity_run_id = ? "
        "AND b.alert_key = a.alert_key)", [run_id, previous]).fetchall()[0][0]
    rows = con.execute(
        "SELECT rank, code, name, family, dealer_id, table_id, player_id, partner_id, level, "
        "q_value, effect_label, effect, ci_low, ci_high, message, hands_total, hands "
        "FROM integrity_alerts WHERE integrity_run_id = ? ORDER BY rank LIMIT ?",
        [run_id, REPORT_ALERTS]).fetchall()
    top = tuple(AlertLine(
        rank=r[0], code=r[1], name=r[2], family=r[3], subject=_subject(*r[4:9]), q_value=r[9],
        effect_label=r[10], effect=r[11], ci_low=r[12], ci_high=r[13], message=r[14],
        hands_total=r[15], hands=tuple(r[16][:REPORT_HANDS])) for r in rows)
    return IntegritySummary(
        computed_at=computed_at, hands=hands, cells=cells, fdr=fdr, method=method,
        alerts=alerts, dealing=int(families.get("dealing", 0)),
        collusion=int(families.get("collusion", 0)), new_keys=int(new_keys), top=top)
