"""Routines
========

Skill, Routine (at / ask / keys / due / check, filter, once, note, skill, its own thread), RoutineKey (the index
events are matched through: one row per key), Event, RoutineRun (runs of a routine queue behind each other),
Summary. `routines/engine.py`: the tick claims due routines with skip-locked row locks and a conditional write (so
two workers fire each once), computes next times in the owner's zone with croniter (downtime fires once), runs
`check` tools (before the claim, with no transaction open) and compares result hashes, wakes due follow-ups in the
thread that set them, and starts the morning summary at the owner's time. `match_event` first tries one raw
statement that marks the event matched only if no key of its workspace's index (nor, for mail and documents with
text, an `ask` routine that is on) listens for it: most events end there, and nothing is cached in the process
(2026-12-01). Otherwise it reads the ids and filters of the routines its keys name, and reads each whole once, under
its lock, in the transaction that fires it (`routines_locked`, `routine_fire_locked`: one turned off meanwhile is
not fired); for new mail and documents it weighs every `ask` routine of the workspace by meaning in one call to the
cheapest model per event (up to 40 routines a call, a bounded prompt, a strict-JSON answer naming the routines;
shared words only order them). The event is taken by the conditional write that marks it matched, in the transaction
that fires its routines (the model asked before it opens): two workers fire it once, and a worker killed part-way
leaves nothing fired for the retry. Each run's message says what started it: the event, its keys, and who, what and
the ids (sender, subject, mail and thread id), so the thread reads the item without searching.
"""
