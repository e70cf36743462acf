"""Copies a paper's verdict table and its numbered tables (each `<!-- report:tableN -->` marker) from a `--full` report into its page.

    ccsim reproduce westwood-abe --full --out /tmp/c && python docs/papers/sync.py /tmp/c westwood-abe

Replaces what lies between `<!-- report:verdicts -->` / `<!-- report:table1 -->` and
`<!-- /report -->` in docs/papers/<paper>.md, and copies the figures.
"""

import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def section(report: str, start: str) -> str:
    body = report[report.index(start):]
    body = body[body.index("\n|"):].lstrip("\n")
    return body[:body.index("\n\n")]


def main() -> None:
    out, paper = Path(sys.argv[1]), sys.argv[2]
    report = (out / "report.md").read_text(encoding="utf-8")
    page = HERE / f"{paper}.md"
    text = page.read_text(encoding="utf-8")
    keys = [("verdicts", "## Verdicts")] + [(f"table{n}", f"### Table {n}:")
                                           for n in sorted(set(re.findall(r"<!-- report:table(\d+) -->", text)), key=int)]
    for key, start in keys:
        text = re.sub(rf"(<!-- report:{key} -->\n).*?(<!-- /report -->)",
                      lambda m: m.group(1) + section(report, start) + "\n" + m.group(2), text, flags=re.S)
    page.write_text(text, encoding="utf-8")
    for png in (out / "figures").glob("*.png"):
        shutil.copy(png, HERE / paper / png.name)


if __name__ == "__main__":
    main()
