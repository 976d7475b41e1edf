"""The PostgreSQL store keeps the storage contract: the threads package's conformance
suite, each check on a fresh schema of the session's server, and fail-closed opening
of schemas it must not touch."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import psycopg
import pytest
from psycopg import sql

from automata.postgres import SCHEMA_VERSION, PostgresStore
from automata.threads import SchemaError
from automata.threads.store import ThreadStore
from automata.threads.testing import StoreConformance


def _sql(dsn: str, statement: sql.Composed) -> None:
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(statement)


def _tables(dsn: str, schema: str) -> list[tuple[str, int]]:
    """Each table of `schema` with its row count."""
    with psycopg.connect(dsn, autocommit=True) as connection:
        names = [
            str(row[0])
            for row in connection.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s "
                "ORDER BY table_name",
                (schema,),
            )
        ]
        counts = []
        for name in names:
            found = connection.execute(
                sql.SQL("SELECT count(*) FROM {}.{}").format(
                    sql.Identifier(schema), sql.Identifier(name)
                )
            ).fetchone()
            assert found is not None
            counts.append((name, int(found[0])))
        return counts


async def _newer(dsn: str, schema: str) -> None:
    """A threads schema one version newer than this code."""
    store = PostgresStore(dsn, schema=schema)
    await store.open()
    await store.close()
    _sql(
        dsn,
        sql.SQL("INSERT INTO {}.threads_migrations (version) VALUES ({})").format(
            sql.Identifier(schema), sql.Literal(SCHEMA_VERSION + 1)
        ),
    )


def _marked_newer(dsn: str, schema: str) -> None:
    """A schema whose version table says it is newer than this code."""
    _sql(dsn, sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    _sql(
        dsn,
        sql.SQL("CREATE TABLE {}.threads_migrations AS SELECT {} AS version").format(
            sql.Identifier(schema), sql.Literal(SCHEMA_VERSION + 1)
        ),
    )


def _foreign(dsn: str, schema: str) -> None:
    """A schema holding another application's table."""
    _sql(dsn, sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    _sql(dsn, sql.SQL("CREATE TABLE {}.orders (id int)").format(sql.Identifier(schema)))


class TestPostgresStoreConformance(StoreConformance):
    @pytest.fixture(autouse=True)
    def _server(self, pg_server: str, new_schema: Callable[[], str]) -> None:
        self.dsn = pg_server
        self.new_schema = new_schema

    def make_store(self) -> PostgresStore:
        return PostgresStore(self.dsn, schema=self.new_schema())

    def incompatible_stores(self) -> Sequence[Callable[[], ThreadStore]]:
        newer, foreign = self.new_schema(), self.new_schema()
        _marked_newer(self.dsn, newer)
        _foreign(self.dsn, foreign)
        return [
            lambda: PostgresStore(self.dsn, schema=newer),
            lambda: PostgresStore(self.dsn, schema=foreign),
        ]


async def test_a_newer_or_foreign_schema_fails_closed_and_changes_nothing(
    pg_server: str, new_schema: Callable[[], str]
) -> None:
    newer, foreign = new_schema(), new_schema()
    await _newer(pg_server, newer)
    _foreign(pg_server, foreign)
    before = {name: _tables(pg_server, name) for name in (newer, foreign)}
    for name, message in ((newer, "newer than this code"), (foreign, "not a threads store")):
        store = PostgresStore(pg_server, schema=name)
        with pytest.raises(SchemaError, match=message):
            await store.open()
        await store.close()
    assert {name: _tables(pg_server, name) for name in (newer, foreign)} == before
