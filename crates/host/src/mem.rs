//! Cache-line-aligned buffers and the operations that force a line's coherence state.
//!
//! A line is 64 bytes of eight `AtomicU64` words: relaxed atomic loads and stores compile to plain
//! moves on x86_64 and AArch64, so the benchmarks read and write memory as ordinary code does,
//! without data races. States are forced as in seed 000 §1.3.1 (BenchIT):
//! - **M**: the owner stores to the line (its copy becomes the only, modified one);
//! - **E**: the line is flushed from every cache, then the owner loads it (the only copy, clean);
//! - **S**: flushed, then loaded by the owner and by a helper thread;
//! - **I**: flushed from every cache: the next load comes from memory.
//!
//! Flushing is `clflush` on x86_64 (Intel SDM vol. 2A: "invalidates from every level of the cache
//! hierarchy in the cache coherence domain the cache line that contains the linear address"),
//! followed by `mfence`, which orders it with later loads. Elsewhere there is no unprivileged flush
//! instruction we rely on, so [`flush`] evicts by streaming through a buffer larger than any
//! last-level cache ([`EVICTION_BYTES`]), which is slow and leaves the line possibly still cached
//! on machines with a larger LLC — the docs say so.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of a cache line as laid out here (every x86_64 and most AArch64 servers).
pub const LINE_BYTES: usize = 64;

/// One 64-byte cache line.
#[repr(C, align(64))]
#[derive(Debug, Default)]
pub struct Line {
    /// Its eight words.
    pub words: [AtomicU64; 8],
}

/// A pointer-chasing slot: one line followed by an unused line, so that the adjacent-line
/// ("spatial") prefetcher, which fetches 128-byte pairs, never brings in a neighbouring slot.
#[repr(C, align(128))]
#[derive(Debug, Default)]
pub struct Slot {
    /// The line the chase reads; word 0 holds the index of the next slot.
    pub line: Line,
    _pad: Line,
}

/// A buffer of `n` lines (contiguous, for multi-line copies).
pub fn lines(n: usize) -> Vec<Line> {
    (0..n).map(|_| Line::default()).collect()
}

/// `n` chase slots linked in a pseudo-random cyclic order (a fixed linear congruential shuffle,
/// so every run chases the same order), which defeats the stride prefetchers.
pub fn chase_slots(n: usize) -> Vec<Slot> {
    let slots: Vec<Slot> = (0..n).map(|_| Slot::default()).collect();
    let mut order: Vec<usize> = (0..n).collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..n).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let j = usize::try_from((state >> 33) % (i as u64 + 1)).unwrap_or(0);
        order.swap(i, j);
    }
    for w in 0..n {
        let next = order[(w + 1) % n];
        slots[order[w]].line.words[0].store(next as u64, Ordering::Relaxed);
    }
    slots
}

/// Follow the chain from slot 0 through every slot once; returns the index reached (so the
/// loads cannot be optimized away). Each load depends on the previous one: the time is the sum
/// of the line latencies.
#[inline(never)]
pub fn chase(slots: &[Slot]) -> usize {
    // No division or conversion in the loop: an index past the end (which `chase_slots` never
    // writes) ends the chase early instead of panicking.
    let mut at = 0usize;
    for _ in 0..slots.len() {
        match slots.get(at) {
            Some(slot) => at = slot.line.words[0].load(Ordering::Relaxed) as usize,
            None => break,
        }
    }
    at
}

/// Load word 0 of every slot (bring the lines into this core's cache, E or S).
pub fn touch_slots(slots: &[Slot]) -> u64 {
    slots
        .iter()
        .map(|s| s.line.words[0].load(Ordering::Relaxed))
        .fold(0, u64::wrapping_add)
}

/// Store to every slot (the lines become M in this core's cache); the chain is kept.
pub fn dirty_slots(slots: &[Slot]) {
    for s in slots {
        let v = s.line.words[0].load(Ordering::Relaxed);
        s.line.words[0].store(v, Ordering::Relaxed);
        s.line.words[1].fetch_add(0, Ordering::Relaxed);
    }
}

/// Flush every slot's line from all caches.
pub fn flush_slots(slots: &[Slot]) {
    for s in slots {
        flush_line(&s.line);
    }
    fence();
}

/// Flush a buffer of lines from all caches.
pub fn flush(lines: &[Line]) {
    for l in lines {
        flush_line(l);
    }
    fence();
}

