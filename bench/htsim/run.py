"""ccsim beside htsim, alternating on one machine (issue #20).

    python bench/htsim/run.py build [--htsim URL_OR_GIT_DIR] [--commit SHA] [--pgo]
    python bench/htsim/run.py compare [--reps 5] [--scenario S1 S2 S3] [--access] [--htsim-pgo] [--target 1.25] [--min-time T] [--pin CPU] [--json OUT]
    python bench/htsim/run.py scaling [--flows 10 100 1000 10000] [--seconds 10] [--reps 3] [--max-growth 2] [--pin CPU] [--json OUT]
    python bench/htsim/run.py scaling --per-flow-mbps 1 [--packets 1e6] [--flows ...]
    python bench/htsim/run.py instructions [--scenario S1 S2 S3] [--short 0.1] [--access] [--json OUT]
    python bench/htsim/run.py scaling --instructions [--flows ...] [--short 0.1]

`build` extracts htsim's `sim/` directory at the measured commit from its public
repository (github.com/Broadcom/csg-htsim; a local git directory also works), builds
`libhtsim.a` with htsim's own Makefile, and compiles this folder's benchmark main
(`main_bench_dumbbell.cpp`, htsim's classes only) into `build/htsim_bench_dumbbell`.

`build --pgo` also builds `build/htsim_bench_dumbbell_pgo`: htsim and the main compiled
with GCC's profile-guided optimisation, trained on S1-S3's htsim runs, for comparing like
with like against ccsim's profile-guided wheel (docs/build.md); `--htsim-pgo` makes
`compare` and `scaling` run it.

`compare` runs ccsim's benchmark scenarios S1-S3 (`python -m ccsim._benchworker`, the full
model) and htsim's equivalent dumbbell alternately, `--reps` times each, and prints the
medians of bottleneck packets per wall second and their ratio, the median of each round's
ratio with its 95 % bootstrap interval and the ratio of the best runs (`ratios`: robust
where the machine's speed jumps), and a verdict on the issue's target (`--target`, 1.25):
holds when the interval reaches it, does not hold when it lies below, inconclusive when
it straddles it. htsim runs its default
(simpler) model: no access queues, no reverse queues; `--access` adds an access queue at
10× the bottleneck rate in htsim too. S2 runs htsim with `--ssthresh 8500` (a full-rate
flow; without it htsim's single flow stays far below the link). `--min-time T`: each side
of a round repeats its run back to back (ccsim in its process, htsim one process a run)
until its loops took T seconds, and counts the mean, so that both sides average the
machine's speed over the same span. `compare` also prints the rounds' ratio by quarters
of the machine's speed around them (`by_state`): S1's lead moves with it (twenty-second
session), and a call's interval does not cover that, since a call sits in one state.
`--pin CPU` (also for `scaling`) runs both simulators on that core.

`scaling` measures the cost per bottleneck packet (wall ns / packet) as flows grow on S3's
dumbbell (1 Gb/s, 10 ms, queue 1000) in both simulators, alternating, in rounds that each
run every flow count once; it prints each count's growth over 10 flows as the median of
the rounds' ratios with its 95 % bootstrap interval, and a verdict on the last count's
growth against `--max-growth` (the issue's 2x at 10 000 flows) by the same rule as
`compare`'s (holds when the whole interval is at most the limit). On a fixed bottleneck
each flow's share shrinks as flows grow, until TCP lives on retransmission timeouts (at
10 000 flows a timeout per 4.6 bottleneck packets): the work per packet changes, not only
the state. `--per-flow-mbps R` keeps each flow's regime instead (the bottleneck at R times
the flows, its queue 10 packets per flow, runs of about `--packets` bottleneck packets).

`instructions` counts the instructions each simulator executes per bottleneck packet
(valgrind's callgrind: a count does not depend on the machine's speed or load), S1-S3 as
`compare` runs them. Each simulator runs every scenario for its full duration T and for
`--short` times T; the difference of the counts over the difference of the bottleneck
packets is the marginal cost of a packet, without start-up, set-up and results. htsim's
count is the same on every run; ccsim's includes Python's start-up, which varies by about
0.3 % from run to run even with a fixed hash seed, so each ccsim run is counted `--reps`
times (3) and the medians are used; the spread of the marginal over the reps is printed.
`--access` counts htsim with an access queue per flow (as `compare --access`), the nearer
model to ccsim's (nineteenth session). Slow: valgrind runs each about 50 times slower than
natively. `scaling --instructions` counts the scaling curve's runs the same way: how much
of the growth in cost per packet is work (instructions) and how much is waiting for
memory.

Needs g++, make, git and tar; ccsim installed in the running Python; valgrind for
`instructions`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/: ab.py
from ab import paired, pairstats  # noqa: E402  (the median of paired ratios with its bootstrap interval)

HERE = Path(__file__).resolve().parent
BUILD = HERE / "build"
BINARY = BUILD / "htsim_bench_dumbbell"
PGO_BINARY = BUILD / "htsim_bench_dumbbell_pgo"
COMMIT = "841d9e7be46bb968eece766aa4b6c044c7799f67"
UPSTREAM = "https://github.com/Broadcom/csg-htsim.git"

#: htsim's arguments for ccsim's S1-S3 (docs/benchmarks.md): flows, Mb/s, one-way ms,
#: queue packets, seconds; ccsim's 2-segment initial window, its window cap, starts within
#: 1 s, the access links' delay folded into the pipes.
HTSIM_ARGS = {
    "S1": ["10", "100", "10", "100", "60", "--iw", "2", "--maxcwnd", "718", "--start-window", "1", "--access-delay-ms", "1"],
    "S2": ["1", "1000", "50", "8500", "60", "--iw", "2", "--maxcwnd", "45965", "--start-window", "1", "--access-delay-ms", "1",
           "--ssthresh", "8500"],
    "S3": ["200", "1000", "10", "1000", "20", "--iw", "2", "--maxcwnd", "718", "--start-window", "1", "--access-delay-ms", "1"],
}
ACCESS_MBPS = {"S1": "1000", "S2": "10000", "S3": "10000"}


def sh(cmd: list[str], **kw) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def build(source: str, commit: str, pgo: bool = False) -> None:
    BUILD.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(source)
        if (src / "HEAD").exists():  # a bare repository (a mirror)
            git_dir = src
        elif (src / ".git").exists():
            git_dir = src / ".git"
        else:
            git_dir = Path(tmp) / "htsim.git"
            sh(["git", "clone", "--bare", "--filter=blob:none", source, str(git_dir)])
        tree = BUILD / "htsim"
        tree.mkdir(exist_ok=True)
        archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", commit, "sim"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    make_binary(BUILD / "htsim" / "sim", BINARY, [])
    print(f"built {BINARY}")
    if pgo:
        # A copy of the tree, built instrumented, trained on S1-S3, rebuilt with the counts.
        tree = BUILD / "htsim-pgo"
        if tree.exists():
            shutil.rmtree(tree)
        shutil.copytree(BUILD / "htsim" / "sim", tree, ignore=shutil.ignore_patterns("*.o", "*.a", "*.gcda"))
        make_binary(tree, PGO_BINARY, ["-fprofile-generate", "-fprofile-update=single"])
        for args in HTSIM_ARGS.values():
            sh([str(PGO_BINARY), *args])
        for f in [*tree.glob("*.o"), *tree.glob("*.a")]:
            f.unlink()
        make_binary(tree, PGO_BINARY, ["-fprofile-use", "-fprofile-correction", "-Wno-missing-profile"])
        print(f"built {PGO_BINARY}")


def make_binary(sim: Path, out: Path, flags: list[str]) -> None:
    """htsim's library with its own Makefile (its own flags; `flags` added to its compiler
    command, which the Makefile's object rule puts before them) and the benchmark main,
    compiled and linked in `sim`'s folder (where GCC keeps a profile's counts)."""
    jobs = str(os.cpu_count() or 2)
    extra = [f"CC={' '.join(['g++', *flags])}"] if flags else []
    sh(["make", "-C", str(sim), "-j", jobs, *extra, "libhtsim.a"])
    sh(["g++", "-Wall", "-std=c++11", "-g", "-fPIE", "-O3", *flags, f"-I{sim}", str(HERE / "main_bench_dumbbell.cpp"),
        str(sim / "libhtsim.a"), "-o", str(out)], cwd=str(sim))


def last_json(text: str) -> dict:
    return json.loads([ln for ln in text.splitlines() if ln.startswith("{")][-1])


#: The htsim binary `compare` and `scaling` run (`--htsim-pgo`: the profile-guided one).
htsim_binary = BINARY
#: The environment htsim runs in (`--htsim-hugepages`: glibc's malloc advising transparent
#: huge pages, as ccsim's engine does by default; `CCSIM_HUGEPAGES=0` turns ccsim's off).
htsim_env: dict | None = None


def require_htsim() -> None:
    if not htsim_binary.exists():
        flag = " --pgo" if htsim_binary == PGO_BINARY else ""
        raise SystemExit(f"{htsim_binary} is missing: run `python {Path(__file__).name} build{flag}` first")


#: `--pin CPU`: the core `compare` and `scaling` run both simulators on (`taskset -c`), so
#: that neither is moved between cores mid-run; None: wherever the system puts them.
pin_cpu: str | None = None


def pinned(cmd: list[str]) -> list[str]:
    return cmd if pin_cpu is None else ["taskset", "-c", pin_cpu, *cmd]


def run_htsim(args: list[str]) -> dict:
    require_htsim()
    return last_json(sh(pinned([str(htsim_binary), *args]), env=htsim_env))


def run_ccsim(args: list[str], env: dict | None = None) -> dict:
    return last_json(sh(pinned([sys.executable, "-m", "ccsim._benchworker", *args]), env=env))


#: `scaling --pages both`: each simulator with and without transparent huge pages, the
#: four alternating (ccsim: `CCSIM_HUGEPAGES`; htsim: glibc's tunable).
PAGES = {"small": ({"CCSIM_HUGEPAGES": "0"}, None), "huge": ({"CCSIM_HUGEPAGES": "1"}, "glibc.malloc.hugetlb=1")}


#: The issue's target for `compare`: ccsim at least this many times htsim's rate.
TARGET = 1.25

#: The issue's target for `scaling`: the cost per packet at 10 000 flows at most this many
#: times the cost at 10 (`--max-growth`).
MAX_GROWTH = 2.0


def ratios(c: list[float], h: list[float]) -> dict:
    """ccsim / htsim from rates measured in rounds (`c[i]` and `h[i]` back to back): the
    ratio of the medians; the median of each round's ratio (both runs of a round see the
    machine in the same state, which matters on a machine whose speed jumps between
    states: a shared host was seen running both simulators at either ~4 or ~6 M pkts/s, and
    the ratio of the medians then depends on how many runs of each fell in which state)
    with its 95 % bootstrap interval (`bench/ab.py`'s, seeded); and the ratio of the best
    runs (each simulator undisturbed)."""
    med, lo, hi = paired(h, c)
    return {"ratio": statistics.median(c) / statistics.median(h),
            "ratio_paired": med, "ratio_paired_ci": [lo, hi],
            "ratio_best": max(c) / max(h)}


def by_state(c: list[float], h: list[float], parts: int = 4) -> list[dict]:
    """The rounds' ccsim / htsim ratios grouped by the machine's speed around each round:
    the speed is the mean of the neighbouring rounds' rates (k - 1 and k + 1, both
    simulators, each over its own median), which leaves a round's own noise out of the
    grouping (grouping by the round's own htsim rate would put its fast htsim runs with
    low ratios by construction). Rounds sorted by it and cut into `parts` groups, slowest
    first; each with the speed's range and the median ratio. Empty with fewer than two
    rounds a group. On this page's machine S1's ratio fell from about 1.3 in its slowest
    periods to about 1.16 in its fastest (twenty-second session)."""
    n = len(c)
    if n < 2 * parts or n != len(h):
        return []
    mc, mh = statistics.median(c), statistics.median(h)
    speed = []
    for k in range(n):
        nb = [j for j in (k - 1, k + 1) if 0 <= j < n]
        speed.append(statistics.mean([c[j] / mc for j in nb] + [h[j] / mh for j in nb]))
    order = sorted(range(n), key=lambda k: speed[k])
    groups = []
    for g in range(parts):
        ks = order[g * n // parts:(g + 1) * n // parts]
        groups.append({"speed": [speed[ks[0]], speed[ks[-1]]], "rounds": len(ks),
                       "ratio": statistics.median(c[k] / h[k] for k in ks)})
    return groups


def verdict(lo: float, hi: float, target: float = TARGET, at_most: bool = False) -> str:
    """The rule docs/benchmarks.md states for a speed target, on the interval of the
    rounds' median ratio (`ccsim._pairstats.target_verdict`): holds when the whole interval
    reaches `target` (with `at_most`: stays at or below it), does not hold when it lies
    wholly on the other side, inconclusive when `target` lies inside it."""
    return pairstats.target_verdict(lo, hi, target, at_most)


def htsim_args(scenario: str, access: bool) -> list[str]:
    """htsim's arguments for `scenario`; `access`: with an access queue per flow at ten
    times the bottleneck's rate (as ccsim's access links)."""
    return HTSIM_ARGS[scenario] + (["--access-mbps", ACCESS_MBPS[scenario]] if access else [])


def compare(scenarios: list[str], reps: int, access: bool, target: float = TARGET, min_time: float = 0.0) -> list[dict]:
    """Each round runs both simulators once, who goes first alternating. With `min_time`,
    each side of a round repeats its run back to back for at least that many seconds of
    loop time and counts the mean: a ~0.1 s run samples the machine's speed at one instant,
    and on a machine whose speed swings the rounds' ratios spread with it (the
    twenty-first session's S1 ratios needed 88 rounds for an interval of ±4 %)."""
    rows = []
    for s in scenarios:
        hargs = htsim_args(s, access)
        c, h = [], []
        for k in range(reps):  # alternate: one of each per round, who goes first alternating too
            for sim in ("ccsim", "htsim") if k % 2 == 0 else ("htsim", "ccsim"):
                if sim == "ccsim":
                    c.append(run_ccsim([s, "--min-time", f"{min_time:g}"] if min_time > 0 else [s])["bottleneck_pkts_per_s"])
                else:
                    hr = run_htsim(hargs)
                    if min_time > 0:  # one process a run; the same mean as ccsim's in-process repeats
                        hr = pairstats.repeated(lambda: run_htsim(hargs), min_time, first=hr)
                    h.append(hr["bottleneck_pkts_per_s"])
        cm, hm = statistics.median(c), statistics.median(h)
        r = ratios(c, h)
        v = verdict(*r["ratio_paired_ci"], target)
        rows.append({"scenario": s, "ccsim_mpps": cm / 1e6, "htsim_mpps": hm / 1e6, **r, "reps": reps, "min_time": min_time,
                     "ccsim_all": c, "htsim_all": h, "htsim_access": access, "target": target, "verdict": v})
        rows[-1]["ratio_by_state"] = groups = by_state(c, h)
        lo, hi = r["ratio_paired_ci"]
        print(f"{s}: ccsim {cm / 1e6:.2f} M pkts/s, htsim {hm / 1e6:.2f} M pkts/s, ccsim/htsim {r['ratio']:.2f} (medians of {reps}); "
              f"per round {r['ratio_paired']:.2f} [{lo:.2f}, {hi:.2f}] (median, 95 % CI), best runs {r['ratio_best']:.2f}; "
              f"target ≥ {target:g}: {v}", flush=True)
        if groups:
            print(f"{s}: the rounds' ratio by the machine's speed around them (neighbouring rounds' rates over their medians), "
                  "slowest to fastest quarter: " + ", ".join(f"{g['ratio']:.2f} ({g['speed'][0]:.2f}–{g['speed'][1]:.2f})" for g in groups),
                  flush=True)
    return rows


