"""Test scaffolding that pins what the repository documents to what the code does.

- `RuleBook`: a doc's tagged rules (`**T3.**`), each cited by a test; `RULE_PINNINGS`
  registers, for every contract page, which tests pin which of its prefixes.
- `PublicSurface`: a published package's public names, derived from its modules and
  pinned by a committed snapshot in `docs/api/`.
- `code_samples`: every Python block of the repository's pages, each a complete program,
  executed by a named test, or marked a fragment.
"""

from automata_docs_testing._rule_book import RuleBook
from automata_docs_testing._rule_pinnings import RULE_PINNINGS, RulePinning
from automata_docs_testing._samples import (
    FRAGMENT_MARKER,
    SAMPLE_PAGES,
    CodeSample,
    SampleKind,
    SampleMarkerError,
    code_samples,
    samples_of,
)
from automata_docs_testing._surface import SNAPSHOT_FOLDER, WRITE_COMMAND, PublicSurface

__all__ = [
    "FRAGMENT_MARKER",
    "RULE_PINNINGS",
    "SAMPLE_PAGES",
    "SNAPSHOT_FOLDER",
    "WRITE_COMMAND",
    "CodeSample",
    "PublicSurface",
    "RuleBook",
    "RulePinning",
    "SampleKind",
    "SampleMarkerError",
    "code_samples",
    "samples_of",
]
