-- Integrity layer, owned by the integrity analysis (audit/integrity/): the statistics for the
-- cheating that breaks no rule. Written by `openers integrity --store` and by the nightly job,
-- one transaction per analysis run (audit.integrity.store.store_result).
--
-- integrity_runs: one row per analysis run (window, false discovery rate, what was read).
-- integrity_alerts: the alerts of every run (their history), each with its evidence: the
--   hands behind it, the effect size and its interval, p and q. `alert_key` names the same
--   test on the same subject in every run: reviews are filed under it.
-- integrity_tests: every cell the latest run judged (flagged or not), for the dashboards.
-- integrity_pit_bins: the latest run's per-dealer histograms of PITs (dealt hands, draws).

CREATE SEQUENCE IF NOT EXISTS integrity_runs_seq START 1;

CREATE TABLE IF NOT EXISTS integrity_runs (
    integrity_run_id BIGINT PRIMARY KEY DEFAULT nextval('integrity_runs_seq'),
    computed_at      TIMESTAMPTZ NOT NULL,
    nightly_run_id   BIGINT,             -- the nightly run that asked for it (NULL: the CLI)
    since            DATE,               -- local days analysed (NULL: from the first)
    until            DATE,
    fdr              DOUBLE NOT NULL,    -- the house's false discovery rate
    method           VARCHAR NOT NULL,   -- 'benjamini-hochberg' | 'benjamini-yekutieli'
    tail_share       DOUBLE NOT NULL,
    tests            VARCHAR NOT NULL,   -- the codes run, comma-separated
    hands            BIGINT NOT NULL,
    draws            BIGINT NOT NULL,
    decisions        BIGINT NOT NULL,
    irregular        BIGINT NOT NULL,    -- hands whose cards could not all be read
    cells            BIGINT NOT NULL,
    alerts           INTEGER NOT NULL,
    seconds          DOUBLE NOT NULL
);

CREATE TABLE IF NOT EXISTS integrity_alerts (
    integrity_run_id BIGINT NOT NULL,
    alert_key        VARCHAR NOT NULL,   -- 'integrity:CODE:subject', stable across runs
    rank             INTEGER NOT NULL,   -- 1 = smallest q-value
    code             VARCHAR NOT NULL,   -- e.g. 'F102'
    name             VARCHAR NOT NULL,
    family           VARCHAR NOT NULL,   -- 'dealing' | 'collusion'
    level            VARCHAR NOT NULL,   -- dealer | table | dealer-player | player | pair | player-to-player
    dealer_id        VARCHAR,
    table_id         VARCHAR,
    player_id        VARCHAR,
    partner_id       VARCHAR,
    sample           BIGINT NOT NULL,    -- observations the test used
    statistic        VARCHAR NOT NULL,
    observed         DOUBLE,
    expected         DOUBLE,
    effect           DOUBLE,
    effect_label     VARCHAR,
    ci_low           DOUBLE,             -- 95% interval of the effect
    ci_high          DOUBLE,
    p_value          DOUBLE NOT NULL,
    q_value          DOUBLE NOT NULL,    -- Benjamini-Hochberg adjusted
    message          VARCHAR NOT NULL,
    hands            VARCHAR[] NOT NULL, -- the hands behind it (up to 200), most telling first
    hands_total      BIGINT NOT NULL,
    first_time       TIMESTAMPTZ,
    last_time        TIMESTAMPTZ,
    evidence         JSON NOT NULL,
    finding_key      VARCHAR NOT NULL,   -- reviews' key: schemas.findings.finding_key(alert_key, code)
    PRIMARY KEY (integrity_run_id, alert_key)
);
-- A store made before `finding_key` existed gains the column; schemas.upgrade fills it.
ALTER TABLE integrity_alerts ADD COLUMN IF NOT EXISTS finding_key VARCHAR;

