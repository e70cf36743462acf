//! Transparent huge pages for the simulation's memory.
//!
//! A run with thousands of flows touches each flow's state (sender, receiver, access
//! links, statistics) a few times per round trip, spread over tens of megabytes: with
//! 4 KiB pages most of those touches miss the TLB as well as the cache. Linux can back
//! memory with 2 MiB pages, but only where a mapping is advised (`MADV_HUGEPAGE`) when the
//! system's setting is `madvise` (the common default), and only for 2 MiB blocks that lie
//! wholly inside one mapping when they are first touched.
//!
//! [`HugePageAlloc`] is a global allocator for binaries (the Python extension, the
//! benchmark example): it is the system allocator, plus — while [`enable`]d — advice on the
//! memory it hands out: the growing main heap (`brk`), grown in 32 MiB steps so that new
//! blocks are advised before they are touched, and every chunk of 2 MiB or more. It
//! changes no result (the simulation never sees addresses). `CCSIM_HUGEPAGES` in the
//! environment: `0` off, `1` for every world, unset for large ones (below). It is what glibc's own `glibc.malloc.hugetlb=1` tunable does,
//! which can only be set before a process starts. Elsewhere than Linux it is the system
//! allocator.
//!
//! A binary that installs it says so with [`install`]; the engine then enables the advice
//! when it builds a large world ([`enable_for_world`]: at least [`FROM_FLOWS`] flows, or
//! flows created during the run). Small runs gain nothing from huge pages, and a fault in
//! an advised region may have to wait while the kernel assembles a whole 2 MiB page.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// The huge page size advised for (x86-64 and most arm64 kernels).
pub const HUGE_PAGE: usize = 2 << 20;

static ENABLED: AtomicBool = AtomicBool::new(false);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Worlds with at least this many flows get huge pages (see [`enable_for_world`]).
pub const FROM_FLOWS: usize = 1000;
/// The end of the main heap up to which advice was given.
static ADVISED_TOP: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, advising huge pages for the memory it returns while enabled.
pub struct HugePageAlloc;

unsafe impl GlobalAlloc for HugePageAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        advise_new(p, layout.size());
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        advise_new(p, layout.size());
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if new_size > layout.size() {
            advise_new(p, new_size);
        }
        p
    }
}

/// Turns the advice on for this process (idempotent; `CCSIM_HUGEPAGES=0` keeps it off).
/// Returns whether it is on. Cheap after the first call.
pub fn enable() -> bool {
    if ENABLED.load(Relaxed) {
        return true;
    }
    if !cfg!(target_os = "linux") || std::env::var_os("CCSIM_HUGEPAGES").is_some_and(|v| v == "0") {
        return false;
    }
    ADVISED_TOP.store(sys::setup(), Relaxed);
    ENABLED.store(true, Relaxed);
    true
}

/// Whether the advice is on.
pub fn enabled() -> bool {
    ENABLED.load(Relaxed)
}

/// Declares that this process's global allocator is [`HugePageAlloc`] (called by the
/// binary that installs it; without it, [`enable_for_world`] does nothing).
pub fn install() {
    INSTALLED.store(true, Relaxed);
}

/// Called by the engine as it builds a world of `flows` flows (`generated`: flows will be
/// created during the run): enables the advice for a large one (any, with
/// `CCSIM_HUGEPAGES=1`), if [`install`]ed. Returns whether the advice is on.
pub fn enable_for_world(flows: usize, generated: bool) -> bool {
    let forced = || std::env::var_os("CCSIM_HUGEPAGES").is_some_and(|v| v == "1");
    if INSTALLED.load(Relaxed) && !enabled() && (flows >= FROM_FLOWS || generated || forced()) {
        enable()
    } else {
        enabled()
    }
}

#[inline]
fn advise_new(p: *mut u8, size: usize) {
    if p.is_null() || !ENABLED.load(Relaxed) {
        return;
    }
    if size >= HUGE_PAGE {
        sys::advise(p as usize, size);
    }
    let done = ADVISED_TOP.load(Relaxed);
    if (p as usize).saturating_add(size) <= done {
        // Inside the heap as already advised: it did not grow for this chunk. (The check
        // below costs a call; a chunk that made the heap grow reaches past `done`, as do
        // chunks mapped on their own above the heap, which are rarer.)
        return;
    }
    let top = sys::heap_top();
    if top > done && ADVISED_TOP.compare_exchange(done, top, Relaxed, Relaxed).is_ok() {
        // The heap grew (by glibc's top pad, `TOP_PAD` since `setup`): advise the new
        // part, from the huge page that holds the old end.
        let from = done & !(HUGE_PAGE - 1);
        sys::advise(from, top - from);
    } else if top < done {
        // glibc gave memory at the top back (seen at the next chunk past the former top):
        // the heap's regrowth is a new mapping, advised afresh from here. A regrowth that
        // stays below the former top is not seen and keeps small pages (speed only).
        let _ = ADVISED_TOP.compare_exchange(done, top, Relaxed, Relaxed);
    }
}

