//! Node elements: components placed at a node that are not flow endpoints, yet hold
//! packets, run their own timers and act on the node's queues — shapers, policers and
//! markers, replicators, segmentation and reassembly, a multicast server.
//!
//! An element sees every packet that arrives at its node over a link and every packet the
//! node's own agents send, after the elements placed before it at the node and subject to
//! its placement filters (`from`, `to`, `flows`). For each packet it is handed (a [`Pkt`],
//! which it owns: the type system makes sure it does exactly one thing with it) it may
//! - pass it on ([`ElemCtx::pass`]): to the next element, then to routing or delivery;
//! - drop it with a named reason ([`ElemCtx::drop`]), counted like every other drop;
//! - keep it in its own storage and release it later, from a timer;
//! - rewrite its fields ([`ElemCtx::packet_mut`]: class, mark, ...);
//! - replicate it ([`ElemCtx::replicate`]) or originate new packets ([`ElemCtx::create`]);
//! - enqueue it on any of the node's links ([`ElemCtx::send_on`]);
//! - read the occupancy of the node's output queues and take packets matching a predicate
//!   out of them, with full accounting ([`ElemCtx::remove_from_queue`]).
//!
//! A node without elements behaves and costs exactly as before elements existed; the
//! links leaving a node with elements run event-driven (their queues are real, so elements
//! can read and change them), and no fast path skips over such a node.
//!
//! Each kind is one file with a typed configuration ([`ElementConfig`], also its factory)
//! and one line in the scenario's element-kind registry
//! (`ELEMENT_KINDS` in `scenario/elements.rs`; it lives there so that kinds in other
//! domain folders, such as `diffserv`'s markers, import this module and not the reverse).

pub mod bucket;
mod ctx;
pub mod policer;
pub mod replicate;
pub mod shaper;

pub use ctx::ElemCtx;

use crate::config::{Errors, Obj};
use crate::measure::Table;
use crate::packet::PktId;
use crate::queue::DropReason;
use crate::rng::SimRng;
use std::sync::Arc;

/// A packet handed to an element, owned by it until it passes, drops, stores or sends it
/// (not `Copy`: a packet cannot be forgotten or handled twice by accident). It remembers
/// the link it arrived on, so a packet released later is filtered as it arrived.
#[derive(Debug)]
#[must_use = "an element must pass, drop, send or keep every packet it is handed"]
pub struct Pkt {
    pub(crate) id: PktId,
    /// Incoming link direction, or [`LOCAL`] for a packet sent by the node's own agents
    /// or created by an element.
    pub(crate) from: u32,
}

/// `Pkt::from` of a packet that did not arrive over a link.
pub const LOCAL: u32 = u32::MAX;

impl Pkt {
    /// The link direction the packet arrived on (`None`: sent at this node).
    pub fn arrived_on(&self) -> Option<u32> {
        (self.from != LOCAL).then_some(self.from)
    }
}

/// A node element.
pub trait Element: Send {
    /// A packet reached this element. It must be passed, dropped, sent, or kept (and
    /// handled later).
    fn on_packet(&mut self, ctx: &mut ElemCtx, pkt: Pkt);
    /// One of this element's timers fired.
    fn on_timer(&mut self, _ctx: &mut ElemCtx, _kind: u16, _token: u32) {}
    /// Packets and bytes the element holds now.
    fn held(&self) -> (usize, u64) {
        (0, 0)
    }
    /// Names of state exposed to `element` traces (e.g. `tokens`).
    fn probe_names(&self) -> Vec<&'static str> {
        Vec::new()
    }
    /// Appends the current values of [`Element::probe_names`] (at time `now`).
    fn probe(&self, _now: crate::units::Time, _out: &mut Vec<f64>) {}
    /// Element-specific columns for the elements table, at the run's end `now`.
    fn summary(&self, _now: crate::units::Time) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// Warm-up ended at `now`: every counter of [`Element::summary`] restarts (a maximum
    /// restarts from the current value). Must not change the element's behaviour.
    fn restart_counters(&mut self, _now: crate::units::Time) {}
    /// Event logs (e.g. a shaper's departures), returned as series `element:<name>:<table>`.
    fn tables(&mut self) -> Vec<(&'static str, Table)> {
        Vec::new()
    }
}

/// An element kind's typed configuration, which is also its factory.
pub trait ElementConfig: Send + Sync + std::fmt::Debug {
    /// The scenario name (`kind = "..."`).
    fn kind(&self) -> &'static str;
    /// A new element, with its own random stream.
    fn build(&self, rng: SimRng) -> Box<dyn Element>;
    /// Every parameter, defaults resolved, as scenario values (for reports).
    fn params(&self) -> serde_json::Value;
    /// Whether the element copies a multicast group's packets down every branch of the
    /// group's tree at its node (validation wants one wherever a tree branches).
    fn replicates(&self) -> bool {
        false
    }
    /// Whether the element, where a group's tree branches, combines the receivers' ACKs
    /// into one stream for the sender (the Multicast Server's `ack = "min"`).
    fn combines_acks(&self) -> bool {
        false
    }
}

/// Parses an element kind's own fields.
pub type ElementParser = fn(&mut Obj, &mut Errors) -> Option<Arc<dyn ElementConfig>>;

/// The Rust example of docs/models/elements.md, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../../docs/models/elements.md")]
pub struct ElementsGuide;

/// Counters of one element.
#[derive(Clone, Debug, Default)]
pub struct ElemStats {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    /// Packets passed on, sent on a link, or released.
    pub departures: u64,
    pub departure_bytes: u64,
    pub drops: [u64; DropReason::COUNT],
    /// Copies made ([`ElemCtx::replicate`]) and packets created ([`ElemCtx::create`]).
    pub copies: u64,
    pub created: u64,
    /// Packets consumed without a drop (e.g. cells merged into a frame).
    pub consumed: u64,
    /// Most packets held at once.
    pub max_held: u64,
}

impl ElemStats {
    /// Restarts the counters (end of warm-up) for an element holding `held` packets.
    pub fn reset(&mut self, held: usize) {
        *self = ElemStats { max_held: held as u64, ..Default::default() };
    }
}
