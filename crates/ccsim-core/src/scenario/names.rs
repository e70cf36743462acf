//! Name lookups for the scenario's lists (nodes, links, flows): an index that holds only
//! positions, hashed by the names the list already keeps, so that large worlds (tens of
//! thousands of hosts, links and flows) copy no name into it.

use hashbrown::HashTable;
use std::hash::BuildHasher;

/// Positions in a list of names, found by name.
#[derive(Default)]
pub(crate) struct NameIndex {
    table: HashTable<u32>,
}

fn hash(name: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(name)
}

impl NameIndex {
    /// The position of `name`, where `name_of(i)` is the name at position `i`.
    pub fn get<'a>(&self, name: &str, name_of: impl Fn(u32) -> &'a str) -> Option<u32> {
        self.table.find(hash(name), |&i| name_of(i) == name).copied()
    }

    /// Room for `additional` more names, where `name_of(i)` is the name at position `i`
    /// of those indexed: a list of known length is indexed without rehashing as it grows
    /// (each rehash reads every name again).
    pub fn reserve<'a>(&mut self, additional: usize, name_of: impl Fn(u32) -> &'a str) {
        self.table.reserve(additional, |&k| hash(name_of(k)));
    }

    /// Indexes position `i` under `name_of(i)`, unless that name is indexed already:
    /// then returns the earlier position and changes nothing.
    pub fn insert<'a>(&mut self, i: u32, name_of: impl Fn(u32) -> &'a str) -> Option<u32> {
        let name = name_of(i);
        let h = hash(name);
        if let Some(&j) = self.table.find(h, |&k| name_of(k) == name) {
            return Some(j);
        }
        self.table.insert_unique(h, i, |&k| hash(name_of(k)));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::NameIndex;

    #[test]
    fn finds_every_name_and_refuses_duplicates() {
        let names: Vec<String> = (0..5000).map(|i| format!("s{i}")).chain(["r0".into(), "s17".into()]).collect();
        let mut ix = NameIndex::default();
        let at = |i: u32| names[i as usize].as_str();
        for i in 0..100 {
            assert_eq!(ix.insert(i, at), None);
        }
        // Room made midway keeps what is indexed.
        ix.reserve(4901, at);
        for i in 0..100 {
            assert_eq!(ix.get(&names[i as usize], at), Some(i));
        }
        for i in 100..5001 {
            assert_eq!(ix.insert(i, at), None);
        }
        assert_eq!(ix.insert(5001, at), Some(17), "a duplicate returns the first position");
        for i in 0..5001 {
            assert_eq!(ix.get(&names[i as usize], at), Some(i));
        }
        assert_eq!(ix.get("d0", at), None);
        assert_eq!(ix.get("", at), None);
    }
}
