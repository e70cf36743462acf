"""Reproduction reports: run a paper's sweeps, then write `report.md` and a
self-contained `report.html` (figures embedded) with, for each table and figure, the
paper's values beside ccsim's, the parameters used (every default ccsim chose marked as
such), and a verdict per claim."""

from __future__ import annotations

import base64
import json
import datetime as _dt
import html
import os
import time
from pathlib import Path
from typing import Callable

import pandas as pd

from . import __version__
from .catalog import Catalog
from .papers import Context, Paper, tally
from .results import file_in_the_way
from .scenario import ScenarioError
from .sweep import sweep


def _resolved_params(sweeps: dict) -> pd.DataFrame | None:
    """A table of every component parameter of each sweep's first run (parameter, then one
    column per sweep), or None."""
    from .scenario import flatten_params, params

    cols = {}
    for name, res in sweeps.items():
        scen = getattr(res, "first_scenario", None)
        if scen is None:
            continue
        try:
            cols[name] = dict(flatten_params(params(scen)))
        except Exception:  # noqa: BLE001 - a report must not fail over its appendix
            continue
    if not cols:
        return None
    keys = list(dict.fromkeys(k for c in cols.values() for k in c))
    rows = [{"parameter": k, **{n: json.dumps(c.get(k)) if k in c else "" for n, c in cols.items()}} for k in keys]
    df = pd.DataFrame(rows)
    if len(cols) > 1:
        # One value where every sweep agrees; the sweeps' own columns only where they differ.
        names = list(cols)
        same = df[names].nunique(axis=1) == 1
        df.insert(1, "value", df[names[0]].where(same, "(per sweep)"))
        for n in names:
            df.loc[same, n] = ""
    return df


#: Names the paper a results folder holds (written by `reproduce`).
MARKER = "reproduction.json"


def claim_folder(out: Path, paper) -> None:
    """Makes `out` this paper's results folder, or refuses (a ScenarioError on `--out`) a
    folder holding another paper's reproduction: its figures would be overwritten in part
    and its catalog's runs counted in this report."""
    blocker = file_in_the_way(out)
    if blocker:
        raise ScenarioError([("out", f"{blocker}; give a folder (new, or this paper's earlier results)")])
    marker = out / MARKER
    other = None
    if marker.is_file():
        try:
            other = json.loads(marker.read_text(encoding="utf-8")).get("paper")
        except (OSError, ValueError, AttributeError):
            other = "?"
    elif (out / "report.md").is_file():
        # A folder written before the marker existed: its report's title names the paper.
        try:
            first = (out / "report.md").read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
        except OSError:
            first = ""
        if first.startswith("# ") and first != f"# {paper.title}":
            other = first[2:].strip()
    if other is not None and other != paper.id:
        raise ScenarioError([("out", f"{out} holds the reproduction of another paper ({other}); give a folder of "
                                       f"its own (default: results/{paper.id}-<mode>)")])
    out.mkdir(parents=True, exist_ok=True)
    if not marker.is_file():
        marker.write_text(json.dumps({"paper": paper.id}) + "\n", encoding="utf-8")


