"""ns-3 version of ccsim's benchmark dumbbells S1-S4, for side-by-side timing.

Shipped in the package so that `ccsim bench --ns3 PYTHON` runs it wherever ccsim is
installed; it is never imported by ccsim, only run by the Python given there, which needs
ns-3's PyPI package (`pip install ns3`, 3.44) and not ccsim. From a checkout,
`bench/ns3/dumbbell.py` runs this file:

    python bench/ns3/dumbbell.py S1 [--duration SECONDS] [--sack] [--classic] [--limited-transmit]
                                     [--count-recoveries] [--startup-trace STEP] [--seed N | --starts FILE]
                                     [--pcap PREFIX]

The scenario's parameters are given on the command line by `ccsim bench --ns3` (or here
through PARAMS), read from the same definitions ccsim uses (crates/ccsim-core/src/bench.rs).
Prints one JSON line: wall time of Simulator::Run, events, goodput. With
--count-recoveries, also the fast recoveries and retransmission timeouts of all flows after
the warm-up (transitions into CA_RECOVERY and CA_LOSS, counted by a C++ callback on every
socket's CongState) and the drops at the bottleneck's sender-side router (a diagnostic,
not for timing). With --startup-trace STEP, instead, one JSON line per STEP seconds from the
start: cumulative goodput bytes, data segments sent and retransmitted, fast recoveries,
timeouts, drops at the bottleneck and packets sent across it, idle flows, data segments
the receivers already had (below their next expected byte, or held out of order) (a diagnostic
of the start-up, compared with ccsim runs cut at the same times).

Model matching (see docs/benchmarks.md): TcpNewReno with ns-3's default PRR recovery
(ccsim's `prr = true`; --classic: ns-3's classic recovery, ccsim's `prr = false`), SACK off
(on with --sack, to compare with ccsim's `recovery = "sack"`), timestamps off (40-byte
headers, 1460-byte segments -> 1500-byte IP packets), an ACK per segment (DelAckCount 1),
initial window 2, minimum RTO 200 ms (ns-3 clears the RTO back-off on every new ACK: ccsim's
`rto_backoff_reset = "new_ack"`), no limited transmit (ccsim has none), socket buffers
of PARAMS' size (ccsim's `window` is the same number of bytes), BulkSend to PacketSink, flows
starting at the times given by --starts (ccsim's), else uniformly within the first second;
point-to-point links with DropTail device queues of the given sizes and no traffic-control
queue discs.
"""

import json
import random
import sys
import time

PARAMS = {
    # name: flows, bottleneck rate, one-way delay, queue pkts, access rate, seconds, socket
    # buffer MiB (8 x (BDP + queue) shared out per flow, at least 1 MiB, at most 64 MiB:
    # never limiting in steady state; BulkSend fills each send buffer at start, so larger
    # buffers cost ns-3 time and memory). It caps each flow's window in both simulators.
    "S1": (10, "100Mbps", "10ms", 100, "1Gbps", 60, 1),
    "S2": (1, "1Gbps", "50ms", 8500, "10Gbps", 60, 64),
    "S3": (200, "1Gbps", "10ms", 1000, "10Gbps", 20, 1),
    "S4": (1000, "10Gbps", "10ms", 2000, "100Gbps", 5, 1),
}


