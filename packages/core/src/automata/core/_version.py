"""The version of an installed distribution, with a fallback for source trees."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["UNKNOWN_VERSION", "installed_version"]

UNKNOWN_VERSION = "0+unknown"
"""What `installed_version` reports for code imported from a source tree that was never
installed: a valid version (PEP 440) that sorts below every release."""


def installed_version(distribution: str) -> str:
    """The installed version of `distribution`, or `UNKNOWN_VERSION`."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return UNKNOWN_VERSION
