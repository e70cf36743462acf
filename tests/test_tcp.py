"""TCP through the Python API and the CLI, and pcap traces checked by independent parsers
(dpkt and tshark)."""

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import dpkt
import pytest

import ccsim

PCAP_SCENARIO = """
name = "pcap-check"
[simulation]
duration = "10s"
seed = 4
[dumbbell]
senders = 1
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "20ms"
queue = { kind = "droptail", limit = 30 }
loss = { kind = "bernoulli", p = 0.01 }
[[flows]]
name = "t"
kind = "tcp"
profile = "PROFILE"
src = "s0"
dst = "d0"
[[traces]]
kind = "pcap"
link = "s0->r0"
[[traces]]
kind = "pcap"
link = "r1->r0"
file = "acks.pcap"
[[traces]]
kind = "flow"
flow = "t"
interval = "100ms"
"""


def dpkt_retransmissions(path):
    """Data segments, those whose sequence number lies below the highest byte already seen,
    and SYNs."""
    n = retx = syns = 0
    high = 0
    with open(path, "rb") as f:
        for _, buf in dpkt.pcap.Reader(f):
            ip = dpkt.ethernet.Ethernet(buf).data
            tcp = ip.data
            payload = ip.len - 4 * ip.hl - 4 * tcp.off
            if tcp.flags & dpkt.tcp.TH_SYN:
                syns += 1
            if payload <= 0:
                continue
            n += 1
            if tcp.seq < high:
                retx += 1
            high = max(high, tcp.seq + payload)
    return n, retx, syns


@pytest.mark.parametrize("profile", ["ns2", "linux"])
def test_pcap_retransmissions_match_counters(tmp_path, cli, profile):
    scen = tmp_path / "s.toml"
    scen.write_text(PCAP_SCENARIO.replace("PROFILE", profile))
    out = tmp_path / "out"
    r = cli("run", scen, "--out", out, "-q")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pcap"] == {"s0->r0": "pcap/s0-r0.pcap", "r1->r0": "pcap/acks.pcap"}
    flows = ccsim.Results.load(out).flows
    sent = int(flows["sent_pkts"][0])
    retx = int(flows["retransmitted_pkts"][0])
    assert retx > 10  # the run is lossy
    n, seen, syns = dpkt_retransmissions(out / "pcap" / "s0-r0.pcap")
    # Both profiles open with a handshake: the SYN is the flow's one packet without data.
    assert syns == 1
    assert n + syns == sent
    assert seen == retx


def tshark(*args):
    exe = shutil.which("tshark")
    assert exe, "tshark is required (.ci/run installs Debian's tshark)"
    r = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_tshark_reads_and_analyses_the_capture(tmp_path):
    d = ccsim.loads(PCAP_SCENARIO.replace("PROFILE", "linux"))
    res = ccsim.run(d, pcap_dir=tmp_path)
    data = res.files["s0->r0"]
    acks = res.files["r1->r0"]
    f = res.flows.iloc[0]
    frames = tshark("-r", data, "-T", "fields", "-e", "frame.number")
    assert len(frames) == f["sent_pkts"]
    assert tshark("-r", data, "-Y", "_ws.malformed || _ws.expert.severity == error") == []
    flagged = tshark("-r", data, "-Y",
                     "tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.out_of_order "
                     "|| tcp.analysis.spurious_retransmission", "-T", "fields", "-e", "frame.number")
    # Wireshark calls a retransmission sent within 3 ms of the previous segment
    # "out-of-order"; together the flags cover every retransmitted segment.
    assert len(flagged) == f["retransmitted_pkts"]
    # ACKs: SACK blocks and timestamps decode; dupACKs are recognised.
    sacks = tshark("-r", acks, "-Y", "tcp.options.sack_le", "-T", "fields", "-e", "tcp.options.sack_le")
    assert len(sacks) > 0
    assert len(tshark("-r", acks, "-Y", "tcp.analysis.duplicate_ack")) > 0
    assert tshark("-r", acks, "-c", "1", "-Y", "tcp.options.timestamp.tsval", "-T", "fields", "-e", "tcp.len") == ["0"]
    # The SYN and the SYN-ACK announce the flow's MSS (its full segments' length) and SACK;
    # tshark had noted the missing MSS.
    mss = max(int(x) for x in tshark("-r", data, "-T", "fields", "-e", "tcp.len"))
    for f, flags in ((data, "0x0002"), (acks, "0x0012")):
        syn = tshark("-r", f, "-Y", "tcp.flags.syn == 1", "-T", "fields", "-e", "tcp.flags", "-e",
                     "tcp.options.mss_val", "-e", "tcp.options.sack_perm")
        assert [s.split("\t")[:2] for s in syn] == [[flags, str(mss)]]
        assert syn[0].split("\t")[2] != ""


