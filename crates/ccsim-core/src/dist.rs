//! Probability distributions for traffic models (flow sizes, think times, inter-arrival
//! times), parsed from a scenario table and sampled from a component's own random stream
//! with platform-independent arithmetic (`libm`).
//!
//! `{ kind = "fixed", value = ... }`, `{ kind = "exponential", mean = ... }`,
//! `{ kind = "pareto", mean = ..., shape = 1.2 }` (type I, scale `mean·(shape−1)/shape`),
//! `{ kind = "lognormal", mean = ..., sigma = 1.0 }` (σ of the underlying normal; μ set so
//! that the mean is `mean`), `{ kind = "uniform", min = ..., max = ... }`,
//! `{ kind = "empirical", cdf = [[x, P(X ≤ x)], ...] }` or `file = "cdf.csv"` (two columns:
//! value, cumulative probability; sampled by inverse transform with linear interpolation
//! between points, as ns-2's `RandomVariable/Empirical` with `interpolation_ 1`).
//!
//! Values are read in the unit of the quantity they describe: sizes (`"50KB"`, or bytes)
//! or times (`"1s"`, or seconds), chosen by the caller.

use crate::config::{show, Errors, Obj};
use crate::rng::{exponential, pareto, uniform_open0, Rng, SimRng};
use serde_json::Value;

/// What a distribution's values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// Bytes (values as sizes: `"50KB"` or a number of bytes).
    Bytes,
    /// Seconds (values as times: `"100ms"` or a number of seconds).
    Seconds,
}

/// A distribution of non-negative values.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Dist {
    Fixed {
        value: f64,
    },
    Exponential {
        mean: f64,
    },
    Pareto {
        mean: f64,
        shape: f64,
    },
    Lognormal {
        mean: f64,
        sigma: f64,
    },
    Uniform {
        min: f64,
        max: f64,
    },
    /// Points `(x, P(X ≤ x))`, increasing in both.
    Empirical {
        cdf: Vec<(f64, f64)>,
    },
}

impl Dist {
    /// One draw.
    pub fn sample(&self, rng: &mut SimRng) -> f64 {
        match self {
            Dist::Fixed { value } => *value,
            Dist::Exponential { mean } => exponential(rng, *mean),
            Dist::Pareto { mean, shape } => pareto(rng, *mean, *shape),
            Dist::Lognormal { mean, sigma } => {
                let mu = libm::log(*mean) - sigma * sigma / 2.0;
                libm::exp(mu + sigma * normal(rng))
            }
            Dist::Uniform { min, max } => min + (max - min) * rng.gen::<f64>(),
            Dist::Empirical { cdf } => {
                let u = rng.gen::<f64>();
                let i = cdf.partition_point(|&(_, p)| p < u);
                if i == 0 {
                    return cdf[0].0;
                }
                if i >= cdf.len() {
                    return cdf[cdf.len() - 1].0;
                }
                let ((x0, p0), (x1, p1)) = (cdf[i - 1], cdf[i]);
                if p1 > p0 {
                    x0 + (x1 - x0) * (u - p0) / (p1 - p0)
                } else {
                    x1
                }
            }
        }
    }

    /// The distribution's mean (for reports and load calculations).
    pub fn mean(&self) -> f64 {
        match self {
            Dist::Fixed { value } => *value,
            Dist::Exponential { mean } | Dist::Pareto { mean, .. } | Dist::Lognormal { mean, .. } => *mean,
            Dist::Uniform { min, max } => (min + max) / 2.0,
            Dist::Empirical { cdf } => {
                // Piecewise-linear CDF: each segment contributes its midpoint times its mass,
                // the first point its own mass.
                let mut m = cdf[0].0 * cdf[0].1;
                for w in cdf.windows(2) {
                    m += (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1);
                }
                m
            }
        }
    }

