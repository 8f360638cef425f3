"""openers: the application layer (CLI, generator, nightly job, reports) over the
``ingest``, ``audit``, ``schemas`` and ``dashboards`` packages."""

__version__ = "0.1.0"
