#!/usr/bin/env python
"""Django's command-line utility for the scoreboard project."""
import os
import sys


def main() -> None:
    """Run an administrative task with the project's settings."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoreboard.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
