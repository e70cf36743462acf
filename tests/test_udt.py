"""UDT through the Python API and the CLI: scenario errors, reliability, determinism, the
R_idr log, and pcap captures that Wireshark's UDT dissector decodes (tshark)."""

import math
import shutil
import subprocess

import pytest

import ccsim

SCENARIO = """
name = "udt-check"
[simulation]
duration = "DUR"
seed = 2
[dumbbell]
senders = 1
access_rate = "1Gbps"
access_delay = "1ms"
bottleneck_rate = "100Mbps"
bottleneck_delay = "20ms"
queue = { kind = "droptail", limit = 100 }
access_queue = { kind = "droptail", limit = 100000 }
loss = { kind = "bernoulli", p = 0.01 }
[[flows]]
name = "u"
kind = "udt"
src = "s0"
dst = "d0"
EXTRA
"""


def scen(extra="", dur="3s"):
    return ccsim.loads(SCENARIO.replace("EXTRA", extra).replace("DUR", dur))


@pytest.mark.parametrize("extra, path", [
    ('profile = "udt5"', "flows[0].profile"),
    ('cc = "bbr"', "flows[0].cc"),
    ('cc = "rttpred"\ncc_params = { alpha = 1.5 }', "flows[0].cc_params.alpha"),
    ('cc = "rttpred"\ncc_params = { factors = [0.99, 1.0] }', "flows[0].cc_params.factors"),
    ('cc_params = { variant = "udt4", window = 3 }', "flows[0].cc_params.window"),
    ('packet_size = 20', "flows[0].packet_size"),
    ('syn = "0s"', "flows[0].syn"),
])
def test_bad_fields_are_named_and_exit_2(tmp_path, cli, extra, path):
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO.replace("EXTRA", extra).replace("DUR", "1s"))
    r = cli("run", p, "--out", tmp_path / "o", "-q")
    assert r.returncode == 2, r.stderr
    assert path in r.stderr
    assert "Traceback" not in r.stderr and "panic" not in r.stderr


@pytest.mark.parametrize("profile", ["udt4", "ns2"])
def test_finite_transfer_is_delivered(profile):
    """UDT4 repairs every loss; Gu's ns-2 module sends each packet and repairs what its
    loss list still holds when the sender comes to it (its ACKs step over holes)."""
    res = ccsim.run(scen(f'profile = "{profile}"\nbytes = "5MB"', dur="20s"))
    f = res.flows.iloc[0]
    assert f["retransmitted_pkts"] > 0 and f["naks_received"] > 0
    payload = 1500 - 44
    if profile == "udt4":
        assert f["goodput_bytes"] == 5_000_000
        assert f["rcv_missing"] == 0
        assert f["completion_s"] > 0
    else:
        assert f["goodput_bytes"] + f["rcv_missing"] * payload >= 5_000_000 - payload
        assert f["rcv_missing"] > 0
        # Every packet acknowledged, not every packet received: no completion.
        assert math.isnan(f["completion_s"])
    # Generated transfers say the same in their completion rows.
    d = scen(f'profile = "{profile}"', dur="20s")
    d["generators"] = [{"name": "g", "src": d["flows"][0]["src"], "dst": d["flows"][0]["dst"],
                        "arrivals": {"kind": "times", "times": [0.0]}, "size": {"kind": "fixed", "value": "5MB"},
                        "transport": {"kind": "udt", "profile": profile}, "slowdown": False}]
    d["flows"] = []
    row = ccsim.run(d).fct.iloc[0]
    assert row["complete"] == (profile == "udt4") and row["end_s"] > 0


def test_same_seed_same_results_and_seeds_differ():
    a = ccsim.run(scen('cc = "rttpred"'))
    b = ccsim.run(scen('cc = "rttpred"'))
    assert a.flows.equals(b.flows)
    c = ccsim.run(scen('cc = "rttpred"'), seed=9)
    assert not a.flows["goodput_bytes"].equals(c.flows["goodput_bytes"])