def test_pcap_of_payload_only_segments_and_a_scaled_window(tmp_path):
    """`headers = false` (the model charges the payload alone) still captures each segment
    with its headers: the IP length was the payload, so Wireshark saw 960-byte segments
    advancing the sequence by 1000 and flagged thousands as lost. A window above 64 KiB
    is announced with window scaling, so Wireshark's window is the receiver's."""
    d = ccsim.loads(PCAP_SCENARIO.replace("PROFILE", "ns2"))
    d["flows"][0].update(headers=False, window=1000)
    res = ccsim.run(d, pcap_dir=tmp_path)
    f = res.flows.iloc[0]
    merged = tmp_path / "both.pcap"
    subprocess.run([shutil.which("mergecap"), "-w", merged, res.files["s0->r0"], res.files["r1->r0"]], check=True)
    lens = tshark("-r", res.files["s0->r0"], "-Y", "tcp.len > 0", "-T", "fields", "-e", "tcp.len")
    assert len(lens) == f["sent_pkts"] - 1 and set(lens) == {"1000"}
    assert tshark("-r", merged, "-Y", "tcp.analysis.lost_segment || tcp.analysis.ack_lost_segment") == []
    flagged = tshark("-r", res.files["s0->r0"], "-Y", "tcp.analysis.retransmission || tcp.analysis.out_of_order",
                     "-T", "fields", "-e", "frame.number")
    assert len(flagged) == f["retransmitted_pkts"] > 10
    wins = tshark("-r", merged, "-Y", "tcp.srcport == 5201 && tcp.flags.syn == 0", "-T", "fields", "-e",
                  "tcp.window_size")
    assert set(wins) == {str(1000 * 1000)}


def test_a_capture_that_cannot_be_written_fails_the_run_and_names_the_folder_given(tmp_path):
    """A full disk (here a file-size limit) loses the capture: `ccsim run` keeps the results,
    says which capture was lost under the folder the user gave (not its staging folder)
    and exits 1 (it had exited 0 with a warning naming `.out.partial-N`)."""
    import resource
    import signal
    import sys

    scen = tmp_path / "s.toml"
    scen.write_text(PCAP_SCENARIO.replace("PROFILE", "linux"))
    out = tmp_path / "out"

    def limit():  # the capture of 10 s grows past 200 kB; every results file stays below
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    exe = Path(sys.executable).with_name("ccsim")
    r = subprocess.run([str(exe), "run", str(scen), "--out", str(out), "-q"], capture_output=True, text=True,
                       preexec_fn=limit, timeout=300)
    assert r.returncode == 1, r.stderr
    assert f"error: pcap of s0->r0 not written: writing {out}/pcap/s0-r0.pcap: File too large" in r.stderr
    assert ".partial" not in r.stderr
    assert not list(tmp_path.glob(".out.*"))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pcap"] == {"r1->r0": "pcap/acks.pcap"}
    assert sorted(p.name for p in (out / "pcap").iterdir()) == ["acks.pcap"]


def test_api_pcap_goes_to_a_temp_dir_and_save_copies_it(tmp_path):
    res = ccsim.run(ccsim.loads(PCAP_SCENARIO.replace("PROFILE", "ns2")))
    assert set(res.files) == {"s0->r0", "r1->r0"}
    out = res.save(tmp_path / "o")
    assert (out / "pcap" / "acks.pcap").stat().st_size > 24
    back = ccsim.Results.load(out)
    assert back.files["r1->r0"].endswith("pcap/acks.pcap")


