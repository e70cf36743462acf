"""docs/validation.md cannot drift: it is exactly what its numbers render to, and the
numbers are what the current build computes (a subset recomputed, compared exactly)."""

import importlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _module():
    # Imported by name: the worker processes pickle its functions.
    if str(ROOT / "docs" / "validation") not in sys.path:
        sys.path.insert(0, str(ROOT / "docs" / "validation"))
    return importlib.import_module("make_validation")


def test_the_page_is_what_its_numbers_render_to():
    m = _module()
    data = json.loads(m.NUMBERS.read_text())
    assert m.render(data["runs"], data["meta"]) == m.PAGE.read_text(encoding="utf-8"), (
        "docs/validation.md was edited by hand or numbers.json changed: run "
        "`python docs/validation/make_validation.py --render` (or --full)")
    seeds = {r["params"]["seed"] for r in data["runs"] if "seed" in r["params"]}
    assert seeds == set(range(1, 11))


def test_quick_mode_recomputes_the_stored_numbers():
    m = _module()
    stored = json.loads(m.NUMBERS.read_text())["runs"]
    quick = m.run_all(True, 2)
    assert len(quick) > 50
    problems = m.compare(quick, stored)
    assert not problems, "the build no longer gives docs/validation/numbers.json (rerun --full):\n" + "\n".join(problems[:20])
    # The comparison can fail: a changed value is reported.
    quick[0]["values"]["goodput_pkts"] *= 1.001
    assert m.compare(quick[:1], stored)
