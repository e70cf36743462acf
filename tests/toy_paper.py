"""A toy paper module for the report tests: a CBR dumbbell over buffer sizes."""

from ccsim.papers import Figure, Parameter, Paper, ReportTable, Verdict, increasing, within
from ccsim.sweep import SweepSpec
from ccsim import plot

import pandas as pd

BASE = {
    "name": "toy",
    "simulation": {"duration": "2s"},
    "dumbbell": {"senders": 2, "access_rate": "100Mbps", "access_delay": "1ms", "bottleneck_rate": "10Mbps",
                 "bottleneck_delay": "5ms", "queue": {"kind": "droptail", "limit": 10}},
    "flows": [{"kind": "cbr", "count": 2, "src": "s{i}", "dst": "d{i}", "rate": "6Mbps", "jitter": True}],
}


class Toy(Paper):
    id = "toy"
    title = "Toy study: queueing in a CBR dumbbell"
    citation = "Nobody, Journal of Tests, 2026"

    def parameters(self, mode):
        return [Parameter("bottleneck", "10 Mb/s", "paper"),
                Parameter("packet size", "1000 B", "ccsim default", "the paper does not say")]

    def experiments(self, mode):
        return [SweepSpec(name="toy-buffers", base=BASE, grid={"dumbbell.queue.limit": [5, 20, 80]},
                          seeds=[1, 2] if mode == "quick" else [1, 2, 3, 4])]

    def _q(self, ctx):
        return ctx.summary("toy-buffers", "queues.r0->r1.mean_len_pkts")

    def figures(self, ctx):
        df = self._q(ctx)
        fig, _ = plot.line(df, x="dumbbell.queue.limit", ylabel="mean queue (packets)")
        return [Figure("Fig 1", "Mean queue vs buffer", plot.save(fig, ctx.out / "fig1.png"), "Grows with the buffer.")]

    def tables(self, ctx):
        df = self._q(ctx)
        return [ReportTable("Table 1", "Mean queue", pd.DataFrame({"buffer": df["dumbbell.queue.limit"],
                                                                   "paper": ["~5", "~20", "~80"], "ccsim": df["mean"]}))]

    def claims(self, ctx):
        q = self._q(ctx).sort_values("dumbbell.queue.limit")["mean"].tolist()
        g = ctx.summary("toy-buffers", "total.goodput_bps")["mean"].tolist()
        loss = ctx.summary("toy-buffers", "flows.flow0-0.loss_rate")["mean"].tolist()
        return [
            Verdict("C1", "the mean queue grows with the buffer", "increasing", f"{[round(x, 1) for x in q]}",
                    increasing(q), "strictly increasing over buffer sizes"),
            Verdict("C2", "the bottleneck is fully used", "10 Mb/s", f"{min(g) / 1e6:.3f} Mb/s",
                    all(within(x, 10e6, 0.02) for x in g), "within 2 % of 10 Mb/s"),
            Verdict("C3", "no packet is lost", "0 %", f"{100 * max(loss):.1f} %", max(loss) == 0.0, "exactly zero",
                    "12 Mb/s offered into 10 Mb/s must lose about 1/6 of the packets; the toy claim is false on purpose"),
        ]


PAPER = Toy()
