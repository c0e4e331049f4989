"""Templates
=========

Ready-made agents, teams, departments and skills. Roadstar's own are YAML files in `agent_templates/catalogue/` (one
a file, named by its slug, id `roadstar/<slug>`), checked by pydantic (`catalogue.py` `TemplateBody`) when loaded: a
file that doesn't hold together (a missing field, a job description past 600 characters with its blanks answered, a
blank no question asks, a routine on a skill its agent lacks, a cron line or key Roadstar can't fire) fails naming
the file and field, and a test loads and really adds every one. A question's `blank` is written `{{blank}}` in the
texts it fills. The templates a workspace's people shared are `SharedTemplate` rows (id `shared/<slug>`, the same
body shape, scoped by organization). The app sits between `routines` and `home` (adding makes agents, skills and
routines), so its tool group is `agent_templates/tool_groups.py`, found by that name when Django loads the apps,
rather than in `tools/groups/`. `templates.search` scores words (with routines' word stems) by where they match, the
name most; `read` adds `youHave` (the template's agents the owner has by name) and, beyond the spec's shape,
`choices` on a choice question. `propose_add` and `propose_share` only put a `Card` of kind `template` on Home (one
open card per template or per set of agents); the owner answers it there (`home/views.py` `card_template_add` /
`_share` / `_no`, `partials/template_card.html`): the answers, where the template goes on the chart (under whom; for
a skill, which agent gets it), the agents' names when one is taken. `template_add` claims the card with a
conditional write and makes everything in one transaction with one `Change` (`templates.add`, on Home with Undo);
the undo removes all of it, or nothing (`changed`) when any of it was edited, did work, gained a skill, routine or
report, since. Sharing keeps the agents or skill as they are at the press (routines on a due time or a check are
left out: they belong to this workspace's records); sharing the same name again makes a new version, and its Undo
restores the one before.
"""
