"""The worker's search tasks: every minute, copy what is new in each account with search on (and finish or
resume a first sync), and drop the copies of accounts turned off."""

from search import sync

SCHEDULES = (("search.tasks.sweep", "search copies", 1),)


def sweep():
    sync.sweep()
