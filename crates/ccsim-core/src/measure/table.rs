//! The columnar tables results leave the engine in: one `Vec` per number column, and text
//! columns as one buffer of UTF-8 bytes with the values' boundaries (Arrow's string layout),
//! not one heap string per value.

/// A column of text: every value's UTF-8 bytes end to end, and where each value starts
/// (`starts[i]..starts[i + 1]`; `starts[0] = 0`). Two allocations for the column, whatever
/// its length, and the layout Arrow's string arrays use, so the Python side builds one from
/// the two buffers.
#[derive(Clone, PartialEq, Eq)]
pub struct Text {
    starts: Vec<usize>,
    bytes: String,
}

impl Default for Text {
    fn default() -> Self {
        Text { starts: vec![0], bytes: String::new() }
    }
}

impl Text {
    /// An empty column with room for `n` values of `bytes` bytes in all.
    pub fn with_capacity(n: usize, bytes: usize) -> Self {
        let mut starts = Vec::with_capacity(n + 1);
        starts.push(0);
        Text { starts, bytes: String::with_capacity(bytes) }
    }

    /// Appends one value.
    pub fn push(&mut self, s: &str) {
        self.bytes.push_str(s);
        self.starts.push(self.bytes.len());
    }

    /// Appends one value made of `parts`, end to end (no string built for it).
    pub fn push_parts(&mut self, parts: &[&str]) {
        for p in parts {
            self.bytes.push_str(p);
        }
        self.starts.push(self.bytes.len());
    }

    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i` (panics past the end, as indexing a `Vec` does).
    pub fn get(&self, i: usize) -> &str {
        &self.bytes[self.starts[i]..self.starts[i + 1]]
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.starts.windows(2).map(|w| &self.bytes[w[0]..w[1]])
    }

    /// The values as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }

    /// Every value's bytes, end to end.
    pub fn bytes(&self) -> &str {
        &self.bytes
    }

    /// Where each value starts in [`Text::bytes`], and where the last ends (`len() + 1`
    /// entries, the first 0).
    pub fn starts(&self) -> &[usize] {
        &self.starts
    }
}

impl<S: AsRef<str>> FromIterator<S> for Text {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut t = Text::with_capacity(iter.size_hint().0, 0);
        for s in iter {
            t.push(s.as_ref());
        }
        t
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One column of a result table. Equality is bitwise (NaN equals NaN): "the same run gives
/// the same table" means bit for bit.
#[derive(Clone, Debug)]
pub enum Column {
    F64(Vec<f64>),
    I64(Vec<i64>),
    Str(Text),
}

impl PartialEq for Column {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Column::F64(a), Column::F64(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()),
            (Column::I64(a), Column::I64(b)) => a == b,
            (Column::Str(a), Column::Str(b)) => a == b,
            _ => false,
        }
    }
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A columnar table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &str, col: Column) {
        self.columns.push((name.to_string(), col));
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn f64(&self, name: &str) -> Option<&[f64]> {
        match self.column(name)? {
            Column::F64(v) => Some(v),
            _ => None,
        }
    }
    pub fn i64(&self, name: &str) -> Option<&[i64]> {
        match self.column(name)? {
            Column::I64(v) => Some(v),
            _ => None,
        }
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map(|(_, c)| c.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::Text;

    #[test]
    fn text_keeps_each_value_whole() {
        let vals = ["s0->r0", "", "höst-α", "→", "", "узел"];
        let t: Text = vals.iter().collect();
        assert_eq!(t.len(), vals.len());
        assert_eq!(t.iter().collect::<Vec<_>>(), vals);
        assert_eq!(t.get(2), "höst-α");
        assert_eq!(t.starts().len(), vals.len() + 1);
        assert_eq!(t.bytes(), vals.concat());
        let mut u = Text::default();
        for v in vals {
            u.push_parts(&[v, "", ""]);
        }
        assert_eq!(t, u);
        assert_eq!(format!("{t:?}"), format!("{vals:?}"));
        assert!(Text::default().is_empty() && Text::default().iter().next().is_none());
    }
}
