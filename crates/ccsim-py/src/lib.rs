//! Python bindings of ccsim-core (`ccsim._core`). Thin: scenario trees travel as JSON
//! text, results come back as raw little-endian column buffers (no Python object per
//! sample). The engine runs with the GIL released; a Rust panic becomes a Python
//! `RuntimeError`, never an abort.

// pyo3 0.22's #[pyfunction] expands `PyResult` returns into a conversion clippy calls useless.
#![allow(clippy::useless_conversion)]

use ccsim_core::measure::{Column, Table};
use ccsim_core::scenario::{self, ScenarioError};
use ccsim_core::sim::{Results, SimOptions, Simulation, StopReason};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The system allocator, advising transparent huge pages for the engine's memory once a
/// large world is built (see `ccsim_core::hugepages`; `CCSIM_HUGEPAGES=0` turns it off).
#[global_allocator]
static ALLOC: ccsim_core::hugepages::HugePageAlloc = ccsim_core::hugepages::HugePageAlloc;

create_exception!(_core, ScenarioInvalid, PyException, "A scenario failed validation; args[0] is a list of (path, message).");

fn invalid(errs: Vec<ScenarioError>) -> PyErr {
    let list: Vec<(String, String)> = errs.into_iter().map(|e| (e.path, e.message)).collect();
    ScenarioInvalid::new_err((list,))
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Runs `f`, turning a Rust panic into a Python RuntimeError.
fn guarded<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f))
        .map_err(|p| PyRuntimeError::new_err(format!("ccsim internal error (engine panic): {}", panic_message(p))))
}

fn parse_json(text: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| invalid(vec![ScenarioError { path: String::new(), message: format!("not valid JSON: {e}") }]))
}

/// TOML text -> JSON text of the same tree (raises ScenarioInvalid if not TOML).
#[pyfunction]
fn toml_to_json(text: &str) -> PyResult<String> {
    let v = scenario::toml_to_value(text).map_err(|e| invalid(vec![e]))?;
    Ok(v.to_string())
}

/// Validates a scenario given as JSON text; raises ScenarioInvalid with every error.
/// Returns a short description: name, nodes, links, flows, traces, duration_s.
#[pyfunction]
fn validate(py: Python<'_>, json: &str) -> PyResult<PyObject> {
    let v = parse_json(json)?;
    let spec = guarded(|| scenario::from_value(&v))?.map_err(invalid)?;
    let d = PyDict::new_bound(py);
    d.set_item("name", &spec.name)?;
    d.set_item("nodes", spec.nodes.len())?;
    d.set_item("links", spec.links.len())?;
    d.set_item("flows", spec.flows.len())?;
    d.set_item("elements", spec.elements.len())?;
    d.set_item("generators", spec.generators.len())?;
    d.set_item("traces", spec.traces.len() + spec.pcaps.len())?;
    d.set_item("duration_s", ccsim_core::units::to_secs(spec.duration))?;
    d.set_item("seed", spec.seed)?;
    let warnings: Vec<(String, String)> = spec.warnings.iter().map(|w| (w.path.clone(), w.message.clone())).collect();
    d.set_item("warnings", warnings)?;
    Ok(d.into_py(py))
}

/// Every component's resolved parameters of a scenario (JSON text in, JSON text out);
/// raises ScenarioInvalid if the scenario is invalid.
#[pyfunction]
fn params(json: &str) -> PyResult<String> {
    let v = parse_json(json)?;
    let spec = guarded(|| scenario::from_value(&v))?.map_err(invalid)?;
    Ok(spec.params().to_string())
}

/// Little-endian bytes of `v`, written straight into a new Python `bytes`.
fn le_bytes<'py, T: Copy, const N: usize>(py: Python<'py>, v: &[T], le: fn(T) -> [u8; N]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_bound_with(py, v.len() * N, |buf| {
        for (chunk, &x) in buf.chunks_exact_mut(N).zip(v) {
            chunk.copy_from_slice(&le(x));
        }
        Ok(())
    })
}