def test_ridr_log_and_ack_log():
    res = ccsim.run(scen('cc = "rttpred"\nlog_acks = true', dur="5s"))
    r = res.series("flow:u:ridr")
    assert len(r) > 300  # an ACK every 10 ms
    assert set(r["pktspw"].unique()) <= {0.99, 0.999, 1.0, 1.001}
    # Eq. 4 and 5 from the logged RTTs.
    pred = ((r["rtt_t1_s"] - r["rtt_t2_s"]) * 0.125 + (r["rtt_t_s"] - r["rtt_t1_s"]) * 0.875) / 2 + r["rtt_t_s"]
    assert (pred - r["predicted_s"]).abs().max() < 1e-12
    assert ((r["predicted_s"] / r["rtt_t_s"]) - r["ridr"]).abs().max() < 1e-12
    acks = res.series("flow:u:acks")
    assert len(acks) >= len(r)
    f = res.flows.iloc[0]
    assert f["pktspw_applied"] > 0
    s = res.series_names
    assert "flow:u:acks" in s and "flow:u:ridr" in s


def tshark(*args):
    exe = shutil.which("tshark")
    assert exe, "tshark is required (.ci/run installs Debian's tshark)"
    r = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


@pytest.mark.parametrize("profile", ["udt4", "ns2"])
def test_wireshark_decodes_udt(tmp_path, profile):
    d = scen(f'profile = "{profile}"')
    d["traces"] = [{"kind": "pcap", "link": "s0->r0", "file": "data.pcap"}, {"kind": "pcap", "link": "r1->r0", "file": "ctrl.pcap"}]
    res = ccsim.run(d, pcap_dir=tmp_path)
    f = res.flows.iloc[0]
    dec = ["-d", "udp.port==5201,udt"]
    # Data: every packet the sender sent, as UDT data with its sequence number.
    rows = tshark("-r", res.files["s0->r0"], *dec, "-Y", "udt.iscontrol == 0", "-T", "fields", "-e", "udt.seqno")
    assert len(rows) == f["sent_pkts"] - f["ack2_sent"] - f["keepalives"]
    seqs = [int(x) for x in rows]
    assert seqs[:3] == [0, 1, 2]
    assert len(seqs) - len(set(seqs)) == f["retransmitted_pkts"]
    # ACK2s go the same way.
    assert len(tshark("-r", res.files["s0->r0"], *dec, "-Y", "udt.type == 6")) == f["ack2_sent"]
    # Control: ACKs with their RTT, NAKs with their loss ranges.
    acks = tshark("-r", res.files["r1->r0"], *dec, "-Y", "udt.type == 2 && udt.rtt", "-T", "fields", "-e", "udt.ack_seqno",
                  "-e", "udt.rtt", "-e", "udt.linkcap")
    assert len(acks) > 100
    ack_no, rtt, cap = acks[-1].split("\t")
    assert 40_000 < int(rtt) < 200_000  # µs: the 42 ms path plus queueing
    assert int(cap) > 0
    naks = tshark("-r", res.files["r1->r0"], *dec, "-Y", "udt.type == 3", "-T", "fields", "-e", "_ws.col.Info")
    assert len(naks) == f["rcv_naks_sent"]
    assert all("missing" in n for n in naks)
    bad = tshark("-r", res.files["r1->r0"], *dec, "-Y", "_ws.malformed || _ws.expert.severity >= warning")
    assert bad == []


@pytest.mark.parametrize("extra", [
    # Light ACKs without a buffer field in full ACKs: the window must come back.
    'profile = "udt4"\nack_has_buffer = false\nbytes = "5MB"',
    # The ns-2 module's backoff-free EXP with UDT4's EXP rule, and the reverse.
    'profile = "ns2"\nexp = "backoff"\nbytes = "5MB"',
    'profile = "udt4"\nexp = "fixed"\nbytes = "5MB"',
])
def test_mixed_profiles_still_finish(extra):
    f = ccsim.run(scen(extra, dur="30s")).flows.iloc[0]
    assert f["broken"] == 0
    if "ns2" in extra:
        # Every packet sent and acknowledged; what its ACKs stepped over stays missing, so
        # the transfer has no completion time.
        assert f["goodput_bytes"] + f["rcv_missing"] * (1500 - 44) >= 5_000_000 - (1500 - 44)
        assert math.isnan(f["completion_s"]) == (f["rcv_missing"] > 0)
    else:
        assert f["completion_s"] > 0

