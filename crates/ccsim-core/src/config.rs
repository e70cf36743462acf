//! Ground-level configuration parsing, shared by every component: a small validating
//! reader over a JSON value tree ([`Obj`]). Every access names its path, every problem
//! becomes a [`ScenarioError`] naming the exact field, the value and what is allowed, and
//! unknown fields are reported with the list of known ones. Errors accumulate so a user
//! sees all of them at once.
//!
//! Each component (queue, loss model, flow kind, congestion controller, node element,
//! traffic generator) parses its own typed configuration from an [`Obj`] in its own
//! module; this module depends on nothing but [`crate::units`], so no component needs the
//! scenario module (which assembles them) and there is no import circle.

use crate::units::{self, RATE_UNITS, SIZE_UNITS, TIME_UNITS};
use serde_json::{Map, Value};
use std::fmt;

/// One problem in a scenario, at a path such as `links[2].delay`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Accumulated errors.
#[derive(Default, Debug)]
pub struct Errors(pub Vec<ScenarioError>, pub Vec<ScenarioError>);

/// The longest time a scenario may give, seconds (about 31.7 years): the engine counts
/// integer nanoseconds in 64 bits, and sums of a few times must not overflow.
pub const MAX_TIME_S: f64 = 1e9;
/// The highest rate a scenario may give, bit/s (1 Pb/s).
pub const MAX_RATE_BPS: f64 = 1e15;

/// The largest data file a scenario may name (arrival times, an empirical distribution).
pub const MAX_DATA_FILE_BYTES: u64 = 64 << 20;

/// A range's end as people read it: `2^63 - 1` for the largest integer, `2^32` for a large
/// power of two (the seed's range read 9223372036854775807 here, 2^63 - 1 from the CLI).
fn bound(x: i64) -> String {
    match x {
        i64::MAX => "2^63 - 1".to_string(),
        x if x >= 1 << 20 && (x as u64).is_power_of_two() => format!("2^{}", x.trailing_zeros()),
        x => x.to_string(),
    }
}

/// Reads a data file a scenario names: a regular file of at most
/// [`MAX_DATA_FILE_BYTES`], as UTF-8 (a FIFO would block the run, `/dev/zero` fill the
/// memory). The error says what is wrong, for the field's message.
pub fn read_data_file(path: &str) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("cannot read {path}: not a regular file"));
    }
    if meta.len() > MAX_DATA_FILE_BYTES {
        return Err(format!("{path} is {} bytes; a data file has at most {MAX_DATA_FILE_BYTES}", meta.len()));
    }
    // Read through a bound: a file that grew since its size was asked stops there.
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_DATA_FILE_BYTES + 1).read_to_string(&mut text))
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    if text.len() as u64 > MAX_DATA_FILE_BYTES {
        return Err(format!("{path} is larger than {MAX_DATA_FILE_BYTES} bytes, the most a data file may have"));
    }
    // A byte-order mark (spreadsheets write one) is not data, as in scenario files: an
    // arrival-times file that began with one had its first time refused.
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        text = rest.to_string();
    }
    Ok(text)
}

