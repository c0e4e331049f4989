"""Roadstar's own docs: the hand-written pages (`pages/`), the tool pages generated from the registry, and the
search over both. The help group's tools read them here; the people's pages (pages/help_views.py) serve them."""
