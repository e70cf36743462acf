//! TCP: sender, receiver, RTT/RTO, SACK scoreboard, profiles, and the `tcp` flow kind.
//!
//! A `tcp` flow is a bulk (FTP-like) transfer, infinite or of `bytes` bytes, from `src` to
//! `dst`. `profile` picks defaults (`ns2` or `linux`), every field can be overridden, `cc`
//! picks the congestion controller, `recovery` the loss-recovery variant. Both profiles
//! open with a 40-byte SYN and wait for its ACK before sending data (ns-2.35's `syn_` and
//! `delay_growth_`, real stacks); `handshake = false` starts data at the start time (ns-2
//! with `syn_ false`).

mod growth;
mod handshake;
mod ooo;
mod pacing;
pub mod prr;
pub mod receiver;
mod recovery;
pub mod rtt;
pub mod sack;
pub mod sack1;
pub mod sender;
pub mod stats;

pub use growth::Growth;
pub use recovery::Recovery;

pub use receiver::TcpReceiver;
pub use rtt::{RttEstimator, RttMode};
pub use sender::TcpSender;

use crate::agent::{Agent, FlowConfig};
use crate::cc::reno::{Reno, RenoConfig};
use crate::cc::CcConfig;
use crate::config::{Errors, Obj};
use crate::rng::SimRng;
use crate::units::{Time, MS, SEC};
use std::sync::Arc;

/// ns-2's `window_` (segments), the ns2 profile's advertised window.
const NS2_WINDOW: u64 = 20;

