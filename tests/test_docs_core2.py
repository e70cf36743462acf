"""The Core II model pages' snippets run: TOML blocks validate (fragments inside a small
dumbbell), Python blocks execute."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import ccsim

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "docs" / "models" / "elements.md", ROOT / "docs" / "models" / "generators.md"]
BASE = """
[simulation]
duration = "2s"
[dumbbell]
senders = 8
access_rate = "1Gbps"
access_delay = "1ms"
bottleneck_rate = "100Mbps"
bottleneck_delay = "10ms"
"""


def _blocks(page: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", page.read_text(), re.S)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_toml_snippets_validate(page):
    for block in _blocks(page, "toml"):
        text = block if "[simulation]" in block else BASE + block
        ccsim.validate(ccsim.loads(text))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_python_snippets_run(page, tmp_path):
    blocks = _blocks(page, "python")
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        for block in blocks:
            code = block.replace('"fct.png"', repr(str(tmp_path / "fct.png")))
            exec(compile(code, f"{page.name} snippet", "exec"), {})
    finally:
        os.chdir(cwd)
    if page.name == "generators.md":
        assert blocks and (tmp_path / "fct.png").exists()
