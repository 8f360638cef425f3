"""Compile the integrity pass before its first night.

``openers warmup`` (and the first command that finds the cache cold) runs every
``warm_up()`` of the project. The integrity pass's kernels (the replay, the dealt hands'
strengths, the PIT's uniforms) are called from Python, each with the array types a
stored batch gives it; a kernel first called with other types would compile again at
the first nightly run, tens of seconds into it. So the warm-up runs the real path, from
the store to the view the tests read, over the format's own example hand.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from audit.integrity.features import view
from audit.integrity.frames import Names, read_batches
from audit.integrity.replay import replay
from audit.profiles import load_profile
from ingest.load import ingest_paths
from schemas.store import connect

#: The complete hand of the format spec, shipped with the ingest.
SAMPLE = Path(__file__).resolve().parents[2] / "ingest" / "samples" / "spec_example.log"


def warm_up() -> None:
    """Run the integrity pass over the spec's example hand in a throw-away store."""
    profile = load_profile("robert")
    with closing(connect(":memory:")) as con:
        ingest_paths([SAMPLE], con)
        names = Names()
        for batch in read_batches(con, profile, names):
            view(batch, replay(batch, bobtail=profile.bobtail), names)
