"""What leaves the search copy the moment it goes: a workspace record deleted, a message, file or meeting deleted
at the source. Removal happens in the deleting transaction, so a rollback keeps both. (New and changed records are
copied by their `updated_at` before each search and by the sync's positions: search/index.py, search/sync.py.)"""

from django.db.models.signals import post_delete
from django.dispatch import receiver

from integrations.local.models_calendar import LocalEvent
from integrations.local.models_files import LocalFile
from integrations.local.models_mail import LocalMailAttachment, LocalMailMessage
from integrations.models import Connection
from records.models import Company, Contact, Doc, Project
from research.models import Dataset, ResearchPage
from search import index
from search.models import SearchItem


@receiver(post_delete, sender=Doc, dispatch_uid="search.doc_deleted")
@receiver(post_delete, sender=Contact, dispatch_uid="search.contact_deleted")
@receiver(post_delete, sender=Company, dispatch_uid="search.company_deleted")
@receiver(post_delete, sender=Project, dispatch_uid="search.project_deleted")
@receiver(post_delete, sender=ResearchPage, dispatch_uid="search.page_deleted")
@receiver(post_delete, sender=Dataset, dispatch_uid="search.table_deleted")
def _record_deleted(sender, instance, **kwargs):
    kind = {Doc: "doc", Contact: "contact", Company: "company", Project: "project", ResearchPage: "page",
            Dataset: "table"}[sender]
    index.remove(instance.organization_id, [f"{kind}:{instance.pk}"])


def _account(instance):
    # Reached through the cached connection when the deletion loaded it; one small query otherwise.
    connection = Connection.objects.filter(pk=instance.connection_id).values_list(
        "organization_id", "account_key").first()
    return connection or (None, None)


@receiver(post_delete, sender=LocalMailMessage, dispatch_uid="search.mail_deleted")
def _message_deleted(sender, instance, **kwargs):
    org_id, key = _account(instance)
    if not org_id:
        return
    item_key = f"mail:{key}:m:{instance.key}"
    thread = SearchItem.objects.filter(organization_id=org_id, key=item_key).values_list("thread", flat=True).first()
    if index.remove(org_id, [item_key]) and thread:
        index.thread_states(org_id, [thread])  # who wrote last may have changed


@receiver(post_delete, sender=LocalFile, dispatch_uid="search.file_deleted")
def _file_deleted(sender, instance, **kwargs):
    org_id, key = _account(instance)
    if org_id:
        index.remove(org_id, [f"files:{key}:{instance.file_id}"])


@receiver(post_delete, sender=LocalEvent, dispatch_uid="search.meeting_deleted")
def _meeting_deleted(sender, instance, **kwargs):
    org_id, key = _account(instance)
    if org_id:
        index.remove(org_id, [f"meeting:{key}:{instance.id}"])


@receiver(post_delete, sender=LocalMailAttachment, dispatch_uid="search.attachment_deleted")
def _attachment_deleted(sender, instance, **kwargs):
    org_id, key = _account(instance)
    if org_id:
        index.remove(org_id, [f"mail:{key}:a:{instance.key}"])
