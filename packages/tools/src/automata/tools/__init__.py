"""First-party tools for automata agents: HTTP fetch, sandboxed files and coding tools
(line-range reads, exact-match edits, glob, grep, folder listings), allow-listed shell
(on this machine or in a bubblewrap jail), web search.

Each factory returns an `automata.core.Tool`. Every tool is safe by default: it refuses
what would reach beyond what it was given (private networks, paths outside its root,
programs not on its allow-list) and bounds its time and output. `docs/tools.md` says
what each refuses and how to loosen it deliberately.
"""

from automata.tools._addresses import AddressPolicy, Category, categorize
from automata.tools._backends import CommandBackend, HostBackend, Launch
from automata.tools._bubblewrap import BubblewrapBackend, Limits
from automata.tools._edit import TextEdit, edit_file
from automata.tools._errors import Refused, SandboxUnavailable, ToolError
from automata.tools._files import read_file, write_file
from automata.tools._grep import grep
from automata.tools._http_fetch import DEFAULT_USER_AGENT, http_fetch
from automata.tools._listing import glob, list_dir
from automata.tools._resolve import Resolver, parse_ip_literal, system_resolver
from automata.tools._sandbox import Sandbox
from automata.tools._search import Searcher, SearchError, SearchResult, format_results, web_search
from automata.tools._shell import shell

__all__ = [
    "DEFAULT_USER_AGENT",
    "AddressPolicy",
    "BubblewrapBackend",
    "Category",
    "CommandBackend",
    "HostBackend",
    "Launch",
    "Limits",
    "Refused",
    "Resolver",
    "Sandbox",
    "SandboxUnavailable",
    "SearchError",
    "SearchResult",
    "Searcher",
    "TextEdit",
    "ToolError",
    "categorize",
    "edit_file",
    "format_results",
    "glob",
    "grep",
    "http_fetch",
    "list_dir",
    "parse_ip_literal",
    "read_file",
    "shell",
    "system_resolver",
    "web_search",
    "write_file",
]