impl Errors {
    pub fn add(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(ScenarioError { path: path.into(), message: message.into() });
    }
    /// A warning: valid input that is probably not what the user meant.
    pub fn warn(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.1.push(ScenarioError { path: path.into(), message: message.into() });
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Short rendering of a value for messages.
pub fn show(v: &Value) -> String {
    let s = match v {
        Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    };
    if s.chars().count() > 60 {
        // Cut on a character boundary (a byte index could fall inside a multi-byte one).
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A table being read: tracks which keys were asked for, to report unknown ones.
pub struct Obj<'v> {
    pub path: String,
    map: &'v Map<String, Value>,
    known: Vec<&'static str>,
    /// A [`Obj::choice`] without a value (missing, or not one allowed): a parser that
    /// branches on it may leave fields unread ([`Obj::refused_choice`]).
    refused_choice: bool,
}

impl<'v> Obj<'v> {
    /// Wraps `v` as a table, or records an error and returns `None`.
    pub fn new(v: &'v Value, path: &str, errs: &mut Errors) -> Option<Obj<'v>> {
        match v {
            Value::Object(map) => Some(Obj { path: path.to_string(), map, known: Vec::new(), refused_choice: false }),
            other => {
                errs.add(path, format!("expected a table, got {}", show(other)));
                None
            }
        }
    }

    pub fn at(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// The raw value of `key`, if present.
    pub fn get(&mut self, key: &'static str) -> Option<&'v Value> {
        if !self.known.contains(&key) {
            self.known.push(key);
        }
        self.map.get(key)
    }

    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// Declares keys as known without reading them here.
    pub fn allow(&mut self, keys: &[&'static str]) {
        for k in keys {
            if !self.known.contains(k) {
                self.known.push(k);
            }
        }
    }

    /// Ends reading a table whose `kind` was invalid: its other fields are not reported as
    /// unknown (they would be the valid kind's fields; one error says what is wrong).
    pub fn abandon(self) {}

    /// Whether `key` holds one of `allowed` (no error recorded).
    pub fn is_one_of(&self, key: &str, allowed: &[&str]) -> bool {
        self.map.get(key).and_then(|v| v.as_str()).is_some_and(|s| allowed.contains(&s))
    }

    /// [`Obj::finish`] if `kind_ok`, else [`Obj::abandon`].
    pub fn finish_if(self, kind_ok: bool, errs: &mut Errors) {
        if kind_ok {
            self.finish(errs)
        } else {
            self.abandon()
        }
    }

    /// Reports keys nobody asked for.
    pub fn finish(self, errs: &mut Errors) {
        for key in self.map.keys() {
            if !self.known.iter().any(|k| k == key) {
                let mut known = self.known.clone();
                known.sort_unstable();
                let msg = if known.is_empty() {
                    "unknown field; this table takes no fields".to_string()
                } else {
                    format!("unknown field; allowed fields here: {}", known.join(", "))
                };
                errs.add(join(&self.path, key), msg);
            }
        }
    }

    fn required(&mut self, key: &'static str, what: &str, errs: &mut Errors) -> Option<&'v Value> {
        let v = self.get(key);
        if v.is_none() {
            errs.add(self.at(key), format!("missing required field ({what})"));
        }
        v
    }

    fn quantity(
        &mut self,
        key: &'static str,
        errs: &mut Errors,
        parse: fn(&str) -> Option<f64>,
        what: &str,
        units: &str,
        example: &str,
    ) -> Option<Option<f64>> {
        let v = self.get(key)?;
        let parsed = match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => parse(s),
            _ => None,
        };
        match parsed {
            Some(x) if x.is_finite() => Some(Some(x)),
            _ => {
                errs.add(
                    self.at(key),
                    format!("invalid {what} {}: expected a number or a string like '{example}' (units: {units})", show(v)),
                );
                Some(None)
            }
        }
    }

    /// A rate in bit/s, > 0. `None` if absent; errors recorded.
    pub fn rate(&mut self, key: &'static str, errs: &mut Errors) -> Option<u64> {
        let x = self.quantity(key, errs, units::parse_rate, "rate", RATE_UNITS, "10Mbps")??;
        if x < 1.0 {
            errs.add(self.at(key), format!("rate must be at least 1 bit/s, got {x}"));
            return None;
        }
        if x > MAX_RATE_BPS {
            errs.add(self.at(key), format!("rate must be at most {MAX_RATE_BPS:e} bit/s (1 Pb/s), got {x:e}"));
            return None;
        }
        let unitless = match self.map.get(key) {
            Some(Value::Number(_)) => true,
            Some(Value::String(s)) => !units::has_unit(s),
            _ => false,
        };
        if x < 1000.0 && unitless {
            errs.warn(
                self.at(key),
                format!("a number without a unit is bit/s: {x} bit/s; write e.g. '{x}Mbps' if you meant megabits per second"),
            );
        }
        Some(x.round() as u64)
    }

    pub fn req_rate(&mut self, key: &'static str, errs: &mut Errors) -> Option<u64> {
        if !self.has(key) {
            self.required(key, "a rate such as '10Mbps'", errs);
            return None;
        }
        self.rate(key, errs)
    }

    /// A time >= 0 in ns. `None` if absent or invalid.
    pub fn time(&mut self, key: &'static str, errs: &mut Errors) -> Option<u64> {
        let x = self.quantity(key, errs, units::parse_time, "time", TIME_UNITS, "35ms")??;
        if x < 0.0 {
            errs.add(self.at(key), format!("time must not be negative, got {x} s"));
            return None;
        }
        if x > MAX_TIME_S {
            errs.add(
                self.at(key),
                format!("time must be at most {MAX_TIME_S:e} s (about 31 years; the engine counts nanoseconds in 64 bits), got {x:e} s"),
            );
            return None;
        }
        Some(units::secs(x))
    }

    pub fn req_time(&mut self, key: &'static str, errs: &mut Errors) -> Option<u64> {
        if !self.has(key) {
            self.required(key, "a time such as '35ms'", errs);
            return None;
        }
        self.time(key, errs)
    }

    /// A size in bytes, >= 1.
    pub fn size(&mut self, key: &'static str, errs: &mut Errors) -> Option<u32> {
        let x = self.quantity(key, errs, units::parse_size, "size", SIZE_UNITS, "1500B")??;
        if !(1.0..=65535.0 * 1024.0).contains(&x) || x.fract() != 0.0 {
            errs.add(self.at(key), format!("size must be a whole number of bytes from 1 to 67107840, got {x}"));
            return None;
        }
        Some(x as u32)
    }

    /// An amount of bytes (a buffer, a bucket, a transfer): a whole number >= 1 or a size
    /// string such as `'64KB'`, at most 2^53.
    pub fn bytes(&mut self, key: &'static str, errs: &mut Errors) -> Option<u64> {
        let x = self.quantity(key, errs, units::parse_size, "size", SIZE_UNITS, "64KB")??;
        if !(1.0..=9_007_199_254_740_992.0).contains(&x) || x.fract() != 0.0 {
            errs.add(self.at(key), format!("expected a whole number of bytes from 1 to 2^53, got {x}"));
            return None;
        }
        Some(x as u64)
    }

    pub fn req_bytes(&mut self, key: &'static str, errs: &mut Errors) -> Option<u64> {
        if !self.has(key) {
            self.required(key, "a size such as '64KB'", errs);
            return None;
        }
        self.bytes(key, errs)
    }

    /// A DiffServ code point: a whole number 0-63 or a standard name (`"AF11"`, `"EF"`,
    /// `"BE"`, `"CS1"`, ...).
    pub fn dscp(&mut self, key: &'static str, errs: &mut Errors) -> Option<u8> {
        let v = self.get(key)?;
        let d = match v {
            Value::Number(n) => n.as_u64().filter(|&x| x < 64).map(|x| x as u8),
            Value::String(s) => crate::packet::DSCP_NAMES.iter().find(|(_, n)| n.eq_ignore_ascii_case(s.trim())).map(|(c, _)| *c),
            _ => None,
        };
        if d.is_none() {
            errs.add(
                self.at(key),
                format!("expected a DSCP code point: a whole number from 0 to 63 or a name such as 'AF11', 'EF', 'BE', got {}", show(v)),
            );
        }
        d
    }

    /// A float in `[lo, hi]`.
    pub fn float(&mut self, key: &'static str, lo: f64, hi: f64, errs: &mut Errors) -> Option<f64> {
        let v = self.get(key)?;
        match v.as_f64() {
            Some(x) if x.is_finite() && x >= lo && x <= hi => Some(x),
            _ => {
                errs.add(self.at(key), format!("expected a number from {lo} to {hi}, got {}", show(v)));
                None
            }
        }
    }

    pub fn req_float(&mut self, key: &'static str, lo: f64, hi: f64, errs: &mut Errors) -> Option<f64> {
        if !self.has(key) {
            self.required(key, &format!("a number from {lo} to {hi}"), errs);
            return None;
        }
        self.float(key, lo, hi, errs)
    }

    /// An integer in `[lo, hi]`.
    pub fn int(&mut self, key: &'static str, lo: i64, hi: i64, errs: &mut Errors) -> Option<i64> {
        let v = self.get(key)?;
        let x = v.as_i64().or_else(|| v.as_u64().map(|u| u.min(i64::MAX as u64) as i64));
        match x {
            Some(x) if x >= lo && x <= hi => Some(x),
            _ => {
                errs.add(self.at(key), format!("expected a whole number from {} to {}, got {}", bound(lo), bound(hi), show(v)));
                None
            }
        }
    }

    pub fn req_int(&mut self, key: &'static str, lo: i64, hi: i64, errs: &mut Errors) -> Option<i64> {
        if !self.has(key) {
            self.required(key, &format!("a whole number from {} to {}", bound(lo), bound(hi)), errs);
            return None;
        }
        self.int(key, lo, hi, errs)
    }

    pub fn boolean(&mut self, key: &'static str, errs: &mut Errors) -> Option<bool> {
        let v = self.get(key)?;
        match v {
            Value::Bool(b) => Some(*b),
            other => {
                errs.add(self.at(key), format!("expected true or false, got {}", show(other)));
                None
            }
        }
    }

    pub fn string(&mut self, key: &'static str, errs: &mut Errors) -> Option<&'v str> {
        let v = self.get(key)?;
        match v {
            Value::String(s) if !s.is_empty() => Some(s),
            other => {
                errs.add(self.at(key), format!("expected a non-empty string, got {}", show(other)));
                None
            }
        }
    }

    pub fn req_string(&mut self, key: &'static str, errs: &mut Errors) -> Option<&'v str> {
        if !self.has(key) {
            self.required(key, "a string", errs);
            return None;
        }
        self.string(key, errs)
    }

    /// One of `allowed`; `default` when absent (None = required).
    pub fn choice(
        &mut self,
        key: &'static str,
        allowed: &[&'static str],
        default: Option<&'static str>,
        errs: &mut Errors,
    ) -> Option<&'static str> {
        if !self.has(key) {
            if default.is_none() {
                self.refused_choice = true;
                self.required(key, &format!("one of: {}", allowed.join(", ")), errs);
            }
            self.get(key);
            return default;
        }
        let v = self.get(key)?;
        let found = v.as_str().and_then(|s| allowed.iter().find(|a| **a == s).copied());
        if found.is_none() {
            self.refused_choice = true;
            errs.add(self.at(key), format!("unknown value {}; allowed: {}", show(v), allowed.join(", ")));
        }
        found
    }

    /// Whether a [`Obj::choice`] of this table had no value: a parser that branches on
    /// one may then have left fields unread, which [`Obj::finish`] would call unknown.
    pub fn refused_choice(&self) -> bool {
        self.refused_choice
    }
}

/// Serde helpers: parameters written back in SI units (times in seconds), so that a
/// configuration's `params()` is readable and valid scenario input.
pub mod ser {
    use crate::units::Time;
    use serde::Serializer;

    /// A time in integer nanoseconds as seconds.
    pub fn secs<S: Serializer>(t: &Time, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(*t as f64 / 1e9)
    }

    /// An optional time as seconds (or null).
    pub fn opt_secs<S: Serializer>(t: &Option<Time>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_f64(*t as f64 / 1e9),
            None => s.serialize_none(),
        }
    }
}

/// A configuration's parameters as a JSON value (for reports and run metadata).
pub fn params_of<T: serde::Serialize>(c: &T) -> Value {
    serde_json::to_value(c).unwrap_or(Value::Null)
}
