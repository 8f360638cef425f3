"""What the store's two hash chains share: the seals (:mod:`schemas.seals`) and the review
file's events (:mod:`schemas.review_file`) each link a row to the one before by its sha256."""

from __future__ import annotations

#: The previous hash of a chain's first link: as long as a sha256 hex digest, all zeros.
GENESIS = "0" * 64