/// A table's columns as Python `bytes`, each column freed once copied (a run's result
/// tables and series are given up column by column, so that the engine's copy and
/// Python's are not both held whole: a `packets` trace of millions of events is hundreds
/// of megabytes each).
fn table_to_py(py: Python<'_>, t: Table) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty_bound(py);
    for (name, col) in t.columns {
        let item: PyObject = match col {
            Column::F64(v) => (name.as_str(), "f64", le_bytes(py, &v, f64::to_le_bytes)?).into_py(py),
            Column::I64(v) => (name.as_str(), "i64", le_bytes(py, &v, i64::to_le_bytes)?).into_py(py),
            Column::Str(v) => {
                // Arrow's string layout: the UTF-8 bytes end to end and n + 1 offsets as
                // i32, from which Python makes the array (no object per value).
                let bytes = v.bytes();
                if bytes.len() > i32::MAX as usize {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "result column '{name}' holds {} bytes of text, over Arrow's 2 GiB limit for a string column",
                        bytes.len()
                    )));
                }
                let offsets = le_bytes(py, v.starts(), |o: usize| (o as i32).to_le_bytes())?;
                let buffers = (v.len(), offsets, PyBytes::new_bound(py, bytes.as_bytes()));
                (name.as_str(), "str", buffers).into_py(py)
            }
        };
        out.append(item)?;
    }
    Ok(out)
}

fn results_to_py(py: Python<'_>, r: Results) -> PyResult<PyObject> {
    let d = PyDict::new_bound(py);
    let meta = PyDict::new_bound(py);
    meta.set_item("name", &r.name)?;
    meta.set_item("seed", r.seed)?;
    meta.set_item("sim_time_s", r.sim_time_s)?;
    meta.set_item("warmup_s", r.warmup_s)?;
    meta.set_item("events", r.events)?;
    meta.set_item("wall_s", r.wall_s)?;
    meta.set_item("stop", r.stop.name())?;
    meta.set_item("peak_packets", r.peak_packets)?;
    meta.set_item("taken_ahead", r.taken_ahead)?;
    meta.set_item("flows_opened", r.flows_opened)?;
    meta.set_item("stale_packets", r.stale_packets)?;
    meta.set_item("version", ccsim_core::VERSION)?;
    meta.set_item("build", BUILD)?;
    meta.set_item("params_json", &r.params)?;
    d.set_item("meta", meta)?;
    d.set_item("flows", table_to_py(py, r.flows)?)?;
    d.set_item("queues", table_to_py(py, r.queues)?)?;
    d.set_item("drops", table_to_py(py, r.drops)?)?;
    d.set_item("elements", table_to_py(py, r.elements)?)?;
    d.set_item("receivers", table_to_py(py, r.receivers)?)?;
    d.set_item("fct", table_to_py(py, r.fct)?)?;
    d.set_item("queue_classes", table_to_py(py, r.queue_classes)?)?;
    d.set_item("flow_classes", table_to_py(py, r.flow_classes)?)?;
    let series = PyList::empty_bound(py);
    for (name, t) in r.series {
        series.append((name, table_to_py(py, t)?))?;
    }
    d.set_item("series", series)?;
    d.set_item("files", r.files)?;
    d.set_item("warnings", r.warnings)?;
    Ok(d.into_py(py))
}

