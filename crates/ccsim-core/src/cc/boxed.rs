//! A boxed controller is a controller: the TCP sender holds the default controller (Reno)
//! inline, as a type parameter, and any other one through this forwarding impl.

use super::{AckInfo, CongestionControl, LossInfo};
use crate::measure::Table;
use crate::units::Time;

impl<T: CongestionControl + ?Sized> CongestionControl for Box<T> {
    #[inline]
    fn name(&self) -> &'static str {
        (**self).name()
    }
    #[inline]
    fn cwnd(&self) -> f64 {
        (**self).cwnd()
    }
    #[inline]
    fn ssthresh(&self) -> f64 {
        (**self).ssthresh()
    }
    #[inline]
    fn set_cwnd(&mut self, cwnd: f64) {
        (**self).set_cwnd(cwnd)
    }
    #[inline]
    fn set_ssthresh(&mut self, ssthresh: f64) {
        (**self).set_ssthresh(ssthresh)
    }
    #[inline]
    fn on_ack_received(&mut self, info: &AckInfo) {
        (**self).on_ack_received(info)
    }
    #[inline]
    fn on_ack(&mut self, info: &AckInfo) {
        (**self).on_ack(info)
    }
    #[inline]
    fn on_congestion(&mut self, info: &LossInfo) {
        (**self).on_congestion(info)
    }
    #[inline]
    fn on_timeout(&mut self, info: &LossInfo) {
        (**self).on_timeout(info)
    }
    #[inline]
    fn on_recovery_end(&mut self, now: Time) {
        (**self).on_recovery_end(now)
    }
    #[inline]
    fn on_packet_sent(&mut self, now: Time, seq: u64, len: u32, retransmission: bool) {
        (**self).on_packet_sent(now, seq, len, retransmission)
    }
    fn summary(&self) -> Vec<(&'static str, f64)> {
        (**self).summary()
    }
    fn restart_counters(&mut self) {
        (**self).restart_counters()
    }
    fn tables(&mut self) -> Vec<(&'static str, Table)> {
        (**self).tables()
    }
    #[inline]
    fn pacing_rate(&self) -> Option<f64> {
        (**self).pacing_rate()
    }
    fn paces(&self) -> bool {
        (**self).paces()
    }
    fn probe_names(&self) -> &'static [&'static str] {
        (**self).probe_names()
    }
    fn probe(&self, out: &mut Vec<f64>) {
        (**self).probe(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::Reno;
    use super::super::{CcInit, CongestionControl, LossInfo};

    /// The box forwards every call: a boxed Reno and a plain one stay equal step by step.
    #[test]
    fn a_boxed_controller_behaves_as_the_controller() {
        let init = CcInit { initial_cwnd: 2.0, initial_ssthresh: 6.0 };
        let (mut plain, mut boxed): (Reno, Box<dyn CongestionControl>) = (Reno::new(init), Box::new(Reno::new(init)));
        let ack = super::AckInfo { acked_segs: 1.0, acked_bytes: 1000, mss: 1000, ..Default::default() };
        let loss = LossInfo { window: 9.0, mss: 1000, ..Default::default() };
        for i in 0..40 {
            if i == 20 {
                plain.on_congestion(&loss);
                boxed.on_congestion(&loss);
            }
            plain.on_ack(&ack);
            boxed.on_ack(&ack);
            assert_eq!((plain.cwnd(), plain.ssthresh()), (boxed.cwnd(), boxed.ssthresh()));
        }
        plain.on_timeout(&loss);
        CongestionControl::on_timeout(&mut boxed, &loss);
        boxed.set_cwnd(0.5);
        plain.set_cwnd(0.5);
        assert_eq!((plain.cwnd(), plain.ssthresh(), plain.name()), (boxed.cwnd(), boxed.ssthresh(), boxed.name()));
        assert!(!boxed.paces() && boxed.pacing_rate().is_none());
    }
}