CREATE TABLE IF NOT EXISTS integrity_tests (
    integrity_run_id BIGINT NOT NULL,
    code             VARCHAR NOT NULL,
    level            VARCHAR NOT NULL,
    subject          VARCHAR NOT NULL,
    dealer_id        VARCHAR,
    table_id         VARCHAR,
    player_id        VARCHAR,
    partner_id       VARCHAR,
    sample           BIGINT NOT NULL,
    observed         DOUBLE,
    expected         DOUBLE,
    effect           DOUBLE,
    ci_low           DOUBLE,
    ci_high          DOUBLE,
    p_value          DOUBLE NOT NULL,
    q_value          DOUBLE NOT NULL,
    flagged          BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS integrity_pit_bins (
    integrity_run_id BIGINT NOT NULL,
    kind             VARCHAR NOT NULL,   -- 'dealt' | 'draw'
    dealer_id        VARCHAR NOT NULL,
    n                BIGINT NOT NULL,
    mean             DOUBLE NOT NULL,
    bin              INTEGER NOT NULL,   -- 0 .. bins-1 over (0, 1)
    bins             INTEGER NOT NULL,
    count            BIGINT NOT NULL
);

-- Public: the alerts of the latest analysis run.
CREATE OR REPLACE VIEW integrity_alerts_latest AS
SELECT a.*, r.computed_at, r.fdr
FROM integrity_alerts AS a
JOIN integrity_runs AS r USING (integrity_run_id)
WHERE a.integrity_run_id = (SELECT max(integrity_run_id) FROM integrity_runs);

-- Marts (the only objects that aggregate) for the Integrity page and the report.
-- Per dealer and kind: the mean PIT with the 95% band fair dealing gives (1/12 variance).
CREATE OR REPLACE VIEW mart_integrity_fairness AS
SELECT kind, dealer_id, any_value(n) AS n, any_value(mean) AS mean,
       0.5 - 1.959964 * sqrt(1.0 / (12 * any_value(n))) AS band_low,
       0.5 + 1.959964 * sqrt(1.0 / (12 * any_value(n))) AS band_high
FROM integrity_pit_bins
WHERE integrity_run_id = (SELECT max(integrity_run_id) FROM integrity_runs)
GROUP BY kind, dealer_id;

-- Per dealer, kind and bin: the count with the 95% band of a fair deal (binomial, normal).
CREATE OR REPLACE VIEW mart_integrity_pit_bins AS
SELECT kind, dealer_id, n, bin, bins, count,
       (bin + 0.5) / bins AS centre,
       n / bins AS expected,
       greatest(0, n / bins - 1.959964 * sqrt(n * (1.0 / bins) * (1 - 1.0 / bins))) AS band_low,
       n / bins + 1.959964 * sqrt(n * (1.0 / bins) * (1 - 1.0 / bins)) AS band_high
FROM integrity_pit_bins
WHERE integrity_run_id = (SELECT max(integrity_run_id) FROM integrity_runs);

-- Players linked by suspicion: one row per pair with the collusion tests that judged it
-- in the latest run, the strongest evidence first.
CREATE OR REPLACE VIEW mart_integrity_links AS
SELECT least(player_id, partner_id) AS player_a, greatest(player_id, partner_id) AS player_b,
       min(q_value) AS q_value, min(p_value) AS p_value,
       count(*) FILTER (WHERE flagged) AS alerts,
       string_agg(DISTINCT code, ',' ORDER BY code) FILTER (WHERE flagged) AS codes,
       count(*) AS tests
FROM integrity_tests
WHERE integrity_run_id = (SELECT max(integrity_run_id) FROM integrity_runs)
  AND partner_id IS NOT NULL
GROUP BY ALL;

-- Alerts per run and family (the report's trend).
CREATE OR REPLACE VIEW mart_integrity_runs AS
SELECT r.integrity_run_id, r.computed_at, r.nightly_run_id, r.hands, r.cells, r.fdr,
       count(a.alert_key) AS alerts,
       count(a.alert_key) FILTER (WHERE a.family = 'dealing') AS dealing_alerts,
       count(a.alert_key) FILTER (WHERE a.family = 'collusion') AS collusion_alerts
FROM integrity_runs AS r
LEFT JOIN integrity_alerts AS a USING (integrity_run_id)
GROUP BY ALL;
