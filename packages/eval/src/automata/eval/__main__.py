"""`python -m automata.eval`: the `automata-eval` command."""

from automata.eval._cli import console

console()
