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
    fn on_acked(&mut self, info: &AckInfo) {
        (**self).on_acked(info)
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
    use super::super::{AckInfo, CongestionControl, LossInfo};
    use crate::measure::Table;
    use crate::units::Time;
    use std::sync::{Arc, Mutex};

    /// Overrides every method of the trait and records which ran, with its argument.
    struct Spy(Arc<Mutex<Vec<String>>>);

    impl Spy {
        fn log(&self, what: String) {
            self.0.lock().unwrap().push(what);
        }
    }

    impl CongestionControl for Spy {
        fn name(&self) -> &'static str {
            self.log("name".into());
            "spy"
        }
        fn cwnd(&self) -> f64 {
            self.log("cwnd".into());
            7.0
        }
        fn ssthresh(&self) -> f64 {
            self.log("ssthresh".into());
            8.0
        }
        fn set_cwnd(&mut self, c: f64) {
            self.log(format!("set_cwnd {c}"));
        }
        fn set_ssthresh(&mut self, s: f64) {
            self.log(format!("set_ssthresh {s}"));
        }
        fn on_ack_received(&mut self, i: &AckInfo) {
            self.log(format!("on_ack_received {}", i.ack));
        }
        fn on_acked(&mut self, i: &AckInfo) {
            self.log(format!("on_acked {}", i.ack));
        }
        fn on_ack(&mut self, i: &AckInfo) {
            self.log(format!("on_ack {}", i.ack));
        }
        fn on_congestion(&mut self, i: &LossInfo) {
            self.log(format!("on_congestion {}", i.window));
        }
        fn on_timeout(&mut self, i: &LossInfo) {
            self.log(format!("on_timeout {}", i.window));
        }
        fn on_recovery_end(&mut self, now: Time) {
            self.log(format!("on_recovery_end {now}"));
        }
        fn on_packet_sent(&mut self, now: Time, seq: u64, len: u32, retx: bool) {
            self.log(format!("on_packet_sent {now} {seq} {len} {retx}"));
        }
        fn summary(&self) -> Vec<(&'static str, f64)> {
            self.log("summary".into());
            vec![("x", 1.0)]
        }
        fn restart_counters(&mut self) {
            self.log("restart_counters".into());
        }
        fn tables(&mut self) -> Vec<(&'static str, Table)> {
            self.log("tables".into());
            vec![("t", Table::default())]
        }
        fn pacing_rate(&self) -> Option<f64> {
            self.log("pacing_rate".into());
            Some(5.0)
        }
        fn paces(&self) -> bool {
            self.log("paces".into());
            true
        }
        fn probe_names(&self) -> &'static [&'static str] {
            self.log("probe_names".into());
            &["p"]
        }
        fn probe(&self, out: &mut Vec<f64>) {
            self.log("probe".into());
            out.push(3.0);
        }
    }

    /// Every method called on the box reaches the boxed controller with its arguments, and
    /// its answer comes back: none falls through to the trait's default.
    #[test]
    fn the_box_forwards_every_method() {
        type B = Box<dyn CongestionControl>;
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut b: B = Box::new(Spy(log.clone()));
        let (ack, loss) = (AckInfo { ack: 11, ..Default::default() }, LossInfo { window: 12.0, ..Default::default() });
        let mut out = Vec::new();
        assert_eq!(<B as CongestionControl>::name(&b), "spy");
        assert_eq!(<B as CongestionControl>::cwnd(&b), 7.0);
        assert_eq!(<B as CongestionControl>::ssthresh(&b), 8.0);
        <B as CongestionControl>::set_cwnd(&mut b, 2.5);
        <B as CongestionControl>::set_ssthresh(&mut b, 3.5);
        <B as CongestionControl>::on_ack_received(&mut b, &ack);
        <B as CongestionControl>::on_acked(&mut b, &ack);
        <B as CongestionControl>::on_ack(&mut b, &ack);
        <B as CongestionControl>::on_congestion(&mut b, &loss);
        <B as CongestionControl>::on_timeout(&mut b, &loss);
        <B as CongestionControl>::on_recovery_end(&mut b, 13);
        <B as CongestionControl>::on_packet_sent(&mut b, 14, 15, 16, true);
        assert_eq!(<B as CongestionControl>::summary(&b), vec![("x", 1.0)]);
        <B as CongestionControl>::restart_counters(&mut b);
        assert_eq!(<B as CongestionControl>::tables(&mut b).len(), 1);
        assert_eq!(<B as CongestionControl>::pacing_rate(&b), Some(5.0));
        assert!(<B as CongestionControl>::paces(&b));
        assert_eq!(<B as CongestionControl>::probe_names(&b), &["p"]);
        <B as CongestionControl>::probe(&b, &mut out);
        assert_eq!(out, vec![3.0]);
        let expected = [
            "name",
            "cwnd",
            "ssthresh",
            "set_cwnd 2.5",
            "set_ssthresh 3.5",
            "on_ack_received 11",
            "on_acked 11",
            "on_ack 11",
            "on_congestion 12",
            "on_timeout 12",
            "on_recovery_end 13",
            "on_packet_sent 14 15 16 true",
            "summary",
            "restart_counters",
            "tables",
            "pacing_rate",
            "paces",
            "probe_names",
            "probe",
        ];
        assert_eq!(*log.lock().unwrap(), expected);
    }
}