/// Load one word of every line (bring them into this core's cache).
pub fn touch(lines: &[Line]) -> u64 {
    lines
        .iter()
        .map(|l| l.words[0].load(Ordering::Relaxed))
        .fold(0, u64::wrapping_add)
}

/// Store one word of every line (M in this core's cache).
pub fn dirty(lines: &[Line], value: u64) {
    for l in lines {
        l.words[0].store(value, Ordering::Relaxed);
    }
}

/// Copy `src` into `dst` line by line, eight words each; the last line's word 0 (the canary) is
/// written last with release ordering, as a receiver polling it expects (x86 TSO, seed 000 §3.1).
pub fn copy_with_canary(src: &[Line], dst: &[Line], canary: u64) {
    let n = src.len().min(dst.len());
    for i in 0..n {
        for w in 0..8 {
            if i + 1 == n && w == 0 {
                continue;
            }
            let v = src[i].words[w].load(Ordering::Relaxed);
            dst[i].words[w].store(v, Ordering::Relaxed);
        }
    }
    if n > 0 {
        let _ = src[n - 1].words[0].load(Ordering::Relaxed);
        dst[n - 1].words[0].store(canary, Ordering::Release);
    }
}

/// Copy `src` into `dst`, all eight words of every line (a receiver's private copy).
pub fn copy(src: &[Line], dst: &[Line]) {
    for (s, d) in src.iter().zip(dst) {
        for w in 0..8 {
            d.words[w].store(s.words[w].load(Ordering::Relaxed), Ordering::Relaxed);
        }
    }
}

/// Bytes streamed by the eviction fallback of [`flush`] off x86_64.
pub const EVICTION_BYTES: usize = 256 << 20;

#[cfg(target_arch = "x86_64")]
fn flush_line(line: &Line) {
    // SAFETY: `line` is a live, 64-byte-aligned object owned by the caller; clflush only evicts
    // the cache line holding that address and does not change memory contents. The SSE2 target
    // feature that `_mm_clflush` needs is part of the x86_64 baseline.
    unsafe { core::arch::x86_64::_mm_clflush(std::ptr::from_ref(line).cast::<u8>()) };
}

#[cfg(target_arch = "x86_64")]
fn fence() {
    // SAFETY: mfence has no memory-safety preconditions; SSE2 is baseline on x86_64.
    unsafe { core::arch::x86_64::_mm_mfence() };
}

#[cfg(not(target_arch = "x86_64"))]
fn flush_line(_line: &Line) {}

#[cfg(not(target_arch = "x86_64"))]
fn fence() {
    // No flush instruction: evict by streaming through more memory than any LLC holds.
    use std::sync::OnceLock;
    static EVICT: OnceLock<Vec<Line>> = OnceLock::new();
    let buf = EVICT.get_or_init(|| lines(EVICTION_BYTES / LINE_BYTES));
    for l in buf {
        l.words[0].fetch_add(1, Ordering::Relaxed);
    }
    std::sync::atomic::fence(Ordering::SeqCst);
}

/// Whether [`flush`] is a real flush instruction (x86_64) or the eviction fallback.
pub const HAS_CLFLUSH: bool = cfg!(target_arch = "x86_64");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chase_visits_every_slot_once_and_returns_to_the_start() {
        // A single cycle through all n slots: n steps from slot 0 come back to slot 0.
        let slots = chase_slots(37);
        assert_eq!(chase(&slots), 0);
        let mut seen = [false; 37];
        let mut at = 0;
        for _ in 0..37 {
            assert!(!seen[at]);
            seen[at] = true;
            at = slots[at].line.words[0].load(Ordering::Relaxed) as usize;
        }
        assert!(seen.iter().all(|s| *s));
        // Dirtying and flushing keep the chain.
        dirty_slots(&slots);
        flush_slots(&slots);
        assert_eq!(chase(&slots), 0);
    }

    #[test]
    fn layout_is_one_line_per_line_and_two_per_slot() {
        assert_eq!(std::mem::size_of::<Line>(), 64);
        assert_eq!(std::mem::size_of::<Slot>(), 128);
        let b = lines(3);
        assert_eq!(b.as_ptr() as usize % 64, 0);
    }

    #[test]
    fn copy_writes_the_canary_last_word() {
        let src = lines(2);
        dirty(&src, 7);
        let dst = lines(2);
        copy_with_canary(&src, &dst, 99);
        assert_eq!(dst[0].words[0].load(Ordering::Relaxed), 7);
        assert_eq!(dst[1].words[0].load(Ordering::Relaxed), 99);
    }
}