/// Everything a TCP endpoint needs, resolved from profile + overrides.
#[derive(Clone, Debug)]
pub struct TcpConfig {
    /// Payload bytes per full segment.
    pub mss: u32,
    /// TCP timestamps option (12 bytes per header; RTT sample per ACK).
    pub timestamps: bool,
    /// Receiver's advertised window, bytes.
    pub window_bytes: u64,
    /// Data segments carry the IP + TCP header bytes on the wire (ns-2 `useHeaders_`,
    /// true); false: a data segment is its payload alone (ACKs and SYNs stay 40 bytes).
    pub data_headers: bool,
    /// ns-2's `ssthresh_` is an integer: every decrease is truncated (at least 2).
    pub integer_ssthresh: bool,
    /// The ACK that ends fast recovery also grows the window, as any new ACK (ns-2 Reno
    /// and NewReno: `recv_newack_helper` → `opencwnd`); false: recovery ends at ssthresh.
    pub exit_ack_grows: bool,
    /// ns-2 estimator without timestamps: the phase of the tick clock (`boot_time_`); None
    /// draws it uniformly in `[0, tick)` from the flow's stream, as ns-2 does.
    pub boot_time: Option<Time>,
    /// ns-2 `rfc2988_ false`: the minimum RTO applies after the back-off.
    pub rto_clamp_after_backoff: bool,
    /// ns-2 `bugFix_` (true) / RFC 6582: no fast retransmit for duplicate ACKs that do not
    /// cover the data sent before the last loss episode; false: every third dupack.
    pub bug_fix: bool,
    /// ns-2 `maxcwnd_`: cwnd never grows beyond this many segments (0: no cap).
    pub max_cwnd: f64,
    /// Limited transmit (RFC 3042; ns-2 `singledup_`): one new segment on each of the first
    /// `dupthresh − 1` duplicate ACKs.
    pub limited_transmit: bool,
    /// ns-2 `precisionReduce_` (true): halve the window in floating point; false: ns-2's
    /// integer halving, `cwnd = ⌊⌊W⌋ / 2⌋`.
    pub precision_reduce: bool,
    /// ns-2's `slowdown` (`halving = "ns2"`): after a fast retransmit cwnd = W/2, at least 1
    /// segment; RFC 5681 (`"rfc"`): cwnd = ssthresh = max(W/2, 2).
    pub ns2_halving: bool,
    /// NewReno: a partial ACK deflates the window by the amount it acknowledges (ns-2
    /// `partial_window_deflation_ 1`, RFC 6582); false: it only removes the inflation.
    pub partial_window_deflation: bool,
    /// NewReno: every partial ACK re-arms the retransmission timer (ns-2
    /// `newreno_changes1_ 0`, "slow but steady"); false: the first one only ("impatient").
    pub partial_ack_timer_every: bool,
    /// NewReno: the full ACK sets `cwnd = min(ssthresh, outstanding + 1)` before growing
    /// (ns-2 `exit_recovery_fix_`).
    pub exit_recovery_fix: bool,
    /// NewReno without PRR: at most this many new segments per ACK in recovery (ns-2's
    /// `send_much(0, 0, 2)` with `newreno_changes_ 0`); 0 = no limit.
    pub recovery_max_burst: u32,
    /// ns-2 `lessCareful_` (RFC 2582 section 6): with `bug_fix`, an ACK of exactly
    /// `recover` may start a new fast retransmit.
    pub less_careful: bool,
    /// Sack1's `pipe` at a fast retransmit: ⌊cwnd⌋ − dupthresh (ns-2 `oldCode_ true`)
    /// instead of the packets outstanding − dupthresh.
    pub sack1_pipe_from_cwnd: bool,
    /// ns-2 `maxburst_`: at most this many segments per sending opportunity (0 = none).
    pub max_burst: u32,
    /// Bytes a SACK option adds to an ACK besides 8 per block: 4 (kind, length, two NOPs,
    /// as real stacks) or 0 (ns-2's sink: 40 + 8 × blocks).
    pub sack_option_base: u32,
    /// The receiver picks SACK blocks as ns-2's `Sacker` (a stack of the last
    /// `max_sack_blocks` reported blocks); false: RFC 2018's most recently updated first.
    pub ns2_sack_blocks: bool,
    pub initial_window: f64,
    pub initial_ssthresh: f64,
    pub delayed_ack: bool,
    pub delack_count: u32,
    /// With delayed ACKs: a segment that fills a hole but leaves data above it is
    /// acknowledged at once (RFC 5681 section 4.2; ns-2 `RFC2581_immediate_ack_`).
    pub rfc2581_immediate_ack: bool,
    /// With delayed ACKs: the SYN is answered at once (ns-2 `SYN_immediate_ack_`); false:
    /// its ACK waits for the delayed-ACK timer.
    pub syn_immediate_ack: bool,
    /// With delayed ACKs: a duplicate of the last in-order segment waits for the timer as an
    /// in-order segment does (ns-2's `DelAckSink`); false: acknowledged at once (Linux).
    pub delack_duplicates: bool,
    pub delack_timeout: Time,
    pub rtt_mode: RttMode,
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    pub recovery: Recovery,
    /// The receiver sends SACK blocks.
    pub sack: bool,
    pub max_sack_blocks: u8,
    pub dupthresh: u32,
    /// Appropriate byte counting: window credit = acked bytes / MSS instead of 1 per ACK.
    pub abc: bool,
    /// Bytes to transfer (None = infinite).
    pub bytes: Option<u64>,
    /// ns-2 `overhead_`: after each transmission wait U[0, overhead) before the next one
    /// (0 = off). Randomises deterministic runs against phase effects.
    pub overhead: Time,
    /// Proportional Rate Reduction (RFC 9937) sets what fast recovery sends (Reno, NewReno,
    /// SACK) instead of window inflation or `cwnd − pipe`.
    pub prr: bool,
    /// Open the connection with a SYN / SYN-ACK exchange before sending data (ns-3, real
    /// stacks); ns-2's one-way TCP sends data at the start time.
    pub handshake: bool,
    /// Clear the RTO back-off on every ACK of new data (ns-3's `TcpSocketBase::NewAck`
    /// recomputes the RTO from the estimator), instead of keeping it until a valid RTT
    /// sample (RFC 6298 section 5 with Karn's rule; ns-2, Linux).
    pub backoff_reset_on_ack: bool,
    /// When an ACK of new data may grow the window (`cwnd_growth`; ns2 profile `always`,
    /// linux profile `cwnd_limited`).
    pub growth: Growth,
    /// The congestion controller and its parameters (`cc`, `cc_params`; default Reno).
    pub cc: Arc<dyn CcConfig>,
}

impl TcpConfig {
    /// Wire size of a data segment of `len` payload bytes.
    pub fn data_size(&self, len: u32) -> u32 {
        if self.data_headers {
            len + self.header_bytes(0)
        } else {
            len
        }
    }