    /// The cumulative distribution function at `x` (for tests and reports).
    pub fn cdf(&self, x: f64) -> f64 {
        if x < 0.0 {
            return 0.0;
        }
        match self {
            Dist::Fixed { value } => (x >= *value) as u8 as f64,
            Dist::Exponential { mean } => 1.0 - libm::exp(-x / mean),
            Dist::Pareto { mean, shape } => {
                let xm = mean * (shape - 1.0) / shape;
                if x < xm {
                    0.0
                } else {
                    1.0 - libm::pow(xm / x, *shape)
                }
            }
            Dist::Lognormal { mean, sigma } => {
                if x <= 0.0 {
                    return 0.0;
                }
                let mu = libm::log(*mean) - sigma * sigma / 2.0;
                0.5 * libm::erfc(-(libm::log(x) - mu) / (sigma * std::f64::consts::SQRT_2))
            }
            Dist::Uniform { min, max } => ((x - min) / (max - min)).clamp(0.0, 1.0),
            Dist::Empirical { cdf } => {
                let i = cdf.partition_point(|&(v, _)| v <= x);
                if i == 0 {
                    return 0.0;
                }
                if i >= cdf.len() {
                    return 1.0;
                }
                let ((x0, p0), (x1, p1)) = (cdf[i - 1], cdf[i]);
                p0 + (p1 - p0) * (x - x0) / (x1 - x0)
            }
        }
    }
}

/// A standard normal draw (Box-Muller, one of the pair).
fn normal(rng: &mut SimRng) -> f64 {
    let u1 = uniform_open0(rng);
    let u2: f64 = rng.gen();
    libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * std::f64::consts::PI * u2)
}

/// A value of quantity `q` (a string with units or a plain number).
fn value(v: &Value, q: Quantity) -> Option<f64> {
    let x = match (v, q) {
        (Value::Number(n), _) => n.as_f64(),
        (Value::String(s), Quantity::Bytes) => crate::units::parse_size(s),
        (Value::String(s), Quantity::Seconds) => crate::units::parse_time(s),
        _ => None,
    }?;
    (x.is_finite() && x >= 0.0).then_some(x)
}

fn req_value(o: &mut Obj, key: &'static str, q: Quantity, positive: bool, errs: &mut Errors) -> Option<f64> {
    let what = match q {
        Quantity::Bytes => "a size such as '50KB' or a number of bytes",
        Quantity::Seconds => "a time such as '1s' or a number of seconds",
    };
    let Some(v) = o.get(key) else {
        errs.add(o.at(key), format!("missing required field ({what})"));
        return None;
    };
    match value(v, q) {
        Some(x) if x > 0.0 || !positive => Some(x),
        _ => {
            errs.add(o.at(key), format!("expected {what}{}, got {}", if positive { ", greater than 0" } else { "" }, show(v)));
            None
        }
    }
}

/// Parses a distribution table of quantity `q` at `o` (a table with `kind`).
pub fn parse(o: &mut Obj, q: Quantity, errs: &mut Errors) -> Option<Dist> {
    let kind = o.choice("kind", &["fixed", "exponential", "pareto", "lognormal", "uniform", "empirical"], None, errs)?;
    match kind {
        "fixed" => Some(Dist::Fixed { value: req_value(o, "value", q, false, errs)? }),
        "exponential" => Some(Dist::Exponential { mean: req_value(o, "mean", q, true, errs)? }),
        "pareto" => {
            let mean = req_value(o, "mean", q, true, errs);
            let shape = o.float("shape", 1.0001, 100.0, errs).unwrap_or(1.2);
            Some(Dist::Pareto { mean: mean?, shape })
        }
        "lognormal" => {
            let mean = req_value(o, "mean", q, true, errs);
            let sigma = o.float("sigma", 1e-6, 20.0, errs).unwrap_or(1.0);
            Some(Dist::Lognormal { mean: mean?, sigma })
        }
        "uniform" => {
            let (min, max) = (req_value(o, "min", q, false, errs)?, req_value(o, "max", q, false, errs)?);
            if max <= min {
                errs.add(o.at("max"), format!("must be greater than min ({min})"));
                return None;
            }
            Some(Dist::Uniform { min, max })
        }
        _ => parse_empirical(o, q, errs),
    }
}

