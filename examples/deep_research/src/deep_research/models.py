"""The values the agents exchange: the orchestrator's plan (its typed output) and the
arguments it gives its two sub-agents (their params models)."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["Findings", "ResearchAssignment", "ResearchPlan", "WritingBrief"]


class ResearchPlan(BaseModel):
    """The research plan: a working title and the questions to research."""

    title: str = Field(description="A working title for the final report.")
    questions: list[str] = Field(
        min_length=1,
        max_length=5,
        description="Distinct, answerable research questions, most important first.",
    )


class ResearchAssignment(BaseModel):
    """What the orchestrator hands one researcher."""

    question: str = Field(description="The one question this researcher must answer.")
    context: str = Field(
        default="",
        description="The overall topic and anything the researcher should keep in mind.",
    )


class Findings(BaseModel):
    """A researcher's notes on one question, as the orchestrator passes them on."""

    question: str = Field(description="The research question.")
    notes: str = Field(description="The researcher's notes for it, sources included, verbatim.")


class WritingBrief(BaseModel):
    """What the orchestrator hands the writer."""

    title: str = Field(description="The report's title.")
    findings: list[Findings] = Field(
        min_length=1, description="Every question with the researcher's notes for it."
    )
