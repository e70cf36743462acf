"""Paper B: Park, Lee, Kim, Kim and Kim, TCP multicast through an ATM Multicast Server with
same-source Packet Discard (KICS 1997).

Five TCP (BSD 4.3 Tahoe) sources multicast to a group through the MCS of a 16×16
output-buffered ATM switch; each receiver's output port runs tail drop, EPD + drop from
front, or EPD + SPD (the MCS takes one source's frame from every congested port and
re-sends it from its common buffer). Figs 8-10: effective throughput per source against
the switch buffer (512-byte and 8-KB packets), throughput and retransmissions over time.
Beyond the paper: unicast TCP through one switch port with cell drop, PPD and EPD.
Scenarios and per-run metrics: :mod:`ccsim.papers.atm_mcs_setup`.
"""

from __future__ import annotations

import pandas as pd

from .. import plot
from ..sweep import SweepSpec
from . import Figure, Parameter, Paper, ReportTable, Verdict
from . import atm_mcs_setup as S
from .verdict import RATE, Estimate, all_of, effect_at_least, error_bars, paired, per_seed

#: Mb/s: the smallest difference in mean effective throughput per source a claim needs
#: (1 % of a source's fair share of an OC-3c port with 512-byte packets, 24.1 Mb/s).
DELTA_EFF = 0.25e6
#: Retransmitted data per second a claim about retransmissions needs: one 512-byte packet a
#: second (1 retransmission/s with 512-byte packets, 1/16 with 8 KB ones; judged per size,
#: a count would weigh an 8 KB packet like a 512-byte one).
DELTA_RETX_BYTES = 512


def _plan(mode):
    if mode == "full":
        return {"seeds": [1, 2, 3, 4, 5], "dur": 20.0, "warm": 2.0, "buffers": [500, 1000, 2000, 3000, 4000],
                "receivers": [2, 6], "sens_seeds": [1, 2, 3], "uni": [500, 1000, 2000, 3000, 4000], "extras": True}
    return {"seeds": [1, 2], "dur": 3.0, "warm": 0.5, "buffers": [500, 2000], "receivers": [], "sens_seeds": [],
            "uni": [500, 2000], "extras": False}


#: Full mode's sensitivity runs (512-byte packets): the common buffer split between the
#: sources (8 KB each instead of 40 KB each), and twice the load (ten senders).
SPLIT = S.COMMON // S.SENDERS
LOAD_SENDERS = 10
#: ... and SPD's re-sends taken only below this fraction of the buffer (half SPD's threshold).
RESEND = 0.25
#: ... and finite transfers (the paper: "each sender sends the same amount of data", an
#: amount it does not give): bytes per source, about 5 s at a fair share of a port, in runs
#: long enough for every source to finish.
TRANSFER = 16_000_000
TRANSFER_DURATION = 120.0


