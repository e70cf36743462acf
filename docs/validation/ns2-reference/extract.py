"""Decodes ns-2.35's reference outputs (tcl/test/test-output-<suite>/<test>.gz, xgraph
data sets) into `<suite>/<test>.csv` files (`series,time,y`) beside this script.

    python docs/validation/ns2-reference/extract.py /path/to/ns-2.35-git-dir [suite ...]

The source is a git directory of the ns-2.35 tree (e.g. a mirror of hbatmit/ns2.35, whose
first commit holds the reference outputs); ccsim's tests read the CSV files only.
"""

import csv
import gzip
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMIT = "0400ea5"  # hbatmit/ns2.35's import of the ns-2.35 release


def decode(text: str) -> list[tuple[str, float, float]]:
    rows, series, first_drop = [], None, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("TitleText", "Device")):
            continue
        if line.startswith('"'):
            series, first_drop = line[1:], True
            continue
        t, y = line.split()[:2]
        if series == "drops" and first_drop:
            first_drop = False  # the suites print the first drop twice (for xgraph's marks)
            continue
        if series and not series.startswith("skip"):
            rows.append((series, float(t), float(y)))
    return rows


def main() -> None:
    git, suites = sys.argv[1], sys.argv[2:] or ["simple"]
    names = subprocess.run(["git", "-C", git, "ls-tree", "-r", "--name-only", COMMIT, "tcl/test/"],
                           capture_output=True, text=True, check=True).stdout.split()
    for suite in suites:
        out = HERE / suite
        out.mkdir(exist_ok=True)
        for name in names:
            if name.startswith(f"tcl/test/test-output-{suite}/") and name.endswith(".gz"):
                blob = subprocess.run(["git", "-C", git, "show", f"{COMMIT}:{name}"], capture_output=True, check=True).stdout
                rows = decode(gzip.decompress(blob).decode("latin-1"))
                with open(out / (Path(name).stem + ".csv"), "w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(["series", "time", "y"])
                    w.writerows(rows)


if __name__ == "__main__":
    main()
