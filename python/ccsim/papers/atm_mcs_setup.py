"""Paper B's scenarios and per-run metrics (the report is in :mod:`ccsim.papers.atm_mcs`).

Five senders multicast TCP to a group of receivers through one 16×16 output-buffered ATM
switch whose Multicast Server (MCS) reassembles each frame, keeps it in a common buffer
and copies it to every receiver's output port (docs/models/atm.md). Every host is on an
OC-3c link (149.76 Mb/s of STS-3c payload carrying whole 53-byte cells: 135.63 Mb/s of
cell payload; 5 µs); each host segments into AAL5 cells and
reassembles what reaches it. The receivers' ports run one of the paper's three buffer
schemes. Every choice the paper leaves open is a constant here, listed in the report's
parameter table.
"""

from __future__ import annotations

import math

import pandas as pd

OC3C = "149.76Mbps"
DELAY = "5us"
SENDERS = 5
#: Receivers in the group (paper silent; Fig 5 shows a group B).
RECEIVERS = 3
#: TCP payload per packet (the paper's 512 B and 8 KB; 40 bytes of TCP/IP headers on top).
SIZES = (512, 8192)
#: The receiver's largest window (the paper's 8 KB), bytes.
WINDOW = 8192
#: The MCS's common buffer: 5 × a sender's window, for each source (ccsim's reading of the
#: paper's "a common buffer of 5 × the window"; the sensitivity run splits that total
#: between the sources instead: COMMON // SENDERS each).
COMMON = 5 * WINDOW
SCHEMES = ("tail", "epd_dff", "epd_spd")
LABEL = {"tail": "tail drop", "epd_dff": "EPD+DFF", "epd_spd": "EPD+SPD", "ppd": "PPD", "epd": "EPD"}
#: BSD 4.3 Tahoe: slow start, congestion avoidance, fast retransmit after 3 duplicate ACKs
#: and no fast recovery; a 500 ms timer tick and a 1 s minimum RTO; no SYN exchange (the
#: MCS relays data; connection set-up is not modelled).
TCP = {"kind": "tcp", "recovery": "tahoe", "handshake": False, "clock_granularity": "500ms", "min_rto": "1s",
       "initial_rto": "3s", "delayed_ack": False}
#: Senders start within this many seconds (the seed draws the offsets).
START_JITTER = 0.01
BIG = {"kind": "droptail", "limit": 100000}


def port_queue(scheme: str, buffer: int, dff_at: str = "overflow") -> dict:
    """A receiver's output port: tail drop; EPD at half the buffer with frame-level drop
    from front (at a full buffer, or with `dff_at = "epd"` also whenever EPD refuses a
    frame); or EPD with PPD behind it (SPD acts from the MCS)."""
    q = {"kind": "cell", "limit": buffer}
    if scheme == "epd_dff":
        q.update({"epd_fraction": 0.5, "overflow": "dff_frame", **({"dff_at": dff_at} if dff_at != "overflow" else {})})
    elif scheme in ("epd_spd", "epd"):
        q.update({"epd_fraction": 0.5, "overflow": "ppd"})
    elif scheme == "ppd":
        q["overflow"] = "ppd"
    return q


