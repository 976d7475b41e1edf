"""Worker processes for the SQLite multi-process tests: each command opens its own
`SQLiteStore` on the shared file, does one job and reports on stdout as JSON lines.

Run as `python _store_procs.py COMMAND PATH ARGS...`:

- `append PATH WORKER COUNT`: append COUNT records `WORKER:i` to thread "t", one
  commit each; prints {"done": COUNT}.
- `claim PATH OWNER TTL`: prints {"ready": true}, waits for a line on stdin, then
  claims thread "t"; prints {"lease": LEASE or null}.
- `hold PATH OWNER TTL`: claims thread "t", prints {"lease": LEASE}, then sleeps until
  killed.
- `fenced PATH LEASE_JSON`: appends one record to thread "t" fenced by the given
  lease; prints {"written": true} or {"lost": GENERATION}.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys

from automata.threads import LeaseLostError, SQLiteStore
from automata.threads.store import Lease, NewRecord


def say(message: dict[str, object]) -> None:
    print(json.dumps(message), flush=True)


def lease_json(lease: Lease | None) -> object:
    return None if lease is None else dataclasses.asdict(lease)


async def main(command: str, path: str, args: list[str]) -> None:
    store = SQLiteStore(path, busy_timeout=10.0)
    await store.open()
    try:
        if command == "append":
            worker, count = args[0], int(args[1])
            for i in range(count):
                await store.append("t", [NewRecord("note", f"{worker}:{i}")])
            say({"done": count})
        elif command == "claim":
            say({"ready": True})
            await asyncio.to_thread(sys.stdin.readline)
            say({"lease": lease_json(await store.claim("t", args[0], float(args[1])))})
        elif command == "hold":
            say({"lease": lease_json(await store.claim("t", args[0], float(args[1])))})
            await asyncio.sleep(3600)
        elif command == "fenced":
            lease = Lease(**json.loads(args[0]))
            try:
                await store.append("t", [NewRecord("note", "late")], fence=lease)
            except LeaseLostError as error:
                say({"lost": error.generation})
            else:
                say({"written": True})
        else:
            raise SystemExit(f"unknown command {command!r}")
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
