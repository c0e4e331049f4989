"""The files group's side of the owner's apps: what is the same on every files provider (Drive, local files).

| Module | What it holds |
| --- | --- |
| `content.py` | a file's bytes -> text, tabs or an image (the same for every app); kinds and mime types |
| `sheets.py` | A1 ranges, cells as shown, comparing written cells for Undo |
| `textedit.py` | replacing and appending text so Undo can put it back exactly, on any document's flat text |
| `storage.py` | the local files' folder on disk |
| `services.py` | the tools' work: the account of an id or a Drive link, search across accounts, reads, writes, Undo |
| `events.py` | `kind:doc.changed` events from each account's changes |
"""
