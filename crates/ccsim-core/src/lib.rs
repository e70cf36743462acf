//! # ccsim-core
//!
//! The engine of ccsim, a packet-level network simulator for transport-protocol and
//! queue-management research. Pure Rust, no Python dependency: build a [`scenario::Spec`]
//! from TOML (or a JSON tree), run a [`sim::Simulation`], read its columnar [`sim::Results`].
//!
//! ```
//! let toml = r#"
//! [simulation]
//! duration = "2s"
//! [dumbbell]
//! senders = 2
//! access_rate = "100Mbps"
//! access_delay = "1ms"
//! bottleneck_rate = "10Mbps"
//! bottleneck_delay = "10ms"
//! queue = { kind = "droptail", limit = 50 }
//! [[flows]]
//! kind = "cbr"
//! count = 2
//! src = "s{i}"
//! dst = "d{i}"
//! rate = "4Mbps"
//! "#;
//! let res = ccsim_core::sim::run_toml(toml).unwrap();
//! assert_eq!(res.flows.rows(), 2);
//! ```
//!
//! Modules by domain: [`engine`] (scheduler), [`net`] (nodes, links, routing),
//! [`queue`] (disciplines), [`loss`] (loss models), [`app`] (traffic sources),
//! [`agent`] (the endpoint trait), [`measure`] (statistics, series, tables),
//! [`scenario`] (schema and validator), [`sim`] (the run), [`mod@bench`] (benchmarks).

pub mod agent;
pub mod app;
pub mod atm;
pub mod bench;
pub mod cc;
pub mod config;
pub mod diffserv;
pub mod dist;
pub mod element;
pub mod engine;
pub mod hugepages;
pub mod loss;
pub mod measure;
pub mod net;
pub mod packet;
pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod trace;
pub mod udt;
pub mod units;

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
