"""Docs that cannot drift: every TOML and Python snippet in README.md and docs/ is checked.

- A TOML block with ``[simulation]`` is a whole scenario: it must validate.
- A TOML block with ``base =`` is a sweep file (as if in examples/sweeps/): it must load
  and every point validate.
- Any other TOML block is a fragment and must say of which example, in an HTML comment
  just before it: ``<!-- fragment: examples/tcp_dumbbell.toml -->``; merged into that
  example (its tables replace the example's), it must validate.
- Python blocks run, in order, as one script per page (``python page.py``, as a reader
  pasting them into a file would: worker processes of a sweep then start as they would
  for that reader), in a scratch folder where ``examples/`` is the repository's;
  ``<!-- no-run: reason -->`` before a block skips it (a Slurm cluster, say).
"""

from __future__ import annotations

import os
import re
import textwrap
import shutil
import subprocess
import sys
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
    script = tmp_path / f"{page.stem}_snippets.py"
    script.write_text("\n".join(body for mark, body in blocks if not mark.startswith("no-run")), encoding="utf-8")
    r = subprocess.run([sys.executable, script.name], cwd=tmp_path, capture_output=True, text=True, timeout=900,
                       env={**os.environ, "MPLBACKEND": "Agg"})
    assert r.returncode == 0, f"{page.relative_to(ROOT)}'s Python snippets failed:\n{r.stderr[-3000:]}"


def test_every_fragment_is_marked_and_no_doc_cites_paths_outside_the_repository():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert "shared/seeds" not in text and "shared/reference" not in text, f"{page}: cite papers by title, authors and venue"
