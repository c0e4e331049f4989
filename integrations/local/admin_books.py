"""Staff admin for the local books: each invoice's page is the link local invoices give when their file had none."""

from __future__ import annotations

from django.contrib import admin

from integrations.local.models_books import LocalCustomer, LocalInvoice, LocalInvoiceLine


class LineInline(admin.TabularInline):
    model = LocalInvoiceLine
    extra = 0


@admin.register(LocalInvoice)
class LocalInvoiceAdmin(admin.ModelAdmin):
    list_display = ("number", "doc_number", "customer", "date", "due", "total", "balance", "currency", "connection")
    list_select_related = ("customer", "connection")
    search_fields = ("doc_number", "customer__name", "memo")
    raw_id_fields = ("connection", "customer")
    inlines = [LineInline]


@admin.register(LocalCustomer)
class LocalCustomerAdmin(admin.ModelAdmin):
    list_display = ("name", "number", "email", "connection")
    search_fields = ("name", "email")
    raw_id_fields = ("connection",)
