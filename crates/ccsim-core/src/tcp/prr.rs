//! Proportional Rate Reduction (RFC 9937, which obsoletes RFC 6937): how much the sender
//! transmits during fast recovery, in proportion to what the receiver reports delivered
//! while the pipe is above ssthresh, then up to ssthresh (`prr = true`).

use super::sender::TcpSender;
use super::Recovery;
use crate::agent::Ctx;
use crate::cc::CongestionControl;

/// Proportional Rate Reduction (RFC 9937) accounting of one recovery: bytes delivered to
/// the receiver and bytes sent since it began, and the pipe when it began (RecoverFS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    pub delivered: u64,
    pub out: u64,
    pub recover_fs: u64,
}

impl Prr {
    /// Adds an ACK's `delivered` bytes and returns `sndcnt`, the bytes it lets the sender
    /// transmit (≤ 0: nothing): proportional to the delivered data while `pipe > ssthresh`,
    /// else the reduction bound (conservative, plus one segment on a safe ACK), and at least
    /// one segment before anything was sent (the fast retransmission).
    pub fn sndcnt(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64, safe_ack: bool) -> i64 {
        self.delivered += delivered;
        let out = self.out as i64;
        let snd = if pipe > ssthresh {
            // ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out.
            let fs = self.recover_fs.max(1) as u128;
            (self.delivered as u128 * ssthresh as u128).div_ceil(fs) as i64 - out
        } else {
            let limit = (self.delivered as i64 - out).max(delivered as i64) + if safe_ack { mss as i64 } else { 0 };
            limit.min(ssthresh as i64 - pipe as i64)
        };
        if self.out == 0 {
            snd.max(mss as i64)
        } else {
            snd
        }
    }
}

impl<C: CongestionControl> TcpSender<C> {
    /// `pipe`: RFC 6675's with SACK; without it, the data outstanding minus the segments
    /// duplicate ACKs reported delivered.
    pub(super) fn prr_pipe(&self) -> u64 {
        if self.cfg.recovery == Recovery::Sack {
            self.sb.pipe(self.snd_una, self.snd_max, self.high_rxt, self.cfg.mss, self.cfg.dupthresh)
        } else {
            self.inflight().saturating_sub(self.reno_sacked * self.mss())
        }
    }

    /// Starts a recovery's PRR accounting (before its fast retransmission).
    pub(super) fn prr_begin(&mut self) {
        self.prr = Prr { recover_fs: self.prr_pipe(), ..Prr::default() };
    }

    /// Adds `delivered` bytes and returns `sndcnt`, the bytes this ACK may send (may be ≤ 0).
    pub(super) fn prr_sndcnt(&mut self, delivered: u64, safe_ack: bool) -> i64 {
        let ssthresh = (self.cc.ssthresh() * self.mss() as f64).min(u64::MAX as f64 / 4.0) as u64;
        let pipe = self.prr_pipe();
        self.prr.sndcnt(delivered, pipe, ssthresh, self.mss(), safe_ack)
    }

    /// Bytes SACKed by the current ACK, net of those its cumulative ACK absorbed.
    pub(super) fn sack_delta(&self) -> i64 {
        self.sb.sacked_bytes() as i64 - self.sacked_before as i64
    }

    /// New data within a PRR budget (Reno/NewReno recovery).
    pub(super) fn prr_send(&mut self, ctx: &mut Ctx, mut budget: i64) {
        loop {
            let limit = self.app_limit.min(self.snd_una + self.rwnd);
            if self.snd_nxt >= limit {
                break;
            }
            let len = self.mss().min(limit - self.snd_nxt);
            // Whole segments only, unless it is the application's last piece.
            if budget < len as i64 || (len < self.mss() && self.snd_nxt + len < self.app_limit) {
                break;
            }
            if !self.send_next(ctx, len) {
                break;
            }
            budget -= len as i64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Prr;

    /// RFC 9937's basic case: one loss in a 20-segment window, ssthresh 10. PRR sends one
    /// segment per two delivered while pipe > ssthresh (the fast retransmission first), so
    /// that pipe falls smoothly to ssthresh, then one per delivered (conservative bound).
    #[test]
    fn prr_sends_in_proportion_then_holds_pipe_at_ssthresh() {
        let mss = 1000;
        // 19 of 20 outstanding segments remain in the network when recovery begins.
        let mut prr = Prr { recover_fs: 19 * mss, ..Prr::default() };
        let (mut pipe, mut sent) = (19 * mss, Vec::new());
        for _ in 0..19 {
            // Each duplicate ACK delivers one segment: it leaves the pipe.
            pipe -= mss;
            let mut budget = prr.sndcnt(mss, pipe, 10 * mss, mss, false);
            let mut n = 0;
            while budget >= mss as i64 {
                prr.out += mss;
                pipe += mss;
                budget -= mss as i64;
                n += 1;
            }
            sent.push(n);
        }
        // Whole segments of the ⌈k · ssthresh / RecoverFS⌉ bytes allowed after k ACKs: about
        // one per two ACKs, 10 in all (= ssthresh) by the end of the window.
        assert_eq!(sent.iter().sum::<u64>(), 10, "{sent:?}");
        assert_eq!(sent[0], 1, "the fast retransmission goes out on the first ACK");
        let mut total = 0;
        for (k, n) in sent.iter().enumerate().take(15) {
            total += n;
            assert_eq!(total, (((k as u64 + 1) * 10 * mss).div_ceil(19) / mss).max(1), "after {} ACKs: {sent:?}", k + 1);
        }
        assert_eq!(pipe, 10 * mss);
        // Below ssthresh (pipe 5 of 10 segments, after more losses): conservative, one for
        // one; a safe ACK adds one; never beyond ssthresh − pipe.
        // (delivered, out, pipe, safe ACK) in segments → sndcnt in segments.
        for (delivered, out, pipe, safe, want) in [(14, 12, 5, false, 3), (12, 12, 5, false, 1), (12, 12, 5, true, 2), (12, 2, 9, true, 1)]
        {
            let mut p = Prr { recover_fs: 20 * mss, delivered: delivered * mss, out: out * mss };
            assert_eq!(p.sndcnt(mss, pipe * mss, 10 * mss, mss, safe), want * mss as i64, "{delivered} {out} {pipe} {safe}");
        }
    }
}
