//! The per-packet path allocates nothing: running 4× longer (4× the packets) costs no
//! more heap allocations than the warm-up growth of the event heap, slab and queues.

use ccsim_core::scenario::from_toml;
use ccsim_core::sim::Simulation;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs_during_run(duration_s: f64) -> (u64, u64) {
    let toml = ccsim_core::bench::cbr_dumbbell_toml(8, 100e6, duration_s, 1.2);
    // RED on the bottleneck exercises the random-drop path too.
    let toml = toml.replace("queue = { kind = \"droptail\", limit = 100 }", "queue = { kind = \"red\", limit = 100 }");
    let mut sim = Simulation::new(from_toml(&toml).unwrap());
    let before = ALLOCS.load(Ordering::Relaxed);
    sim.run(None);
    let n = ALLOCS.load(Ordering::Relaxed) - before;
    let pkts: u64 = sim.flow_stats().iter().map(|f| f.sent_pkts).sum();
    (n, pkts)
}

#[test]
fn per_packet_path_is_allocation_free() {
    let (a1, p1) = allocs_during_run(1.0);
    let (a4, p4) = allocs_during_run(4.0);
    assert!(p4 > 3 * p1 && p1 > 5_000, "packets {p1} {p4}");
    // Only amortised growth (a handful of doublings, drop-site records) may differ.
    assert!(a4 <= a1 + 16, "allocations grew with packets: {a1} for {p1} packets, {a4} for {p4}");
}
