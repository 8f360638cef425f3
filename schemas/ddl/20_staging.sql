-- Staging layer: typed rows of each stored hand, and the public views `hands` and
-- `actions` (a contract: reports, dashboards and users' SQL read them). Amounts are
-- integer cents (BIGINT). Written only by ingest, in the same transaction as raw_hands.
-- No primary key: one stg_hands row per raw_hands row, by ingest (see 10_raw.sql).

CREATE TABLE IF NOT EXISTS stg_hands (
    hand_id             VARCHAR NOT NULL,
    table_id            VARCHAR NOT NULL,
    time                TIMESTAMPTZ NOT NULL,
    utc_offset_minutes  INTEGER NOT NULL,  -- the offset the log wrote with Time
    room                VARCHAR,
    dealer_id           VARCHAR,
    game                VARCHAR NOT NULL,   -- 'Jacks or Better' | 'Draw High'
    limit_small         BIGINT NOT NULL,
    limit_big           BIGINT NOT NULL,
    ante                BIGINT NOT NULL,
    joker               BOOLEAN NOT NULL,
    button              INTEGER NOT NULL,
    jackpot             INTEGER NOT NULL,
    openers             VARCHAR,            -- NULL when the header is absent
    carried             BIGINT NOT NULL,
    pot                 BIGINT NOT NULL,
    rake                BIGINT NOT NULL,
    carried_out         BIGINT,
    n_seats             INTEGER NOT NULL,
    n_actions           INTEGER NOT NULL,
    first_line          INTEGER NOT NULL,
    result_line         INTEGER NOT NULL,
    source_file         VARCHAR NOT NULL,
    sha256              VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS stg_seats (
    hand_id    VARCHAR NOT NULL,
    seat       INTEGER NOT NULL,
    player_id  VARCHAR NOT NULL,
    stack      BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS stg_actions (
    hand_id       VARCHAR NOT NULL,
    action_index  INTEGER NOT NULL,
    line          INTEGER NOT NULL,
    section       VARCHAR NOT NULL,
    actor         VARCHAR NOT NULL,   -- 'seat' | 'dealer' | 'floor'
    verb          VARCHAR NOT NULL,   -- the Verb value, e.g. 'raises', 'dealt'
    seat          INTEGER,
    amount        BIGINT,
    to_amount     BIGINT,
    cards         VARCHAR[],
    drawn         VARCHAR[],
    all_in        BOOLEAN NOT NULL,
    side_pot      INTEGER,
    reading       VARCHAR,
    note          VARCHAR
);

-- One row per card named in a line of play (dealt, drawn, shown, burned...).
CREATE OR REPLACE VIEW stg_cards AS
SELECT hand_id, action_index, line, section, verb, seat, 'cards' AS role,
       CAST(generate_subscripts(cards, 1) AS INTEGER) AS position, unnest(cards) AS card
FROM stg_actions WHERE cards IS NOT NULL
UNION ALL
SELECT hand_id, action_index, line, section, verb, seat, 'drawn' AS role,
       CAST(generate_subscripts(drawn, 1) AS INTEGER) AS position, unnest(drawn) AS card
FROM stg_actions WHERE drawn IS NOT NULL;

-- Public: one row per stored hand.
CREATE OR REPLACE VIEW hands AS
SELECT hand_id, table_id, time, utc_offset_minutes, room, dealer_id, game,
       limit_small, limit_big, ante, joker, button, jackpot, openers, carried,
       pot, rake, carried_out, n_seats, n_actions, first_line, result_line,
       source_file, sha256
FROM stg_hands;

-- Public: one row per line of play, in log order within each hand.
CREATE OR REPLACE VIEW actions AS
SELECT a.hand_id, h.table_id, a.action_index, a.line, a.section, a.actor, a.verb, a.seat,
       s.player_id, a.amount, a.to_amount, a.cards, a.drawn, a.all_in, a.side_pot,
       a.reading, a.note
FROM stg_actions a
JOIN stg_hands h USING (hand_id)
LEFT JOIN stg_seats s ON s.hand_id = a.hand_id AND s.seat = a.seat AND a.actor = 'seat';
