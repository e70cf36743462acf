//! `cargo run --release -p ccsim-core --example bench [flows] [bottleneck_bps] [seconds]`
//! Runs the CBR dumbbell engine benchmark from pure Rust.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flows: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let rate: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1e9);
    let secs: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let toml = ccsim_core::bench::cbr_dumbbell_toml(flows, rate, secs, 1.05);
    let r = ccsim_core::bench::measure("cbr-dumbbell", &toml, "bottleneck").expect("valid bench scenario");
    println!(
        "{}: {} flows, {:.0} bit/s, {} s simulated: {} events in {:.3} s wall = {:.2} M events/s; {} bottleneck packets = {:.2} M pkts/s; peak packets {}",
        r.name, flows, rate, r.sim_s, r.events, r.wall_s, r.events_per_s / 1e6, r.bottleneck_pkts, r.bottleneck_pkts_per_s / 1e6, r.peak_packets
    );
}
