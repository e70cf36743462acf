//! A token-bucket shaper with Linux `tbf` semantics: packets leave in FIFO order, each as
//! soon as the bucket (depth `burst` bytes, filling at `rate`, full at the start) holds its
//! size in tokens; packets that find the shaper's queue at `limit` bytes are dropped
//! (`buffer`), and a packet larger than `burst` can never conform and is dropped
//! (`policed`, Linux's "reshape fail"). Over any interval of length t the bytes released
//! never exceed `rate·t + burst`.

use super::bucket::TokenBucket;
use super::{ElemCtx, Element, ElementConfig, Pkt};
use crate::config::{Errors, Obj};
use crate::measure::{Column, Table};
use crate::queue::DropReason;
use crate::rng::SimRng;
use crate::units::Time;
use std::collections::VecDeque;
use std::sync::Arc;

const RELEASE: u16 = 0;

/// `kind = "shaper"`: `rate` (required), `burst` (bucket depth, bytes; required), `limit`
/// (queue, bytes; default 10 × burst), `log` (default false: record every release as the
/// series `element:<name>:departures`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ShaperConfig {
    pub rate_bps: u64,
    pub burst: u64,
    pub limit: u64,
    pub log: bool,
}

impl ElementConfig for ShaperConfig {
    fn kind(&self) -> &'static str {
        "shaper"
    }
    fn build(&self, _rng: SimRng) -> Box<dyn Element> {
        Box::new(Shaper {
            bucket: TokenBucket::new(self.rate_bps, self.burst),
            limit: self.limit,
            q: VecDeque::new(),
            qbytes: 0,
            pending: None,
            token: 0,
            log: self.log.then(Vec::new),
            max_qbytes: 0,
        })
    }
    fn params(&self) -> serde_json::Value {
        crate::config::params_of(self)
    }
}

/// Parses `rate`, `burst`, `limit`, `log`.
pub fn parse(o: &mut Obj, errs: &mut Errors) -> Option<Arc<dyn ElementConfig>> {
    let rate = o.req_rate("rate", errs);
    let burst = o.req_bytes("burst", errs);
    let limit = o.bytes("limit", errs);
    let log = o.boolean("log", errs).unwrap_or(false);
    let (rate_bps, burst) = (rate?, burst?);
    Some(Arc::new(ShaperConfig { rate_bps, burst, limit: limit.unwrap_or(burst.saturating_mul(10)), log }))
}

pub struct Shaper {
    bucket: TokenBucket,
    limit: u64,
    q: VecDeque<(Pkt, u32)>,
    qbytes: u64,
    /// Time of the pending release timer.
    pending: Option<Time>,
    token: u32,
    log: Option<Vec<(Time, u32)>>,
    max_qbytes: u64,
}

impl Shaper {
    fn release(&mut self, ctx: &mut ElemCtx, p: Pkt, size: u32) {
        self.bucket.take(size);
        if let Some(l) = self.log.as_mut() {
            l.push((ctx.now, size));
        }
        ctx.pass(p);
    }

    /// Releases every head packet that conforms now, then arms the timer for the next.
    fn drain(&mut self, ctx: &mut ElemCtx) {
        self.bucket.refill(ctx.now);
        while let Some(&(_, size)) = self.q.front() {
            if !self.bucket.conforms(size) {
                let at = self.bucket.ready_at(size);
                if self.pending != Some(at) {
                    self.token = self.token.wrapping_add(1);
                    self.pending = Some(at);
                    ctx.timer_at(at, RELEASE, self.token);
                }
                return;
            }
            let (p, size) = self.q.pop_front().unwrap();
            self.qbytes -= size as u64;
            self.release(ctx, p, size);
        }
        self.pending = None;
    }
}

impl Element for Shaper {
    fn on_packet(&mut self, ctx: &mut ElemCtx, p: Pkt) {
        let size = ctx.packet(&p).size;
        if !self.bucket.fits(size) {
            return ctx.drop(p, DropReason::Policed);
        }
        self.bucket.refill(ctx.now);
        if self.q.is_empty() && self.bucket.conforms(size) {
            return self.release(ctx, p, size);
        }
        if self.qbytes + size as u64 > self.limit {
            return ctx.drop(p, DropReason::Buffer);
        }
        self.q.push_back((p, size));
        self.qbytes += size as u64;
        self.max_qbytes = self.max_qbytes.max(self.qbytes);
        self.drain(ctx);
    }
    fn on_timer(&mut self, ctx: &mut ElemCtx, kind: u16, token: u32) {
        if kind == RELEASE && token == self.token {
            self.pending = None;
            self.drain(ctx);
        }
    }
    fn held(&self) -> (usize, u64) {
        (self.q.len(), self.qbytes)
    }
    fn probe_names(&self) -> Vec<&'static str> {
        vec!["tokens_bytes", "queue_pkts", "queue_bytes"]
    }
    fn probe(&self, now: Time, out: &mut Vec<f64>) {
        out.extend([self.bucket.bytes_at(now), self.q.len() as f64, self.qbytes as f64]);
    }
    fn summary(&self, _now: crate::units::Time) -> Vec<(&'static str, f64)> {
        vec![("max_queue_bytes", self.max_qbytes as f64)]
    }
    fn restart_counters(&mut self, _now: Time) {
        self.max_qbytes = self.qbytes;
    }
    fn tables(&mut self) -> Vec<(&'static str, Table)> {
        let Some(log) = self.log.take() else { return Vec::new() };
        let mut t = Table::default();
        t.push("time", Column::F64(log.iter().map(|&(t, _)| crate::units::to_secs(t)).collect()));
        t.push("bytes", Column::I64(log.iter().map(|&(_, b)| b as i64).collect()));
        vec![("departures", t)]
    }
}