def scaling(flows: list[int], seconds: float, reps: int, per_flow_mbps: float | None = None,
            packets: float = 1e6, pages_both: bool = False, short: float | None = None,
            max_growth: float = MAX_GROWTH) -> list[dict]:
    """Cost per bottleneck packet as flows grow. By default the issue's experiment: S3's
    dumbbell (1 Gb/s, 10 ms, queue 1 000) for `seconds`, whatever the flows. With
    `per_flow_mbps`, each flow's regime is kept instead: the bottleneck at that rate times
    the flows, its queue 10 packets per flow, and each run long enough for about `packets`
    bottleneck packets (at least `seconds`). With `pages_both`, each simulator runs with
    and without transparent huge pages, the four configurations alternating (extra
    columns `<sim>_<small|huge>_ns_per_pkt`). With `short`, instructions per packet
    instead (see `instructions`: `reps` counts of each ccsim run; `pages_both` does not
    apply).

    The runs go in rounds: each round runs every flow count once (in turn forwards and
    backwards), so that the points of one round see the machine in the same state. Each
    point's growth over the base (10 flows, else the first count) is the median of the
    rounds' ratios with its 95 % bootstrap interval; the last point's growth is judged
    against `max_growth` (the issue: 10 000 flows at most 2x 10) by `verdict`."""
    global htsim_env
    if short is not None:
        return scaling_instructions(flows, seconds, per_flow_mbps, packets, short, reps)
    pages = list(PAGES) if pages_both else [None]
    main_pages = "huge" if pages_both else None
    c: dict = {n: {p: [] for p in pages} for n in flows}
    h: dict = {n: {p: [] for p in pages} for n in flows}
    args = {n: scale_args(n, seconds, per_flow_mbps, packets) for n in flows}
    default_env = htsim_env
    for k in range(reps):
        for n in (flows if k % 2 == 0 else flows[::-1]):
            cargs, hargs, _ = args[n]
            for p in (pages if k % 2 == 0 else pages[::-1]):
                cenv = dict(os.environ, **PAGES[p][0]) if p else None
                r = run_ccsim(["scale", *cargs], env=cenv)
                c[n][p].append(r["wall_s"] / r["bottleneck_pkts"] * 1e9)
                if p:
                    tun = PAGES[p][1]
                    htsim_env = dict(os.environ, GLIBC_TUNABLES=tun) if tun else {k2: v for k2, v in os.environ.items() if k2 != "GLIBC_TUNABLES"}
                r = run_htsim(hargs)
                htsim_env = default_env
                h[n][p].append(r["wall_s"] / r["bottleneck_pkts"] * 1e9)
    base = 10 if 10 in flows else flows[0]
    rows = []
    for n in flows:
        _, hargs, secs = args[n]
        rate_mbps, queue = float(hargs[1]), int(hargs[3])
        cm, hm = c[n][main_pages], h[n][main_pages]
        cg, clo, chi = paired(c[base][main_pages], cm)
        hg, hlo, hhi = paired(h[base][main_pages], hm)
        row = {"flows": n, "bottleneck_mbps": rate_mbps, "queue": queue, "seconds": secs,
               "ccsim_ns_per_pkt": statistics.median(cm), "htsim_ns_per_pkt": statistics.median(hm), "reps": reps,
               "base_flows": base, "ccsim_growth": cg, "ccsim_growth_ci": [clo, chi], "htsim_growth": hg, "htsim_growth_ci": [hlo, hhi],
               "ccsim_all": cm, "htsim_all": hm}
        for p in pages if pages_both else []:
            row[f"ccsim_{p}_ns_per_pkt"] = statistics.median(c[n][p])
            row[f"htsim_{p}_ns_per_pkt"] = statistics.median(h[n][p])
        rows.append(row)
        both = "".join(f"; {p} pages: ccsim {row[f'ccsim_{p}_ns_per_pkt']:.0f}, htsim {row[f'htsim_{p}_ns_per_pkt']:.0f}"
                       for p in (pages if pages_both else []))
        print(f"{n} flows ({rate_mbps:g} Mb/s, queue {queue}, {secs:g} s): ccsim {row['ccsim_ns_per_pkt']:.0f} ns/pkt "
              f"(x{cg:.2f} [{clo:.2f}, {chi:.2f}] of {base} flows), htsim {row['htsim_ns_per_pkt']:.0f} ns/pkt "
              f"(x{hg:.2f} [{hlo:.2f}, {hhi:.2f}]){both}", flush=True)
    for r in rows:
        r["ccsim_vs_first"] = r["ccsim_ns_per_pkt"] / rows[0]["ccsim_ns_per_pkt"]
        r["htsim_vs_first"] = r["htsim_ns_per_pkt"] / rows[0]["htsim_ns_per_pkt"]
    last = rows[-1]
    if last["flows"] != base:
        lo, hi = last["ccsim_growth_ci"]
        last["max_growth"] = max_growth
        last["verdict"] = verdict(lo, hi, max_growth, at_most=True)
        print(f"{base} -> {last['flows']} flows: ccsim x{last['ccsim_growth']:.2f} [{lo:.2f}, {hi:.2f}] "
              f"(the rounds' median ratio, 95 % CI), htsim x{last['htsim_growth']:.2f}; "
              f"target <= {max_growth:g}x: {last['verdict']}", flush=True)
    return rows


