"""Docs that cannot drift: every TOML and Python snippet in README.md and docs/ is checked.

- A TOML block with ``[simulation]`` is a whole scenario: it must validate.
- A TOML block with ``base =`` is a sweep file (as if in examples/sweeps/): it must load
  and every point validate.
- Any other TOML block is a fragment and must say of which example, in an HTML comment
  just before it: ``<!-- fragment: examples/tcp_dumbbell.toml -->``; merged into that
  example (its tables replace the example's), it must validate.
- Python blocks run, in order, one namespace per page, in a scratch folder where
  ``examples/`` is the repository's; ``<!-- no-run: reason -->`` before a block skips it
  (a Slurm cluster, say).
"""

from __future__ import annotations

import os
import re
import textwrap
import shutil
from pathlib import Path

import pytest

import ccsim

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"(?:<!--\s*(?P<mark>[^>]*?)\s*-->\s*\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)


def _blocks(page: Path):
    # Blocks inside list items are indented: dedent their bodies.
    return [(m.group("mark") or "", m.group("lang"), textwrap.dedent(m.group("body")))
            for m in BLOCK.finditer(page.read_text(encoding="utf-8"))]


def _merge(base: dict, frag: dict) -> dict:
    for k, v in frag.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v
    return base


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_toml_snippets(page, tmp_path):
    for mark, lang, body in _blocks(page):
        if lang != "toml":
            continue
        if mark.startswith("no-run"):
            continue
        if "[simulation]" in body:
            ccsim.validate(ccsim.loads(body))
        elif re.search(r"^base\s*=", body, re.M):
            sweeps = tmp_path / "examples" / "sweeps"
            sweeps.mkdir(parents=True, exist_ok=True)
            for f in (ROOT / "examples").glob("*.toml"):
                shutil.copy(f, sweeps.parent / f.name)
            p = sweeps / "doc_sweep.toml"
            p.write_text(body, encoding="utf-8")
            from ccsim.sweep import check_points

            check_points(ccsim.load_sweep(p).tasks())
        else:
            m = re.match(r"fragment:\s*(\S+)", mark)
            assert m, f"{page.name}: a TOML fragment needs <!-- fragment: examples/X.toml --> before it:\n{body[:200]}"
            example = ccsim.load(ROOT / m.group(1))
            ccsim.validate(_merge(example, ccsim.loads(body)))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_snippets(page, tmp_path):
    blocks = [(mark, body) for mark, lang, body in _blocks(page) if lang == "python"]
    if not blocks:
        return
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    cwd = os.getcwd()
    namespace: dict = {}
    try:
        os.chdir(tmp_path)
        for mark, body in blocks:
            if mark.startswith("no-run"):
                continue
            exec(compile(body, f"{page.name} snippet", "exec"), namespace)
    finally:
        os.chdir(cwd)


def test_every_fragment_is_marked_and_no_doc_cites_paths_outside_the_repository():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert "shared/seeds" not in text and "shared/reference" not in text, f"{page}: cite papers by title, authors and venue"
