"""The public surface of `automata.web` and its public submodules: each `__all__` is
exactly what the module binds, every export is defined inside the package, and the
surface matches its committed snapshot in docs/api/ (`uv run python scripts/api_surface.py
--write` regenerates it)."""

from __future__ import annotations

from automata_docs_testing import PublicSurface


def test_the_public_surface_is_exact_and_matches_its_snapshot() -> None:
    PublicSurface.of("automata.web").check()