def callgrind_count(cmd: list[str], env: dict | None = None) -> tuple[int, dict]:
    """Runs `cmd` under callgrind: (instructions executed, the JSON line it printed)."""
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", *cmd],
                           capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed under valgrind:\n{p.stderr[-2000:]}")
    return instructions_of(p.stderr), last_json(p.stdout)


def instructions_of(valgrind_stderr: str) -> int:
    """The instruction count in callgrind's summary (`==pid== Collected : N` or
    `==pid== I   refs: N`)."""
    for line in reversed(valgrind_stderr.splitlines()):
        for tag in ("Collected :", "I   refs:"):
            if tag in line:
                return int(line.split(tag, 1)[1].replace(",", "").split()[0])
    raise ValueError("no instruction count in valgrind's output")


def marginal(full: tuple[int, dict], short: tuple[int, dict]) -> dict:
    """Instructions and events per bottleneck packet between a short and a full run."""
    dp = full[1]["bottleneck_pkts"] - short[1]["bottleneck_pkts"]
    if dp <= 0:
        raise ValueError("the full run has no more bottleneck packets than the short one")
    return {"instr_per_pkt": (full[0] - short[0]) / dp, "events_per_pkt": (full[1]["events"] - short[1]["events"]) / dp,
            "pkts": full[1]["bottleneck_pkts"]}


