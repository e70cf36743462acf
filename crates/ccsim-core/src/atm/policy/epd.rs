//! Early Packet Discard (Romanow & Floyd 1995): a frame whose first cell finds the queue at
//! or above the threshold is refused whole — that cell and every later one, end-of-frame
//! included (§11.16); a frame once admitted is accepted while room remains (what happens
//! when it still overflows is the queue's `overflow` policy).

/// Whether a frame whose first cell finds `queued` cells is refused (`threshold`: none
/// means no EPD).
#[inline]
pub fn refuses(queued: usize, threshold: Option<usize>) -> bool {
    threshold.is_some_and(|t| queued >= t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_at_or_above_the_threshold() {
        assert!(!refuses(499, Some(500)));
        assert!(refuses(500, Some(500)));
        assert!(refuses(900, Some(500)));
        assert!(!refuses(10_000, None));
    }
}
