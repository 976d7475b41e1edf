"""SDK clients the default path cannot post a raw body through, so a provider on one
goes through the SDK's `create` methods and models instead (dumped into the same
reader): how tests and benchmarks reach that path.

`without_raw_post(AsyncOpenAI)` (or any other official client class) is a subclass
whose `post` no longer takes the body as JSON data, `body`, as an SDK that changed it
would: `raw_post_problem` names what is missing, and the provider warns that its calls
go through `create`.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["without_raw_post"]

C = TypeVar("C")


def without_raw_post(client_class: type[C]) -> type[C]:
    """A subclass of `client_class` whose `post` takes no `body`, `options` or
    `stream` keyword (it forwards everything else to the SDK's own `post`)."""

    async def post(self: Any, path: str, *, cast_to: Any, content: Any = None, **rest: Any) -> Any:
        return await super(older, self).post(path, cast_to=cast_to, content=content, **rest)

    older: Any = type(f"Older{client_class.__name__.removeprefix('Async')}", (client_class,), {})
    older.post = post
    older.__doc__ = f"A `{client_class.__name__}` whose `post` takes no raw body."
    return older  # type: ignore[no-any-return]
