"""A synthetic cardroom: realistic hand logs with planted violations and their labels.

``generate(GenerateConfig(...), out_dir)`` writes ``out_dir/logs/`` (one file per table
per day, in the text format of ``../shared/spec/hand-log-format.md``) and
``out_dir/labels.jsonl`` (per hand: ``hand_id``, ``table_id``, ``codes`` planted, and
``broken`` with the ingest error kind for damaged input). See ``openers generate``.
"""

from openers.generator.config import ALL_CODES, GenerateConfig
from openers.generator.generate import Summary, generate

__all__ = ["ALL_CODES", "GenerateConfig", "Summary", "generate"]
