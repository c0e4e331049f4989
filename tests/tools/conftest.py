"""Fixtures the tool groups' tests share with the integrations' tests."""

# web.read's fake site, DNS table and search provider (tests/integrations/web_fakes.py).
from tests.integrations.web_fakes import dns, site, web_on  # noqa: F401
