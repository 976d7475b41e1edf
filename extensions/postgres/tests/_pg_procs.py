"""Worker processes for the PostgreSQL multi-process tests: each command opens its own
`PostgresStore` (its own pool) on the shared schema, does one job and reports on stdout
as JSON lines.

Run as `python _pg_procs.py COMMAND DSN SCHEMA ARGS...`:

- `open DSN SCHEMA`: prints {"ready": true}, waits for a line on stdin, opens the
  store; prints {"migrated": BOOL} (whether this process applied migrations).
- `append DSN SCHEMA WORKER COUNT`: appends COUNT records `WORKER:i` to thread "t", one
  commit each; prints {"done": COUNT}.
- `claim DSN SCHEMA OWNER TTL`: prints {"ready": true}, waits for a line on stdin,
  then claims thread "t"; prints {"lease": LEASE or null}.
- `hold DSN SCHEMA OWNER TTL`: claims thread "t", prints {"lease": LEASE}, waits for a
  line on stdin, then appends one fenced record "late"; prints {"written": true} or
  {"lost": GENERATION}.
- `listen DSN SCHEMA THREAD`: reads the store's change feed until THREAD comes; prints
  {"seen": THREAD}.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import sys

from automata.postgres import PostgresStore
from automata.threads import LeaseLostError
from automata.threads.store import Lease, NewRecord


def say(message: dict[str, object]) -> None:
    print(json.dumps(message), flush=True)


def lease_json(lease: Lease | None) -> object:
    return None if lease is None else dataclasses.asdict(lease)


async def wait_for_go() -> None:
    say({"ready": True})
    await asyncio.to_thread(sys.stdin.readline)


async def fenced_write(store: PostgresStore, lease: Lease) -> None:
    try:
        await store.append("t", [NewRecord("note", "late")], fence=lease)
    except LeaseLostError as error:
        say({"lost": error.generation})
    else:
        say({"written": True})


async def main(command: str, dsn: str, schema: str, args: list[str]) -> None:
    store = PostgresStore(dsn, schema=schema, max_size=2)
    if command == "open":
        await wait_for_go()
        phases: list[str] = []
        await store.open(phases.append)
        say({"migrated": "migrating" in phases})
        await store.close()
        return
    await store.open()
    try:
        if command == "append":
            worker, count = args[0], int(args[1])
            for i in range(count):
                await store.append("t", [NewRecord("note", f"{worker}:{i}")])
            say({"done": count})
        elif command == "claim":
            await wait_for_go()
            say({"lease": lease_json(await store.claim("t", args[0], float(args[1])))})
        elif command == "hold":
            lease = await store.claim("t", args[0], float(args[1]))
            assert lease is not None
            say({"lease": lease_json(lease)})
            await asyncio.to_thread(sys.stdin.readline)
            await fenced_write(store, lease)
        elif command == "listen":
            async with contextlib.aclosing(store.changes()) as feed:
                async for thread_id in feed:
                    if thread_id == args[0]:
                        say({"seen": thread_id})
                        break
        else:
            raise SystemExit(f"unknown command {command!r}")
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]))