    /// IP + TCP header bytes of a segment carrying `nsack` SACK blocks.
    pub fn header_bytes(&self, nsack: u8) -> u32 {
        let ts = if self.timestamps { 12 } else { 0 };
        let sack = if nsack > 0 { self.sack_option_base + 8 * nsack as u32 } else { 0 };
        40 + ts + sack
    }

    /// ns-2.35 defaults: a SYN exchange first (`syn_`, `delay_growth_`), 1000-byte segments, 40-byte headers and ACKs, `window_ 20`,
    /// `windowInit_ 2`, tick-based RTO (`tcpTick_ 10ms`, `minrto_ 200ms`, `maxrto_ 60s`,
    /// initial 3 s), no delayed ACK (a DelAck sink uses 100 ms), no timestamps option,
    /// one ACK credit per ACK, NewReno recovery.
    pub fn ns2() -> Self {
        TcpConfig {
            mss: 1000,
            timestamps: false,
            window_bytes: NS2_WINDOW * 1000,
            data_headers: true,
            integer_ssthresh: true,
            exit_ack_grows: true,
            boot_time: None,
            rto_clamp_after_backoff: false,
            bug_fix: true,
            max_cwnd: 0.0,
            limited_transmit: true,
            precision_reduce: true,
            ns2_halving: true,
            partial_window_deflation: true,
            partial_ack_timer_every: false,
            exit_recovery_fix: false,
            recovery_max_burst: 2,
            less_careful: false,
            sack1_pipe_from_cwnd: false,
            max_burst: 0,
            sack_option_base: 0,
            ns2_sack_blocks: true,
            initial_window: 2.0,
            initial_ssthresh: 1e9,
            delayed_ack: false,
            delack_count: 2,
            rfc2581_immediate_ack: true,
            syn_immediate_ack: true,
            delack_duplicates: true,
            delack_timeout: 100 * MS,
            rtt_mode: RttMode::Ns2 { tick: 10 * MS },
            min_rto: 200 * MS,
            max_rto: 60 * SEC,
            initial_rto: 3 * SEC,
            recovery: Recovery::NewReno,
            sack: false,
            max_sack_blocks: 3,
            dupthresh: 3,
            abc: false,
            bytes: None,
            overhead: 0,
            prr: false,
            handshake: true,
            backoff_reset_on_ack: false,
            growth: Growth::Always,
            cc: Arc::new(crate::cc::reno::RenoConfig),
        }
    }

    /// Linux-like defaults: MSS 1448 with timestamps, initial window 10 (RFC 6928),
    /// RFC 6298 RTO with 1 ms granularity, min 200 ms, max 120 s, initial 1 s, delayed ACK
    /// (2 segments, 40 ms), SACK recovery with PRR (Linux's since 3.2), byte counting, a
    /// 1 GiB receive window, a SYN handshake, growth only while cwnd limits the sender.
    pub fn linux() -> Self {
        TcpConfig {
            mss: 1448,
            timestamps: true,
            window_bytes: 1 << 30,
            data_headers: true,
            integer_ssthresh: false,
            exit_ack_grows: false,
            boot_time: None,
            rto_clamp_after_backoff: false,
            bug_fix: true,
            max_cwnd: 0.0,
            limited_transmit: false,
            precision_reduce: true,
            ns2_halving: false,
            partial_window_deflation: true,
            partial_ack_timer_every: false,
            exit_recovery_fix: false,
            recovery_max_burst: 0,
            less_careful: false,
            sack1_pipe_from_cwnd: false,
            max_burst: 0,
            sack_option_base: 4,
            ns2_sack_blocks: false,
            initial_window: 10.0,
            initial_ssthresh: 1e9,
            delayed_ack: true,
            delack_count: 2,
            rfc2581_immediate_ack: true,
            syn_immediate_ack: true,
            delack_duplicates: false,
            delack_timeout: 40 * MS,
            rtt_mode: RttMode::Rfc6298 { granularity: MS },
            min_rto: 200 * MS,
            max_rto: 120 * SEC,
            initial_rto: SEC,
            recovery: Recovery::Sack,
            sack: true,
            max_sack_blocks: 3,
            dupthresh: 3,
            abc: true,
            bytes: None,
            overhead: 0,
            prr: true,
            handshake: true,
            backoff_reset_on_ack: false,
            growth: Growth::CwndLimited,
            cc: Arc::new(crate::cc::reno::RenoConfig),
        }
    }
}

