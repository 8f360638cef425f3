-- Marts layer, owned by the dashboards (dashboards/): the only place that aggregates.
-- Views over the public `hands`, `actions`, `findings`, `unverifiable`; also `stg_seats`
-- (ingest's seat rows: there is no public seats view, and a player's hands need it),
-- `raw_hands` (the replayer shows the raw log) and `audit_hands` (which hands the audit
-- has seen, for "hands audited").
-- `quarantine` and `runs` are created by later DDL files (60_, 70_), so no mart here
-- can read them; the dashboards list those two as they are.
--
-- A hand's `local_time` is the log's Time at its own UTC offset (the cardroom's clock) and
-- its `day` the date of that: a night is counted where the room is, not in UTC.

-- One format for a time everywhere (schemas.display.local_time_text writes the same):
-- the room's clock and its offset, `2026-11-28 21:04:12 -08:00`.
CREATE OR REPLACE MACRO local_time_text(local_time, offset_minutes) AS
    strftime(local_time, '%Y-%m-%d %H:%M:%S') || ' '
    || CASE WHEN offset_minutes < 0 THEN '-' ELSE '+' END
    || lpad(CAST(abs(offset_minutes) // 60 AS VARCHAR), 2, '0') || ':'
    || lpad(CAST(abs(offset_minutes) % 60 AS VARCHAR), 2, '0');

CREATE OR REPLACE VIEW mart_hands AS
SELECT h.*, l.local_time, CAST(l.local_time AS DATE) AS day,
       local_time_text(l.local_time, h.utc_offset_minutes) AS time_text
FROM hands AS h,
     LATERAL (SELECT timezone('UTC', h.time) + to_minutes(h.utc_offset_minutes) AS local_time) AS l;

-- The raw log of a hand, for the replayer's "raw log" column.
CREATE OR REPLACE VIEW mart_hand_text AS
SELECT hand_id, source_file, first_line, form, raw_text FROM raw_hands;

-- One row per finding with its hand's day and dealer, the named seat's player, and the
-- stable key reviews are filed under (stored by the audit: schemas.findings.finding_key).
CREATE OR REPLACE VIEW mart_findings AS
SELECT f.finding_key, f.code, left(f.code, 1) AS family, f.name, f.severity,
       CASE f.severity WHEN 'critical' THEN 2 WHEN 'major' THEN 1 ELSE 0 END AS severity_rank,
       f.hand_id, f.table_id, h.dealer_id, h.local_time AS time, h.time_text, h.day, f.line,
       f.action_index, f.seat,
       s.player_id, f.message, CAST(f.evidence AS VARCHAR) AS evidence, f.source
FROM findings AS f
LEFT JOIN mart_hands AS h USING (hand_id)
LEFT JOIN stg_seats AS s ON s.hand_id = f.hand_id AND s.seat = f.seat;

CREATE OR REPLACE VIEW mart_daily AS
WITH d AS (SELECT day, count(*) AS hands FROM mart_hands GROUP BY day),
     f AS (SELECT day,
                  count(*) FILTER (WHERE severity = 'critical') AS critical,
                  count(*) FILTER (WHERE severity = 'major') AS major,
                  count(*) FILTER (WHERE severity = 'minor') AS minor,
                  count(*) AS findings
           FROM mart_findings GROUP BY day)
SELECT d.day, d.hands,
       coalesce(f.critical, 0) AS critical, coalesce(f.major, 0) AS major,
       coalesce(f.minor, 0) AS minor, coalesce(f.findings, 0) AS findings
FROM d LEFT JOIN f USING (day);

CREATE OR REPLACE VIEW mart_findings_by_code AS
SELECT code, family, any_value(name) AS name, any_value(severity) AS severity,
       count(*) AS findings, count(DISTINCT hand_id) AS hands
FROM mart_findings GROUP BY code, family;

CREATE OR REPLACE VIEW mart_findings_by_table AS
SELECT table_id,
       count(*) FILTER (WHERE severity = 'critical') AS critical,
       count(*) FILTER (WHERE severity = 'major') AS major,
       count(*) FILTER (WHERE severity = 'minor') AS minor,
       count(*) AS findings
FROM mart_findings GROUP BY table_id;

CREATE OR REPLACE VIEW mart_unverifiable_by_code AS
SELECT code, count(*) AS checks, count(DISTINCT hand_id) AS hands,
       any_value(reason) AS example_reason
FROM unverifiable GROUP BY code;

-- Dealers: hands dealt and findings per family and code, per day; the rates and the
-- room's average are computed from these sums so any date range can be asked.
CREATE OR REPLACE VIEW mart_dealer_hands_daily AS
SELECT coalesce(dealer_id, '(none)') AS dealer_id, day, count(*) AS hands
FROM mart_hands GROUP BY ALL;

CREATE OR REPLACE VIEW mart_dealer_findings_daily AS
SELECT coalesce(dealer_id, '(none)') AS dealer_id, day, family, code, count(*) AS findings
FROM mart_findings GROUP BY ALL;

-- Tables: each deal of a table with its sequence (J) findings.
CREATE OR REPLACE VIEW mart_table_deals AS
WITH j AS (SELECT hand_id, count(*) AS sequence_findings,
                  string_agg(code || ' ' || message, '; ' ORDER BY code) AS sequence_messages
           FROM mart_findings WHERE family = 'J' GROUP BY hand_id),
     a AS (SELECT hand_id, count(*) AS findings FROM findings GROUP BY hand_id)
SELECT h.table_id, h.day, h.local_time AS time, h.time_text, h.hand_id, h.dealer_id, h.button, h.jackpot, h.openers,
       h.ante, h.carried, h.pot, h.carried_out, h.n_seats,
       coalesce(j.sequence_findings, 0) AS sequence_findings, j.sequence_messages,
       coalesce(a.findings, 0) AS findings
FROM mart_hands AS h
LEFT JOIN j USING (hand_id)
LEFT JOIN a USING (hand_id);

CREATE OR REPLACE VIEW mart_table_days AS
SELECT table_id, day, count(*) AS deals FROM mart_hands GROUP BY ALL;

-- Players: per player, what they did and the findings that name their seat.
CREATE OR REPLACE VIEW mart_player_hands AS
SELECT s.player_id, count(*) AS hands, count(DISTINCT h.table_id) AS tables,
       min(h.day) AS first_day, max(h.day) AS last_day
FROM stg_seats AS s JOIN mart_hands AS h USING (hand_id)
GROUP BY s.player_id;

CREATE OR REPLACE VIEW mart_player_actions AS
SELECT player_id,
       count(*) FILTER (WHERE verb = 'opens') AS opens,
       count(*) FILTER (WHERE verb = 'splits openers') AS split_openers,
       count(DISTINCT hand_id) FILTER (WHERE verb = 'collects') AS pots_won,
       coalesce(sum(amount) FILTER (WHERE verb = 'collects'), 0) AS chips_won
FROM actions WHERE player_id IS NOT NULL
GROUP BY player_id;

-- A floor ruling names its target seat; the seat's player comes from the hand's seats.
CREATE OR REPLACE VIEW mart_player_false_openers AS
SELECT s.player_id, count(*) AS false_openers
FROM actions AS a
JOIN stg_seats AS s ON s.hand_id = a.hand_id AND s.seat = a.seat
WHERE a.actor = 'floor' AND a.verb = 'false openers'
GROUP BY s.player_id;

CREATE OR REPLACE VIEW mart_player_findings AS
SELECT player_id, code, family, any_value(severity) AS severity, count(*) AS findings
FROM mart_findings WHERE player_id IS NOT NULL GROUP BY ALL;

-- The store's headline figures (Overview).
CREATE OR REPLACE VIEW mart_totals AS
SELECT (SELECT count(*) FROM hands) AS hands,
       (SELECT count(*) FROM audit_hands) AS hands_audited,
       (SELECT count(DISTINCT table_id) FROM hands) AS tables,
       (SELECT count(DISTINCT dealer_id) FROM hands) AS dealers,
       (SELECT min(day) FROM mart_hands) AS first_day,
       (SELECT max(day) FROM mart_hands) AS last_day,
       (SELECT count(*) FROM findings) AS findings,
       (SELECT count(*) FROM findings WHERE severity = 'critical') AS critical,
       (SELECT count(*) FROM findings WHERE severity = 'major') AS major,
       (SELECT count(*) FROM findings WHERE severity = 'minor') AS minor,
       (SELECT count(DISTINCT hand_id) FROM findings) AS hands_with_findings,
       -- audit coverage: a hand is fully verified when no rule was unverifiable on it
       (SELECT count(DISTINCT hand_id) FROM unverifiable) AS hands_unverifiable,
       (SELECT count(*) FROM unverifiable) AS unverifiable_checks;

-- Dealers and tables compared with the room: hands dealt, and hands with at least one
-- finding (by family, '*' for any) with the findings by severity, per unit and day. A
-- hand with a finding is a success of a binomial count (dashboards/rates.py tests it).
CREATE OR REPLACE VIEW mart_unit_hands_daily AS
SELECT 'dealer' AS unit, coalesce(dealer_id, '(none)') AS unit_id, day, count(*) AS hands
FROM mart_hands GROUP BY ALL
UNION ALL
SELECT 'table', table_id, day, count(*) FROM mart_hands GROUP BY ALL;

CREATE OR REPLACE VIEW mart_unit_flagged_daily AS
WITH f AS (SELECT *, coalesce(dealer_id, '(none)') AS dealer FROM mart_findings),
     units AS (SELECT 'dealer' AS unit, dealer AS unit_id, * FROM f
               UNION ALL BY NAME
               SELECT 'table' AS unit, table_id AS unit_id, * FROM f)
SELECT unit, unit_id, day, family, count(DISTINCT hand_id) AS hands_with_findings,
       count(*) FILTER (WHERE severity = 'critical') AS critical,
       count(*) FILTER (WHERE severity = 'major') AS major,
       count(*) FILTER (WHERE severity = 'minor') AS minor
FROM units GROUP BY ALL
UNION ALL
SELECT unit, unit_id, day, '*', count(DISTINCT hand_id),
       count(*) FILTER (WHERE severity = 'critical'),
       count(*) FILTER (WHERE severity = 'major'),
       count(*) FILTER (WHERE severity = 'minor')
FROM units GROUP BY ALL;
