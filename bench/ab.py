#!/usr/bin/env python3
"""Two builds of ccsim's engine side by side: alternating runs, medians, ratios.

    python bench/ab.py --base 6d0ced6 S1 S2 S3             # a commit against the work tree
    python bench/ab.py --base HEAD~1 --new HEAD --reps 9 S3
    python bench/ab.py --base main scale:10000              # S3's dumbbell with 10 000 flows

Each side is built from its own `git worktree` into its own target folder (a shared target
folder would hand one side's binary to the other), as the pure-Rust benchmark
(`cargo run --release -p ccsim-core --example bench`), so no Python is timed. Runs
alternate (old, new, new, old, ...), each in its own process; the report gives the median
wall time of the event loop per side, the ratio new / old, the median of the paired
ratios (each repetition's new run over its old run, the two run back to back) with a 95 %
bootstrap confidence interval, and whether both sides ran the same events and reached the
same goodput (a check that an optimisation left the results alone, not a proof: the test
suite is that). On a machine whose speed drifts from run to run (docs/benchmarks.md) the
paired ratio is the steadier figure; `--pin CPU` runs both sides on one core (`taskset`).

Scenarios: S1-S4 (docs/benchmarks.md), `scale:N` (S3's dumbbell with N flows, 10 s), or
`file:PATH` (any scenario file; its bottleneck link must be named `bottleneck`); the last
two need both sides at commit 9e7d424 or later (the bench example's `toml` mode).
The work tree is the default `--new`; it is built as it is, uncommitted changes included.
"""

import argparse
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"(\d+) events in ([0-9.]+) s = .*?(\d+) bottleneck packets .*goodput ([0-9.]+) Mb/s")


def build(rev: str | None, work: Path) -> Path:
    """The bench example of `rev` (None: the work tree), built under `work`."""
    if rev is None:
        src = ROOT
    else:
        src = work / "src"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(src), rev], check=True, capture_output=True)
    target = work / "target"
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "ccsim-core", "--example", "bench"], cwd=src, check=True,
                   env={**os.environ, "CARGO_TARGET_DIR": str(target)})
    exe = work / "bench"
    shutil.copy2(target / "release" / "examples" / "bench", exe)
    return exe


def scenario_args(name: str, work: Path) -> list[str]:
    """The bench example's arguments for scenario `name`."""
    if name.startswith("file:"):
        return ["toml", name[5:]]
    if name.startswith("scale:"):
        from ccsim._benchworker import s3_with  # the scenario `_benchworker scale` runs

        n = int(name[6:])
        path = work / f"scale{n}.toml"
        path.write_text(s3_with(n, 10))
        return ["toml", str(path)]
    return [name]


def _load_pairstats():
    """`python/ccsim/_pairstats.py` by path: the package's own implementation, without
    needing ccsim installed (this script builds the engine itself)."""
    spec = importlib.util.spec_from_file_location("_pairstats", Path(__file__).resolve().parent.parent / "python" / "ccsim" / "_pairstats.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


pairstats = _load_pairstats()


def paired(old: list[float], new: list[float], resamples: int = 2000) -> tuple[float, float, float]:
    """Median of the ratios new[i] / old[i] and its 95 % bootstrap interval
    (`ccsim._pairstats.paired_ratio`; seeded, so repeatable)."""
    r = pairstats.paired_ratio(new, old, resamples)
    return r["median"], r["lo"], r["hi"]


def run(exe: Path, args: list[str], pin: str | None = None) -> tuple[float, str]:
    cmd = [str(exe), *args] if pin is None else ["taskset", "-c", pin, str(exe), *args]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    m = LINE.search(out)
    if not m:
        raise SystemExit(f"unexpected output from {exe}: {out}")
    return float(m.group(2)), f"{m.group(1)} events, {m.group(3)} packets, {m.group(4)} Mb/s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenarios", nargs="*", default=["S1", "S2", "S3"])
    ap.add_argument("--base", required=True, help="git revision of the old side")
    ap.add_argument("--new", default=None, help="git revision of the new side (default: the work tree)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--pin", default=None, metavar="CPU", help="run both sides on this core (taskset -c CPU)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ccsim-ab-") as tmp:
        tmp = Path(tmp)
        sides = {}
        try:
            for side, rev in (("old", a.base), ("new", a.new)):
                (tmp / side).mkdir()
                print(f"building {side}: {rev or 'work tree'}", file=sys.stderr)
                sides[side] = build(rev, tmp / side)
            for name in a.scenarios:
                args = scenario_args(name, tmp)
                times = {"old": [], "new": []}
                check = {}
                for r in range(a.reps):
                    for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
                        t, what = run(sides[side], args, a.pin)
                        times[side].append(t)
                        check[side] = what
                o, n = statistics.median(times["old"]), statistics.median(times["new"])
                same = "same events and goodput" if check["old"] == check["new"] else f"DIFFERENT: {check['old']} vs {check['new']}"
                m, lo, hi = paired(times["old"], times["new"])
                print(f"{name}: old {o:.4f} s, new {n:.4f} s (medians of {a.reps}), new / old {n / o:.3f}; "
                      f"paired {m:.3f} [{lo:.3f}, {hi:.3f}] (95 % CI); {same}")
        finally:
            for side in ("old", "new"):
                if (tmp / side / "src").exists():
                    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tmp / side / "src")], capture_output=True)


if __name__ == "__main__":
    main()
