"""Nothing internal goes into mail to anyone outside. A CSV-imported invoice (or an imported meeting) with no link of
its own has none: the overdue chase carried `/admin/integrations/localinvoice/5/change/` to a client when the local
books filled one in. An agent passes on the links its tools give it, so the tools give only the owner's own."""

import datetime
import json

import pytest
from django.utils import timezone
from freezegun import freeze_time

from integrations import mail_hold
from integrations.local.models_books import LocalInvoice
from integrations.local.models_mail import LocalMailMessage
from integrations.providers.local_books import csv_import

CSV = """Invoice No.,Customer,Email,Date,Due Date,Total,Balance,Link
1042,Ortiz Bakery,rosa@ortizbakery.test,2026-10-01,2026-10-31,1250,1250,
1043,Ruiz Print,marco@ruizprint.test,2026-10-02,2026-10-30,400,400,/admin/integrations/localinvoice/1/change/
"""
INTERNAL = ("/admin", "localinvoice", "change/", "books.invoice", "use_tool")


def _chase(invoice: dict) -> str:
    """The chase as the skill's steps write it: the number, the amount, the due date and the invoice's link."""
    link = f" You can see and pay it here: {invoice['url']}" if invoice["url"] else ""
    return (f"Hi,\n\nA quick note that invoice {invoice['number'] or invoice['id']} for ${invoice['balance']:,.2f} "
            f"was due on {invoice['due']}.{link}\n\nThanks so much,\nSam")


@pytest.mark.django_db
def test_the_overdue_chase_of_a_csv_invoice_has_no_admin_address(org, ctx, use, local):
    org.check_enabled = False  # the chase is sent, as after the owner's yes; what it says is what's tested
    org.save(update_fields=["check_enabled"])
    csv_import(local, CSV)
    with freeze_time("2026-11-09T14:00:00Z"):
        overdue = use("books.invoices", status="overdue")
        assert {i["id"] for i in overdue["invoices"]} == {"1042", "1043"}
        for listed in overdue["invoices"]:
            invoice = use("books.invoice", id=listed["id"])
            assert invoice["url"] == "" and listed["url"] == ""
            for word in INTERNAL:
                assert word not in json.dumps(invoice) and word not in json.dumps(listed)
            sent = use("mail.send", to=[invoice["email"]], subject=f"Invoice {invoice['id']} from Fernhill Studio",
                       text=_chase(invoice))
            assert "held" in sent, sent  # two minutes on Home, then it goes
    mail_hold.email_sweep(now=timezone.now() + datetime.timedelta(days=30))
    mails = LocalMailMessage.objects.filter(box="sent", subject__startswith="Invoice 10")
    assert sorted(m.to[0] for m in mails) == ["marco@ruizprint.test", "rosa@ortizbakery.test"]
    rows = {str(r.pk) for r in LocalInvoice.objects.all()}
    for mail in mails:
        for word in INTERNAL:
            assert word not in mail.text, mail.text
        assert "1,250.00" in mail.text or "400.00" in mail.text
        assert not any(f"/{pk}/" in mail.text for pk in rows)
