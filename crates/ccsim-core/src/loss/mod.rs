//! Loss models behind one trait, attachable to a link direction. A loss model decides, for
//! each packet that finishes serialization, whether the wire loses it (the packet still
//! consumed its transmission time, as a corrupted frame would). Each model is one file with
//! its typed configuration ([`LossConfig`], also its factory) and one line in [`REGISTRY`].

pub mod bernoulli;
pub mod drop_list;
pub mod gilbert_elliott;
pub mod periodic;

pub use bernoulli::Bernoulli;
pub use drop_list::DropList;
pub use gilbert_elliott::GilbertElliott;

use crate::config::{Errors, Obj};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::units::Time;
use std::sync::Arc;

pub trait LossModel: Send {
    /// Whether this packet is lost.
    fn lose(&mut self, now: Time, pkt: &Packet) -> bool;
    /// Current state for traces (e.g. Gilbert-Elliott's bad state = 1).
    fn state(&self) -> f64 {
        0.0
    }
}

/// A loss model's typed configuration, which is also its factory (each link direction gets
/// its own instance and random stream).
pub trait LossConfig: Send + Sync + std::fmt::Debug {
    /// The scenario name of the model (`kind = "..."`).
    fn kind(&self) -> &'static str;
    fn build(&self, rng: SimRng) -> Box<dyn LossModel>;
    /// Every parameter, as scenario values (for reports).
    fn params(&self) -> serde_json::Value;
}

/// Parses a model's fields (the table beside `kind`).
pub type LossParser = fn(&mut Obj, &mut Errors) -> Option<Arc<dyn LossConfig>>;

/// Loss models by scenario name: one line per model.
pub const REGISTRY: &[(&str, LossParser)] = &[
    ("bernoulli", bernoulli::parse),
    ("gilbert_elliott", gilbert_elliott::parse),
    ("drop_list", drop_list::parse),
    ("periodic", periodic::parse),
];
