"""Test scaffolding that pins what the repository documents to what the code does.

- `RuleBook`: a doc's tagged rules (`**T3.**`), each cited by a test.
- `PublicSurface`: a published package's public names, derived from its modules and
  pinned by a committed snapshot in `docs/api/`.
"""

from automata_docs_testing._rule_book import RuleBook
from automata_docs_testing._surface import SNAPSHOT_FOLDER, WRITE_COMMAND, PublicSurface

__all__ = ["SNAPSHOT_FOLDER", "WRITE_COMMAND", "PublicSurface", "RuleBook"]