def _mcs_sweep(name, scheme, size, p, receivers=S.RECEIVERS, seeds=None, senders=S.SENDERS, common=S.COMMON,
               resend_fraction=None, transfer=None, dff_at="overflow"):
    dur, warm = (TRANSFER_DURATION, 0.0) if transfer else (p["dur"], p["warm"])
    base = S.scenario(scheme, p["buffers"][0], size, receivers=receivers, senders=senders, duration=dur,
                      warmup=warm, common=common, transfer=transfer, dff_at=dff_at)
    n = senders
    grid = {f"links[{n + j}].queue.limit": list(p["buffers"]) for j in range(receivers)}
    if scheme == "epd_spd":
        grid[f"elements[{n + receivers}].spd_threshold"] = [b // 2 for b in p["buffers"]]
        if resend_fraction is not None:
            grid[f"elements[{n + receivers}].resend_below"] = [int(b * resend_fraction) for b in p["buffers"]]
    return SweepSpec(name=name, base=base, seeds=seeds or p["seeds"], extract=S.metrics, zipped=grid)


def _uni_sweep(name, policy, size, p):
    base = S.unicast(policy, p["uni"][0], size, duration=p["dur"], warmup=p["warm"])
    return SweepSpec(name=name, base=base, seeds=p["seeds"], extract=S.metrics, zipped={"links[8].queue.limit": list(p["uni"])})


def _size_label(size):
    return "512 B" if size == 512 else "8 KB"


class AtmMcs(Paper):
    id = "atm-mcs"
    title = "Paper B: TCP multicast through an ATM Multicast Server (tail drop, EPD+DFF, EPD+SPD)"
    citation = "Park, Lee, Kim, Kim and Kim, \"TCP multicast through an ATM Multicast Server with same-source packet discard\", KICS 1997"
    summary = ("Hosts multicast TCP packets as AAL5 cells through a Multicast Server (MCS) that reassembles each packet, "
               "keeps it in a common buffer and copies it to every receiver's output port of a 16×16 output-buffered switch. "
               "Three port schemes: tail drop (a damaged packet's remaining cells are still carried), EPD with drop from "
               "front, and the proposed EPD with same-source Packet Discard (SPD): on congestion the MCS takes one source's "
               "packet, chosen by round robin, out of every congested port and re-sends it from the common buffer when "
               "congestion eases. The paper finds EPD+SPD > EPD+DFF > tail drop in effective throughput, and the fewest, "
               "most stable retransmissions with SPD.")

    def parameters(self, mode):
        p = _plan(mode)
        return [
            Parameter("topology", f"{S.SENDERS} senders and {S.RECEIVERS} receivers on one switch; every host on OC-3c "
                      "(149.76 Mb/s of STS-3c payload carrying whole cells, one per 2.831 µs: 135.63 Mb/s of cell payload), "
                      "5 µs per link", "paper (receivers: ccsim)",
                      "Fig 5 shows five senders; the number of receivers is open (sensitivity: 2 and 6 in full mode)"),
            Parameter("switch buffer", ", ".join(str(b) for b in p["buffers"]) + " cells per output port", "paper"),
            Parameter("schemes", "tail drop; EPD at 0.5 × buffer + frame-level drop from front when a cell finds the buffer full; "
                      "EPD at 0.5 × buffer (PPD behind it) + SPD at the same threshold",
                      "paper (when drop from front acts, PPD behind EPD: ccsim's reading)",
                      "the paper drops from the front 'at congestion'; with EPD at half the buffer a port is never full here, so "
                      "drop from front never acts and EPD+DFF runs as EPD alone (Table 3); Table 10 (full mode) drops from "
                      "the front at EPD's threshold instead"),
            Parameter("packets", "TCP payload 512 B or 8192 B + 40 B TCP/IP headers: 12 or 172 cells (AAL5, no LLC/SNAP)",
                      "paper (headers on top: ccsim)", "the paper does not say whether its sizes include headers"),
            Parameter("TCP", "BSD 4.3 Tahoe: window 8 KB (16 or 1 segments), fast retransmit after 3 duplicate ACKs, no fast "
                      "recovery, 500 ms timer tick, 1 s minimum RTO, no SYN exchange, an ACK per segment", "paper (timers: ccsim)",
                      "BSD 4.3's timer granularity; the paper gives only 'BSD 4.3 Tahoe'"),
            Parameter("MCS", f"common buffer {S.COMMON} B per source (5 × window); ACKs combined at the group's minimum; "
                      "SPD's and refused copies re-sent from the common buffer with local repair; the path from the server "
                      "to a port is not limited", "ccsim's reading (the paper: 'a common buffer' of 5 × the window)",
                      f"the paper's buffer may be the total: Table 6 splits it, {SPLIT} B per source; the paper does not say "
                      "how ACKs reach the sender (docs/models/atm.md) nor what carries the server's re-sends"),
            Parameter("traffic", "persistent FTP from every sender, starting within 10 ms", "ccsim's deviation",
                      "the paper: each sender sends the same amount of data (a finite transfer, amount not given); with "
                      "persistent sources every port stays busy, which may be why the mean throughputs do not separate. "
                      f"Table 9 (full mode) runs finite transfers of {TRANSFER / 1e6:g} MB per source instead"),
            Parameter("effective throughput", "per source: the mean over its receivers of the goodput of whole, new packets", "paper"),
            Parameter("duration", f"{p['dur']:g} s, measured after {p['warm']:g} s", "ccsim default", "paper silent"),
            Parameter("seeds", len(p["seeds"]), "ccsim", "the seed draws the start offsets"),
        ]

    def experiments(self, mode):
        p = _plan(mode)
        out = [_mcs_sweep(f"b-{size}-{s}", s, size, p) for size in S.SIZES for s in S.SCHEMES]
        for k in p["receivers"]:
            out += [_mcs_sweep(f"b-rx{k}-512-{s}", s, 512, p, receivers=k, seeds=p["sens_seeds"]) for s in S.SCHEMES]
        if p["extras"]:
            out += [_mcs_sweep(f"b-split-512-{s}", s, 512, p, seeds=p["sens_seeds"], common=SPLIT) for s in S.SCHEMES]
            out += [_mcs_sweep(f"b-load{LOAD_SENDERS}-512-{s}", s, 512, p, seeds=p["sens_seeds"], senders=LOAD_SENDERS)
                    for s in S.SCHEMES]
            out.append(_mcs_sweep("b-resend-512-epd_spd", "epd_spd", 512, p, seeds=p["sens_seeds"], resend_fraction=RESEND))
            out += [_mcs_sweep(f"b-fin-{size}-{s}", s, size, p, seeds=p["sens_seeds"], transfer=TRANSFER)
                    for size in S.SIZES for s in S.SCHEMES]
            out += [_mcs_sweep(f"b-dffepd-{size}-epd_dff", "epd_dff", size, p, seeds=p["sens_seeds"], dff_at="epd")
                    for size in S.SIZES]
        out += [_uni_sweep(f"b-uni-{size}-{pol}", pol, size, p) for size in S.SIZES for pol in ("tail", "ppd", "epd")]
        for size in S.SIZES:
            for s in S.SCHEMES:
                base = S.scenario(s, 1000, size, duration=p["dur"], trace=True)
                out.append(SweepSpec(name=f"b-trace-{size}-{s}", base=base, seeds=[1], extract=S.metrics))
        return out

    # Data -------------------------------------------------------------------------------------
    @staticmethod
    def _col(df) -> str:
        """The swept buffer's column (a receiver port's `limit`)."""
        return next(c for c in df.columns if c.endswith(".queue.limit"))

    def _series(self, ctx, sweep, metric, buffer) -> pd.Series:
        df = ctx.frame(sweep)
        return pd.Series(dtype=float) if df.empty else per_seed(df, metric, **{self._col(df): buffer})

    def _buffers(self, ctx, sweep):
        df = ctx.frame(sweep)
        return sorted(int(b) for b in df[self._col(df)].unique()) if not df.empty else []

    def _over_buffers(self, ctx, sweep, metric) -> pd.Series:
        """Per seed: the mean over buffer sizes of `metric`."""
        cols = [self._series(ctx, sweep, metric, b) for b in self._buffers(ctx, sweep)]
        return pd.concat(cols, axis=1).mean(axis=1) if cols else pd.Series(dtype=float)

    # Tables -----------------------------------------------------------------------------------
    def tables(self, ctx):
        out = []
        for t, size in (("Table 1", 512), ("Table 2", 8192)):
            rows = []
            for b in self._buffers(ctx, f"b-{size}-tail"):
                row = {"buffer (cells)": b}
                for s in S.SCHEMES:
                    sw = f"b-{size}-{s}"
                    row[f"{S.LABEL[s]}: mean"] = Estimate.of(self._series(ctx, sw, "eff_mean", b).tolist(), within=RATE).fmt(1e6, digits=2)
                    row[f"{S.LABEL[s]}: slowest source"] = f"{self._series(ctx, sw, 'eff_min', b).mean() / 1e6:.2f}"
                    row[f"{S.LABEL[s]}: retx/s"] = f"{self._series(ctx, sw, 'retx_per_s', b).mean():.1f}"
                rows.append(row)
            out.append(ReportTable(t, f"Fig 8{'a' if size == 512 else 'b'}'s data: effective throughput per source (Mb/s) and source "
                                   f"retransmissions per second, {_size_label(size)} packets", pd.DataFrame(rows),
                                   "Mean over sources of the mean over receivers of whole new packets' goodput; 95 % CI over seeds. "
                                   "'Slowest source': the lowest source's effective throughput (mean over seeds)."))
        rows = []
        for size in S.SIZES:
            for s in S.SCHEMES:
                sw = f"b-{size}-{s}"
                for b in self._buffers(ctx, sw):
                    g = lambda m: self._series(ctx, sw, m, b).mean()  # noqa: E731
                    rows.append({"packets": _size_label(size), "scheme": S.LABEL[s], "buffer": b,
                                 "cell loss ratio": f"{g('cell_loss_ratio'):.2e}", "frame loss ratio": f"{g('frame_loss_ratio'):.2e}",
                                 "frames corrupted": f"{g('frames_corrupted'):.0f}", "cells wasted": f"{g('cells_wasted'):.0f}",
                                 "EPD refusals (cells)": f"{g('port.drops_early'):.0f}", "drop from front (cells)": f"{g('port.drops_front'):.0f}",
                                 "SPD takes": f"{g('mcs.spd_taken'):.0f}" if s == "epd_spd" else "",
                                 "re-sent by the MCS": f"{g('mcs.resent'):.0f}" if s == "epd_spd" else "",
                                 "timeouts": f"{g('timeouts'):.1f}"})
        out.append(ReportTable("Table 3", "What each scheme did at the ports (per run, mean over seeds)", pd.DataFrame(rows),
                               "Cell loss ratio: cells dropped at the receivers' ports (overflow, EPD, PPD, drop from front) over "
                               "the cells offered to them — under EPD+SPD most are EPD refusals of copies the MCS re-sends; SPD's "
                               "takes are not counted. Frame loss ratio: of the frames the sources sent, per receiver, those that "
                               "did not reach it whole (a frame re-sent that arrives counts as arrived)."))
        rows = []
        for k in sorted({S.RECEIVERS, *_plan("full")["receivers"]}):
            for s in S.SCHEMES:
                sw = f"b-{512}-{s}" if k == S.RECEIVERS else f"b-rx{k}-512-{s}"
                for b in self._buffers(ctx, sw):
                    rows.append({"receivers": k, "scheme": S.LABEL[s], "buffer": b,
                                 "mean (Mb/s)": f"{self._series(ctx, sw, 'eff_mean', b).mean() / 1e6:.2f}",
                                 "slowest source (Mb/s)": f"{self._series(ctx, sw, 'eff_min', b).mean() / 1e6:.2f}",
                                 "retx/s": f"{self._series(ctx, sw, 'retx_per_s', b).mean():.1f}"})
        if any(r["receivers"] != S.RECEIVERS for r in rows):
            out.append(ReportTable("Table 4", "Sensitivity of Fig 8a to the number of receivers (512 B)", pd.DataFrame(rows),
                                   "Full mode: 2 and 6 receivers over 3 seeds beside the default 3 receivers (one receiver would make each flow unicast, which the MCS does not serve)."))
        rows = []
        for size in S.SIZES:
            for pol in ("tail", "ppd", "epd"):
                sw = f"b-uni-{size}-{pol}"
                for b in self._buffers(ctx, sw):
                    rows.append({"packets": _size_label(size), "policy": S.LABEL[pol], "buffer": b,
                                 "goodput per flow (Mb/s)": Estimate.of(self._series(ctx, sw, "eff_mean", b).tolist(), within=RATE).fmt(1e6, digits=2),
                                 "frames corrupted": f"{self._series(ctx, sw, 'frames_corrupted', b).mean():.0f}",
                                 "cells wasted": f"{self._series(ctx, sw, 'cells_wasted', b).mean():.0f}"})
        # Table 4 (the receivers' sensitivity) is a full-mode table: say so where it is missing.
        note = "" if any(t.id == "Table 4" for t in out) else "Table 4, the sensitivity to the number of receivers, is written in full mode."
        out.append(ReportTable("Table 5", "Beyond the paper: unicast TCP over one switch port (8 flows, 64 KB windows)", pd.DataFrame(rows), note))
        # Sensitivity tables (full mode): each setting's sweeps beside Table 1's, per scheme.
        for t, what, sweeps, schemes, caption in (
                ("Table 6", f"Sensitivity of Fig 8a to the common buffer: 5 × the window in all, {SPLIT} B per source (512 B)",
                 [("40 KB per source (Table 1)", "b-512-{}"), (f"{SPLIT // 1024} KB per source", "b-split-512-{}")], S.SCHEMES,
                 "The paper's 'common buffer of 5 × the window' read as the total; 3 seeds."),
                ("Table 7", f"Sensitivity of Fig 8a to the load: {LOAD_SENDERS} senders instead of {S.SENDERS} (512 B)",
                 [(f"{S.SENDERS} senders (Table 1)", "b-512-{}"), (f"{LOAD_SENDERS} senders", f"b-load{LOAD_SENDERS}-512-{{}}")],
                 S.SCHEMES, f"Twice the windows into every port; 3 seeds; a source's fair share of a port is "
                 f"{S.SENDERS / LOAD_SENDERS:g} of Table 1's."),
                ("Table 8", f"Sensitivity of EPD+SPD to the re-send threshold (512 B): re-sends below {RESEND:g} × the buffer "
                 "instead of SPD's B/2", [("re-sends below B/2 (Table 1)", "b-512-{}"), (f"re-sends below {RESEND:g} B",
                                                                                        "b-resend-512-{}")], ("epd_spd",),
                 "SPD and the re-sends at one threshold chase each other under load; a lower re-send mark "
                 "(`resend_below`) is the model's alternative; 3 seeds.")):
            rows = []
            for label, pattern in sweeps:
                for sc in schemes:
                    sw = pattern.format(sc)
                    for b in self._buffers(ctx, sw):
                        g = lambda m: self._series(ctx, sw, m, b).mean()  # noqa: E731
                        spd = sc == "epd_spd"
                        rows.append({"setting": label, "scheme": S.LABEL[sc], "buffer": b,
                                     "mean (Mb/s)": f"{g('eff_mean') / 1e6:.2f}", "slowest source (Mb/s)": f"{g('eff_min') / 1e6:.2f}",
                                     "retx/s": f"{g('retx_per_s'):.1f}", "SPD takes": f"{g('mcs.spd_taken'):.0f}" if spd else "",
                                     "MCS re-sends": f"{g('mcs.resent'):.0f}" if spd else ""})
            if any(r["setting"] != sweeps[0][0] for r in rows):
                out.append(ReportTable(t, what, pd.DataFrame(rows), caption))
        rows = []
        for size in S.SIZES:
            for sc in S.SCHEMES:
                sw = f"b-fin-{size}-{sc}"
                for b in self._buffers(ctx, sw):
                    g = lambda m: self._series(ctx, sw, m, b)  # noqa: E731
                    rows.append({"packets": _size_label(size), "scheme": S.LABEL[sc], "buffer": b,
                                 "mean per source (Mb/s)": Estimate.of(g("fin_mean").tolist(), within=RATE).fmt(1e6, digits=2),
                                 "slowest source (Mb/s)": f"{g('fin_min').mean() / 1e6:.2f}",
                                 "last source done (s)": f"{g('fin_last_s').mean():.2f}",
                                 "retransmissions": f"{g('fin_retx').mean():.0f}",
                                 "unfinished sources (all seeds)": f"{g('fin_incomplete').sum():.0f}"})
        if rows:
            out.append(ReportTable("Table 9", f"Sensitivity of Fig 8 to the traffic: each source sends {TRANSFER / 1e6:g} MB and stops",
                                   pd.DataFrame(rows),
                                   "The paper: 'each sender sends the same amount of data' (the amount is not given). A source's "
                                   "effective throughput is its data over the time until every receiver held its last byte (its "
                                   f"last ACK); mean over sources with its 95 % CI over {len(_plan('full')['sens_seeds'])} seeds; "
                                   f"runs of {TRANSFER_DURATION:g} s, retransmissions are the sources' over the whole transfer; a "
                                   "run with a source unfinished at the end has no mean, slowest source or last finish."))
        rows = []
        for size in S.SIZES:
            for label, sw in (("tail drop", f"b-{size}-tail"), ("EPD+DFF, DFF at a full buffer", f"b-{size}-epd_dff"),
                              ("EPD+DFF, DFF at EPD's threshold", f"b-dffepd-{size}-epd_dff"), ("EPD+SPD", f"b-{size}-epd_spd")):
                for b in self._buffers(ctx, f"b-dffepd-{size}-epd_dff"):
                    g = lambda m: self._series(ctx, sw, m, b)  # noqa: E731
                    rows.append({"packets": _size_label(size), "scheme": label, "buffer": b,
                                 "mean (Mb/s)": Estimate.of(g("eff_mean").tolist(), within=RATE).fmt(1e6, digits=2),
                                 "slowest source (Mb/s)": f"{g('eff_min').mean() / 1e6:.2f}", "retx/s": f"{g('retx_per_s').mean():.1f}",
                                 "drop from front (cells)": f"{g('port.drops_front').mean():.0f}",
                                 "frames corrupted": f"{g('frames_corrupted').mean():.0f}", "cells wasted": f"{g('cells_wasted').mean():.0f}"})
        if rows:
            out.append(ReportTable("Table 10", "Sensitivity of Figs 8 and 10 to where EPD+DFF drops from the front",
                                   pd.DataFrame(rows),
                                   "The paper drops whole packets from the front 'on congestion'. Tables 1-2 read that as a full "
                                   "buffer, which EPD at half the buffer never lets happen; here the port also drops its first "
                                   "whole frame whenever EPD refuses one (`dff_at = \"epd\"`). "
                                   f"{len(_plan('full')['sens_seeds'])} seeds for that reading; the other rows are Tables 1-2's "
                                   f"runs ({len(_plan('full')['seeds'])} seeds). Per run, mean over seeds."))
        return out

    # Figures ----------------------------------------------------------------------------------
    def figures(self, ctx):
        figs = []
        for size, fid in ((512, "Fig 8a"), (8192, "Fig 8b")):
            fig, ax = plot._axes()
            for s in S.SCHEMES:
                sw = f"b-{size}-{s}"
                bs = self._buffers(ctx, sw)
                es = [Estimate.of(self._series(ctx, sw, "eff_mean", b).tolist(), within=RATE) for b in bs]
                ax.errorbar(bs, [e.mean / 1e6 for e in es], yerr=error_bars(es, 1e6),
                            marker="o", capsize=2, label=f"{S.LABEL[s]} (mean)")
                ax.plot(bs, [self._series(ctx, sw, "eff_min", b).mean() / 1e6 for b in bs], ls=":", marker=".", label=f"{S.LABEL[s]} (slowest)")
            plot.label(ax, "switch buffer (cells)", "effective throughput per source (Mb/s)", f"{fid}: {_size_label(size)} packets")
            figs.append(Figure(fid, f"Effective throughput per source against the switch buffer, {_size_label(size)}",
                               plot.save(fig, ctx.out / f"fig8{'a' if size == 512 else 'b'}.png"),
                               "Solid: mean over sources (CI over seeds); dotted: the slowest source."))
        import matplotlib.pyplot as plt

        for size, fid in ((512, "Fig 9a"), (8192, "Fig 9b")):
            with plt.rc_context(plot.STYLE):
                fig, axes = plt.subplots(3, 1, figsize=(7, 7), sharex=True, sharey=True)
            drawn = False
            for ax, s in zip(axes, S.SCHEMES):
                rid = ctx.first_run(f"b-trace-{size}-{s}")
                if rid is None:
                    continue
                for i in range(S.SENDERS):
                    f = ctx.catalog.series(rid, f"flow:f{i}")
                    rate = f["goodput_bytes"].diff() * 8 / f["time"].diff() / S.RECEIVERS / 1e6
                    ax.plot(f["time"], rate, lw=0.8, label=f"source {i}")
                    drawn = True
                ax.set_title(S.LABEL[s])
                ax.set_ylabel("Mb/s")
            axes[-1].set_xlabel("time (s)")
            if drawn:
                figs.append(Figure(fid, f"Effective throughput of each source over time, 1000-cell buffers, {_size_label(size)}",
                                   plot.save(fig, ctx.out / f"fig9{'a' if size == 512 else 'b'}.png"), "Seed 1; 250 ms bins."))
            else:
                plt.close(fig)
        fig, ax = plot._axes()
        for size in S.SIZES:
            for s in S.SCHEMES:
                rid = ctx.first_run(f"b-trace-{size}-{s}")
                if rid is None:
                    continue
                tot = None
                for i in range(S.SENDERS):
                    f = ctx.catalog.series(rid, f"flow:f{i}").set_index("time")["retransmits"]
                    tot = f if tot is None else tot + f
                r = tot.diff() / pd.Series(tot.index, index=tot.index).diff()
                ax.plot(r.index, r.values, marker="." if size == 512 else "x", label=f"{S.LABEL[s]}, {_size_label(size)}")
        plot.label(ax, "time (s)", "source retransmissions per second", "Fig 10: retransmissions over time (1000 cells)")
        figs.append(Figure("Fig 10", "Retransmissions per unit time", plot.save(fig, ctx.out / "fig10.png"), "All sources, seed 1."))
        fig, ax = plot._axes()
        for size in S.SIZES:
            for pol in ("tail", "ppd", "epd"):
                sw = f"b-uni-{size}-{pol}"
                bs = self._buffers(ctx, sw)
                ax.plot(bs, [self._series(ctx, sw, "eff_mean", b).mean() / 1e6 for b in bs], marker="o" if size == 512 else "s",
                        label=f"{S.LABEL[pol]}, {_size_label(size)}")
        plot.label(ax, "switch buffer (cells)", "goodput per flow (Mb/s)", "Beyond the paper: unicast TCP over ATM")
        figs.append(Figure("Fig 11", "Unicast TCP through one switch port: cell drop, PPD, EPD",
                           plot.save(fig, ctx.out / "fig11.png"), "8 flows with 64 KB windows into one OC-3c port."))
        return figs

    # Claims -----------------------------------------------------------------------------------
    def claims(self, ctx):
        v = []
        for size, tag in ((512, "a"), (8192, "b")):
            t, d, p = (self._over_buffers(ctx, f"b-{size}-{s}", "eff_mean") for s in S.SCHEMES)
            for cid, hi, lo, a, b in ((f"F8{tag}-dff", d, t, "EPD+DFF", "tail drop"), (f"F8{tag}-spd", p, d, "EPD+SPD", "EPD+DFF")):
                e = paired(hi, lo)
                v.append(Verdict(cid, f"{a} gives a higher mean effective throughput per source than {b} ({_size_label(size)}, "
                                 "averaged over the buffer sizes)", f"{a} > {b}",
                                 f"{hi.mean() / 1e6:.2f} vs {lo.mean() / 1e6:.2f} Mb/s; difference {e.fmt(1e6, 'Mb/s', 3, sign=True)}",
                                 effect_at_least(e, DELTA_EFF), f"paired by seed: at least +{DELTA_EFF / 1e6:g} Mb/s (1 % of a fair share), the CI at or above it"))
        # Fig 10: judged at every size and buffer where either scheme retransmits at all (a
        # pool over the lossless buffers hid a reversal at 1 000 cells).
        for cid, a, b in (("F10-tail", "tail", "epd_dff"), ("F10-spd", "epd_dff", "epd_spd")):
            parts, shown = [], []
            for size in S.SIZES:
                for buf in self._buffers(ctx, f"b-{size}-{a}"):
                    hi, lo = (self._series(ctx, f"b-{size}-{x}", "retx_per_s", buf) for x in (a, b))
                    if not (hi.mean() > 0 or lo.mean() > 0):
                        continue
                    e = paired(hi, lo)
                    parts.append(effect_at_least(e, DELTA_RETX_BYTES / size))
                    shown.append(f"{_size_label(size)}, {buf} cells: {hi.mean():.1f} vs {lo.mean():.1f}, {e.fmt(1, '/s', 1, sign=True)}")
            if parts:
                v.append(Verdict(cid, f"sources retransmit more under {S.LABEL[a]} than under {S.LABEL[b]} (at every size and "
                                 "buffer where either retransmits)", f"{S.LABEL[a]} > {S.LABEL[b]}",
                                 "retransmissions/s: " + "; ".join(shown), all_of(*parts),
                                 "at each such size and buffer, paired by seed: at least one 512-byte packet's worth of data "
                                 "per second more (+1 retransmission/s at 512 B, +1/16 at 8 KB), the CI at or above it"))
        return v

    def _sensitivity(self, ctx) -> str:
        """The reading of Tables 6, 7 (each scheme at the smallest buffer), 9 and 10 (full mode)."""
        parts = []
        for label, pattern in ((f"With the common buffer split ({SPLIT} B per source, Table 6)", "b-split-512-{}"),
                               (f"With {LOAD_SENDERS} senders (Table 7)", f"b-load{LOAD_SENDERS}-512-{{}}")):
            bs = self._buffers(ctx, pattern.format("tail"))
            if not bs:
                continue
            b = bs[0]
            cells = []
            for sc in S.SCHEMES:
                g = lambda m: self._series(ctx, pattern.format(sc), m, b).mean()  # noqa: E731
                cells.append(f"{S.LABEL[sc]} {g('eff_mean') / 1e6:.2f} / {g('eff_min') / 1e6:.2f} Mb/s, {g('retx_per_s'):.1f}/s")
            parts.append(f"{label}, at {b} cells (mean / slowest source, retransmissions): " + "; ".join(cells) + ".")
        fin = []
        for size in S.SIZES:
            m = {sc: self._over_buffers(ctx, f"b-fin-{size}-{sc}", "fin_mean").mean() / 1e6 for sc in S.SCHEMES}
            last = {sc: self._over_buffers(ctx, f"b-fin-{size}-{sc}", "fin_last_s").mean() for sc in S.SCHEMES}
            if any(x != x for x in list(m.values()) + list(last.values())):
                continue
            paper = m["epd_spd"] > m["epd_dff"] > m["tail"]
            fin.append(f"{_size_label(size)}: mean per source " + ", ".join(f"{S.LABEL[sc]} {m[sc]:.2f}" for sc in S.SCHEMES)
                       + " Mb/s, the last source done after " + ", ".join(f"{last[sc]:.2f}" for sc in S.SCHEMES) + " s"
                       + (" (the paper's order, in these point means)" if paper else
                          " (not the paper's order, EPD+SPD > EPD+DFF > tail drop, in these point means)"))
        for size in S.SIZES:
            sws = {"tail": f"b-{size}-tail", "dff": f"b-{size}-epd_dff", "dffepd": f"b-dffepd-{size}-epd_dff", "spd": f"b-{size}-epd_spd"}
            if not self._buffers(ctx, sws["dffepd"]):
                continue
            # The same seeds for every scheme: the sensitivity run's.
            seeds = self._over_buffers(ctx, sws["dffepd"], "eff_mean").index
            m = {k: self._over_buffers(ctx, sw, "eff_mean").reindex(seeds).mean() / 1e6 for k, sw in sws.items()}
            r = {k: self._over_buffers(ctx, sw, "retx_per_s").reindex(seeds).mean() for k, sw in sws.items()}
            parts.append(f"With drop from front at EPD's threshold (Table 10), {_size_label(size)}, averaged over the buffers "
                         f"and the same {len(seeds)} seeds: "
                         f"EPD+DFF {m['dffepd']:.2f} Mb/s and {r['dffepd']:.1f} retransmissions/s, against {m['dff']:.2f} and "
                         f"{r['dff']:.1f}/s with it at a full buffer (tail drop {m['tail']:.2f}, {r['tail']:.1f}/s; EPD+SPD "
                         f"{m['spd']:.2f}, {r['spd']:.1f}/s).")
        if fin:
            parts.append(f"With finite transfers of {TRANSFER / 1e6:g} MB per source (Table 9), averaged over the buffers: "
                         + "; ".join(fin) + ".")
        return ("**Sensitivity** (512 B unless said). " + " ".join(parts) + "\n\n") if parts else ""

    def discussion(self, ctx):
        rows = {c.id: c for c in self.claims(ctx)}
        said = "; ".join(f"{c.id}: **{c.label}**" for c in rows.values())

        def mean_of(sweeps, metric):
            vals = [self._over_buffers(ctx, sw, metric).mean() for sw in sweeps]
            vals = [x for x in vals if x == x]
            return sum(vals) / len(vals) if vals else float("nan")

        eff = {s: mean_of([f"b-512-{s}"], "eff_mean") / 1e6 for s in S.SCHEMES}
        slow = {s: mean_of([f"b-{z}-{s}" for z in S.SIZES], "eff_min") / 1e6 for s in S.SCHEMES}
        retx = {s: mean_of([f"b-{z}-{s}" for z in S.SIZES], "retx_per_s") for s in S.SCHEMES}
        uni = {p_: mean_of([f"b-uni-512-{p_}"], "eff_mean") / 1e6 for p_ in ("tail", "ppd", "epd")}
        wasted = {p_: mean_of([f"b-uni-512-{p_}"], "cells_wasted") for p_ in ("tail", "ppd", "epd")}
        fmt = lambda d, k=2: ", ".join(f"{S.LABEL[x]} {v:.{k}f}" for x, v in d.items())  # noqa: E731
        return ("Verdicts: " + said + ".\n\n"
                "**The means.** Every receiver's port is the bottleneck. Mean effective throughput per source with 512-byte "
                f"packets, averaged over the buffers (Mb/s): {fmt(eff)}; the port's share is 24.1 Mb/s (149.76 Mb/s × 512/636 "
                "bytes per 12 cells, over five sources). When one source stalls (a timeout of at least 1 s) the others' windows "
                "keep the port busy, so the mean moves little whatever the scheme; what the schemes change is who gets the "
                f"capacity and at what cost. The slowest source, averaged over both packet sizes and the buffers (Mb/s): {fmt(slow)}; source "
                f"retransmissions per second: {fmt(retx, 1)}; corrupted frames and wasted cells: Table 3. The paper's mean "
                "differences would need idle time at the ports, which its timers or its source model (each sender sends a "
                "fixed amount) may have produced; it does not give them.\n\n"
                "**SPD as modelled.** The MCS takes a source's frame from every congested port and re-sends it once the port is "
                "below the threshold; it does the same for copies EPD refused, and absorbs the receivers' duplicate ACKs for "
                "the frames it repairs (local repair, a parameter), so the sources need not retransmit them. SPD and the "
                "re-sends act at one threshold, so under load the MCS takes and re-sends many frames (Table 3); a frame is "
                "always taken before it is sent, so no port's link time is lost to it, and the path from the server to the "
                "ports is taken to be unlimited (the paper does not say what carries the re-sends): the re-sends are not "
                "free in a real switch.\n\n" + self._sensitivity(ctx) +
                "**Beyond the paper** (Fig 11, Table 5): unicast TCP, eight flows with 64 KB windows through one OC-3c port. "
                f"Goodput per flow with 512-byte packets, averaged over buffers (Mb/s): {fmt(uni)}; cells wasted per run: "
                f"{fmt(wasted, 0)}.")


PAPER = AtmMcs()