def main():
    name = sys.argv[1]
    flows, rate, delay, queue, access, secs, buf_mib = PARAMS[name]
    if "--duration" in sys.argv:
        secs = float(sys.argv[sys.argv.index("--duration") + 1])

    from ns import ns

    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1460))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
    buf = buf_mib << 20
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(buf))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(buf))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue("--sack" in sys.argv))
    ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    ns.Config.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(200)))
    # ccsim's TCP has no limited transmit (RFC 3042). ns-3 has it on by default, and
    # without SACK it then feeds its guessed ("Reno") SACK scoreboard with the first two
    # duplicate ACKs, which makes it enter fast recovery several times per dropped packet
    # (docs/benchmarks.md); --limited-transmit restores ns-3's default.
    ns.Config.SetDefault("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue("--limited-transmit" in sys.argv))
    if "--classic" in sys.argv:
        ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TcpClassicRecovery.GetTypeId()))

    senders = ns.NodeContainer()
    senders.Create(flows)
    receivers = ns.NodeContainer()
    receivers.Create(flows)
    routers = ns.NodeContainer()
    routers.Create(2)
    stack = ns.InternetStackHelper()
    stack.Install(senders)
    stack.Install(receivers)
    stack.Install(routers)

    def p2p(r, d, q):
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.StringValue(r))
        h.SetChannelAttribute("Delay", ns.StringValue(d))
        h.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue(f"{q}p"))
        return h

    tch = ns.TrafficControlHelper()
    addr = ns.Ipv4AddressHelper()
    bott = p2p(rate, delay, queue).Install(routers.Get(0), routers.Get(1))
    addr.SetBase(ns.Ipv4Address("10.255.0.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(bott)
    tch.Uninstall(bott)
    recv_addrs = []
    acc = p2p(access, "1ms", 10000)
    for i in range(flows):
        a = acc.Install(senders.Get(i), routers.Get(0))
        b = acc.Install(routers.Get(1), receivers.Get(i))
        addr.SetBase(ns.Ipv4Address(f"10.{1 + i // 250}.{i % 250}.0"), ns.Ipv4Mask("255.255.255.252"))
        addr.Assign(a)
        addr.SetBase(ns.Ipv4Address(f"11.{1 + i // 250}.{i % 250}.0"), ns.Ipv4Mask("255.255.255.252"))
        ifs = addr.Assign(b)
        tch.Uninstall(a)
        tch.Uninstall(b)
        if i == 0 and "--pcap" in sys.argv:
            # Diagnostic: flow 0's sender-side and receiver-side access devices (PPP frames).
            prefix = sys.argv[sys.argv.index("--pcap") + 1]
            acc.EnablePcap(prefix + "-sender", a.Get(0), True)
            acc.EnablePcap(prefix + "-receiver", b.Get(1), True)
        recv_addrs.append(ifs.GetAddress(1))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    # Start times: with --starts FILE (a JSON list of nanoseconds, one per flow: `ccsim
    # bench --ns3` passes ccsim's own draws), the same as ccsim's; otherwise Python's random
    # with --seed (default 1), equally distributed but not the same times.
    if "--starts" in sys.argv:
        with open(sys.argv[sys.argv.index("--starts") + 1]) as f:
            starts_ns = [int(t) for t in json.load(f)]
        if len(starts_ns) != flows:
            raise SystemExit(f"--starts: {len(starts_ns)} start times for {flows} flows")
    else:
        rng = random.Random(int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1)
        starts_ns = [int(rng.random() * 1e9) for _ in range(flows)]
    sinks = []
    port = 5201
    for i in range(flows):
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        apps = sink.Install(receivers.Get(i))
        apps.Start(ns.Seconds(0))
        sinks.append(apps.Get(0))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(recv_addrs[i], port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(1460))
        s = bulk.Install(senders.Get(i))
        s.Start(ns.NanoSeconds(starts_ns[i]))
    if "--startup-trace" in sys.argv:
        step = float(sys.argv[sys.argv.index("--startup-trace") + 1])
        return startup_trace(ns, senders, receivers, routers, bott, sinks, starts_ns, secs, step)
    # Two phases, to also report the goodput after a 10 s warm-up (steady state).
    warm = min(10.0, secs / 2)
    t0, c0 = time.perf_counter(), time.process_time()
    ns.Simulator.Stop(ns.Seconds(warm))
    ns.Simulator.Run()
    per_warm = [ns.DynamicCast[ns.PacketSink](s).GetTotalRx() for s in sinks]
    rx_warm = sum(per_warm)
    if "--count-recoveries" in sys.argv:
        counters = connect_recovery_counters(routers.Get(0).GetId())
    ns.Simulator.Stop(ns.Seconds(secs - warm))
    ns.Simulator.Run()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    per = [ns.DynamicCast[ns.PacketSink](s).GetTotalRx() for s in sinks]
    rx = sum(per)
    # Flows that still deliver data after the warm-up (ns-3 aborts a connection after
    # DataRetries consecutive timeouts; ccsim's ns2 profile never gives up).
    active = sum(1 for a, b in zip(per_warm, per) if b > a)
    events = None
    try:
        events = int(ns.Simulator.GetEventCount())
    except Exception:  # noqa: BLE001 - older ns-3 without the counter
        pass
    extra = {}
    if "--count-recoveries" in sys.argv:
        extra = {"recoveries_after_warmup": int(counters.recov), "timeouts_after_warmup": int(counters.loss),
                 "bottleneck_drops_after_warmup": int(counters.drops), "drops_anywhere_after_warmup": int(counters.drops_all)}
    ns.Simulator.Destroy()
    print(json.dumps({**extra, "simulator": "ns-3", "scenario": name, "sim_s": secs, "wall_s": wall, "cpu_s": cpu, "events": events,
                      "goodput_bps": rx * 8 / secs, "goodput_steady_bps": (rx - rx_warm) * 8 / (secs - warm),
                      "warmup_s": warm, "bottleneck_pkts_est": rx / 1460, "flows_active_after_warmup": active,
                      "flows_idle_at_warmup": sum(1 for a in per_warm if a == 0)}))



def connect_recovery_counters(router):
    """From now on, counts every socket's entries into fast recovery and into loss (RTO),
    and the packets dropped at `router` (the bottleneck's sender side) and anywhere. Without a queue
    disc, a full device queue stops its interface and the traffic-control layer drops
    what arrives: those drops are not in the device queue's own counters."""
    import cppyy

    cppyy.cppdef("""
    #include "ns3/tcp-socket-state.h"
    #include "ns3/packet.h"
    namespace ccsim_diag {
      long recov = 0, loss = 0, drops = 0, drops_all = 0;
      void on_cong(ns3::TcpSocketState::TcpCongState_t from, ns3::TcpSocketState::TcpCongState_t to) {
        if (to != from && to == ns3::TcpSocketState::CA_RECOVERY) recov++;
        if (to != from && to == ns3::TcpSocketState::CA_LOSS) loss++;
      }
      void on_drop(ns3::Ptr<const ns3::Packet>) { drops++; }
      void on_drop_any(ns3::Ptr<const ns3::Packet>) { drops_all++; }
      bool connect(int router) {
        bool a = ns3::Config::ConnectWithoutContextFailSafe(
          "/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongState", ns3::MakeCallback(&on_cong));
        bool b = ns3::Config::ConnectWithoutContextFailSafe(
          "/NodeList/" + std::to_string(router) + "/$ns3::TrafficControlLayer/TcDrop", ns3::MakeCallback(&on_drop));
        bool c = ns3::Config::ConnectWithoutContextFailSafe(
          "/NodeList/*/$ns3::TrafficControlLayer/TcDrop", ns3::MakeCallback(&on_drop_any));
        return a && b && c;
      }
    }
    """)
    if not cppyy.gbl.ccsim_diag.connect(router):
        raise SystemExit("could not connect the diagnostic trace sinks")
    return cppyy.gbl.ccsim_diag

def startup_trace(ns, senders, receivers, routers, bott, sinks, starts_ns, secs, step):
    """Cumulative counters every `step` simulated seconds from 0 (one JSON line each).
    Each sender's socket is connected 1 ns after its application starts (it creates the
    socket then): its congestion-state changes and every data segment it sends."""
    import cppyy

    cppyy.cppdef("""
    #include "ns3/tcp-socket-state.h"
    #include "ns3/tcp-header.h"
    #include "ns3/packet.h"
    #include "ns3/ipv4-header.h"
    #include "ns3/ipv4.h"
    #include <map>
    namespace ccsim_start {
      // Receiver side: data segments entirely below the receiver's next expected byte
      // (as ccsim's duplicate_segments), and copies of segments held out of order.
      long dup_old = 0, dup_ooo = 0;
      // ns-3's initial sequence number is 0 and the SYN takes one, so data starts at 1.
      struct Rcv { uint32_t nxt = 1; std::map<uint32_t, uint32_t> ooo; };
      std::map<uint32_t, Rcv> rcv;
      void on_l3_rx(ns3::Ptr<const ns3::Packet> p, ns3::Ptr<ns3::Ipv4> ip, uint32_t) {
        ns3::Ptr<ns3::Packet> q = p->Copy();
        ns3::Ipv4Header iph;
        q->RemoveHeader(iph);
        if (iph.GetProtocol() != 6) return;
        ns3::TcpHeader th;
        q->RemoveHeader(th);
        uint32_t len = q->GetSize();
        if (len == 0) return;
        Rcv& r = rcv[ip->GetObject<ns3::Node>()->GetId()];
        uint32_t s = th.GetSequenceNumber().GetValue(), e = s + len;
        if ((int32_t)(e - r.nxt) <= 0) { dup_old++; return; }
        if (s != r.nxt) { if (!r.ooo.emplace(s, e).second) dup_ooo++; return; }
        r.nxt = e;
        for (auto it = r.ooo.begin(); it != r.ooo.end() && (int32_t)(it->first - r.nxt) <= 0;) {
          if ((int32_t)(it->second - r.nxt) > 0) r.nxt = it->second;
          it = r.ooo.erase(it);
        }
      }
      void connect_receiver(int node) {
        ns3::Config::ConnectWithoutContextFailSafe("/NodeList/" + std::to_string(node) + "/$ns3::Ipv4L3Protocol/Rx",
                                                   ns3::MakeCallback(&on_l3_rx));
      }
      long recov = 0, loss = 0, drops = 0, tx_data = 0, retx = 0, bott_tx = 0;
      std::map<const void*, uint32_t> high;
      void on_cong(ns3::TcpSocketState::TcpCongState_t from, ns3::TcpSocketState::TcpCongState_t to) {
        if (to != from && to == ns3::TcpSocketState::CA_RECOVERY) recov++;
        if (to != from && to == ns3::TcpSocketState::CA_LOSS) loss++;
      }
      void on_tx(ns3::Ptr<const ns3::Packet> p, const ns3::TcpHeader& h, ns3::Ptr<const ns3::TcpSocketBase> s) {
        uint32_t len = p->GetSize();
        if (len == 0) return;
        tx_data++;
        uint32_t end = h.GetSequenceNumber().GetValue() + len;
        auto it = high.find(ns3::PeekPointer(s));
        if (it == high.end()) { high[ns3::PeekPointer(s)] = end; return; }
        if ((int32_t)(end - it->second) <= 0) retx++; else it->second = end;
      }
      void on_drop(ns3::Ptr<const ns3::Packet>) { drops++; }
      void on_bott_tx(ns3::Ptr<const ns3::Packet>) { bott_tx++; }
      void connect_node(int node) {
        std::string base = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/*/";
        ns3::Config::ConnectWithoutContextFailSafe(base + "CongState", ns3::MakeCallback(&on_cong));
        ns3::Config::ConnectWithoutContextFailSafe(base + "Tx", ns3::MakeCallback(&on_tx));
      }
      void schedule_connect(int node, int64_t at_ns) {
        ns3::Simulator::Schedule(ns3::NanoSeconds(at_ns + 1), &connect_node, node);
      }
      bool connect_router(int router, ns3::Ptr<ns3::NetDevice> bott) {
        bott->TraceConnectWithoutContext("PhyTxBegin", ns3::MakeCallback(&on_bott_tx));
        return ns3::Config::ConnectWithoutContextFailSafe(
          "/NodeList/" + std::to_string(router) + "/$ns3::TrafficControlLayer/TcDrop", ns3::MakeCallback(&on_drop));
      }
    }
    """)
    c = cppyy.gbl.ccsim_start
    for i, t in enumerate(starts_ns):
        c.schedule_connect(senders.Get(i).GetId(), t)
        c.connect_receiver(receivers.Get(i).GetId())
    if not c.connect_router(routers.Get(0).GetId(), bott.Get(0)):
        raise SystemExit("could not connect the diagnostic trace sinks")
    t, t0 = 0.0, time.process_time()
    while t < secs - 1e-9:
        t = min(secs, t + step)
        ns.Simulator.Stop(ns.Seconds(t) - ns.Simulator.Now())
        ns.Simulator.Run()
        per = [ns.DynamicCast[ns.PacketSink](s).GetTotalRx() for s in sinks]
        print(json.dumps({"t": round(t, 9), "goodput_bytes": sum(per), "data_sent": int(c.tx_data), "retransmitted": int(c.retx),
                          "fast_recoveries": int(c.recov), "timeouts": int(c.loss), "bottleneck_drops": int(c.drops),
                          "bottleneck_sent": int(c.bott_tx), "idle_flows": sum(1 for x in per if x == 0),
                          "duplicates_received": int(c.dup_old), "duplicates_of_held": int(c.dup_ooo),
                          "cpu_s": time.process_time() - t0}), flush=True)
    ns.Simulator.Destroy()


if __name__ == "__main__":
    main()