#[cfg(target_os = "linux")]
mod sys {
    use super::HUGE_PAGE;

    extern "C" {
        fn sbrk(increment: isize) -> *mut core::ffi::c_void;
        fn madvise(addr: *mut core::ffi::c_void, len: usize, advice: i32) -> i32;
        fn mallopt(param: i32, value: i32) -> i32;
    }
    const MADV_HUGEPAGE: i32 = 14;
    const M_TOP_PAD: i32 = -2;
    /// The main heap's growth step.
    const TOP_PAD: usize = 16 * HUGE_PAGE;

    /// Grows the main heap by `TOP_PAD` at a time, so that most blocks of a new stretch
    /// are advised before anything touches them (glibc writes chunk headers at both ends
    /// of the allocation that grew the heap, so a block there may start with small pages),
    /// and advises the heap as it stands. Returns where the advice starts.
    pub(super) fn setup() -> usize {
        // SAFETY: mallopt only changes glibc's heap growth parameter.
        unsafe { mallopt(M_TOP_PAD, TOP_PAD as i32) };
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
        let heap = maps.lines().find(|l| l.ends_with("[heap]"));
        let start = heap.and_then(|l| usize::from_str_radix(l.split('-').next()?, 16).ok());
        start.unwrap_or_else(heap_top)
    }

    /// The current end of the main heap (glibc caches it: no system call).
    #[inline]
    pub(super) fn heap_top() -> usize {
        // SAFETY: sbrk(0) only reads the current break.
        unsafe { sbrk(0) as usize }
    }

    /// Advises the huge pages wholly inside `[start, start + len)`.
    pub(super) fn advise(start: usize, len: usize) {
        let a = (start + HUGE_PAGE - 1) & !(HUGE_PAGE - 1);
        let b = (start + len) & !(HUGE_PAGE - 1);
        if b > a {
            // SAFETY: advice only; the range is mapped memory this process owns (a heap
            // stretch or an allocation), and MADV_HUGEPAGE changes no content.
            unsafe { madvise(a as *mut _, b - a, MADV_HUGEPAGE) };
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    pub(super) fn setup() -> usize {
        0
    }
    #[inline]
    pub(super) fn heap_top() -> usize {
        0
    }
    pub(super) fn advise(_start: usize, _len: usize) {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The `VmFlags` line of the mapping of `/proc/self/smaps` that holds `addr`.
    fn vm_flags(addr: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ').filter(|(r, _)| r.contains('-') && !r.ends_with(':')) {
                let (a, b) = range.split_once('-').unwrap();
                let (a, b) = (usize::from_str_radix(a, 16).unwrap(), usize::from_str_radix(b, 16).unwrap());
                inside = (a..b).contains(&addr);
            } else if inside && line.starts_with("VmFlags:") {
                return line.to_string();
            }
        }
        panic!("no mapping holds {addr:#x}");
    }

    #[test]
    fn large_chunks_are_advised() {
        if std::env::var_os("CCSIM_HUGEPAGES").is_some_and(|v| v == "0") {
            return;
        }
        assert!(enable());
        assert!(enabled());
        let a = HugePageAlloc;
        // A chunk of several huge pages (glibc maps it on its own): advised, usable.
        let big = Layout::from_size_align(8 * HUGE_PAGE, 64).unwrap();
        let p = unsafe { a.alloc_zeroed(big) };
        assert!(!p.is_null());
        let mid = p as usize + 4 * HUGE_PAGE;
        // A kernel without transparent huge pages (no sysfs setting) refuses the advice.
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if thp.contains("[always]") || thp.contains("[madvise]") {
            assert!(vm_flags(mid).split_whitespace().any(|f| f == "hg"), "{}", vm_flags(mid));
        }
        unsafe {
            *p.add(8 * HUGE_PAGE - 1) = 7;
            let q = a.realloc(p, big, 12 * HUGE_PAGE);
            assert_eq!(*q.add(8 * HUGE_PAGE - 1), 7);
            a.dealloc(q, Layout::from_size_align(12 * HUGE_PAGE, 64).unwrap());
        }
        // The main heap (small chunks) is checked from Python: tests here run on threads,
        // whose small chunks glibc takes from other arenas.
    }
}
