"""The local books (the owner's invoices kept by Roadstar, imported from a CSV), and the overdue watch's memory.

Local invoices and customers carry QuickBooks-style ids (digits, the spec's books.invoice `^\\d+$`), so events
use the same `invoice:qb:<id>` / `customer:qb:<id>` keys on every app. `OverdueSpell` is how the scheduled
overdue query (integrations/tasks_apps.py) tells each invoice's event once per spell of being overdue.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

__all__ = ["LocalCustomer", "LocalInvoice", "LocalInvoiceLine", "BooksWatch", "OverdueSpell"]

class LocalCustomer(models.Model):
    connection = models.ForeignKey("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    number = models.PositiveBigIntegerField(help_text="The customer's id, as QuickBooks would give it.")
    name = models.CharField(max_length=200)
    email = models.CharField(max_length=254, blank=True, help_text="The billing address invoices go to.")

    class Meta:
        ordering = ["name", "number"]
        constraints = [
            models.UniqueConstraint(fields=["connection", "number"], name="local_customer_number_unique"),
        ]

    def __str__(self):
        return self.name


class LocalInvoice(models.Model):
    connection = models.ForeignKey("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    number = models.PositiveBigIntegerField(help_text="The invoice's id, as QuickBooks would give it.")
    doc_number = models.CharField(max_length=40, blank=True, help_text="The number printed on the invoice.")
    customer = models.ForeignKey(LocalCustomer, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="invoices")
    date = models.DateField(null=True, blank=True)
    due = models.DateField(null=True, blank=True)
    total = models.DecimalField(max_digits=14, decimal_places=2)
    balance = models.DecimalField(max_digits=14, decimal_places=2, help_text="What is still owed.")
    tax = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    currency = models.CharField(max_length=3, blank=True)
    memo = models.TextField(blank=True)
    emailed = models.BooleanField(default=False, help_text="Whether the invoice was emailed to the customer.")
    url = models.CharField(max_length=2000, blank=True, help_text="The invoice's own link, when the file gave one.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-date", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["connection", "number"], name="local_invoice_number_unique"),
        ]
        indexes = [models.Index(fields=["connection", "balance", "due"], name="local_invoice_owed_idx")]

    def __str__(self):
        return f"Invoice {self.doc_number or self.number}"


class LocalInvoiceLine(models.Model):
    invoice = models.ForeignKey(LocalInvoice, on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveIntegerField(default=0)
    description = models.TextField(blank=True)
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    item = models.CharField(max_length=200, blank=True)
    quantity = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)
    unit_price = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)

    class Meta:
        ordering = ["invoice", "position", "id"]

    def __str__(self):
        return self.description or self.item


class BooksWatch(models.Model):
    """A books connection the overdue watch has looked at: its first look only notes what was overdue then."""

    connection = models.OneToOneField("integrations.Connection", on_delete=models.CASCADE, related_name="books_watch")
    started_at = models.DateTimeField(auto_now_add=True)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "books watches"

    def __str__(self):
        return f"overdue watch of {self.connection_id}"


class OverdueSpell(models.Model):
    """One invoice's time of being overdue, from the look that found it to the look that found it paid (or due
    later). Its event was emitted when it began, so a spell is told once however many looks see it."""

    connection = models.ForeignKey("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    invoice = models.CharField(max_length=30, help_text="The invoice's id in its app.")
    customer = models.CharField(max_length=30, blank=True)
    due = models.DateField(null=True, blank=True)
    began_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    event_id = models.UUIDField(null=True, blank=True, help_text="The invoice.overdue event told for it, if any.")

    class Meta:
        ordering = ["-began_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["connection", "invoice"], condition=Q(ended_at__isnull=True), name="overdue_spell_open_unique"
            ),
        ]

    def __str__(self):
        return f"invoice {self.invoice} overdue since {self.began_at:%Y-%m-%d}"
