"""Roadstar's own docs: the hand-written pages (`pages/`), the tool pages generated from the registry, and the
search over both. The help group's tools read them here; the people's pages (pages/help_views.py) serve them.

Help
====

- **Every group in browse** (`tools/registry.py` `SPEC_GROUPS`, `tools/catalog.py`): browse_tools' description lists
  the spec catalog page's 19 groups in its order. A built group's line is the spec's word for word with its tool
  count. The spec says nothing about a group a Roadstar lacks, so we chose to show it rather than hide it: it keeps
  its line with "(not available yet)" in place of a count, and is never offered as if it worked. Browsing it returns
  `not_available` with a sentence (and not `no_such_group`, because the name is right). `find_tools` says the same
  in `no_such_tool`, and `use_tool` on one of its tools answers `unsupported` with words. A group that registers
  later (someone builds it, or its provider gets set up) shows up counted with no change here.
- **Roadstar's own docs** (`tools/help/`): the user documentation, written by us in markdown under
  `tools/help/pages/` (the start page, how it works, connecting apps, limits, errors, models, the seven use cases),
  plus pages generated from the registry (`generate.py`). Those are `/tools/` (every group, and the absent ones
  marked), `/tools/catalog/` (browse/find/use with the words each reads), and one page per registered group: its
  how-to word for word, then each tool's name, description, owner's yes, Home listing, inputs with types and limits
  (read from the input model's JSON Schema, which is what `use_tool` validates) and the error kinds its declaration
  implies. Generated pages can't drift from the code. The models table comes from `settings.ROADSTAR_MODELS` and the
  check's reasons from `checks/reasons.py`. The numbers on the limits page are written by hand, and a test compares
  each one with the constant the code enforces. `library.py` holds the pages by address (`/tools/mail/`, parts as
  `/tools/mail/#send`, one per `## ` heading), built once for each set of declarations. `search.py` ranks pages and
  parts by the number of query words they contain, then by words in the title, then by density. Tool names such as
  `mail.send` count as one word, and a part beats its page on a tie.
- **The help group** (`tools/groups/help.py`): `help.search` and `help.read` over that library, declared as the spec
  says. `help.read` takes an address however a link writes it (`/tools/mail`, `/help/tools/mail.md`, a full URL). An
  unknown page or part is `not_found` naming it, and an unknown part's error also lists the parts the page has.
- **Served** (`pages/help_views.py`, public, no sign-in: product docs with nothing of any workspace's, and
  `tools.json` only holds declarations). The brief asked for `/docs/…`, but that address belongs to the owner's Docs
  page (the business's proposals and briefs, `/docs/<uuid>/`), so we serve the product docs at `/help/…` as HTML in
  the site's frame (markdown-it with raw HTML escaped and only safe links, as `pages/mdx.py` does; headings carry
  their part's anchor). The same address with `.md` (or `Accept: text/markdown`) returns markdown. Other routes:
  `/llms.txt` (the llms.txt index: every page's markdown URL with its one-line summary), `/llms-full.txt`, and
  `/tools.json` (every registered tool in spec/tools.json's shape, each input also carrying its `limits`, plus the
  tool's `input_schema`). Result types aren't declared in the registry, so neither the tool pages nor tools.json
  show them. The topbar links Help.
- **The agent tools' page** (`/tools/agent-tools/`): the agent tools are declared in `agents/`, above `tools/`, so
  `agents/docs.py` writes their page from `AGENT_TOOLS` (description, input, where each is offered) and hands it to
  the library as a page source (`tools.help.library.PAGE_SOURCES`, from `agents/hooks.py`). The packet and
  job-description limits that those tools check when they run, rather than in their schema, come from the same
  constants the checks use.
"""