/// Validates and runs a scenario (JSON text); pcap files go to `output_dir`;
/// `per_hop_events` runs the event-per-stage reference implementation. The GIL is
/// released while the engine runs; Python signal handlers (Ctrl-C) are polled, and a
/// KeyboardInterrupt ends the run and is re-raised.
#[pyfunction]
#[pyo3(signature = (json, output_dir=None, per_hop_events=false))]
fn run(py: Python<'_>, json: &str, output_dir: Option<String>, per_hop_events: bool) -> PyResult<PyObject> {
    let v = parse_json(json)?;
    let spec = guarded(|| scenario::from_value(&v))?.map_err(invalid)?;
    let opts = SimOptions { output_dir: output_dir.map(std::path::PathBuf::from), per_hop_events, ..Default::default() };
    let mut sim = guarded(|| Simulation::with_options(spec, &opts))?.map_err(pyo3::exceptions::PyOSError::new_err)?;
    let mut pending: Option<PyErr> = None;
    let outcome = py.allow_threads(|| {
        guarded(|| {
            let t0 = std::time::Instant::now();
            let mut check = || match Python::with_gil(|py| py.check_signals()) {
                Ok(()) => false,
                Err(e) => {
                    pending = Some(e);
                    true
                }
            };
            let reason = sim.run_with(&mut check);
            let wall = t0.elapsed().as_secs_f64();
            sim.results(reason, wall)
        })
    })?;
    if let Some(e) = pending {
        if outcome.stop == StopReason::Interrupted {
            return Err(e);
        }
    }
    results_to_py(py, outcome)
}

fn bench_dict(py: Python<'_>, r: ccsim_core::bench::BenchResult) -> PyResult<PyObject> {
    let d = PyDict::new_bound(py);
    d.set_item("name", r.name)?;
    d.set_item("flows", r.flows)?;
    d.set_item("goodput_bps", r.goodput_bps)?;
    d.set_item("goodput_steady_bps", r.goodput_steady_bps)?;
    d.set_item("sim_s", r.sim_s)?;
    d.set_item("events", r.events)?;
    d.set_item("wall_s", r.wall_s)?;
    d.set_item("setup_s", r.setup_s)?;
    d.set_item("events_per_s", r.events_per_s)?;
    d.set_item("bottleneck_pkts", r.bottleneck_pkts)?;
    d.set_item("bottleneck_pkts_per_s", r.bottleneck_pkts_per_s)?;
    d.set_item("peak_packets", r.peak_packets)?;
    d.set_item("starts_ns", r.starts_ns)?;
    d.set_item("huge_pages", ccsim_core::hugepages::enabled())?;
    Ok(d.into_py(py))
}

fn bench_run(py: Python<'_>, name: &str, toml: String) -> PyResult<PyObject> {
    bench_run_with(py, name, toml, true)
}

fn bench_run_with(py: Python<'_>, name: &str, toml: String, steady: bool) -> PyResult<PyObject> {
    let r = py
        .allow_threads(|| guarded(|| ccsim_core::bench::measure_with(name, &toml, "bottleneck", steady)))?
        .map_err(PyRuntimeError::new_err)?;
    bench_dict(py, r)
}

/// Engine benchmark: CBR dumbbell. Returns a dict of measurements.
#[pyfunction]
#[pyo3(signature = (flows=10, bottleneck_bps=1e9, duration_s=5.0, load=1.05))]
fn bench_cbr(py: Python<'_>, flows: usize, bottleneck_bps: f64, duration_s: f64, load: f64) -> PyResult<PyObject> {
    bench_run(py, "cbr", ccsim_core::bench::cbr_dumbbell_toml(flows, bottleneck_bps, duration_s, load))
}

/// Engine benchmark of any TOML scenario (no result tables built in Python); `steady`
/// adds the steady-state goodput from a second run.
#[pyfunction]
#[pyo3(signature = (name, toml, steady=false))]
fn bench_toml(py: Python<'_>, name: &str, toml: String, steady: bool) -> PyResult<PyObject> {
    bench_run_with(py, name, toml, steady)
}

