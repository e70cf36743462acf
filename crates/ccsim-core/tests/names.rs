//! Names in a scenario: every duplicate and every unknown name is reported at its field,
//! whatever the order of declarations, and a scenario that names something not kept is
//! refused without a panic.

use ccsim_core::scenario::from_toml;

const LINK: &str = "rate = \"10Mbps\"\ndelay = \"1ms\"\n";

/// The (path, message) pairs of a refused scenario.
fn errors(toml: &str) -> Vec<(String, String)> {
    match from_toml(toml) {
        Ok(_) => panic!("accepted:\n{toml}"),
        Err(e) => e.into_iter().map(|x| (x.path, x.message)).collect(),
    }
}

fn has(errs: &[(String, String)], path: &str, message: &str) -> bool {
    errs.iter().any(|(p, m)| p == path && m == message)
}

fn scenario(nodes: &str, rest: &str) -> String {
    format!("name = \"t\"\nnodes = {nodes}\n[simulation]\nduration = \"1s\"\n{rest}")
}

fn link(a: &str, b: &str, name: Option<&str>) -> String {
    let name = name.map_or(String::new(), |n| format!("name = \"{n}\"\n"));
    format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\n{name}{LINK}")
}

#[test]
fn duplicate_nodes_are_reported_in_both_forms() {
    let e = errors(&scenario("[\"a\", \"b\", \"a\"]", &link("a", "b", None)));
    assert!(has(&e, "nodes[2]", "duplicate node name 'a'"), "{e:?}");
    let e = errors(&scenario("[\"a\", \"b\", { name = \"b\" }]", &link("a", "b", None)));
    assert!(has(&e, "nodes[2].name", "duplicate node name 'b'"), "{e:?}");
}

#[test]
fn a_dumbbell_host_may_not_reuse_a_declared_name() {
    let dumbbell = "[dumbbell]\nsenders = 2\naccess_rate = \"1Gbps\"\naccess_delay = \"1ms\"\nbottleneck_rate = \"10Mbps\"\nbottleneck_delay = \"5ms\"\n";
    let e = errors(&scenario("[\"s1\"]", dumbbell));
    assert!(has(&e, "dumbbell", "duplicate node name 's1'"), "{e:?}");
}

#[test]
fn duplicate_link_names_are_reported_whichever_link_is_kept() {
    // Both links kept.
    let e = errors(&scenario("[\"a\", \"b\", \"c\"]", &[link("a", "b", Some("L")), link("b", "c", Some("L"))].concat()));
    assert!(has(&e, "links[1].name", "duplicate link name 'L'"), "{e:?}");
    // A default name ("a-b") against an explicit one.
    let e = errors(&scenario("[\"a\", \"b\", \"c\"]", &[link("a", "b", None), link("b", "c", Some("a-b"))].concat()));
    assert!(has(&e, "links[1].name", "duplicate link name 'a-b'"), "{e:?}");
    // The first link names an unknown node (not kept), the second is kept; then the reverse;
    // then neither is kept.
    for (x, y, bad) in [("zz", "b", "links[0].b"), ("b", "zz", "links[1].b")] {
        let e = errors(&scenario("[\"a\", \"b\"]", &[link("a", x, Some("L")), link("a", y, Some("L"))].concat()));
        assert!(has(&e, bad, "no node named 'zz' (declare it in nodes)"), "{e:?}");
        assert!(has(&e, "links[1].name", "duplicate link name 'L'"), "{e:?}");
    }
    let e = errors(&scenario("[\"a\", \"b\"]", &[link("a", "zz", Some("L")), link("a", "yy", Some("L"))].concat()));
    assert!(has(&e, "links[1].name", "duplicate link name 'L'"), "{e:?}");
}

#[test]
fn a_link_joins_two_different_nodes() {
    let e = errors(&scenario("[\"a\", \"b\"]", &link("a", "a", None)));
    assert!(has(&e, "links[0].b", "a link must join two different nodes"), "{e:?}");
}

#[test]
fn duplicate_flow_names_and_unknown_ends_are_reported() {
    let flow = |name: &str, count: u32| {
        format!("[[flows]]\nname = \"{name}\"\nkind = \"cbr\"\ncount = {count}\nsrc = \"a\"\ndst = \"b\"\nrate = \"1Mbps\"\n")
    };
    let base = link("a", "b", None);
    let e = errors(&scenario("[\"a\", \"b\"]", &[base.as_str(), &flow("f", 1), &flow("f", 1)].concat()));
    assert!(has(&e, "flows[1].name", "duplicate flow name 'f'"), "{e:?}");
    // A counted flow's instance names ("f-0", "f-1") against a flow named "f-1".
    let e = errors(&scenario("[\"a\", \"b\"]", &[base.as_str(), &flow("f-1", 1), &flow("f", 2)].concat()));
    assert!(has(&e, "flows[1].name", "duplicate flow name 'f-1'"), "{e:?}");
    let unknown = "[[flows]]\nkind = \"cbr\"\nsrc = \"h{i}\"\ndst = \"b\"\nrate = \"1Mbps\"\n";
    let e = errors(&scenario("[\"a\", \"b\"]", &[base.as_str(), unknown].concat()));
    assert!(has(&e, "flows[0].src", "no node named 'h0'"), "{e:?}");
}

#[test]
fn naming_a_link_that_was_not_kept_is_an_error_not_a_panic() {
    // Link "L1" names an unknown node, so it is not kept; an element refers to it by name.
    let links = [link("a", "b", Some("L0")), link("a", "zz", Some("L1"))].concat();
    let element = "[[elements]]\nkind = \"replicate\"\nnode = \"b\"\nfrom = \"L1\"\n";
    let e = errors(&scenario("[\"a\", \"b\"]", &[links.as_str(), element].concat()));
    assert!(has(&e, "links[1].b", "no node named 'zz' (declare it in nodes)"), "{e:?}");
}