def test_api_pcap_temp_dir_goes_with_its_results(tmp_path):
    """The temporary folder of a run without `pcap_dir` is removed with its results, and
    at once when the run fails; saved traces stay."""
    import gc

    res = ccsim.run(ccsim.loads(PCAP_SCENARIO.replace("PROFILE", "ns2")))
    temp = Path(res.files["s0->r0"]).parent
    assert temp.is_dir() and temp.name.startswith("ccsim-pcap-")
    out = res.save(tmp_path / "o")
    del res
    gc.collect()
    assert not temp.exists()
    assert (out / "pcap" / "s0-r0.pcap").stat().st_size > 24
    before = set(Path(tempfile.gettempdir()).glob("ccsim-pcap-*"))
    bad = ccsim.loads(PCAP_SCENARIO.replace("PROFILE", "ns2").replace('"10Mbps"', '"-1Mbps"'))
    with pytest.raises(ccsim.ScenarioError, match="bottleneck_rate"):
        ccsim.run(bad)
    assert set(Path(tempfile.gettempdir()).glob("ccsim-pcap-*")) == before


def test_tcp_series_and_summary_columns():
    res = ccsim.run(ccsim.loads(PCAP_SCENARIO.replace("PROFILE", "ns2")))
    s = res.series("flow:t")
    for c in ("cwnd", "ssthresh", "srtt_s", "rto_s", "inflight_bytes", "retransmits", "timeouts"):
        assert c in s.columns
    assert s["cwnd"].max() > 2
    f = res.flows.iloc[0]
    for c in ("retransmitted_bytes", "timeouts", "mean_rtt_s", "goodput_bps"):
        assert c in res.flows.columns
    # One-way delay 2·1 ms + 20 ms + serialization; RTT about twice that.
    assert 0.044 < f["mean_rtt_s"] < 0.1


@pytest.mark.parametrize("field, value", [("mss", 0), ("cc", "warp"), ("recovery", "vegas"), ("min_rto", "100s"),
                                          ("sack_blocks", "oldest"), ("partial_ack_timer", "never"), ("halving", "third"),
                                          ("recovery_max_burst", -1), ("sack_option_base", 100), ("precision_reduce", "yes"),
                                          # ns-2's tick is 10 ms: its clock's phase lies below it.
                                          ("boot_time", "10ms")])
def test_bad_tcp_parameters_exit_2(tmp_path, cli, field, value):
    p = tmp_path / "bad.toml"
    text = PCAP_SCENARIO.replace("PROFILE", "ns2").replace('profile = "ns2"', f'profile = "ns2"\n{field} = {json.dumps(value)}')
    p.write_text(text)
    r = cli("validate", p)
    assert r.returncode == 2
    assert f"flows[0].{field}" in r.stderr


def test_boot_time_belongs_to_the_ns2_estimator(tmp_path, cli):
    p = tmp_path / "bad.toml"
    p.write_text(PCAP_SCENARIO.replace("PROFILE", "linux").replace('profile = "linux"', 'profile = "linux"\nboot_time = "1ms"'))
    r = cli("validate", p)
    assert r.returncode == 2 and 'flows[0].boot_time: applies to rtt_estimator = "ns2" only' in r.stderr, r.stderr


def test_sack1_with_prr_is_refused(tmp_path, cli):
    p = tmp_path / "bad.toml"
    p.write_text(PCAP_SCENARIO.replace("PROFILE", "ns2").replace('profile = "ns2"', 'profile = "ns2"\nrecovery = "sack1"\nprr = true'))
    r = cli("validate", p)
    assert r.returncode == 2
    assert "flows[0].prr" in r.stderr and "Sack1" in r.stderr


def test_tshark_reads_a_handshake(tmp_path):
    """`handshake = true`: the capture opens with SYN and SYN-ACK, which Wireshark decodes as
    a TCP connection (relative sequence numbers from 0, no malformed packets)."""
    d = ccsim.loads(PCAP_SCENARIO.replace("PROFILE", "linux"))
    d["flows"][0]["handshake"] = True
    res = ccsim.run(d, pcap_dir=tmp_path)
    data, acks = res.files["s0->r0"], res.files["r1->r0"]
    first = tshark("-r", data, "-c", "2", "-T", "fields", "-e", "tcp.flags.syn", "-e", "tcp.flags.ack", "-e", "tcp.seq", "-e", "tcp.len")
    assert first[0].split("\t") == ["1", "0", "0", "0"], first
    assert first[1].split("\t")[0] == "0" and int(first[1].split("\t")[3]) > 0, first
    synack = tshark("-r", acks, "-c", "1", "-T", "fields", "-e", "tcp.flags.syn", "-e", "tcp.flags.ack", "-e", "tcp.ack")
    assert synack[0].split("\t") == ["1", "1", "1"], synack
    assert tshark("-r", data, "-Y", "_ws.malformed || _ws.expert.severity == error") == []
    assert res.flows.iloc[0]["syn_retries"] == 0


