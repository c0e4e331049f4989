"""The tools app's own tool groups, one module each. Every module in this package is a group, found by
`tools.registry.load_all()` when Django loads the apps: a new group's module needs no edit anywhere else."""
