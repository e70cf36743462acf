//! The `marker` node element: colours each packet with a meter and writes the colour's code
//! point, one meter state per key (a flow, or a source/destination node pair as ns-2's
//! policy table). With `meter = "data_buffer"` (Paper A's proposal) a packet that finds no
//! token waits in a FIFO of `buffer` packets: when the head's tokens have accrued it leaves
//! IN; when an arrival finds the FIFO full the head leaves at once OUT (without tokens) and
//! the arrival joins the tail. Packets never overtake each other within a key. Packets
//! addressed to the marker's own node (an ACK reaching a sender) pass unmetered.

use super::meters::{Meter, SrTcm, Tsw};
use super::Color;
use crate::config::{Errors, Obj};
use crate::element::bucket::TokenBucket;
use crate::element::{ElemCtx, Element, ElementConfig, Pkt};
use crate::rng::SimRng;
use crate::units::{Time, SEC};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

const RELEASE: u16 = 0;

/// `kind = "marker"`: `meter` (`token_bucket` | `data_buffer` | `tsw2cm` | `tsw3cm` | `srtcm`
/// | `trtcm` | `out`), `key` (`flow` | `pair`, default `flow`), `rate` (CIR), `depth` (bytes)
/// or `rtt` (depth = rate × rtt, Paper A's), `buffer` (packets, data_buffer), `peak_rate`
/// and `peak_burst` (trtcm; tsw3cm's `peak_rate`), `burst` and `excess_burst` (srtcm; trtcm's
/// `burst` is CBS), `window` (tsw2cm, default 1 s), `color_aware` (srtcm, trtcm),
/// `initial_tokens` (token_bucket, data_buffer; default full), `strict` (token_bucket), code
/// points `green` (AF11), `yellow` (AF12), `red` (AF13; two-colour meters: AF12, OUT).
#[derive(Clone, Debug, serde::Serialize)]
pub struct MarkerConfig {
    pub meter: &'static str,
    pub key: &'static str,
    pub rate_bps: u64,
    pub depth: u64,
    pub buffer: usize,
    pub peak_rate_bps: u64,
    pub peak_burst: u64,
    pub excess_burst: u64,
    pub window_s: f64,
    pub color_aware: bool,
    /// Token bucket: tokens at the start (bytes; default: full).
    pub initial_tokens: Option<u64>,
    /// Token bucket: green only if the bucket holds more than the packet (ns-2's tbtagger).
    pub strict: bool,
    pub green: u8,
    pub yellow: u8,
    pub red: u8,
}

impl MarkerConfig {
    fn meter(&self) -> Meter {
        match self.meter {
            "token_bucket" | "data_buffer" => {
                let b = TokenBucket::new(self.rate_bps, self.depth);
                Meter::TokenBucket(self.initial_tokens.map_or(b.clone(), |t| b.with_tokens(t)), self.strict)
            }
            "tsw2cm" => Meter::Tsw2 { est: Tsw::new(self.rate_bps as f64, self.window_s), cir: self.rate_bps as f64 },
            "tsw3cm" => Meter::Tsw3 { est: Tsw::new(self.rate_bps as f64, 1.0), cir: self.rate_bps as f64, pir: self.peak_rate_bps as f64 },
            "srtcm" => Meter::SrTcm(SrTcm::new(self.rate_bps as f64, self.depth as f64, self.excess_burst as f64, self.color_aware)),
            "trtcm" => Meter::TrTcm {
                p: TokenBucket::new(self.peak_rate_bps, self.peak_burst),
                c: TokenBucket::new(self.rate_bps, self.depth),
                aware: self.color_aware,
            },
            _ => Meter::Out,
        }
    }

    fn dscp(&self, c: Color) -> u8 {
        match c {
            Color::Green => self.green,
            Color::Yellow => self.yellow,
            Color::Red => self.red,
        }
    }
}