def scenario(scheme: str, buffer: int, size: int, *, receivers: int = RECEIVERS, senders: int = SENDERS,
             duration: float = 30.0, warmup: float = 2.0, trace: bool = False, common: int = COMMON,
             transfer: int | None = None, dff_at: str = "overflow") -> dict:
    """Paper B's set-up: `senders` TCP sources multicasting to `receivers` through the MCS,
    whose common buffer holds `common` bytes per source; `transfer`: each source sends that
    many bytes and stops (the paper's "each sender sends the same amount of data"), instead
    of a persistent source; `dff_at`: where EPD+DFF's ports drop from the front."""
    snd, rcv = [f"s{i}" for i in range(senders)], [f"r{j}" for j in range(receivers)]
    links = [{"a": s, "b": "sw", "rate": OC3C, "delay": DELAY, "queue": BIG, "reverse_queue": BIG} for s in snd]
    links += [{"a": "sw", "b": r, "rate": OC3C, "delay": DELAY, "queue": port_queue(scheme, buffer, dff_at), "reverse_queue": BIG}
              for r in rcv]
    win = max(1, WINDOW // size)
    flows = [{**TCP, "name": f"f{i}", "src": s, "dst": rcv, "mss": size, "window": win, "start_jitter": START_JITTER,
              **({"bytes": transfer} if transfer else {})} for i, s in enumerate(snd)]
    mcs = {"kind": "mcs", "name": "mcs", "node": "sw", "common_buffer": common, "ack": "min"}
    if scheme == "epd_spd":
        mcs.update({"spd": True, "spd_threshold": buffer // 2})
    els = [{"kind": "aal5", "name": f"aal5-{x}", "node": x} for x in snd + rcv] + [mcs]
    d = {"name": "atm-mcs", "nodes": snd + ["sw"] + rcv, "simulation": {"duration": duration, "seed": 1, "warmup": warmup},
         "links": links, "flows": flows, "elements": els}
    if trace:
        d["simulation"]["warmup"] = 0
        d["traces"] = [{"kind": "flow", "flow": f"f{i}", "interval": 0.25} for i in range(senders)]
    return d


def unicast(policy: str, buffer: int, size: int, *, senders: int = 8, window: int = 65536, duration: float = 30.0,
            warmup: float = 2.0) -> dict:
    """Beyond the paper: `senders` TCP flows through one switch port to one receiver (the
    classic TCP-over-ATM study): plain cell drop, PPD or EPD."""
    snd = [f"s{i}" for i in range(senders)]
    links = [{"a": s, "b": "sw", "rate": OC3C, "delay": DELAY, "queue": BIG, "reverse_queue": BIG} for s in snd]
    links.append({"a": "sw", "b": "d", "rate": OC3C, "delay": DELAY, "queue": port_queue(policy, buffer), "reverse_queue": BIG})
    flows = [{**TCP, "name": f"f{i}", "src": s, "dst": "d", "mss": size, "window": max(1, window // size),
              "start_jitter": START_JITTER} for i, s in enumerate(snd)]
    els = [{"kind": "aal5", "name": f"aal5-{x}", "node": x} for x in snd + ["d"]]
    return {"name": "atm-unicast", "nodes": snd + ["sw", "d"], "simulation": {"duration": duration, "seed": 1, "warmup": warmup},
            "links": links, "flows": flows, "elements": els}


def metrics(res) -> dict:
    """Per run: effective throughput per source (the mean over its receivers of the goodput
    of whole, new frames), source retransmissions per second, frames corrupted and cells
    wasted at the receivers, and the MCS's and the ports' counters."""
    span = float(res.meta["sim_time_s"]) - float(res.meta.get("warmup_s") or 0)
    f = res.tables["flows"].to_pandas().set_index("name")
    rx = res.tables["receivers"].to_pandas()
    e = res.tables["elements"].to_pandas().set_index("element")
    q = res.tables["queues"].to_pandas().set_index("direction")
    eff = rx.groupby("name")["goodput_bps"].mean()
    out = {"eff_mean": float(eff.mean()), "eff_min": float(eff.min()), "eff_max": float(eff.max()),
           "retx_per_s": float(f["retransmitted_pkts"].sum()) / span, "timeouts": float(f["timeouts"].sum())}
    for name, v in eff.items():
        out[f"eff.{name}"] = float(v)
    sizes = {fl.get("name"): fl.get("bytes") for fl in res.scenario.get("flows", [])}
    if sizes and all(sizes.values()) and "completion_s" in f:
        # Finite transfers: a source's effective throughput is its data over the time it
        # took (the sender's last ACK: every receiver holds it). A source still sending at
        # the end counts in `fin_incomplete`, and the run's other `fin_*` are then NaN (its
        # mean and last finish would leave the slowest source out).
        done = f["completion_s"].dropna()
        thr = pd.Series({n: float(sizes[n]) * 8 / t for n, t in done.items()}, dtype=float)
        whole = len(done) == len(f)
        out.update({"fin_mean": float(thr.mean()) if whole else math.nan, "fin_min": float(thr.min()) if whole else math.nan,
                    "fin_last_s": float(done.max()) if whole else math.nan, "fin_incomplete": float(len(f) - len(done)),
                    "fin_retx": float(f["retransmitted_pkts"].sum())})
    a = e[e["kind"] == "aal5"]
    out["frames_corrupted"] = float(a["frames_corrupted"].sum())
    out["cells_wasted"] = float(a["cells_wasted"].sum())
    if "mcs" in e.index:
        for k in ("spd_taken", "resent", "asked_source", "evicted", "copies_sent"):
            out[f"mcs.{k}"] = float(e.loc["mcs", k])
    ports = q[q.index.str.startswith("sw->")]
    for k in ("drops_overflow", "drops_early", "drops_forced", "drops_front", "drops_selective"):
        out[f"port.{k}"] = float(ports[k].sum())
    # Cell loss ratio at the ports (SPD's takes are not counted: the MCS re-sends them) and
    # frame loss ratio: of the frames the sources sent, per receiver, those that did not
    # reach it whole (a re-send by the MCS or by the source that arrives counts as arrived).
    lost = sum(out[f"port.{k}"] for k in ("drops_overflow", "drops_early", "drops_forced", "drops_front"))
    arrivals = float(ports["arrivals"].sum())
    out["cell_loss_ratio"] = lost / arrivals if arrivals else 0.0
    rx_nodes = set(rx["receiver"])
    got = float(a[a["node"].isin(rx_nodes)]["frames_delivered"].sum())
    data = float(e.loc["mcs", "frames_received"]) * len(rx_nodes) if "mcs" in e.index else \
        float(a[a["node"].isin(set(f["src"]))]["frames_segmented"].sum())
    out["frame_loss_ratio"] = max(0.0, 1.0 - got / data) if data else 0.0
    return out