/// Scenario: `kind = "tcp"`, `profile` (`ns2` | `linux`, default `ns2`), `cc` (default
/// `reno`), `cc_params` (table), `recovery` (`tahoe` | `reno` | `newreno` | `sack` | `sack1`), and
/// overrides: `mss`, `window` (segments), `initial_window`, `initial_ssthresh`,
/// `delayed_ack`, `delack_count`, `delack_timeout`, `rtt_estimator` (`ns2` | `rfc6298`),
/// `clock_granularity`, `min_rto`, `max_rto`, `initial_rto`, `timestamps`,
/// `max_sack_blocks`, `dupthresh`, `abc`, `bytes`, `overhead`, `prr`, `handshake`, `headers`, `integer_ssthresh`, `exit_ack_grows`, `boot_time`, `rto_clamp`, `bug_fix`, `max_cwnd`, `limited_transmit`,
/// `rto_backoff_reset` (`rtt_sample` | `new_ack`), `precision_reduce`, `halving` (`rfc` | `ns2`), `partial_window_deflation`,
/// `partial_ack_timer` (`first` | `every`), `exit_recovery_fix`, `recovery_max_burst`, `less_careful`, `sack1_pipe` (`outstanding` | `cwnd`), `max_burst`,
/// `sack_option_base`, `sack_blocks` (`recent` | `ns2`), `rfc2581_immediate_ack`, `syn_immediate_ack`, `delack_duplicates`,
/// `cwnd_growth` (`always` | `in_flight` | `cwnd_limited`).
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn FlowConfig>> {
    // An invalid choice is reported and the rest still read (with the default in its
    // place), so that its sibling fields are not reported as unknown as well.
    let mut ok = true;
    let profile = o.choice("profile", &["ns2", "linux"], Some("ns2"), errs).unwrap_or_else(|| {
        ok = false;
        "ns2"
    });
    let mut c = if profile == "linux" { TcpConfig::linux() } else { TcpConfig::ns2() };
    if let Some(m) = o.size("mss", errs) {
        c.mss = m;
    }
    let window = o.float("window", 1.0, 1e9, errs);
    if let Some(v) = o.float("initial_window", 1.0, 1e9, errs) {
        c.initial_window = v;
    }
    let initial_ssthresh = o.float("initial_ssthresh", 2.0, 1e12, errs);
    if let Some(v) = initial_ssthresh {
        c.initial_ssthresh = v;
    }
    read_bool(o, "delayed_ack", &mut c.delayed_ack, errs);
    read_bool(o, "rfc2581_immediate_ack", &mut c.rfc2581_immediate_ack, errs);
    read_bool(o, "syn_immediate_ack", &mut c.syn_immediate_ack, errs);
    read_bool(o, "delack_duplicates", &mut c.delack_duplicates, errs);
    if let Some(v) = o.int("delack_count", 1, 64, errs) {
        c.delack_count = v as u32;
    }
    if let Some(v) = o.time("delack_timeout", errs) {
        c.delack_timeout = v.max(1);
    }
    let default_est = match c.rtt_mode {
        RttMode::Ns2 { .. } => "ns2",
        RttMode::Rfc6298 { .. } => "rfc6298",
    };
    let est = o.choice("rtt_estimator", &["ns2", "rfc6298"], Some(default_est), errs);
    let gran = o.time("clock_granularity", errs).unwrap_or(match c.rtt_mode {
        RttMode::Ns2 { tick } => tick,
        RttMode::Rfc6298 { granularity } => granularity,
    });
    c.rtt_mode = match est {
        Some("ns2") => RttMode::Ns2 { tick: gran.max(1) },
        _ => RttMode::Rfc6298 { granularity: gran },
    };
    if let Some(v) = o.time("min_rto", errs) {
        c.min_rto = v;
    }
    if let Some(v) = o.time("max_rto", errs) {
        c.max_rto = v;
    }
    if let Some(v) = o.time("initial_rto", errs) {
        c.initial_rto = v.max(1);
    }
    if c.min_rto > c.max_rto {
        errs.add(o.at("min_rto"), format!("min_rto ({} s) must not exceed max_rto ({} s)", c.min_rto as f64 / 1e9, c.max_rto as f64 / 1e9));
    }
    if c.max_rto == 0 {
        errs.add(o.at("max_rto"), "must be greater than 0");
    }
    read_bool(o, "timestamps", &mut c.timestamps, errs);
    if let Some(v) = o.int("max_sack_blocks", 1, 4, errs) {
        c.max_sack_blocks = v as u8;
    }
    if let Some(v) = o.int("dupthresh", 1, 1000, errs) {
        c.dupthresh = v as u32;
    }
    read_bool(o, "abc", &mut c.abc, errs);
    if let Some(v) = o.time("overhead", errs) {
        c.overhead = v;
    }
    let prr = o.boolean("prr", errs);
    read_bool(o, "handshake", &mut c.handshake, errs);
    read_bool(o, "headers", &mut c.data_headers, errs);
    read_bool(o, "integer_ssthresh", &mut c.integer_ssthresh, errs);
    read_bool(o, "exit_ack_grows", &mut c.exit_ack_grows, errs);
    if let Some(v) = o.time("boot_time", errs) {
        match c.rtt_mode {
            RttMode::Ns2 { tick } if v < tick => c.boot_time = Some(v),
            RttMode::Ns2 { tick } => errs.add(
                o.at("boot_time"),
                format!("must be below the tick (clock_granularity, {} s): ns-2 draws it in [0, tick)", tick as f64 / 1e9),
            ),
            RttMode::Rfc6298 { .. } => errs.add(o.at("boot_time"), "applies to rtt_estimator = \"ns2\" only (its tick clock's phase)"),
        }
    }
    read_bool(o, "bug_fix", &mut c.bug_fix, errs);
    if let Some(v) = o.float("max_cwnd", 0.0, 1e9, errs) {
        c.max_cwnd = v;
    }
    read_bool(o, "limited_transmit", &mut c.limited_transmit, errs);
    read_bool(o, "precision_reduce", &mut c.precision_reduce, errs);
    read_flag(o, "halving", ["rfc", "ns2"], &mut c.ns2_halving, errs);
    read_bool(o, "partial_window_deflation", &mut c.partial_window_deflation, errs);
    read_flag(o, "partial_ack_timer", ["first", "every"], &mut c.partial_ack_timer_every, errs);
    read_bool(o, "exit_recovery_fix", &mut c.exit_recovery_fix, errs);
    if let Some(v) = o.int("recovery_max_burst", 0, 1_000_000, errs) {
        c.recovery_max_burst = v as u32;
    }
    read_bool(o, "less_careful", &mut c.less_careful, errs);
    read_flag(o, "sack1_pipe", ["outstanding", "cwnd"], &mut c.sack1_pipe_from_cwnd, errs);
    if let Some(v) = o.int("max_burst", 0, 1_000_000, errs) {
        c.max_burst = v as u32;
    }
    if let Some(v) = o.int("sack_option_base", 0, 40, errs) {
        c.sack_option_base = v as u32;
    }
    read_flag(o, "sack_blocks", ["recent", "ns2"], &mut c.ns2_sack_blocks, errs);
    read_flag(o, "rto_clamp", ["before_backoff", "after_backoff"], &mut c.rto_clamp_after_backoff, errs);
    read_flag(o, "rto_backoff_reset", ["rtt_sample", "new_ack"], &mut c.backoff_reset_on_ack, errs);
    if let Some(g) = o.choice("cwnd_growth", &Growth::NAMES, Some(c.growth.name()), errs) {
        c.growth = match g {
            "always" => Growth::Always,
            "in_flight" => Growth::InFlight,
            _ => Growth::CwndLimited,
        };
    }
    if o.has("bytes") {
        let v = o.get("bytes").unwrap();
        let b = match v {
            serde_json::Value::Number(n) => n.as_f64(),
            serde_json::Value::String(s) => crate::units::parse_size(s),
            _ => None,
        };
        match b {
            Some(b) if b >= 1.0 && b.is_finite() => c.bytes = Some(b as u64),
            _ => {
                errs.add(o.at("bytes"), format!("expected a size such as '10MB' or a number of bytes >= 1, got {}", crate::config::show(v)))
            }
        }
    }
    let recovery = match o.choice("recovery", &Recovery::NAMES, Some(c.recovery.name()), errs) {
        Some(r) => r,
        None => {
            ok = false;
            "newreno"
        }
    };
    c.recovery = match recovery {
        "tahoe" => Recovery::Tahoe,
        "reno" => Recovery::Reno,
        "newreno" => Recovery::NewReno,
        "sack1" => Recovery::Sack1,
        _ => Recovery::Sack,
    };
    c.sack = c.recovery.sack();
    if let Some(v) = prr {
        if v && c.recovery == Recovery::Tahoe {
            errs.add(o.at("prr"), "PRR paces fast recovery, which Tahoe does not have: use recovery = \"reno\", \"newreno\" or \"sack\"");
        }
        if v && c.recovery == Recovery::Sack1 {
            errs.add(o.at("prr"), "ns-2's Sack1 recovery has its own pipe counter, not PRR: use recovery = \"sack\" with prr");
        }
        c.prr = v;
    }
    if matches!(c.recovery, Recovery::Tahoe | Recovery::Sack1) {
        c.prr = false;
    }
    if c.recovery == Recovery::Sack1 {
        // ns-2's Sack1 ends recovery with `newack`, which does not open the window.
        c.exit_ack_grows = false;
    }
    if let Some(w) = window {
        c.window_bytes = (w * c.mss as f64).round() as u64;
    } else if profile == "ns2" {
        // ns-2's `window_` counts packets whatever `packetSize_` is.
        c.window_bytes = NS2_WINDOW * c.mss as u64;
    }
    if profile == "ns2" && initial_ssthresh.is_none() {
        // ns-2's TcpAgent::reset: ssthresh_ = int(wnd_).
        c.initial_ssthresh = ((c.window_bytes / c.mss.max(1) as u64) as f64).max(2.0);
    }
    let names: Vec<&'static str> = crate::cc::REGISTRY.iter().map(|(n, _)| *n).collect();
    // A wrong `cc` makes `cc_params` meaningless: not reported as unknown as well.
    o.allow(&["cc_params"]);
    let cc_name = o.choice("cc", &names, Some("reno"), errs)?;
    if !ok {
        return None;
    }
    let parser = crate::cc::REGISTRY.iter().find(|(n, _)| *n == cc_name).unwrap().1;
    c.cc = match o.get("cc_params") {
        Some(v) => {
            let path = o.at("cc_params");
            let mut p = Obj::new(v, &path, errs)?;
            let built = parser(Some(&mut p), errs);
            p.finish(errs);
            built
        }
        None => parser(None, errs),
    }?;
    Some(Arc::new(TcpFlow { cfg: Arc::new(c) }))
}

