"""`python -m chat`: serve the chat app (see chat.cli)."""

import sys

from chat.cli import main

if __name__ == "__main__":
    sys.exit(main())