#: ccsim's runs under callgrind: Python with a fixed hash seed. Its start-up (the
#: interpreter, numpy, pandas: 1.7 G instructions) still varies by about 0.3 % from run to
#: run (±35 M with random hash seeds), which the subtraction of the short run does not
#: cancel; hence `reps` counts of each and their medians. htsim's count varies by tens of
#: instructions.
CCSIM_COUNT_ENV = {"PYTHONHASHSEED": "0"}


def counted(commands, full_s: float, short: float, reps: int) -> tuple[dict, dict]:
    """ccsim's and htsim's marginal counts (see `marginal`) from the medians of `reps`
    counts of each run (ccsim's) and one (htsim's, deterministic); ccsim's also carries
    `instr_spread`, the largest minus the smallest marginal over its reps' pairs.
    `commands(seconds)` gives both simulators' commands for a run of that many seconds."""
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is missing (Debian: apt-get install valgrind)")
    require_htsim()
    cenv = dict(os.environ, **CCSIM_COUNT_ENV)
    c, h = [], []
    for secs in (full_s, round(full_s * short, 3)):
        ccmd, hcmd = commands(f"{secs:g}")
        counts = [callgrind_count(ccmd, env=cenv) for _ in range(reps)]
        c.append(counts)
        h.append(callgrind_count(hcmd, env=htsim_env))
    med = [(statistics.median(n for n, _ in runs), runs[0][1]) for runs in c]
    cm = marginal(*med)
    each = [marginal(f, s)["instr_per_pkt"] for f, s in zip(*c)]
    cm["instr_spread"] = max(each) - min(each)
    return cm, marginal(*h)


