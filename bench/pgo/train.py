"""The training run of the profile-guided build (`.ci/wheel`, docs/build.md).

    python bench/pgo/train.py EXAMPLES_DIR OUT_DIR     # the training workload
    python bench/pgo/train.py --fingerprint EXAMPLES_DIR   # digest of the examples' results

Run with the instrumented extension (`ccsim.__build__ == "pgo-training"`) first on the
path: every run writes its counts (one file per process) where the build was told to.
The workload exercises every model so that none is laid out as never run (a function the
training never reaches, or reaches rarely, is optimised for size): the benchmark scenarios
S1-S4, a 1 000-flow dumbbell (the batch routers' inbox), Paper D's UDT and proposed rate
control and Paper E's EIMD runs as `ccsim bench` has them, CBR sources, flows opened
during a run, every example scenario, and each paper's quick reproduction (RIO and the
markers, AAL5 cells and EPD, Westwood, UDT, the high-speed TCPs), with two worker
processes as a user's sweep would have. docs/build.md has the mixes measured.

`--fingerprint` prints one SHA-256 over every table of every example's results (runs are
deterministic): `.ci/wheel` compares the profile-guided wheel's digest with the
instrumented build's, so a build that changed a result would fail there.
"""

import hashlib
import subprocess
import sys
import time
from pathlib import Path

import ccsim
from ccsim import _core
from ccsim._benchworker import paper_d, paper_e, s3_with

PAPERS = ["westwood-abe", "udt-rtt", "eimd", "diffserv-marker", "atm-mcs"]


def fingerprint(examples: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(examples.glob("*.toml")):
        res = ccsim.run(ccsim.load(str(f)))
        h.update(f.name.encode())
        for name in sorted(res.tables):
            h.update(name.encode())
            h.update(res.tables[name].to_pandas().to_csv(index=False).encode())
    return h.hexdigest()


def train(examples: Path, out: Path) -> None:
    if _core.__build__ != "pgo-training":
        raise SystemExit(f"error: this ccsim is a {_core.__build__!r} build ({ccsim.__file__}), not the instrumented one")
    t0 = time.monotonic()
    for name in ["S1", "S2", "S3", "S4"]:
        r = _core.bench_tcp(name)
        print(f"pgo training: {name} {r['wall_s']:.2f} s", flush=True)
    r = _core.bench_toml("scale-1000", s3_with(1000, 5), True)
    print(f"pgo training: 1 000 flows {r['wall_s']:.2f} s", flush=True)
    # Models the quick reproductions run only briefly, at their benchmarks' weight: with
    # the quick runs alone, UDT's rate control came out 11 % slower than a plain build,
    # and with 20 000 web transfers instead of 100 000 those were 4 % slower.
    for proto in ["UDT", "Proposed"]:
        print(f"pgo training: Paper D {proto} {paper_d(proto)['wall_s']:.2f} s", flush=True)
    print(f"pgo training: Paper E 2.5 Gb/s {paper_e(2.5e9, 10)['wall_s']:.2f} s", flush=True)
    print(f"pgo training: 100 CBR flows {_core.bench_cbr(100, 1e9, 10, 1.05)['wall_s']:.2f} s", flush=True)
    print(f"pgo training: 100 000 web transfers {_core.bench_web(100_000, True)['wall_s']:.2f} s", flush=True)
    print(f"pgo training: examples {fingerprint(examples)[:16]}", flush=True)
    for p in PAPERS:
        r = subprocess.run([sys.executable, "-m", "ccsim.cli", "reproduce", p, "--quick", "-q", "-w", "2", "-o", str(out / p)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"error: {p} failed in the training run:\n{r.stdout}\n{r.stderr}")
        print(f"pgo training: {p} --quick done", flush=True)
    print(f"pgo training: {time.monotonic() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--fingerprint":
        print(fingerprint(Path(sys.argv[2])))
    else:
        train(Path(sys.argv[1]), Path(sys.argv[2]))
