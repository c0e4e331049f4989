#!/usr/bin/env python
"""Django's command-line utility for Roadstar."""
import sys


def main():
    from roadstar.settings import configure

    configure()  # DJANGO_SETTINGS_MODULE, or the module ROADSTAR_ENV / ALLOWED_HOSTS choose (roadstar/settings)
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
