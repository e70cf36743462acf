//! Cache prefetch hints for loops over batches known in advance (a router's window, the
//! hand-overs to hosts ahead of the clock): at thousands of flows what a packet's next step
//! reads (the packet, its flow's slot and agent, a link direction) was written long before
//! and is out of the cache. A hint changes nothing but time, and it costs instructions: a
//! world asks for what its size pays for ([`Level::for_world`]).

/// What the batch loops ask to be brought into the cache ahead of use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Nothing: everything stays in the cache (S1, 10 flows: +1 % instructions for the
    /// packets' hints, +5 % with the flows' too; S2, one flow: +5 % wall for the packets').
    None,
    /// The packets a router's window and the hand-overs will read (S3, 200 flows, −7 %).
    Packets,
    /// Also the arriving link, the flow's slot, statistics and agent of each hand-over
    /// (10 000 flows: a further −5 %; S3 +5 %), and the slot of a timer event about to run.
    Flows,
    /// Also what a timer event about to run reads beyond its flow's slot: the agent it
    /// calls, the flow's statistics and the end's way out, which a timeout's
    /// retransmission touches (3 000, 10 000 and 100 000 flows about −5 %; not below
    /// 2 000 flows, whose state the cache still holds: 1 000 flows +2 %, within the noise);
    /// and the batch loops' hints look about twice as far ahead (10 000 flows about 3 %
    /// faster; twenty-ninth session).
    Timers,
}

/// Worlds with at least this many flows get [`Level::Packets`].
pub const PACKETS_FROM_FLOWS: usize = 100;
/// Worlds with at least this many flows, or with traffic generators, get [`Level::Flows`].
pub const FLOWS_FROM_FLOWS: usize = 1000;
/// Worlds with at least this many flows get [`Level::Timers`].
pub const TIMERS_FROM_FLOWS: usize = 2000;

impl Level {
    /// The level for a world of `flows` flows (and traffic generators, if `generated`).
    pub fn for_world(flows: usize, generated: bool) -> Level {
        if flows >= TIMERS_FROM_FLOWS {
            Level::Timers
        } else if flows >= FLOWS_FROM_FLOWS || generated {
            Level::Flows
        } else if flows >= PACKETS_FROM_FLOWS {
            Level::Packets
        } else {
            Level::None
        }
    }
}

/// Asks for the first `max_lines` cache lines of `*r` (at most its size) to be brought into
/// the cache.
#[inline(always)]
pub fn lines<T: ?Sized>(r: &T, max_lines: usize) {
    let size = std::mem::size_of_val(r);
    let a = r as *const T as *const u8;
    let end = size.min(max_lines * 64);
    let mut off = 0;
    while off < end {
        hint(a.wrapping_add(off));
        off += 64;
    }
    if size > 0 && end == size {
        // The last line, when the object does not start on a line boundary.
        hint(a.wrapping_add(size - 1));
    }
}

/// One address's line.
#[inline(always)]
fn hint(p: *const u8) {
    // SAFETY: `lines` passes only addresses inside the object it was given (offsets below
    // its size), which is alive and borrowed for the call.
    #[cfg(feature = "hints-as-loads")]
    std::hint::black_box(unsafe { std::ptr::read_volatile(p) });
    #[cfg(all(target_arch = "x86_64", not(feature = "hints-as-loads")))]
    // SAFETY: a prefetch only hints the cache: it never faults, whatever the address, and
    // reads nothing into the program.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(all(not(target_arch = "x86_64"), not(feature = "hints-as-loads")))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::Level;

    #[test]
    fn the_level_follows_the_world() {
        assert_eq!(Level::for_world(10, false), Level::None);
        assert_eq!(Level::for_world(200, false), Level::Packets);
        assert_eq!(Level::for_world(1000, false), Level::Flows);
        assert_eq!(Level::for_world(10_000, false), Level::Timers);
        assert_eq!(Level::for_world(2, true), Level::Flows);
        assert_eq!(Level::for_world(10_000, true), Level::Timers);
        assert!(Level::Timers > Level::Flows && Level::Flows > Level::Packets && Level::Packets > Level::None);
    }

    /// Any size, empty and straddling objects included: the last-line hint must not
    /// underflow (an empty slice would, without its guard: a panic here).
    #[test]
    fn hints_take_objects_of_any_size() {
        let v = vec![7u8; 1000];
        super::lines(&v[..], 4);
        super::lines(&v[3], 1);
        super::lines(&v[..0], 2);
        assert!(v.iter().all(|&b| b == 7));
    }
}