fn parse_empirical(o: &mut Obj, q: Quantity, errs: &mut Errors) -> Option<Dist> {
    let (rows, path): (Vec<Vec<Value>>, String) = match (o.get("cdf"), o.get("file")) {
        (Some(v), None) => {
            let rows = v.as_array().and_then(|a| a.iter().map(|r| r.as_array().cloned()).collect::<Option<Vec<_>>>());
            match rows {
                Some(r) => (r, o.at("cdf")),
                None => {
                    errs.add(o.at("cdf"), format!("expected a list of [value, cumulative probability] pairs, got {}", show(v)));
                    return None;
                }
            }
        }
        (None, Some(Value::String(f))) => match crate::config::read_data_file(f) {
            Ok(text) => {
                let mut rows = Vec::new();
                for (i, line) in text.lines().enumerate() {
                    let line = line.trim();
                    if line.is_empty() || line.starts_with('#') {
                        continue;
                    }
                    let cells: Vec<&str> = line.split([',', ' ', '\t', ';']).filter(|c| !c.is_empty()).collect();
                    let nums: Option<Vec<f64>> = cells.iter().map(|c| c.parse::<f64>().ok()).collect();
                    match nums {
                        Some(n) if n.len() == 2 => rows.push(n.into_iter().map(Value::from).collect()),
                        // A header line is allowed first.
                        _ if rows.is_empty() && i == 0 => continue,
                        _ => {
                            errs.add(
                                o.at("file"),
                                format!("{f}, line {}: expected two numbers (value, cumulative probability), got '{line}'", i + 1),
                            );
                            return None;
                        }
                    }
                }
                (rows, o.at("file"))
            }
            Err(e) => {
                errs.add(o.at("file"), e);
                return None;
            }
        },
        (Some(_), Some(_)) => {
            errs.add(o.at("file"), "give either cdf or file, not both");
            return None;
        }
        _ => {
            errs.add(o.at("cdf"), "missing required field: cdf (a list of [value, P]) or file (a CSV of value, P)");
            return None;
        }
    };
    let mut cdf = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let (x, p) = match r.as_slice() {
            [x, p] => (value(x, q), p.as_f64()),
            _ => (None, None),
        };
        match (x, p) {
            (Some(x), Some(p)) if (0.0..=1.0).contains(&p) => cdf.push((x, p)),
            _ => {
                errs.add(
                    format!("{path}[{i}]"),
                    format!("expected [value >= 0, probability in [0, 1]], got {}", show(&Value::Array(r.clone()))),
                );
                return None;
            }
        }
    }
    if cdf.is_empty() {
        errs.add(path, "the distribution has no points");
        return None;
    }
    if cdf.windows(2).any(|w| w[1].0 < w[0].0 || w[1].1 < w[0].1) {
        errs.add(path, "values and probabilities must not decrease");
        return None;
    }
    if (cdf[cdf.len() - 1].1 - 1.0).abs() > 1e-9 {
        errs.add(path, format!("the last cumulative probability must be 1, got {}", cdf[cdf.len() - 1].1));
        return None;
    }
    Some(Dist::Empirical { cdf })
}