def reproduce(paper: Paper, out: str | os.PathLike, mode: str = "quick", workers: int | None = None,
              dask: str | None = None, progress: bool = False, log: Callable[[str], None] | None = None) -> dict:
    """Runs `paper`'s experiments into `out` (cached) and writes the report. Returns
    {"report_md", "report_html", "verdicts", "sweeps"}."""
    say = log or (lambda s: None)
    out = Path(out)
    claim_folder(out, paper)
    t0 = time.perf_counter()
    sweeps = {}
    for spec in paper.experiments(mode):
        res = sweep(spec, out=out, workers=workers, dask=dask, progress=progress, log=log)
        sweeps[spec.name] = res
    figdir = out / "figures"
    figdir.mkdir(exist_ok=True)
    with Catalog(out, read_only=True) as cat:
        ctx = Context(catalog=cat, out=figdir, mode=mode, sweeps=sweeps)
        figures = paper.figures(ctx)
        tables = paper.tables(ctx)
        verdicts = paper.claims(ctx)
        discussion = paper.discussion(ctx)
        runs = cat.runs()
        own = {rid for res in sweeps.values() for rid in (res.run_ids or [])}
        runs = runs[runs["run_id"].isin(own)] if own else runs
    wall = time.perf_counter() - t0
    doc = _Doc()
    doc.h(1, f"{paper.title}")
    doc.p(f"*{paper.citation}*" if paper.citation else "")
    if paper.summary:
        doc.p(paper.summary)
    claims = tally(verdicts)
    doc.p(f"ccsim {__version__}, mode **{mode}**, {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC. "
          f"{len(runs)} runs in the catalog ({int((runs['status'] == 'ok').sum()) if len(runs) else 0} ok), "
          f"report made in {wall:.1f} s. Claims: **{claims}**. A claim holds or does not hold when the 95 % "
          "confidence interval over seeds lies wholly on one side of its rule's threshold, band edge or least effect δ; "
          "inconclusive when the interval straddles it, or when there is no interval (one seed, or two that agree)."
          + (" Quick mode (for CI) runs fewer seeds than the full study (and, for most papers, shorter runs): with two seeds a Student-t "
             "interval has one degree of freedom (t = 12.7), so intervals are wide (cut at the range of a rate or a fraction, "
             "which they would reach past) and leave more claims inconclusive; `--full` gives the study's figures."
             if mode == "quick" else ""))
    doc.h(2, "Verdicts")
    doc.table(pd.DataFrame([{"claim": v.id, "verdict": v.label, "paper": v.paper, "ccsim": v.ccsim, "rule": v.rule} for v in verdicts])
              if verdicts else pd.DataFrame({"claim": []}))
    doc.h(2, "Parameters")
    doc.p("Every parameter of the runs: from the paper, or a ccsim default where the paper is silent (with the reason).")
    params = paper.parameters(mode)
    doc.table(pd.DataFrame([{"parameter": p.name, "value": str(p.value), "source": p.source, "why": p.why} for p in params])
              if params else pd.DataFrame({"parameter": []}))
    resolved = _resolved_params(sweeps)
    if resolved is not None:
        doc.h(3, "Every component's resolved parameters")
        doc.p("As the engine built them from its typed configurations, for the first run of each sweep "
              "(defaults filled in; times in seconds, rates in bit/s). Values that differ between sweeps show one column each.")
        doc.table(resolved)
    doc.h(2, "Experiments")
    doc.table(pd.DataFrame([{"sweep": k, "runs": r.total, "ran now": r.ran, "cached": r.cached, "failed": r.failed}
                            for k, r in sweeps.items()]))
    if tables:
        doc.h(2, "Tables")
        for t in tables:
            doc.h(3, f"{t.id}: {t.title}")
            doc.table(t.frame)
            if t.note:
                doc.p(t.note)
    if figures:
        doc.h(2, "Figures")
        for f in figures:
            doc.h(3, f"{f.id}: {f.title}")
            doc.image(f.path, f.caption, out)
            if f.caption:
                doc.p(f.caption)
    doc.h(2, "Claims")
    for v in verdicts:
        doc.h(3, f"{v.id}: {v.label}")
        doc.p(f"**Paper:** {v.statement} ({v.paper})")
        doc.p(f"**ccsim:** {v.ccsim}")
        doc.p(f"**Rule:** {v.rule}")
        if v.reason:
            doc.p(f"**{'Note' if v.label == 'holds' else 'Why'}:** {v.reason}")
    if discussion:
        doc.h(2, "Discussion")
        for para in discussion.strip().split("\n\n"):
            doc.p(para)
    md = out / "report.md"
    htm = out / "report.html"
    _atomic_write(md, doc.markdown())
    _atomic_write(htm, doc.html(paper.title))
    say(f"report: {md} and {htm} (claims {claims})")
    return {"report_md": md, "report_html": htm, "verdicts": verdicts, "sweeps": sweeps}


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _inline(text: str) -> str:
    """Markdown emphasis (**bold**, *italic*) to HTML, after escaping."""
    import re

    s = html.escape(text)
    s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"(?<!\*)\*(?!\*)(.+?)(?<!\*)\*(?!\*)", r"<em>\1</em>", s)
    return s


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


class _Doc:
    """One document, two renderings (Markdown and self-contained HTML)."""

    def __init__(self):
        self.blocks: list[tuple] = []

    def h(self, level: int, text: str) -> None:
        self.blocks.append(("h", level, text))

    def p(self, text: str) -> None:
        if text:
            self.blocks.append(("p", text))

    def table(self, df: pd.DataFrame) -> None:
        self.blocks.append(("table", df))

    def image(self, path: Path, alt: str, root: Path) -> None:
        self.blocks.append(("img", Path(path), alt, root))

    def markdown(self) -> str:
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "table":
                df = b[1]
                if df.empty:
                    out.append("(none)")
                    continue
                cols = [str(c) for c in df.columns]
                rows = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
                for _, r in df.iterrows():
                    rows.append("| " + " | ".join(_fmt(v).replace("|", "\\|") for v in r.values) + " |")
                out.append("\n".join(rows))
            elif b[0] == "img":
                rel = os.path.relpath(b[1], b[3])
                out.append(f"![{b[2]}]({rel})")
        return "\n\n".join(out) + "\n"

    def html(self, title: str) -> str:
        body = []
        for b in self.blocks:
            if b[0] == "h":
                body.append(f"<h{b[1]}>{html.escape(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                body.append(f"<p>{_inline(b[1])}</p>")
            elif b[0] == "table":
                df = b[1]
                if df.empty:
                    body.append("<p>(none)</p>")
                    continue
                head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
                rows = []
                for _, r in df.iterrows():
                    cells = []
                    for v in r.values:
                        s = _fmt(v)
                        cls = {"holds": "ok", "does not hold": "bad", "inconclusive": "warn", "not evaluated": "na"}.get(s, "")
                        cells.append(f'<td class="{cls}">{html.escape(s)}</td>' if cls else f"<td>{html.escape(s)}</td>")
                    rows.append("<tr>" + "".join(cells) + "</tr>")
                body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
            elif b[0] == "img":
                data = base64.b64encode(b[1].read_bytes()).decode()
                body.append(f'<figure><img alt="{html.escape(b[2])}" src="data:image/png;base64,{data}"></figure>')
        css = ("body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45}"
               "table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;font-size:.9rem}"
               "th{background:#f3f3f3}td.ok{background:#e6f4ea}td.bad{background:#fce8e6}td.na{background:#eeeeee}td.warn{background:#fff4e5}"
               "img{max-width:100%}")
        return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
                f"<style>{css}</style></head><body>{''.join(body)}</body></html>\n")