def test_packets_trace_agrees_with_counters_and_pcap(tmp_path):
    """`kind = "packets"`: every '+', '-', 'r', 'd' of a link direction (ns-2's trace events)."""
    d = ccsim.loads(PCAP_SCENARIO.replace("PROFILE", "ns2"))
    d["traces"] = [{"kind": "packets", "link": "r0->r1"}, {"kind": "pcap", "link": "r0->r1"}]
    res = ccsim.run(d, pcap_dir=tmp_path)
    t = res.series("packets:r0->r1")
    q = res.queues.set_index("direction").loc["r0->r1"]
    counts = t["event"].value_counts()
    assert counts["+"] == q["arrivals"] and counts["-"] == q["departures"]
    assert counts["d"] == q["drops_overflow"] + q["drops_loss"] and q["drops_loss"] > 0
    assert counts["r"] == q["departures"] - q["drops_loss"]
    assert t["time"].is_monotonic_increasing
    with open(tmp_path / "r0-r1.pcap", "rb") as f:
        stamps = [float(ts) for ts, _ in dpkt.pcap.Reader(f)]
    deq = t[t["event"] == "-"]["time"].tolist()
    assert len(stamps) == len(deq) and max(abs(a - b) for a, b in zip(stamps, deq)) < 1e-9
    # A packet is received one serialization plus the 20 ms delay after it left.
    first = t[t["uid"] == t[t["kind"] == "data"]["uid"].iloc[0]]
    (t_dep,), (t_rcv,) = first[first["event"] == "-"]["time"], first[first["event"] == "r"]["time"]
    assert t_rcv - t_dep == pytest.approx(1040 * 8 / 10e6 + 0.020, abs=1e-9)


def test_the_ns2_window_counts_segments_whatever_the_mss():
    """ns-2's `window_` is in packets: `mss = 1460` alone keeps 20 segments (it was 20 000
    bytes, 13.7 segments, and an initial ssthresh of 13)."""
    flows = [{"kind": "tcp", "src": "s0", "dst": "d0", **extra}
             for extra in ({"mss": 1460}, {"mss": 1460, "window": 10}, {}, {"mss": 1460, "profile": "linux"})]
    s = {"name": "w", "simulation": {"duration": "1s"}, "flows": flows,
         "dumbbell": {"senders": 1, "access_rate": "100Mbps", "access_delay": "1ms", "bottleneck_rate": "10Mbps",
                      "bottleneck_delay": "10ms"}}
    got = [(f["params"]["window"], f["params"]["initial_ssthresh"]) for f in ccsim.params(s)["flows"]]
    assert got[:3] == [(20.0, 20.0), (10.0, 10.0), (20.0, 20.0)]
    assert got[3][0] == pytest.approx(2**30 / 1460)  # linux: a byte window (1 GiB)


def test_limited_transmit_sends_one_segment_on_each_early_duplicate_ack():
    """ns-2's singledup_ (RFC 3042): the first two duplicate ACKs each release one new
    segment; without it nothing leaves until the fast retransmit."""
    def run(lt):
        s = (ccsim.Scenario("lt", duration="3s").nodes("a", "r", "b")
             .link("a", "r", "100Mbps", "1ms", loss={"kind": "drop_list", "packets": [30]})
             .link("r", "b", "10Mbps", "24ms", queue={"kind": "droptail", "limit": 1000})
             .flow("tcp", src="a", dst="b", name="t", window=1000, initial_ssthresh=8, limited_transmit=lt))
        s.data["traces"] = [{"kind": "packets", "link": "a->r"}]
        t = ccsim.run(s).series("packets:a->r")
        data = t[(t["event"] == "+") & (t["kind"] == "data")]
        high, before = -1, 0
        for seq in data["seq"]:
            if seq <= high:
                return before  # data segments sent before the fast retransmit
            high, before = seq, before + 1
        raise AssertionError("no retransmission")

    assert run(True) == run(False) + 2