/// Sets `field` from the boolean `key` when the scenario gives it.
fn read_bool(o: &mut Obj, key: &'static str, field: &mut bool, errs: &mut Errors) {
    if let Some(v) = o.boolean(key, errs) {
        *field = v;
    }
}

/// A two-valued choice `[off, on]` read into a flag when the scenario gives it.
fn read_flag(o: &mut Obj, key: &'static str, values: [&'static str; 2], field: &mut bool, errs: &mut Errors) {
    if o.has(key) {
        if let Some(v) = o.choice(key, &values, None, errs) {
            *field = v == values[1];
        }
    }
}

/// A TCP sender for `cfg`'s controller: held inline if it is Reno, the default (called
/// directly, in the sender's own block: S1-S3 2-5 % faster, docs/benchmarks.md; recognised
/// by its configuration's type), boxed otherwise (held inline, the others gained 0.4-1.2 %
/// of instructions for 0.6 MB more code).
fn sender(cfg: &Arc<TcpConfig>, rng: SimRng, bytes: Option<u64>) -> Box<dyn Agent> {
    let init = TcpSender::<Reno>::cc_init(cfg);
    let any: &dyn std::any::Any = cfg.cc.as_ref();
    if any.is::<RenoConfig>() {
        Box::new(TcpSender::new(cfg.clone(), Reno::new(init), rng, bytes))
    } else {
        Box::new(TcpSender::new(cfg.clone(), cfg.cc.build(init), rng, bytes))
    }
}

