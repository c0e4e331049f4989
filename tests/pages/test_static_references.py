"""Every `{% static %}` a template names is a file the server has: a page whose script is missing breaks without
an error anyone sees (the live Home stayed closed when live.js was named under an app it never lived in)."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders

ROOT = Path(settings.BASE_DIR)
STATIC_TAG = re.compile(r"""{%\s*static\s+['"]([^'"]+)['"]\s*%}""")


def template_files():
    return sorted(path for path in ROOT.rglob("templates/**/*.html") if ".venv" not in path.parts)


def references():
    for path in template_files():
        for name in STATIC_TAG.findall(path.read_text()):
            yield pytest.param(path.relative_to(ROOT), name, id=f"{path.relative_to(ROOT)}:{name}")


def test_the_templates_name_static_files_at_all():
    assert len(list(references())) > 5


@pytest.mark.parametrize(("template", "name"), list(references()))
def test_a_static_file_a_template_names_exists(template, name):
    assert finders.find(name), f"{template} names static '{name}', which no static folder has"