impl ElementConfig for MarkerConfig {
    fn kind(&self) -> &'static str {
        "marker"
    }
    fn build(&self, rng: SimRng) -> Box<dyn Element> {
        Box::new(Marker {
            cfg: self.clone(),
            keys: HashMap::new(),
            states: Vec::new(),
            rng,
            counts: [0; 3],
            held: 0,
            max_held: 0,
            lost_before: 0.0,
        })
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

const METERS: [&str; 7] = ["token_bucket", "data_buffer", "tsw2cm", "tsw3cm", "srtcm", "trtcm", "out"];

pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn ElementConfig>> {
    let meter = o.choice("meter", &METERS, None, errs)?;
    let key = o.choice("key", &["flow", "pair"], Some("flow"), errs)?;
    let needs_rate = meter != "out";
    let rate = if needs_rate { o.req_rate("rate", errs) } else { o.rate("rate", errs).or(Some(0)) };
    let depth = o.bytes("depth", errs);
    let burst = o.bytes("burst", errs);
    let rtt = o.time("rtt", errs);
    let buffer = o.int("buffer", 0, 1_000_000, errs);
    let peak_rate = o.rate("peak_rate", errs);
    let peak_burst = o.bytes("peak_burst", errs);
    let excess_burst = o.bytes("excess_burst", errs);
    let window = o.time("window", errs);
    let color_aware = o.boolean("color_aware", errs).unwrap_or(false);
    let initial_tokens = o.bytes("initial_tokens", errs);
    let strict = o.boolean("strict", errs).unwrap_or(false);
    let three = matches!(meter, "tsw3cm" | "srtcm" | "trtcm");
    let green = o.dscp("green", errs).unwrap_or(10);
    let yellow = o.dscp("yellow", errs).unwrap_or(12);
    let red = o.dscp("red", errs).unwrap_or(if three { 14 } else { 12 });
    let rate_bps = rate?;
    let mut ok = true;
    // A field given but refused (its error already said why) is not also missing.
    // `fields`: the field reported, then any that stand for it.
    let mut need = |cond: bool, fields: &[&str], what: &str, errs: &mut Errors| {
        if !cond {
            ok = false;
            if !fields.iter().any(|f| o.has(f)) {
                errs.add(o.at(fields[0]), format!("missing required field for meter = \"{meter}\" ({what})"));
            }
        }
    };
    // Bucket depth: `depth` (or `burst`), else `rate × rtt`.
    let depth = depth.or(burst).or(rtt.map(|t| (rate_bps as u128 * t as u128 / 8 / SEC as u128) as u64));
    if matches!(meter, "token_bucket" | "data_buffer" | "srtcm" | "trtcm") {
        need(depth.is_some(), &["depth", "burst", "rtt"], "the bucket depth in bytes, or rtt: depth = rate × rtt", errs);
    }
    if meter == "data_buffer" {
        need(buffer.is_some(), &["buffer"], "packets the data buffer holds", errs);
    }
    if matches!(meter, "tsw3cm" | "trtcm") {
        need(peak_rate.is_some(), &["peak_rate"], "the peak rate", errs);
    }
    if meter == "trtcm" {
        need(peak_burst.is_some(), &["peak_burst"], "the peak bucket's depth in bytes", errs);
    }
    if meter == "srtcm" {
        need(excess_burst.is_some(), &["excess_burst"], "the excess bucket's depth in bytes", errs);
    }
    if let (Some(p), true) = (peak_rate, matches!(meter, "tsw3cm" | "trtcm")) {
        if p < rate_bps {
            errs.add(o.at("peak_rate"), "must be at least rate (CIR)");
            ok = false;
        }
    }
    // A field the meter does not read is refused, not silently ignored.
    const APPLIES: [(&str, &[&str]); 10] = [
        ("depth", &["token_bucket", "data_buffer", "srtcm", "trtcm"]),
        ("burst", &["token_bucket", "data_buffer", "srtcm", "trtcm"]),
        ("rtt", &["token_bucket", "data_buffer", "srtcm", "trtcm"]),
        ("buffer", &["data_buffer"]),
        ("peak_rate", &["tsw3cm", "trtcm"]),
        ("peak_burst", &["trtcm"]),
        ("excess_burst", &["srtcm"]),
        ("window", &["tsw2cm"]),
        ("color_aware", &["srtcm", "trtcm"]),
        ("initial_tokens", &["token_bucket", "data_buffer"]),
    ];
    for (field, meters) in APPLIES {
        // `color_aware = false` is the default: harmless with any meter (a sweep over
        // meters may share it).
        let default = field == "color_aware" && !color_aware;
        if o.has(field) && !default && !meters.contains(&meter) {
            let names: Vec<String> = meters.iter().map(|m| format!("\"{m}\"")).collect();
            errs.add(o.at(field), format!("applies to meter = {} only", names.join(" or ")));
            ok = false;
        }
    }
    let depths: Vec<&str> = ["depth", "burst", "rtt"].into_iter().filter(|k| o.has(k)).collect();
    if depths.len() > 1 {
        errs.add(o.at(depths[1]), format!("give one of depth, burst and rtt (the bucket's depth), not {}", depths.join(" and ")));
        ok = false;
    }
    if strict && meter != "token_bucket" {
        errs.add(o.at("strict"), "applies to meter = \"token_bucket\" only");
        ok = false;
    }
    if !ok {
        return None;
    }
    Some(Arc::new(MarkerConfig {
        meter,
        key,
        rate_bps,
        depth: depth.unwrap_or(0),
        buffer: buffer.unwrap_or(0) as usize,
        peak_rate_bps: peak_rate.unwrap_or(rate_bps),
        peak_burst: peak_burst.unwrap_or(0),
        excess_burst: excess_burst.unwrap_or(0),
        window_s: window.map(crate::units::to_secs).unwrap_or(1.0),
        color_aware,
        initial_tokens,
        strict,
        green,
        yellow,
        red,
    }))
}

struct KeyState {
    meter: Meter,
    /// Data buffer: packets waiting for tokens, with their sizes.
    buf: VecDeque<(Pkt, u32)>,
    timer: Option<Time>,
}

pub struct Marker {
    cfg: MarkerConfig,
    keys: HashMap<u64, u32>,
    states: Vec<KeyState>,
    rng: SimRng,
    /// Packets coloured green, yellow, red.
    counts: [u64; 3],
    held: usize,
    max_held: usize,
    /// Token bytes lost before the end of warm-up (the trace counts from there).
    lost_before: f64,
}

impl Marker {
    /// The token buckets' bytes at `now`, and the token bytes they have lost (arriving at
    /// a full bucket) since the start.
    fn buckets(&self, now: Time) -> (f64, f64) {
        let (mut tokens, mut lost) = (0.0, 0.0);
        for s in &self.states {
            if let Meter::TokenBucket(b, _) = &s.meter {
                tokens += b.bytes_at(now);
                lost += b.lost_bytes_at(now);
            }
        }
        (tokens, lost)
    }

    fn state(&mut self, key: u64) -> u32 {
        if let Some(&i) = self.keys.get(&key) {
            return i;
        }
        let i = self.states.len() as u32;
        self.states.push(KeyState { meter: self.cfg.meter(), buf: VecDeque::new(), timer: None });
        self.keys.insert(key, i);
        i
    }

    fn out(&mut self, ctx: &mut ElemCtx, p: Pkt, c: Color) {
        self.counts[c as usize] += 1;
        ctx.packet_mut(&p).dscp = self.cfg.dscp(c);
        ctx.pass(p);
    }

    /// Data buffer: releases every head packet whose tokens have accrued, then arms the timer
    /// for the next head.
    fn drain(&mut self, ctx: &mut ElemCtx, i: u32) {
        loop {
            let s = &mut self.states[i as usize];
            let Meter::TokenBucket(b, _) = &mut s.meter else { return };
            b.refill(ctx.now);
            let Some(&(_, size)) = s.buf.front() else {
                s.timer = None;
                return;
            };
            if !b.fits(size) {
                // Never conforms: out at once, keeping the order.
                let (p, _) = s.buf.pop_front().unwrap();
                self.held -= 1;
                self.out(ctx, p, Color::Red);
                continue;
            }
            if !b.conforms(size) {
                let at = b.ready_at(size);
                if s.timer != Some(at) {
                    s.timer = Some(at);
                    ctx.timer_at(at, RELEASE, i);
                }
                return;
            }
            b.take(size);
            let (p, _) = s.buf.pop_front().unwrap();
            self.held -= 1;
            self.out(ctx, p, Color::Green);
        }
    }
}

impl Element for Marker {
    fn on_packet(&mut self, ctx: &mut ElemCtx, p: Pkt) {
        let pk = ctx.packet(&p);
        if ctx.addressed_here(pk.dst) {
            // Delivered here (an ACK reaching a sender): not traffic the edge marks.
            return ctx.pass(p);
        }
        let (size, pre) = (pk.size, Color::of_dscp(pk.dscp));
        let key = if self.cfg.key == "pair" { (pk.src as u64) << 32 | pk.dst as u64 } else { pk.flow as u64 };
        let i = self.state(key);
        if self.cfg.meter != "data_buffer" {
            let c = self.states[i as usize].meter.color(ctx.now, size, pre, &mut self.rng);
            return self.out(ctx, p, c);
        }
        let cap = self.cfg.buffer;
        let s = &mut self.states[i as usize];
        if s.buf.is_empty() {
            let c = s.meter.color(ctx.now, size, pre, &mut self.rng);
            if c == Color::Green || cap == 0 {
                return self.out(ctx, p, c);
            }
            // No token: it waits (the meter took nothing).
        } else if s.buf.len() >= cap {
            let (head, _) = s.buf.pop_front().unwrap();
            self.held -= 1;
            self.out(ctx, head, Color::Red);
        }
        let s = &mut self.states[i as usize];
        s.buf.push_back((p, size));
        self.held += 1;
        self.max_held = self.max_held.max(self.held);
        self.drain(ctx, i);
    }

    fn on_timer(&mut self, ctx: &mut ElemCtx, kind: u16, token: u32) {
        if kind == RELEASE && (token as usize) < self.states.len() && self.states[token as usize].timer == Some(ctx.now) {
            self.states[token as usize].timer = None;
            self.drain(ctx, token);
        }
    }

    fn held(&self) -> (usize, u64) {
        let bytes = self.states.iter().flat_map(|s| s.buf.iter()).map(|&(_, b)| b as u64).sum();
        (self.held, bytes)
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["tokens_bytes", "lost_tokens_bytes", "buffer_pkts", "green", "yellow", "red"]
    }

    fn probe(&self, now: Time, out: &mut Vec<f64>) {
        let (tokens, lost) = self.buckets(now);
        out.extend([
            tokens,
            lost - self.lost_before,
            self.held as f64,
            self.counts[0] as f64,
            self.counts[1] as f64,
            self.counts[2] as f64,
        ]);
    }

    fn summary(&self, now: Time) -> Vec<(&'static str, f64)> {
        vec![
            ("lost_token_bytes", self.buckets(now).1 - self.lost_before),
            ("green_pkts", self.counts[0] as f64),
            ("yellow_pkts", self.counts[1] as f64),
            ("red_pkts", self.counts[2] as f64),
            ("max_buffer_pkts", self.max_held as f64),
            ("keys", self.states.len() as f64),
        ]
    }

    fn restart_counters(&mut self, now: Time) {
        self.counts = [0; 3];
        self.max_held = self.held;
        self.lost_before = self.buckets(now).1;
    }
}
