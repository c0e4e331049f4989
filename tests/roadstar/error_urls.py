"""Roadstar's routes plus views that fail in each way, for tests/roadstar/test_error_pages.py."""

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.db import OperationalError
from django.urls import include, path


def boom(request):
    raise RuntimeError("SECRET-DETAIL of the failing code")


def forbidden(request):
    raise PermissionDenied("SECRET-DETAIL of the refusal")


def bad(request):
    raise SuspiciousOperation("SECRET-DETAIL of the bad request")


def locked(request):
    raise OperationalError("database is locked")


def broken_database(request):
    raise OperationalError("SECRET-DETAIL no such column")


urlpatterns = [
    path("locked/", locked),
    path("broken-database/", broken_database),
    path("boom/", boom),
    path("forbidden/", forbidden),
    path("bad/", bad),
    path("", include("roadstar.urls")),
]