/// Parses the distribution table at `o[key]`, if present.
pub fn parse_at(o: &mut Obj, key: &'static str, q: Quantity, errs: &mut Errors) -> Option<Option<Dist>> {
    let v = o.get(key)?;
    let path = o.at(key);
    let Some(mut t) = Obj::new(v, &path, errs) else { return Some(None) };
    let kind_ok = t.is_one_of("kind", &["fixed", "exponential", "pareto", "lognormal", "uniform", "empirical"]);
    let d = parse(&mut t, q, errs);
    t.finish_if(kind_ok, errs);
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    /// Kolmogorov-Smirnov distance between 20 000 draws and the distribution's own CDF.
    fn ks(d: &Dist, seed: u64) -> f64 {
        let mut rng = stream(seed, "dist");
        let mut x: Vec<f64> = (0..20_000).map(|_| d.sample(&mut rng)).collect();
        x.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = x.len() as f64;
        x.iter().enumerate().map(|(i, &v)| (d.cdf(v) - i as f64 / n).abs().max((d.cdf(v) - (i + 1) as f64 / n).abs())).fold(0.0, f64::max)
    }

    #[test]
    fn draws_follow_their_cdf() {
        // Critical KS distance at α = 0.001 for n = 20 000: 1.95 / sqrt(n) = 0.0138.
        let crit = 1.95 / (20_000f64).sqrt();
        let dists = [
            Dist::Exponential { mean: 2.0 },
            Dist::Pareto { mean: 50_000.0, shape: 1.2 },
            Dist::Lognormal { mean: 10.0, sigma: 1.5 },
            Dist::Uniform { min: 1.0, max: 3.0 },
            Dist::Empirical { cdf: vec![(100.0, 0.0), (1000.0, 0.7), (10_000.0, 1.0)] },
        ];
        for d in &dists {
            let k = ks(d, 11);
            assert!(k < crit, "{d:?}: KS {k} >= {crit}");
        }
        // And a wrong CDF is rejected: exponential draws against a mean twice as large.
        let mut rng = stream(11, "dist");
        let mut x: Vec<f64> = (0..20_000).map(|_| Dist::Exponential { mean: 2.0 }.sample(&mut rng)).collect();
        x.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let wrong = Dist::Exponential { mean: 2.4 };
        let k = x.iter().enumerate().map(|(i, &v)| (wrong.cdf(v) - i as f64 / 20_000.0).abs()).fold(0.0, f64::max);
        assert!(k > crit, "{k}");
    }

    #[test]
    fn means_are_as_configured() {
        for d in [Dist::Pareto { mean: 100.0, shape: 2.5 }, Dist::Lognormal { mean: 7.0, sigma: 0.5 }] {
            let mut rng = stream(3, "mean");
            let m: f64 = (0..200_000).map(|_| d.sample(&mut rng)).sum::<f64>() / 200_000.0;
            assert!((m - d.mean()).abs() / d.mean() < 0.02, "{d:?}: {m}");
        }
        let e = Dist::Empirical { cdf: vec![(0.0, 0.0), (10.0, 1.0)] };
        assert_eq!(e.mean(), 5.0);
    }

    #[test]
    fn tables_parse_with_units_and_errors_name_the_field() {
        let parse_str = |s: &str, q| {
            let v: Value = serde_json::from_str(s).unwrap();
            let mut errs = Errors::default();
            let mut o = Obj::new(&v, "size", &mut errs).unwrap();
            let d = parse(&mut o, q, &mut errs);
            o.finish(&mut errs);
            (d, errs.0)
        };
        assert_eq!(
            parse_str(r#"{"kind": "pareto", "mean": "50KB"}"#, Quantity::Bytes).0,
            Some(Dist::Pareto { mean: 50_000.0, shape: 1.2 })
        );
        assert_eq!(parse_str(r#"{"kind": "exponential", "mean": "200ms"}"#, Quantity::Seconds).0, Some(Dist::Exponential { mean: 0.2 }));
        let (_, e) = parse_str(r#"{"kind": "empirical", "cdf": [[1, 0.5], [2, 0.9]]}"#, Quantity::Bytes);
        assert!(e[0].path == "size.cdf" && e[0].message.contains("must be 1"), "{e:?}");
        let (_, e) = parse_str(r#"{"kind": "exponential", "mean": -1}"#, Quantity::Seconds);
        assert_eq!(e[0].path, "size.mean");
    }
}
