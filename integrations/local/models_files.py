"""The local files (the owner's files kept by Roadstar: facts in the database, bytes in a folder on disk), and the
doc-change watch's cursor for every files account.

- `LocalFile`: one file or folder of a local connection. Its id is Drive-like (`file_id`, unique per connection);
  its bytes are a blob under the files root (integrations.files.storage). A write puts the new bytes in a NEW blob
  and points the row at it, so a transaction that rolls back leaves the old bytes where the row still points.
  `text` is the file's words for search, refreshed on every write.
- `LocalFileChange`: one line per write, in order; the local provider's `changes(cursor)` reads it.
- `FilesWatch`: where the doc-change poll got to for each files account (local or Google): the cursor that
  `FilesProvider.changes` gave last.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

__all__ = ["FOLDER_MIME", "FilesWatch", "LocalFile", "LocalFileChange"]

FOLDER_MIME = "inode/directory"


class LocalFile(models.Model):
    connection = models.ForeignKey("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    file_id = models.CharField(max_length=64, help_text="The id after the account key, as Drive's ids are.")
    name = models.CharField(max_length=255)
    mime_type = models.CharField(max_length=255)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="children",
                               help_text="The folder it is in; none: the top of the owner's files.")
    trashed = models.BooleanField(default=False)
    blob = models.CharField(max_length=500, blank=True, help_text="Its bytes, relative to the files root.")
    size = models.PositiveBigIntegerField(null=True, blank=True)
    text = models.TextField(blank=True, help_text="Its words, for search.")
    modified_at = models.DateTimeField(default=timezone.now)
    modified_by = models.CharField(max_length=254, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "file_id"]
        constraints = [
            models.UniqueConstraint(fields=["connection", "file_id"], name="local_file_id_unique"),
        ]
        indexes = [models.Index(fields=["connection", "trashed", "parent"], name="local_file_folder_idx")]

    def __str__(self):
        return self.name

    @property
    def is_folder(self) -> bool:
        return self.mime_type == FOLDER_MIME


class LocalFileChange(models.Model):
    id = models.BigAutoField(primary_key=True)
    connection = models.ForeignKey("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    file = models.ForeignKey(LocalFile, on_delete=models.CASCADE, related_name="changes")
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]


class FilesWatch(models.Model):
    connection = models.OneToOneField("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    cursor = models.CharField(max_length=500, blank=True)
    polled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "files watches"

    def __str__(self):
        return f"files watch of {self.connection_id}"
