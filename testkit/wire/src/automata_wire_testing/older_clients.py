"""SDK clients the default path cannot post a raw body through, so a provider on one
goes through the SDK's `create` methods and models instead (dumped into the same
reader): how tests and benchmarks reach that path.

`without_raw_post(AsyncOpenAI)` (or any other official client class) is a subclass
whose `post` no longer takes the body as JSON data, `body`, as an SDK that changed it
would: `raw_post_problem` names what is missing, and the provider warns that its calls
go through `create`.

`recording_posts(AsyncOpenAI)` (or any client class, an older one included) is a
subclass that keeps what each call of its `post` was asked for (`PostCall`: the path,
the class the reply is cast to, streaming or not) in its class's `posts`, shared by
the copies `with_options` makes (`posts_of(client)`), and forwards it as it came:
how a test sees which way a provider's call went out.

`public_aio_only(genai.Client)` is a user's subclass of a `google-genai` client class
whose `aio` offers only the SDK's public surface (`models`, `aclose`), without the API
client the Gemini provider's direct path posts through: the provider warns and goes
through `models.generate_content` instead.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["PostCall", "posts_of", "public_aio_only", "recording_posts", "without_raw_post"]

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


@dataclass(frozen=True, slots=True)
class PostCall:
    """One call of a client's `post`: where to, what the reply is cast to, streamed."""

    path: str
    cast_to: Any
    stream: bool


def recording_posts(client_class: type[C]) -> type[C]:
    """A new subclass of `client_class` that appends a `PostCall` to its `posts` list
    (one per subclass, so one per call of this) for each call of `post` by any of its
    instances, then makes it through `client_class.post` (whose signature it keeps, so
    `raw_post_problem` reads the class's own)."""
    parent_post = client_class.post  # type: ignore[attr-defined]

    @functools.wraps(parent_post)
    async def post(self: Any, path: str, *args: Any, **kwargs: Any) -> Any:
        recording.posts.append(PostCall(path, kwargs.get("cast_to"), bool(kwargs.get("stream"))))
        return await parent_post(self, path, *args, **kwargs)

    post.__signature__ = inspect.signature(parent_post)  # type: ignore[attr-defined]
    recording: Any = type(
        f"Recording{client_class.__name__}", (client_class,), {"post": post, "posts": []}
    )
    recording.__doc__ = f"A `{client_class.__name__}` that records its posts."
    return recording  # type: ignore[no-any-return]


def posts_of(client: object) -> list[PostCall]:
    """The posts a client of a `recording_posts` class (or a copy of it) made."""
    posts: list[PostCall] = type(client).posts  # type: ignore[attr-defined]
    return posts


class _PublicAio:
    """A client's `aio`, narrowed to what the SDK documents: `models` and `aclose`."""

    __slots__ = ("_aio", "models")

    def __init__(self, aio: Any) -> None:
        self._aio = aio
        self.models = aio.models

    async def aclose(self) -> None:
        await self._aio.aclose()


def public_aio_only(client_class: type[C]) -> type[C]:
    """A subclass of `client_class` (a `google.genai.Client`) whose `aio` is the
    client's own async surface narrowed to `models` and `aclose` (one wrapper per
    client, so the SDK's async client and its connections are the client's own)."""

    def aio(self: Any) -> _PublicAio:
        narrowed: _PublicAio | None = self.__dict__.get("_public_aio")
        if narrowed is None:
            narrowed = self.__dict__["_public_aio"] = _PublicAio(super(public, self).aio)
        return narrowed

    public: Any = type(f"Public{client_class.__name__}", (client_class,), {"aio": property(aio)})
    public.__doc__ = f"A `{client_class.__name__}` whose `aio` offers only `models` and `aclose`."
    return public  # type: ignore[no-any-return]