/// The `tcp` flow kind: one shared [`TcpConfig`] for every flow of a `[[flows]]` entry.
#[derive(Debug)]
pub struct TcpFlow {
    pub cfg: Arc<TcpConfig>,
}

impl FlowConfig for TcpFlow {
    fn kind(&self) -> &'static str {
        "tcp"
    }
    /// Several receivers (a multicast group): each is a TCP receiver that acknowledges to
    /// the sender; the sender sees every receiver's ACKs unless an element on the way
    /// combines them (the ATM Multicast Server's `ack = "min"`).
    fn build(&self, rng: SimRng, size: Option<u64>, receivers: usize) -> (Box<dyn Agent>, Vec<Box<dyn Agent>>) {
        let bytes = size.or(self.cfg.bytes);
        let rx = (0..receivers.max(1)).map(|_| Box::new(TcpReceiver::new(self.cfg.clone(), bytes)) as Box<dyn Agent>).collect();
        (sender(&self.cfg, rng, bytes), rx)
    }
    fn max_receivers(&self) -> usize {
        usize::MAX
    }
    fn params(&self) -> serde_json::Value {
        self.cfg.params()
    }
    fn sized(&self) -> bool {
        true
    }
    fn receiver_completes(&self) -> bool {
        true
    }
    fn largest_packet(&self) -> Option<u64> {
        Some(self.cfg.data_size(self.cfg.mss) as u64)
    }
}

