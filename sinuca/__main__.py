"""``python -m sinuca replay FILE``: fold a match file and print the state (contract section 9)."""
from .cli import main

raise SystemExit(main())
