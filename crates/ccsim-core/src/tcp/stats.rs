//! A TCP sender's report counters: what its summary columns and trace totals show. They
//! restart at the end of warm-up; nothing in them steers the sender.

use crate::units::Time;

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub retrans_pkts: u64,
    pub retrans_bytes: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub syn_retries: u64,
    /// Sum and count of the timeouts armed (seconds).
    sum_rto: f64,
    n_rto: u64,
    /// Start of the current loss episode (fast retransmit until the ACK covers `recover`).
    episode_since: Option<Time>,
    episode_ns: u64,
    episodes: u64,
}

impl SenderStats {
    /// A retransmission timer armed for `rto_s` seconds.
    pub fn rto_armed(&mut self, rto_s: f64) {
        self.sum_rto += rto_s;
        self.n_rto += 1;
    }

    pub fn retransmitted(&mut self, len: u32) {
        self.retrans_pkts += 1;
        self.retrans_bytes += len as u64;
    }

    /// A fast retransmit opened a loss episode at `now`.
    pub fn episode_start(&mut self, now: Time) {
        self.fast_retransmits += 1;
        self.episodes += 1;
        self.episode_since = Some(now);
    }

    /// The cumulative ACK reached `recover` at `now`: the episode (if any) ends.
    pub fn episode_end(&mut self, now: Time) {
        if let Some(t0) = self.episode_since.take() {
            self.episode_ns += now - t0;
        }
    }

    pub fn in_episode(&self) -> bool {
        self.episode_since.is_some()
    }

    /// Every counter restarts; an episode in progress counts as one of the new period,
    /// with its time from `now`.
    pub fn restart(&mut self, now: Time) {
        let open = self.episode_since.is_some();
        *self = SenderStats { episodes: open as u64, episode_since: open.then_some(now), ..Default::default() };
    }

    pub fn columns(&self) -> [(&'static str, f64); 7] {
        let mean = |sum: f64, n: u64| if n > 0 { sum / n as f64 } else { f64::NAN };
        [
            ("retransmitted_pkts", self.retrans_pkts as f64),
            ("retransmitted_bytes", self.retrans_bytes as f64),
            ("timeouts", self.timeouts as f64),
            ("fast_retransmits", self.fast_retransmits as f64),
            ("syn_retries", self.syn_retries as f64),
            ("mean_rto_s", mean(self.sum_rto, self.n_rto)),
            ("mean_recovery_s", mean(self.episode_ns as f64 / 1e9, self.episodes)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MS;

    #[test]
    fn restart_keeps_an_open_episode_from_the_restart() {
        let mut s = SenderStats::default();
        s.episode_start(0);
        s.episode_end(10 * MS);
        s.rto_armed(0.2);
        s.retransmitted(1000);
        s.episode_start(20 * MS);
        s.restart(50 * MS);
        assert_eq!((s.retrans_pkts, s.fast_retransmits), (0, 0));
        assert!(s.columns()[5].1.is_nan());
        s.episode_end(80 * MS);
        assert_eq!(s.columns()[6], ("mean_recovery_s", 0.03));
    }
}
