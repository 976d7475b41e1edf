"""Every statement of the PostgreSQL store, composed once per schema.

In the texts, `{s}` is the quoted schema name and `{now}` the database's clock in
seconds since the epoch (`clock_timestamp()`).
"""

from __future__ import annotations

from psycopg import sql

__all__ = ["Queries"]

_NOW = "extract(epoch FROM clock_timestamp())::float8"
_ROW = "thread_id, parent_id, ordinal, created_at, updated_at, last_seq, active, summary"


class Queries:
    """Every statement the store runs, composed once for its schema and kept as bytes
    (psycopg then finds each in its cache of parsed queries without rendering it)."""

    def __init__(self, schema: sql.Identifier) -> None:
        def q(text: str) -> bytes:
            composed = sql.SQL(text).format(s=schema, now=sql.SQL(_NOW), row=sql.SQL(_ROW))
            return composed.as_bytes(None)

        self.now = q("SELECT {now}")
        self.request = q("SELECT fingerprint, outcome FROM {s}.requests WHERE key = %s")
        self.remember = q(
            "INSERT INTO {s}.requests (key, fingerprint, outcome, at) VALUES (%s, %s, %s, %s)"
        )
        self.add = q(
            "INSERT INTO {s}.records (thread_id, seq, kind, data, at) VALUES (%s, %s, %s, %s, %s)"
        )
        self.exists = q("SELECT 1 FROM {s}.threads WHERE thread_id = %s")
        self.share_thread = q("SELECT 1 FROM {s}.threads WHERE thread_id = %s FOR SHARE")
        # The clock is read as the statement starts, perhaps before it waits for the
        # lock: a record's time may precede the commit before it by that wait. Fencing
        # never depends on it.
        self.lock_thread = q(
            "SELECT last_seq, owner, generation, {now} FROM {s}.threads "
            "WHERE thread_id = %s FOR UPDATE"
        )
        self.create = q(
            "WITH clock AS (SELECT {now} AS at) "
            "INSERT INTO {s}.threads (thread_id, parent_id, created_at, updated_at, last_seq, "
            "active, summary) SELECT %s, %s, at, at, %s, %s, %s FROM clock "
            "RETURNING created_at, pg_notify(%s, thread_id)"
        )
        # Appends in one statement, one item per thread (`_appends`); the items and
        # their records are one JSON parameter each (one text to send, encoded in C).
        # It makes the commit flush its WAL when any item is durable and the session's
        # setting is `off` (for the statement's own transaction only), locks the rows
        # in thread id order (the clock read as it starts), checks each item's fence
        # against its locked row, and only then adds the records and updates the rows;
        # an item whose fence is refused writes nothing. Answers per item, in order,
        # its row's last_seq before the append (NULL: not locked), whether it wrote,
        # and whether its row exists but was not locked (skipped, below).
        append = (
            "WITH durable AS (SELECT CASE WHEN %(durable)s "
            "AND current_setting('synchronous_commit') = 'off' "
            "THEN set_config('synchronous_commit', 'on', true) END AS flag), "
            "asked AS (SELECT * FROM json_to_recordset(%(items)s::json) AS a(item int8, "
            "thread_id text, fenced bool, owner text, generation int8, count int8, "
            "active bool, summary text, revoke bool)), "
            "locked AS (SELECT t.thread_id, t.last_seq, t.owner, t.generation, {now} AS at "
            "FROM {s}.threads t, durable WHERE t.thread_id IN (SELECT thread_id FROM asked) "
            "ORDER BY t.thread_id FOR UPDATE OF t{wait}), "
            "allowed AS (SELECT a.item, a.thread_id, l.last_seq, l.at, a.count, a.active, "
            "a.summary, a.revoke FROM asked a JOIN locked l ON l.thread_id = a.thread_id "
            "WHERE NOT a.fenced OR (l.owner = a.owner AND l.generation = a.generation)), "
            "new AS (SELECT * FROM json_to_recordset(%(records)s::json) "
            "AS n(item int8, pos int8, kind text, data text)), "
            "added AS (INSERT INTO {s}.records (thread_id, seq, kind, data, at) "
            "SELECT allowed.thread_id, allowed.last_seq + new.pos, new.kind, new.data, "
            "allowed.at FROM allowed JOIN new ON new.item = allowed.item), "
            "changed AS (UPDATE {s}.threads t SET "
            "last_seq = allowed.last_seq + allowed.count, updated_at = allowed.at, "
            "active = coalesce(allowed.active, t.active), "
            "summary = coalesce(allowed.summary, t.summary), "
            "owner = CASE WHEN allowed.revoke THEN NULL ELSE t.owner END, "
            "generation = CASE WHEN allowed.revoke AND t.owner IS NOT NULL "
            "THEN t.generation + 1 ELSE t.generation END, "
            "expires_at = CASE WHEN allowed.revoke OR t.owner IS NULL THEN 0 ELSE t.expires_at END "
            "FROM allowed WHERE t.thread_id = allowed.thread_id "
            "AND t.thread_id IN (SELECT thread_id FROM asked) "
            "RETURNING t.thread_id, pg_notify(%(channel)s, t.thread_id)) "
            "SELECT a.item, l.last_seq, EXISTS (SELECT 1 FROM changed c "
            "WHERE c.thread_id = a.thread_id), l.thread_id IS NULL AND EXISTS (SELECT 1 "
            "FROM {s}.threads e WHERE e.thread_id = a.thread_id) FROM asked a "
            "LEFT JOIN locked l ON l.thread_id = a.thread_id ORDER BY a.item"
        )
        self.append = q(append.replace("{wait}", ""))
        # The same for a batch of several threads, which skips a row another
        # transaction holds locked (answering it skipped) instead of waiting for it: a
        # statement that waits for no lock is in no deadlock, whatever order other
        # writers (a tree's delete, another host's batch) lock rows in.
        self.append_skipping = q(append.replace("{wait}", " SKIP LOCKED"))
        self.doomed = q(
            "SELECT thread_id FROM {s}.threads WHERE thread_id IN ("
            "WITH RECURSIVE doomed(id) AS (SELECT %s::text UNION "
            "SELECT t.thread_id FROM {s}.threads t JOIN doomed ON t.parent_id = doomed.id) "
            "SELECT id FROM doomed) FOR UPDATE"
        )
        self.delete_records = q("DELETE FROM {s}.records WHERE thread_id = ANY(%s)")
        self.delete = q(
            "DELETE FROM {s}.threads WHERE thread_id = ANY(%s) RETURNING pg_notify(%s, thread_id)"
        )
        # Taken shared by a create under a parent and exclusively by a delete, so a
        # tree being deleted gains no child meanwhile.
        self.tree_shared = q("SELECT pg_advisory_xact_lock_shared(hashtextextended(%s, 0))")
        self.tree_exclusive = q("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))")
        # One statement: only a free, expired or own lease matches; the generation
        # rises unless the unexpired holder claims again. The clock is read as the
        # statement starts: a claim that waited for the row lock judges with an earlier
        # time, so it can only find a lease unexpired a moment longer and grant one a
        # moment shorter, never the other way.
        self.claim = q(
            "WITH clock AS (SELECT {now} AS at) "
            "UPDATE {s}.threads t SET "
            "generation = CASE WHEN t.owner = %(owner)s AND t.expires_at > clock.at "
            "THEN t.generation ELSE t.generation + 1 END, "
            "owner = %(owner)s, expires_at = clock.at + %(ttl)s "
            "FROM clock WHERE t.thread_id = %(thread)s "
            "AND (t.owner IS NULL OR t.owner = %(owner)s OR t.expires_at <= clock.at) "
            "RETURNING t.generation, t.expires_at"
        )
        self.renew = q(
            "UPDATE {s}.threads SET expires_at = {now} + %s "
            "WHERE thread_id = %s AND owner = %s AND generation = %s RETURNING expires_at"
        )
        self.held = q(
            "SELECT last_seq FROM {s}.threads "
            "WHERE thread_id = %s AND owner = %s AND generation = %s"
        )
        # Frees the lease when it is still the caller's and, when asked, the journal
        # still ends at the given seq; `held` then tells a lease gone from one kept.
        self.release = q(
            "UPDATE {s}.threads SET owner = NULL, expires_at = 0 "
            "WHERE thread_id = %(thread)s AND owner = %(owner)s AND generation = %(generation)s "
            "AND (%(if_last_seq)s::int8 IS NULL OR last_seq = %(if_last_seq)s::int8) RETURNING 1"
        )
        # Reads in one statement (one snapshot), the items one JSON parameter: per
        # item in order, no row for no thread, else its records (one row of NULLs for
        # none).
        self.read = q(
            "SELECT a.item, t.thread_id IS NOT NULL, r.seq, r.kind, r.data, r.at "
            "FROM json_to_recordset(%s::json) AS a(item int8, thread_id text, after int8, "
            "lim int8) LEFT JOIN {s}.threads t ON t.thread_id = a.thread_id "
            "LEFT JOIN LATERAL (SELECT seq, kind, data, at FROM {s}.records "
            "WHERE thread_id = t.thread_id AND seq > a.after ORDER BY seq LIMIT a.lim) r "
            "ON true ORDER BY a.item, r.seq"
        )
        self.row = q("SELECT {row} FROM {s}.threads WHERE thread_id = %s")
        self.rows = q("SELECT {row} FROM {s}.threads WHERE thread_id = ANY(%s::text[])")
        self.top_level = q(
            "SELECT {row} FROM {s}.threads WHERE parent_id IS NULL AND ordinal < %s "
            "ORDER BY ordinal DESC LIMIT %s"
        )
        self.children = q(
            "SELECT {row} FROM {s}.threads WHERE parent_id = %s AND ordinal < %s "
            "ORDER BY ordinal DESC LIMIT %s"
        )
        self.claimable = q(
            "SELECT thread_id FROM {s}.threads WHERE (active AND owner IS NULL) "
            "OR (owner IS NOT NULL AND expires_at <= {now}) ORDER BY ordinal LIMIT %s"
        )
