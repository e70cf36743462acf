//! Flows created during a run release their state: 10⁵ sequential short flows run in the
//! memory of 10⁴ (peak live heap within 10 %, not counting the completion table's rows,
//! which are output: about 80 bytes per flow).

use ccsim_core::scenario::from_toml;
use ccsim_core::sim::Simulation;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Peak;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if n >= l.size() {
            let now = LIVE.fetch_add(n - l.size(), Ordering::Relaxed) + n - l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(l.size() - n, Ordering::Relaxed);
        }
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

/// Peak live heap during a run of `flows` sequential transfers (two closed-loop users,
/// each waiting 1 ms after each 2 KB TCP transfer), minus the completion rows' bytes;
/// and the flow slots used.
fn peak_for(flows: u64) -> (usize, usize, u64) {
    let toml = format!(
        r#"
nodes = ["a", "b"]
[simulation]
duration = "100000s"
seed = 1
[[links]]
a = "a"
b = "b"
rate = "100Mbps"
delay = "1ms"
[[generators]]
name = "seq"
src = "a"
dst = "b"
arrivals = {{ kind = "closed", users = 2, think = {{ kind = "fixed", value = "1ms" }} }}
size = {{ kind = "fixed", value = "2KB" }}
transport = {{ kind = "tcp" }}
max_flows = {flows}
"#
    );
    let spec = from_toml(&toml).unwrap();
    let opts = ccsim_core::sim::SimOptions { stop_when_idle: true, ..Default::default() };
    let mut sim = Simulation::with_options(spec, &opts).unwrap();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let stop = sim.run(None);
    assert_eq!(stop.name(), "idle");
    let peak = PEAK.load(Ordering::Relaxed) - base;
    (peak - sim.fct_rows_bytes(), sim.flow_slots(), flows)
}

#[test]
fn sequential_flows_run_in_flat_memory() {
    let (small, slots_small, _) = peak_for(10_000);
    let (large, slots_large, _) = peak_for(100_000);
    // Two users; a user's next flow may open (1 ms after its transfer completed at the
    // receiver) before the last ACK of the previous one reaches the sender: a few slots, reused.
    assert!(slots_large == slots_small && slots_large <= 4, "slots {slots_small} and {slots_large}");
    eprintln!("peak live heap: {small} B for 10^4 flows, {large} B for 10^5");
    assert!(large as f64 <= small as f64 * 1.10, "peak live heap {large} B for 10^5 flows against {small} B for 10^4");
}
