//! Engine benchmarks from pure Rust.
//!
//! `cargo run --release -p ccsim-core --example bench -- S1 S2 S3` (TCP scenarios), or
//! `... --example bench -- cbr [flows] [bottleneck_bps] [seconds]` (CBR dumbbell), or
//! `... --example bench -- toml FILE [BOTTLENECK]` (any scenario, one run: for profilers).

/// `println!` that ends quietly when stdout is closed (`bench ... | head`) instead of
/// panicking on the broken pipe.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write;
        if writeln!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(0);
        }
    }};
}

fn report(r: &ccsim_core::bench::BenchResult) {
    out!(
        "{}: {} flows, {} s simulated: {} events in {:.3} s = {:.2} M events/s; {} bottleneck packets = {:.2} M pkts/s; goodput {:.1} Mb/s; peak packets {}; set-up {:.4} s",
        r.name, r.flows, r.sim_s, r.events, r.wall_s, r.events_per_s / 1e6, r.bottleneck_pkts, r.bottleneck_pkts_per_s / 1e6, r.goodput_bps / 1e6, r.peak_packets, r.setup_s
    );
}

#[global_allocator]
static ALLOC: ccsim_core::hugepages::HugePageAlloc = ccsim_core::hugepages::HugePageAlloc;

fn main() {
    ccsim_core::hugepages::install();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("web") {
        let flows: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
        let slowdown = !args.iter().any(|a| a == "--no-slowdown");
        let w = ccsim_core::bench::measure_web(flows, slowdown).expect("valid bench scenario");
        out!(
            "web: {} flows opened ({} completed) in {:.3} s simulated; run {:.3} s = {:.0} flows/s, {} bottleneck packets = {:.2} M pkts/s, {} events; results {:.3} s; {} flow slots, peak packets {}, median slowdown {:.3}; peak RSS {:.1} MB after the run, {:.1} MB with the result tables",
            w.flows_opened, w.flows_completed, w.sim_s, w.run_wall_s, w.flows_per_s, w.bottleneck_pkts, w.bottleneck_pkts_per_s / 1e6, w.events, w.results_wall_s, w.flow_slots, w.peak_packets, w.median_slowdown, w.peak_rss_run_kb as f64 / 1024.0, w.peak_rss_results_kb as f64 / 1024.0
        );
        return;
    }
    if args.first().map(String::as_str) == Some("cbr") {
        let flows: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
        let rate: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1e9);
        let secs: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5.0);
        let toml = ccsim_core::bench::cbr_dumbbell_toml(flows, rate, secs, 1.05);
        report(&ccsim_core::bench::measure("cbr-dumbbell", &toml, "bottleneck").expect("valid bench scenario"));
        return;
    }
    if args.first().map(String::as_str) == Some("toml") {
        let file = args.get(1).expect("toml FILE [BOTTLENECK]");
        let toml = std::fs::read_to_string(file).expect("readable scenario file");
        let bottleneck = args.get(2).map(String::as_str).unwrap_or("bottleneck");
        report(&ccsim_core::bench::measure_with(file, &toml, bottleneck, false).expect("valid scenario"));
        out!("peak RSS {} kB", ccsim_core::bench::peak_rss_kb());
        return;
    }
    let names: Vec<String> = if args.is_empty() { vec!["S1".into(), "S2".into(), "S3".into()] } else { args };
    for n in names {
        match ccsim_core::bench::tcp_scenario(&n) {
            Some(t) => report(&ccsim_core::bench::measure(&n, &t, "bottleneck").expect("valid bench scenario")),
            None => eprintln!("unknown scenario {n} (S1-S4, or cbr)"),
        }
    }
}
