"""Providers: each app's side of each tool group. base.py is the interface, registry.py the lookup.

Every module under this package is imported on first lookup (registry.load_providers), so a provider module
registers itself with register_provider and needs no line anywhere else.
"""
