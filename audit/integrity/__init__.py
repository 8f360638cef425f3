"""Integrity analytics: statistics for the cheating that breaks no rule (issue 13)."""
