//! Datagram sink: counts delivered payload as goodput (delay and packet counts are kept by
//! the engine for every flow).

use crate::agent::{Agent, Ctx};
use crate::packet::Packet;

#[derive(Default)]
pub struct DatagramSink {
    /// Highest sequence number seen + 1, to count reordering-free unique deliveries.
    next: u64,
    pub out_of_order: u64,
}

impl Agent for DatagramSink {
    fn on_packet(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        if pkt.seq < self.next {
            self.out_of_order += 1;
        } else {
            self.next = pkt.seq + 1;
        }
        ctx.add_goodput(pkt.payload as u64);
    }
    fn next_wakeup(&self) -> Option<crate::units::Time> {
        Some(crate::units::Time::MAX)
    }
    fn summary(&self) -> Vec<(&'static str, f64)> {
        vec![("out_of_order", self.out_of_order as f64)]
    }
    fn restart_counters(&mut self, _now: crate::units::Time) {
        self.out_of_order = 0;
    }
}
