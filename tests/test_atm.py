"""ATM cells, AAL5 and a cell switch's buffer policies (issue #19, first part): cell
counts and OC-3c timing worked out by hand, corrupted frames detected and wasted cells
counted, and the classic ordering of TCP over ATM: EPD wastes no cells where tail drop
and PPD carry damaged frames."""

import pytest

import ccsim

OC3C = "149.76Mbps"


def scenario(queue, n=5, size=512, buf=500, dur=1.0, window=None):
    """n TCP senders into one switch output port, every host on OC-3c with AAL5."""
    nodes = [f"s{i}" for i in range(n)] + ["sw", "d"]
    big = {"kind": "droptail", "limit": 100000}
    links = [{"a": f"s{i}", "b": "sw", "rate": OC3C, "delay": "5us", "queue": big} for i in range(n)]
    links.append({"a": "sw", "b": "d", "rate": OC3C, "delay": "5us", "queue": {"kind": "cell", "limit": buf, **queue},
                  "reverse_queue": big})
    flows = [{"name": f"f{i}", "kind": "tcp", "src": f"s{i}", "dst": "d", "mss": size, "window": window or 8192 // size}
             for i in range(n)]
    els = [{"kind": "aal5", "node": x} for x in nodes if x != "sw"]
    return {"name": "atm", "nodes": nodes, "simulation": {"duration": f"{dur}s", "seed": 1}, "links": links,
            "flows": flows, "elements": els}


def test_one_frame_as_cells_by_hand():
    """A 512-byte payload + 40 bytes of headers = 552 B: ⌈(552 + 8)/48⌉ = 12 cells of 53 B,
    one per 2.831 µs on OC-3c; the receiver gets the frame whole."""
    d = scenario({}, n=1, dur=0.01)
    d["flows"][0].update({"kind": "cbr", "rate": "1Mbps", "packet_size": 552})
    for k in ("mss", "window"):
        d["flows"][0].pop(k)
    d["traces"] = [{"kind": "packets", "link": "sw->d"}]
    res = ccsim.run(d)
    ev = res.series("packets:sw->d")
    dep = ev[ev.event == "-"]
    assert set(dep["kind"]) == {"cell"} and set(dep["size"]) == {53}
    first = dep[dep.uid < dep.uid.min() + 12]
    assert len(first) == 12
    gaps = first.time.diff().dropna()
    assert gaps.round(9).eq(round(424 / 149.76e6, 9)).all() or (gaps - 424 / 149.76e6).abs().max() < 2e-9
    e = res.elements.set_index("element")
    sent = int(e.loc["aal50", "frames_segmented"])
    assert e.loc["aal50", "cells_sent"] == 12 * sent
    assert e.loc["aal51", "frames_corrupted"] == 0
    assert res.flows.set_index("name").loc["f0", "delivered_pkts"] == e.loc["aal51", "frames_delivered"]


def test_tail_drop_carries_damaged_frames_and_epd_does_not():
    tail = ccsim.run(scenario({}))
    epd = ccsim.run(scenario({"epd_fraction": 0.5, "overflow": "ppd"}))
    et, ee = tail.elements.set_index("element"), epd.elements.set_index("element")
    qt = tail.queues.set_index("direction").loc["sw->d"]
    qe = epd.queues.set_index("direction").loc["sw->d"]
    # Tail drop: cells lost at the full buffer, the rest of each damaged frame carried and
    # thrown away at the receiver.
    assert qt["drops_overflow"] > 0 and et.loc["aal55", "frames_corrupted"] > 0
    assert et.loc["aal55", "cells_wasted"] > et.loc["aal55", "frames_corrupted"]
    # EPD: whole frames refused at the switch; nothing corrupted, nothing wasted.
    assert qe["drops_early"] > 0 and qe["drops_overflow"] == 0
    assert ee.loc["aal55", "frames_corrupted"] == 0 and ee.loc["aal55", "cells_wasted"] == 0
    # Every cell the port carried for a delivered frame is useful: EPD's goodput is higher.
    assert epd.flows.goodput_bps.sum() > tail.flows.goodput_bps.sum()


def test_ppd_wastes_fewer_cells_than_tail_drop():
    tail = ccsim.run(scenario({})).elements.set_index("element").loc["aal55"]
    ppd = ccsim.run(scenario({"overflow": "ppd"})).elements.set_index("element").loc["aal55"]
    # Per corrupted frame, PPD delivers only the end-of-frame cell of the damaged rest.
    assert ppd["cells_wasted"] / ppd["frames_corrupted"] < tail["cells_wasted"] / tail["frames_corrupted"]


def test_without_loss_every_frame_arrives_whole():
    """A buffer no window can fill: every frame segmented anywhere (data and ACKs) is
    delivered whole but those in flight at the end (at most a window each way per flow)."""
    res = ccsim.run(scenario({"overflow": "ppd"}, buf=100000))
    e = res.elements
    sent, got = e["frames_segmented"].sum(), e["frames_delivered"].sum()
    assert e["frames_corrupted"].sum() == 0 and res.queues["drops_overflow"].sum() == 0
    assert 0 <= sent - got <= 5 * 16 * 2
    assert res.flows["delivered_pkts"].sum() == e.loc[e.node == "d", "frames_delivered"].sum()


@pytest.mark.parametrize("queue, field", [
    ({"limit": 0}, "links[5].queue.limit"),
    ({"epd_fraction": 1.5}, "links[5].queue.epd_fraction"),
    ({"epd_fraction": 0.5, "epd_threshold": 10}, "links[5].queue.epd_fraction"),
    ({"overflow": "red"}, "links[5].queue.overflow"),
    # Drop from front at EPD's threshold needs EPD and a drop-from-front overflow.
    ({"overflow": "dff_frame", "dff_at": "epd"}, "links[5].queue.dff_at"),
    ({"epd_fraction": 0.5, "overflow": "ppd", "dff_at": "epd"}, "links[5].queue.dff_at"),
    ({"epd_fraction": 0.5, "overflow": "dff_frame", "dff_at": "front"}, "links[5].queue.dff_at"),
])
def test_cell_queue_errors_name_the_field(queue, field):
    d = scenario({})
    d["links"][5]["queue"] = {"kind": "cell", **queue}
    with pytest.raises(ccsim.ScenarioError, match=field.replace("[", r"\[").replace("]", r"\]")):
        ccsim.validate(d)


def test_dff_at_epd_is_valid_with_epd_and_dff():
    d = scenario({})
    d["links"][5]["queue"] = {"kind": "cell", "limit": 100, "epd_fraction": 0.5, "overflow": "dff_frame", "dff_at": "epd"}
    ccsim.validate(d)


def test_aal5_errors_name_the_field():
    d = scenario({})
    d["elements"][0]["llc"] = "yes"
    with pytest.raises(ccsim.ScenarioError, match=r"elements\[0\]\.llc"):
        ccsim.validate(d)


def test_a_flow_whose_cells_no_aal5_makes_or_takes_is_refused_naming_the_node():
    """AAL5 at one end of a cell path only: the frames went nowhere (every flow sent one
    packet, the run ended with zero goodput and no error). Now an error per node names it
    and why; a switch bridging IP onto ATM segments too, but the receiver's AAL5 sends its
    ACKs as cells, which only the sender can take. Generators' host pairs are checked."""
    d = scenario({}, n=3)
    d["elements"] = [e for e in d["elements"] if e["node"] != "d"]
    with pytest.raises(ccsim.ScenarioError, match=r"^elements: node 'd' needs an element of kind \"aal5\" for flow 'f0', "
                                                  r"flow 'f1', flow 'f2': cells addressed to it .* never become packets again"):
        ccsim.validate(d)
    d = scenario({}, n=3)
    d["elements"] = [e for e in d["elements"] if e["node"] != "s1"]
    with pytest.raises(ccsim.ScenarioError, match=r"^elements: node 's1' needs .* for flow 'f1': what it sends reaches the "
                                                  r"cell link sw->d not yet cells"):
        ccsim.validate(d)
    d["elements"].append({"kind": "aal5", "node": "sw"})
    with pytest.raises(ccsim.ScenarioError, match=r"^elements: node 's1' needs .* for flow 'f1': cells addressed to it"):
        ccsim.validate(d)
    d = scenario({}, n=2)
    d["links"][-1]["reverse_queue"] = {"kind": "droptail", "limit": 1000}
    d["links"][-1]["queue"] = {"kind": "droptail", "limit": 1000}
    d["elements"] = []
    assert ccsim.validate(d)["flows"] == 2  # no cell link and no AAL5: nothing needed
    d = scenario({}, n=2)
    d["elements"] = [e for e in d["elements"] if e["node"] != "d"]
    d["generators"] = [{"name": "g", "src": "s{0..1}", "dst": "d", "arrivals": {"kind": "times", "times": [0.0]},
                        "size": {"kind": "fixed", "value": "10KB"}, "transport": {"kind": "tcp"}}]
    d["flows"] = []
    with pytest.raises(ccsim.ScenarioError, match=r"node 'd' needs .* for generator 'g'"):
        ccsim.validate(d)


def test_multicast_tcp_without_ack_combining_warns_and_an_incomplete_receiver_has_no_completion():
    """TCP to two receivers through `replicate`: the sender follows whichever receiver's
    ACKs; one lost packet at the other was never repaired, and the flow reported
    `completion_s` while that receiver held 1 % of the data. Validation warns, and the
    flow has no completion time."""
    link = lambda a, b, **kw: {"a": a, "b": b, "rate": "10Mbps", "delay": "5ms", **kw}
    d = {"name": "m", "nodes": ["s", "rt", "a", "b"], "simulation": {"duration": "5s"},
         "links": [link("s", "rt"), link("rt", "a"), link("rt", "b", loss={"kind": "drop_list", "packets": [3]})],
         "elements": [{"kind": "replicate", "node": "rt"}],
         "flows": [{"name": "t", "kind": "tcp", "src": "s", "dst": ["a", "b"], "bytes": "200KB"}]}
    with pytest.warns(ccsim.ScenarioWarning, match="flow 't' \\(tcp\\) has several receivers and no element combining "
                                                    "their ACKs: .* no element combines ACKs on IP links"):
        res = ccsim.run(d)
    rx = res.tables["receivers"].to_pandas().set_index("receiver")
    assert rx.loc["a", "goodput_bytes"] == 200_000 and rx.loc["b", "goodput_bytes"] < 200_000
    assert res.flows["completion_s"].isna().all()
    del d["links"][2]["loss"]
    with pytest.warns(ccsim.ScenarioWarning):
        whole = ccsim.run(d)
    assert 0.2 < whole.flows["completion_s"].iloc[0] < 1


def mcs_scenario(scheme, buf=1000, n=3, k=3, size=512, dur=0.5, ack="min"):
    """Paper B's set-up in small: n TCP senders multicast to k receivers through a switch
    whose Multicast Server replicates each frame to every receiver's port."""
    senders, rcv = [f"s{i}" for i in range(n)], [f"r{j}" for j in range(k)]
    big = {"kind": "droptail", "limit": 100000}
    port = {"kind": "cell", "limit": buf, **({"epd_fraction": 0.5, "overflow": "ppd"} if scheme != "tail" else {})}
    links = [{"a": s, "b": "sw", "rate": OC3C, "delay": "5us", "queue": big, "reverse_queue": port} for s in senders]
    links += [{"a": "sw", "b": r, "rate": OC3C, "delay": "5us", "queue": port, "reverse_queue": big} for r in rcv]
    flows = [{"name": f"f{i}", "kind": "tcp", "src": s, "dst": rcv, "mss": size, "window": max(1, 8192 // size),
              "recovery": "tahoe", "handshake": False} for i, s in enumerate(senders)]
    mcs = {"kind": "mcs", "node": "sw", "ack": ack}
    if scheme == "spd":
        mcs.update({"spd": True, "spd_threshold": buf // 2})
    return {"name": "mcs", "nodes": senders + ["sw"] + rcv, "simulation": {"duration": f"{dur}s", "seed": 1},
            "links": links, "flows": flows, "elements": [{"kind": "aal5", "node": x} for x in senders + rcv] + [mcs]}


def mcs_row(res):
    e = res.elements.set_index("element")
    return e[e.kind == "mcs"].iloc[0]


def test_mcs_copies_every_frame_to_every_receiver():
    res = ccsim.run(mcs_scenario("tail", buf=100000))
    m = mcs_row(res)
    assert m["copies_sent"] == 3 * m["frames_received"]
    rx = res.receivers
    # No loss: every receiver of a source got the same frames, and nothing was re-sent.
    per_flow = rx.groupby("name")["delivered_pkts"]
    assert (per_flow.max() - per_flow.min() <= 16).all()  # at most a window still in flight
    assert res.flows["retransmitted_pkts"].sum() == 0 and res.queues["drops_overflow"].sum() == 0
    # ack = "min": one ACK forwarded per advance of the group's smallest cumulative ACK.
    assert m["acks_forwarded"] <= m["frames_received"] + 3
    assert m["acks_absorbed"] >= 2 * m["acks_forwarded"] - 10


def test_mcs_parameters_are_in_si_units():
    """`params()` writes times in seconds, as a scenario takes them (resend_interval was
    written in nanoseconds: 1000000, which read back is 10⁶ s)."""
    (m,) = [e for e in ccsim.params(mcs_scenario("tail", buf=100000))["elements"] if e["kind"] == "mcs"]
    assert m["params"]["resend_interval"] == 0.001 and m["params"]["common_buffer"] == 40960


def test_the_handshake_opens_through_the_mcs_once_every_receiver_answered():
    """With the default handshake and `ack = "min"`, the SYN-ACKs (which carry no
    cumulative ACK) were all absorbed: the connection never opened and the run ended with
    zero goodput and no error. The server now sends one on when the last receiver answers."""
    d = mcs_scenario("tail", buf=100000, dur=0.2)
    for f in d["flows"]:
        del f["handshake"]
    res = ccsim.run(d)
    m = mcs_row(res)
    assert (res.flows["goodput_bps"] > 1e6).all(), res.flows
    assert m["acks_forwarded"] > 3 and m["copies_sent"] == 3 * m["frames_received"]
    # The same with a receiver whose SYN-ACK comes late (a longer link): data starts only
    # after it answered.
    d["links"][-1]["delay"] = "20ms"
    late = ccsim.run(d)
    assert (late.flows["goodput_bps"] > 0).all() and late.flows["goodput_bps"].max() < res.flows["goodput_bps"].min()


def test_an_mcs_refused_for_its_fields_is_not_also_missing_where_the_tree_branches():
    """SPD without its threshold: one error, not three more saying each flow branches
    where no replicating element is (the refused server was the one)."""
    d = mcs_scenario("tail")
    next(e for e in d["elements"] if e["kind"] == "mcs")["spd"] = True
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(d)
    assert str(e.value).startswith("elements[6].spd_threshold: required with spd = true"), str(e.value)
    assert "branches" not in str(e.value)


def test_a_min_server_that_not_every_receivers_acks_pass_is_warned_of():
    """An mcs with ack = "min" below the tree's first branch waits for ACKs that never pass
    it: the flow stalled with zero goodput and no word. A server at the first branch
    combining for all, with a replicate below, is fine and silent."""
    import warnings

    oc3 = lambda a, b: {"a": a, "b": b, "rate": OC3C, "delay": "5us", "queue": {"kind": "cell", "limit": 100000},
                        "reverse_queue": {"kind": "droptail", "limit": 100000}}
    d = {"name": "m", "nodes": ["s", "sw1", "sw2", "r0", "r1", "r2"], "simulation": {"duration": "0.1s", "seed": 1},
         "links": [{**oc3("s", "sw1"), "queue": {"kind": "droptail", "limit": 100000}, "reverse_queue": {"kind": "cell", "limit": 100000}},
                   oc3("sw1", "r0"), oc3("sw1", "sw2"), oc3("sw2", "r1"), oc3("sw2", "r2")],
         "flows": [{"name": "f", "kind": "tcp", "src": "s", "dst": ["r0", "r1", "r2"], "mss": 512, "window": 16, "bytes": "100KB"}],
         "elements": [{"kind": "aal5", "node": x} for x in ["s", "r0", "r1", "r2"]]
         + [{"kind": "mcs", "node": "sw1"}, {"kind": "replicate", "node": "sw2"}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (ccsim.run(d).tables["receivers"].to_pandas()["goodput_bytes"] == 100_000).all()
    d["elements"][-1]["kind"] = "mcs"
    with pytest.warns(ccsim.ScenarioWarning, match="flow 'f' meets an mcs with ack = \"min\" at 'sw2', which not every "
                                                    "receiver's ACKs pass \\(the tree first branches at 'sw1'\\)"):
        ccsim.validate(d)


def test_ack_all_forwards_every_receivers_ack():
    # ... and is warned of: nothing then combines the receivers' ACKs (`min` does).
    with pytest.warns(ccsim.ScenarioWarning, match="flow 'f0' \\(tcp\\) has several receivers and no element combining "
                                                    "their ACKs \\(2 more flows likewise\\): .* an mcs element with ack = "
                                                    "\"min\" at 'sw', where its tree first branches"):
        m = mcs_row(ccsim.run(mcs_scenario("tail", buf=100000, ack="all")))
    assert m["acks_absorbed"] == 0 and m["acks_forwarded"] > 2.5 * m["frames_received"]


@pytest.mark.parametrize("n, size", [(3, 512), (5, 512), (5, 8192)])
def test_spd_resends_nothing_where_no_port_drops(n, size):
    """A copy is refused only when its port drops one of its cells. The test had been the
    port's queue length, which a cell starting its transmission during the copy's enqueue
    (an idle port, or a cell ending at that instant: every link here is OC-3c) also lowers:
    with five 512-byte senders the server re-sent 15 copies the ports had taken whole and a
    source retransmitted 6 segments the receivers held, with no drop anywhere."""
    res = ccsim.run(mcs_scenario("spd", buf=4000, n=n, size=size, dur=0.2))
    assert res.queues["drops_overflow"].sum() + res.queues["drops_early"].sum() + res.queues["drops_forced"].sum() == 0
    m = mcs_row(res)
    assert (m["refused"], m["resent"], m["spd_taken"]) == (0, 0, 0)
    assert res.flows["retransmitted_pkts"].sum() == 0
    assert res.receivers["duplicate_segments"].sum() == 0


def test_spd_takes_one_sources_frame_from_every_congested_port_and_resends_it():
    res = ccsim.run(mcs_scenario("spd", buf=500))
    m = mcs_row(res)
    assert m["spd_taken"] > 0
    # Frames SPD took and copies a port refused wait to be re-sent from the common buffer.
    assert m["resent"] + m["asked_source"] <= m["spd_taken"] + m["refused"]
    assert m["resent"] > 0.9 * (m["spd_taken"] + m["refused"])
    # Local repair: the receivers' duplicate ACKs for those frames stop at the server, so
    # the sources retransmit less than behind the same ports without SPD.
    epd = ccsim.run(mcs_scenario("epd", buf=500))
    assert m["dupacks_absorbed"] > 0
    assert res.flows["retransmitted_pkts"].sum() < epd.flows["retransmitted_pkts"].sum() / 2
    sel = res.drops[res.drops.reason == "selective"].groupby(["link", "name"])["pkts"].sum().unstack(fill_value=0)
    # The receivers' ports are alike: SPD took the same sources' frames from each (the
    # re-sends, port by port, make the counts differ by a few frames).
    assert len(sel) == 3 and ((sel.max() - sel.min()) <= 0.01 * sel.max()).all()


def test_a_multicast_flow_needs_a_replicating_element_where_it_branches():
    d = mcs_scenario("tail")
    d["elements"] = [e for e in d["elements"] if e["kind"] != "mcs"]
    with pytest.raises(ccsim.ScenarioError, match='"mcs"'):
        ccsim.validate(d)


@pytest.mark.parametrize("change, field", [
    ({"spd": True}, "spd_threshold"),
    ({"spd_threshold": 100}, "spd_threshold"),
    ({"resend": True}, "resend"),
    ({"spd": True, "spd_threshold": 10, "resend": False, "local_repair": True}, "local_repair"),
    ({"ack": "max"}, "ack"),
])
def test_mcs_errors_name_the_field(change, field):
    d = mcs_scenario("tail")
    d["elements"][-1].update(change)
    i = len(d["elements"]) - 1
    with pytest.raises(ccsim.ScenarioError, match=rf"elements\[{i}\]\.{field}"):
        ccsim.validate(d)


def test_spd_threshold_above_the_epd_threshold_still_runs():
    """A copy EPD refuses below the SPD threshold waits for the next pass (it used to be
    re-sent again at once, for ever)."""
    d = mcs_scenario("spd", buf=500, dur=0.05)
    d["elements"][-1]["spd_threshold"] = 400  # the ports' EPD refuses from 250 cells
    m = mcs_row(ccsim.run(d))
    assert m["refused"] > 0 and m["resent"] > 0


def test_a_lower_resend_mark_takes_and_resends_less():
    """`resend_below` under the SPD threshold: re-sends wait for the port to drain further,
    so SPD and the re-sends stop chasing each other at one threshold."""
    same = mcs_row(ccsim.run(mcs_scenario("spd", buf=500)))
    d = mcs_scenario("spd", buf=500)
    d["elements"][-1]["resend_below"] = 125
    lower = mcs_row(ccsim.run(d))
    assert lower["resent"] < same["resent"] and lower["spd_taken"] < same["spd_taken"]
    d["elements"][-1]["resend_below"] = 400
    with pytest.raises(ccsim.ScenarioError, match=r"resend_below"):
        ccsim.validate(d)