def instructions(scenarios: list[str], short: float, reps: int = 3, access: bool = False) -> list[dict]:
    """Instructions per bottleneck packet of each scenario, both simulators; `access`: htsim
    with an access queue per flow (`compare --access`), closer to ccsim's full model (which
    also has reverse queues and routers that htsim's model has not)."""
    rows = []
    for s in scenarios:
        full_s = float(HTSIM_ARGS[s][4])
        short_s = round(full_s * short, 3)

        def commands(secs: str, s=s) -> tuple[list[str], list[str]]:
            hargs = htsim_args(s, access)
            hargs[4] = secs
            return [sys.executable, "-m", "ccsim._benchworker", s, "--seconds", secs], [str(htsim_binary), *hargs]

        cm, hm = counted(commands, full_s, short, reps)
        row = {"scenario": s, "seconds": full_s, "short_seconds": short_s, "reps": reps, "htsim_access": access,
               "ccsim_instr_per_pkt": cm["instr_per_pkt"], "ccsim_instr_spread": cm["instr_spread"],
               "htsim_instr_per_pkt": hm["instr_per_pkt"],
               "ccsim_events_per_pkt": cm["events_per_pkt"], "htsim_events_per_pkt": hm["events_per_pkt"],
               "ccsim_pkts": cm["pkts"], "htsim_pkts": hm["pkts"],
               "htsim_over_ccsim": hm["instr_per_pkt"] / cm["instr_per_pkt"]}
        rows.append(row)
        print(f"{s}: ccsim {row['ccsim_instr_per_pkt']:.0f} instructions per bottleneck packet "
              f"(spread {row['ccsim_instr_spread']:.0f} over {reps} pairs; {row['ccsim_events_per_pkt']:.2f} events), htsim {row['htsim_instr_per_pkt']:.0f} "
              f"({row['htsim_events_per_pkt']:.2f} events{', an access queue per flow' if access else ''}); htsim/ccsim {row['htsim_over_ccsim']:.2f}", flush=True)
    return rows