/// Engine benchmark: web-like traffic at scale (`flows` TCP transfers opened during the
/// run over a 10 Gb/s dumbbell, see `ccsim_core::bench::web_scenario`).
#[pyfunction]
#[pyo3(signature = (flows=100_000, slowdown=true))]
fn bench_web(py: Python<'_>, flows: u64, slowdown: bool) -> PyResult<PyObject> {
    let w = py.allow_threads(|| guarded(|| ccsim_core::bench::measure_web(flows, slowdown)))?.map_err(PyRuntimeError::new_err)?;
    let d = PyDict::new_bound(py);
    d.set_item("name", "web")?;
    d.set_item("flows", w.flows_opened)?;
    d.set_item("flows_completed", w.flows_completed)?;
    d.set_item("sim_s", w.sim_s)?;
    d.set_item("events", w.events)?;
    d.set_item("wall_s", w.run_wall_s)?;
    d.set_item("results_wall_s", w.results_wall_s)?;
    d.set_item("events_per_s", w.events as f64 / w.run_wall_s)?;
    d.set_item("flows_per_s", w.flows_per_s)?;
    d.set_item("bottleneck_pkts", w.bottleneck_pkts)?;
    d.set_item("bottleneck_pkts_per_s", w.bottleneck_pkts_per_s)?;
    d.set_item("peak_packets", w.peak_packets)?;
    d.set_item("flow_slots", w.flow_slots)?;
    d.set_item("median_slowdown", w.median_slowdown)?;
    d.set_item("peak_rss_run_kb", w.peak_rss_run_kb)?;
    d.set_item("peak_rss_results_kb", w.peak_rss_results_kb)?;
    d.set_item("goodput_bps", f64::NAN)?;
    d.set_item("huge_pages", ccsim_core::hugepages::enabled())?;
    Ok(d.into_py(py))
}

/// Benchmark scenario TOML by name (S1..S4), or None.
#[pyfunction]
fn bench_scenario(name: &str) -> Option<String> {
    ccsim_core::bench::tcp_scenario(name)
}

/// Engine benchmark: a TCP scenario S1..S4. Returns a dict of measurements.
#[pyfunction]
fn bench_tcp(py: Python<'_>, name: &str) -> PyResult<PyObject> {
    let toml = ccsim_core::bench::tcp_scenario(name).ok_or_else(|| {
        invalid(vec![ScenarioError { path: "scenario".into(), message: format!("unknown benchmark '{name}'; known: S1, S2, S3, S4, cbr") }])
    })?;
    bench_run(py, name, toml)
}

/// How this extension was compiled, set by `.ci/wheel` through the `CCSIM_BUILD`
/// variable: `"pgo"` (profile-guided, the wheel a package index serves), `"pgo-training"`
/// (instrumented, for the training run only), or `"plain"` (any other build, e.g.
/// `pip install .` from source). Reported by `ccsim --version`, results' `meta` and
/// `ccsim bench`, so that every speed figure says which build it measured.
const BUILD: &str = match option_env!("CCSIM_BUILD") {
    Some(b) => b,
    None => "plain",
};

/// Whether the engine's memory is advised onto transparent huge pages (on from the first
/// world of at least 1 000 flows, or with traffic generators, that the process builds;
/// never with `CCSIM_HUGEPAGES=0` or off Linux).
#[pyfunction]
fn huge_pages() -> bool {
    ccsim_core::hugepages::enabled()
}

/// Test hook: panics inside the same guard `run` uses, to prove panics never abort.
#[pyfunction]
fn _panic_for_test() -> PyResult<()> {
    guarded(|| panic!("deliberate test panic"))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    ccsim_core::hugepages::install();
    m.add("__version__", ccsim_core::VERSION)?;
    m.add("__build__", BUILD)?;
    m.add_function(wrap_pyfunction!(huge_pages, m)?)?;
    m.add("ScenarioInvalid", m.py().get_type_bound::<ScenarioInvalid>())?;
    m.add_function(wrap_pyfunction!(toml_to_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(params, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(bench_cbr, m)?)?;
    m.add_function(wrap_pyfunction!(bench_tcp, m)?)?;
    m.add_function(wrap_pyfunction!(bench_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(bench_toml, m)?)?;
    m.add_function(wrap_pyfunction!(bench_web, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
