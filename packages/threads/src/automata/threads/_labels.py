"""Run labels and host maps of a thread's sends (docs/threads.md, RL rules).

A send's `labels` are journaled in its `input` record (field `labels`, left out when
none were given, so a journal written before reads as unlabelled): the turn runs with
them in every process and after every restart, and its view shows them. A send's
`host` map is opaque and never stored: `HostMaps` keeps it in this host's memory for
the runner of that turn, here, until the turn ends; a turn resumed by another process
(or after a restart) runs without one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from automata.core import RunLabels
from automata.core._labels import host_map

__all__ = ["HostMaps", "labels_field", "labels_from"]


def labels_field(labels: Mapping[str, str] | None) -> dict[str, Any]:
    """An `input` record's `labels` field: none at all without labels. Raises the
    core's `ArgumentTypeError` / `InvalidArgumentError` for labels no run accepts."""
    checked = RunLabels.of(labels)
    return {"labels": checked.as_dict()} if checked else {}


def labels_from(data: Mapping[str, Any]) -> dict[str, str]:
    """The labels an `input` record holds (empty for one without)."""
    found = data.get("labels") or {}
    return RunLabels.of(found).as_dict()


class HostMaps:
    """The host maps of sends, in memory only, by thread and request key."""

    def __init__(self) -> None:
        self._maps: dict[tuple[str, str], Mapping[str, Any]] = {}

    def remember(self, thread_id: str, request_key: str, host: Mapping[str, Any]) -> None:
        self._maps[(thread_id, request_key)] = host_map(host)

    def get(self, thread_id: str, request_key: str) -> Mapping[str, Any] | None:
        return self._maps.get((thread_id, request_key))

    def forget(self, thread_id: str, request_key: str) -> None:
        self._maps.pop((thread_id, request_key), None)