def scale_args(n: int, seconds: float, per_flow_mbps: float | None, packets: float) -> tuple[list[str], list[str], float]:
    """The arguments of one point of the scaling curve: ccsim's worker's (after `scale`), htsim's,
    and the duration (s)."""
    rate_mbps, queue, secs = 1000.0, 1000, seconds
    if per_flow_mbps:
        rate_mbps, queue = per_flow_mbps * n, 10 * n
        secs = max(seconds, round(packets / (rate_mbps * 1e6 / 8 / 1500), 1))
    extra = [str(rate_mbps * 1e6), str(queue)] if per_flow_mbps else []
    hargs = [str(n), f"{rate_mbps:g}", "10", str(queue), f"{secs:g}", "--iw", "2", "--maxcwnd", "718",
             "--start-window", "1", "--access-delay-ms", "1"]
    return [str(n), f"{secs:g}", *extra], hargs, secs


def scaling_instructions(flows: list[int], seconds: float, per_flow_mbps: float | None, packets: float,
                         short: float, reps: int = 3) -> list[dict]:
    """The scaling curve in instructions per bottleneck packet (marginal, as `instructions`)."""
    rows = []
    for n in flows:
        cargs, hargs, secs = scale_args(n, seconds, per_flow_mbps, packets)

        def commands(t: str, cargs=cargs, hargs=hargs) -> tuple[list[str], list[str]]:
            c, h = list(cargs), list(hargs)
            c[1] = h[4] = t
            return [sys.executable, "-m", "ccsim._benchworker", "scale", *c, "--once"], [str(htsim_binary), *h]

        cm, hm = counted(commands, secs, short, reps)
        rows.append({"flows": n, "seconds": secs, "reps": reps, "ccsim_instr_per_pkt": cm["instr_per_pkt"],
                     "ccsim_instr_spread": cm["instr_spread"], "htsim_instr_per_pkt": hm["instr_per_pkt"],
                     "ccsim_events_per_pkt": cm["events_per_pkt"], "htsim_events_per_pkt": hm["events_per_pkt"]})
        print(f"{n} flows ({secs:g} s): ccsim {cm['instr_per_pkt']:.0f} instructions per bottleneck packet "
              f"(spread {cm['instr_spread']:.0f}), "
              f"htsim {hm['instr_per_pkt']:.0f}", flush=True)
    for r in rows:
        r["ccsim_vs_first"] = r["ccsim_instr_per_pkt"] / rows[0]["ccsim_instr_per_pkt"]
        r["htsim_vs_first"] = r["htsim_instr_per_pkt"] / rows[0]["htsim_instr_per_pkt"]
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--htsim", default=UPSTREAM, help="htsim's repository: a URL or a local git directory")
    b.add_argument("--commit", default=COMMIT)
    b.add_argument("--pgo", action="store_true", help="also build htsim with GCC's profile-guided optimisation")
    c = sub.add_parser("compare")
    c.add_argument("--scenario", nargs="+", default=["S1", "S2", "S3"], choices=sorted(HTSIM_ARGS))
    c.add_argument("--reps", type=int, default=5)
    c.add_argument("--access", action="store_true", help="htsim with an access queue per flow too")
    c.add_argument("--target", type=float, default=TARGET, help="the ratio judged (verdict on the rounds' median's interval)")
    c.add_argument("--min-time", type=float, default=0.0,
                   help="each side of a round runs back to back for at least this many seconds of loop time (mean)")
    c.add_argument("--json", type=Path)
    c.add_argument("--htsim-pgo", action="store_true", help="run the profile-guided htsim (build --pgo)")
    c.add_argument("--pin", metavar="CPU", help="run both simulators on this core (taskset -c CPU)")
    c.add_argument("--htsim-hugepages", action="store_true",
                   help="run htsim with glibc.malloc.hugetlb=1 (transparent huge pages, as ccsim uses by default)")
    s = sub.add_parser("scaling")
    s.add_argument("--flows", type=int, nargs="+", default=[10, 100, 1000, 10000])
    s.add_argument("--seconds", type=float, default=10.0)
    s.add_argument("--reps", type=int, default=3, help="rounds: each runs every flow count once, both simulators")
    s.add_argument("--max-growth", type=float, default=MAX_GROWTH,
                   help="the growth judged: the last count's cost at most this many times the base's (10 flows)")
    s.add_argument("--per-flow-mbps", type=float, help="keep each flow's regime: bottleneck this rate × flows, "
                   "queue 10 packets per flow, runs of about --packets bottleneck packets")
    s.add_argument("--packets", type=float, default=1e6)
    s.add_argument("--json", type=Path)
    s.add_argument("--htsim-pgo", action="store_true", help="run the profile-guided htsim (build --pgo)")
    s.add_argument("--pin", metavar="CPU", help="run both simulators on this core (taskset -c CPU)")
    s.add_argument("--htsim-hugepages", action="store_true",
                   help="run htsim with glibc.malloc.hugetlb=1 (transparent huge pages, as ccsim uses by default)")
    s.add_argument("--instructions", action="store_true", help="count instructions per packet under callgrind instead "
                   "(marginal between the full run and one of --short its duration)")
    s.add_argument("--short", type=float, default=0.1, help="with --instructions: the short run's duration, as a fraction")
    s.add_argument("--pages", choices=["default", "both"], default="default",
                   help="both: each simulator with and without transparent huge pages, the four alternating "
                   "(the main columns are then both with huge pages)")
    i = sub.add_parser("instructions")
    i.add_argument("--scenario", nargs="+", default=["S1", "S2", "S3"], choices=sorted(HTSIM_ARGS))
    i.add_argument("--short", type=float, default=0.1, help="the short run's duration, as a fraction of the full one")
    i.add_argument("--reps", type=int, default=3, help="counts of each ccsim run (their median; htsim's count is exact)")
    i.add_argument("--json", type=Path)
    i.add_argument("--htsim-pgo", action="store_true", help="count the profile-guided htsim (build --pgo)")
    i.add_argument("--access", action="store_true", help="htsim with an access queue per flow too")
    a = ap.parse_args(argv)
    if a.cmd == "build":
        build(a.htsim, a.commit, a.pgo)
        return 0
    global htsim_binary, htsim_env, pin_cpu
    htsim_binary = PGO_BINARY if a.htsim_pgo else BINARY
    pin_cpu = getattr(a, "pin", None)
    if pin_cpu is not None and shutil.which("taskset") is None:
        print("--pin needs taskset (util-linux)", file=sys.stderr)
        return 2
    htsim_env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.hugetlb=1") if getattr(a, "htsim_hugepages", False) else None
    if a.cmd in ("instructions", "scaling") and not 0 < a.short < 1:
        print("--short must be between 0 and 1 (a fraction of the full duration)", file=sys.stderr)
        return 2
    if a.cmd == "instructions":
        rows = instructions(a.scenario, a.short, a.reps, a.access)
    elif a.cmd == "compare":
        if not 0 <= a.min_time <= 3600:
            print("--min-time must be from 0 to 3600 seconds", file=sys.stderr)
            return 2
        rows = compare(a.scenario, a.reps, a.access, a.target, a.min_time)
    else:
        rows = scaling(a.flows, a.seconds, a.reps, a.per_flow_mbps, a.packets, a.pages == "both",
                       a.short if a.instructions else None, a.max_growth)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