impl TcpConfig {
    /// Every parameter as scenario values (times in seconds, `window` in segments).
    pub fn params(&self) -> serde_json::Value {
        let s = crate::units::to_secs;
        let (est, gran) = match self.rtt_mode {
            RttMode::Ns2 { tick } => ("ns2", tick),
            RttMode::Rfc6298 { granularity } => ("rfc6298", granularity),
        };
        let recovery = self.recovery.name();
        let mut v = serde_json::json!({
            "mss": self.mss,
            "timestamps": self.timestamps,
            "window": self.window_bytes as f64 / self.mss as f64,
            "initial_window": self.initial_window,
            "initial_ssthresh": self.initial_ssthresh,
            "delayed_ack": self.delayed_ack,
            "delack_count": self.delack_count,
            "delack_timeout": s(self.delack_timeout),
            "rtt_estimator": est,
            "clock_granularity": s(gran),
            "min_rto": s(self.min_rto),
            "max_rto": s(self.max_rto),
            "initial_rto": s(self.initial_rto),
            "recovery": recovery,
            "max_sack_blocks": self.max_sack_blocks,
            "dupthresh": self.dupthresh,
            "abc": self.abc,
            "bytes": self.bytes,
            "overhead": s(self.overhead),
            "prr": self.prr,
            "handshake": self.handshake,
            "headers": self.data_headers,
            "integer_ssthresh": self.integer_ssthresh,
            "exit_ack_grows": self.exit_ack_grows,
            "boot_time": self.boot_time.map(s),
            "bug_fix": self.bug_fix,
            "max_cwnd": self.max_cwnd,
            "limited_transmit": self.limited_transmit,
            "rto_clamp": if self.rto_clamp_after_backoff { "after_backoff" } else { "before_backoff" },
            "rto_backoff_reset": if self.backoff_reset_on_ack { "new_ack" } else { "rtt_sample" },
            "cc": self.cc.kind(),
            "cc_params": self.cc.params(),
        });
        // ns-2.35 details (a second literal: one would exceed the macro's recursion limit).
        let ns2 = serde_json::json!({
            "precision_reduce": self.precision_reduce,
            "halving": if self.ns2_halving { "ns2" } else { "rfc" },
            "partial_window_deflation": self.partial_window_deflation,
            "partial_ack_timer": if self.partial_ack_timer_every { "every" } else { "first" },
            "exit_recovery_fix": self.exit_recovery_fix,
            "recovery_max_burst": self.recovery_max_burst,
            "less_careful": self.less_careful,
            "sack1_pipe": if self.sack1_pipe_from_cwnd { "cwnd" } else { "outstanding" },
            "max_burst": self.max_burst,
            "sack_option_base": self.sack_option_base,
            "sack_blocks": if self.ns2_sack_blocks { "ns2" } else { "recent" },
            "rfc2581_immediate_ack": self.rfc2581_immediate_ack,
            "syn_immediate_ack": self.syn_immediate_ack,
            "delack_duplicates": self.delack_duplicates,
            "cwnd_growth": self.growth.name(),
        });
        if let (Some(m), serde_json::Value::Object(extra)) = (v.as_object_mut(), ns2) {
            m.extend(extra);
        }
        v
    }
}
