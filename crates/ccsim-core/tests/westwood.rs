//! TCP Westwood on Paper C's topology: estimator accuracy and sample bookkeeping.

use ccsim_core::sim::{run_toml, Results};

fn scenario(p: f64, estimator: &str, seed: u64) -> String {
    format!(
        r#"
nodes = ["s", "r0", "r1", "d"]
[simulation]
duration = 40
seed = {seed}
[[links]]
a = "s"
b = "r0"
rate = "10Mbps"
delay = "1ms"
[[links]]
name = "bottleneck"
a = "r0"
b = "r1"
rate = "5Mbps"
delay = "35ms"
loss = {{ kind = "bernoulli", p = {p} }}
[[links]]
a = "r1"
b = "d"
rate = "10Mbps"
delay = "1ms"
[[flows]]
name = "w"
kind = "tcp"
src = "s"
dst = "d"
window = 1000
cc = "westwood"
cc_params = {{ estimator = "{estimator}", log_samples = true }}
[[traces]]
kind = "flow"
flow = "w"
interval = "100ms"
[[traces]]
kind = "drops"
link = "bottleneck"
"#
    )
}

fn series<'a>(res: &'a Results, name: &str) -> &'a ccsim_core::measure::Table {
    &res.series.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no series {name}")).1
}

fn summary(res: &Results, col: &str) -> f64 {
    match res.flows.f64(col) {
        Some(v) => v[0],
        None => res.flows.i64(col).unwrap_or_else(|| panic!("no column {col}"))[0] as f64,
    }
}

#[test]
fn every_estimator_is_accurate_at_low_loss() {
    for est in ["original", "westwood", "westwood+", "alg1", "alg2"] {
        let res = run_toml(&scenario(1e-4, est, 1)).unwrap();
        let s = series(&res, "flow:w");
        let (t, abe) = (s.f64("time").unwrap(), s.f64("abe_bps").unwrap());
        let after: Vec<f64> = t.iter().zip(abe).filter(|(t, _)| **t >= 10.0).map(|(_, a)| *a).collect();
        let mean = after.iter().sum::<f64>() / after.len() as f64;
        assert!((mean - 5e6).abs() <= 0.10 * 5e6, "{est}: mean ABE {mean}");
    }
}

#[test]
fn used_plus_filtered_samples_match_the_trace() {
    for est in ["original", "alg1", "alg2", "westwood+"] {
        let res = run_toml(&scenario(1e-2, est, 3)).unwrap();
        let log = series(&res, "flow:w:bw_samples");
        let used = log.f64("used").unwrap();
        let n_used = used.iter().filter(|u| **u > 0.0).count() as f64;
        assert_eq!(summary(&res, "bw_samples"), used.len() as f64, "{est}");
        assert_eq!(summary(&res, "bw_samples_used"), n_used, "{est}");
        assert_eq!(summary(&res, "bw_samples_filtered") + summary(&res, "bw_samples_used"), summary(&res, "bw_samples"));
        if est == "alg1" || est == "alg2" {
            assert!(n_used < used.len() as f64, "{est} filtered nothing at 1 % loss");
        } else {
            assert_eq!(n_used, used.len() as f64, "{est} filters nothing");
        }
        // The drop log holds exactly the bottleneck's wire losses.
        let drops = series(&res, "drops:r0->r1");
        assert_eq!(drops.rows() as f64, summary(&res, "wire_losses") + summary(&res, "queue_drops"));
    }
}

#[test]
fn westwood_keeps_more_goodput_than_newreno_under_random_loss() {
    let ww = run_toml(&scenario(1e-2, "original", 1)).unwrap();
    let nr = run_toml(
        &scenario(1e-2, "original", 1).replace("cc = \"westwood\"\ncc_params = { estimator = \"original\", log_samples = true }", ""),
    )
    .unwrap();
    assert!(
        summary(&ww, "goodput_bps") > 1.5 * summary(&nr, "goodput_bps"),
        "{} vs {}",
        summary(&ww, "goodput_bps"),
        summary(&nr, "goodput_bps")
    );
}
