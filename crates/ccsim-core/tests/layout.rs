//! The layout shows the design: the crate's top-level modules form no import circle (a
//! component never needs the scenario module that assembles it), and no source file grows
//! past the size a reader can hold in mind.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's code without comments and without its `#[cfg(test)] mod tests`.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    text.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join("\n")
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Top-level module of a source file (`net/lazy.rs` -> `net`).
fn module_of(rel: &Path) -> String {
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

/// Edges `module -> modules it names` over `crate::x` paths, including `use crate::{x, y}`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = src_dir();
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&root).unwrap();
        let m = module_of(rel);
        if m == "lib" {
            continue;
        }
        let text = code(&std::fs::read_to_string(&f).unwrap());
        let deps = g.entry(m.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + 7..];
            if let Some(group) = rest.strip_prefix('{') {
                for part in group.split('}').next().unwrap().split(',') {
                    let name: String = part.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if !name.is_empty() && name != m {
                        deps.insert(name);
                    }
                }
            } else {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() && name != m {
                    deps.insert(name);
                }
            }
        }
    }
    g
}

/// A circle in `g`, if any (depth-first search for a back edge).
fn find_circle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let at = stack.iter().position(|s| s == n).unwrap();
                let mut c = stack[at..].to_vec();
                c.push(n.to_string());
                return Some(c);
            }
            _ => {}
        }
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for d in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(d, g, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    g.keys().find_map(|n| visit(n, g, &mut state, &mut Vec::new()))
}

#[test]
fn top_level_modules_form_no_import_circle() {
    let g = graph();
    if let Some(c) = find_circle(&g) {
        panic!("import circle between top-level modules: {}\nwhole graph: {g:#?}", c.join(" -> "));
    }
    // The ground the components stand on imports none of them.
    for ground in ["config", "units", "rng", "engine", "packet", "prefetch"] {
        let deps = g.get(ground).cloned().unwrap_or_default();
        let bad: Vec<_> = deps.iter().filter(|d| !["units", "rng", "packet", "engine", "prefetch"].contains(&d.as_str())).collect();
        assert!(bad.is_empty(), "ground module {ground} imports {bad:?}");
    }
    for (m, deps) in &g {
        if !["scenario", "sim", "bench"].contains(&m.as_str()) {
            assert!(!deps.contains("scenario"), "{m} imports scenario: components parse their own configuration (crate::config)");
        }
    }
}

#[test]
fn the_checker_finds_circles_and_reads_only_code() {
    let edges = |list: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in list {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert_eq!(find_circle(&edges(&[("a", "b"), ("b", "c"), ("a", "c")])), None);
    let c = find_circle(&edges(&[("a", "b"), ("b", "c"), ("c", "a")])).expect("a circle");
    assert_eq!(c.first(), c.last());
    assert_eq!(c.len(), 4);
    let text = "use crate::{net, queue};\nfn f() { crate::sim::x(); } // crate::scenario\n#[cfg(test)]\nmod tests { crate::bench }";
    let c = code(text);
    assert!(c.contains("crate::sim") && !c.contains("scenario") && !c.contains("bench"));
}

/// Files stay a size a reader can hold in mind: at most this many lines of code outside
/// their `#[cfg(test)]` module.
const MAX_LINES: usize = 620;

#[test]
fn no_source_file_is_too_long() {
    let mut files = Vec::new();
    sources(&src_dir(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let n = text.split("#[cfg(test)]\nmod tests").next().unwrap().lines().count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these files along their seams: {long:?}");
}
