//! Putting a collective's lines in the coherence states its model assumes, before every timed
//! iteration, and saying which states were actually forced.
//!
//! The models price the first access to each line by the state the line is in when the
//! collective starts (seed 000 Tables 1.5–1.8, seed 001 §2.1): R_L when it is in the accessing
//! core's cache, R_R/R_Q when another core holds it, R_I/R_QI when no cache holds it. Seed 001 §4
//! measured "with synchronization data-structures and user-data forced in the desired cache
//! states", and seed 000 §4.4 "forces the data to be in exclusive state in the buffer owner's
//! cache". Each collective of this crate states the states its model assumes (an
//! [`InitialState`] per kind of line, with the source) and forces them in its `prepare` method.
//!
//! **How.** Two operations, both by the thread that owns the line:
//! - [`evict`]: on x86_64, `clflush` ("invalidates from every level of the cache hierarchy in the
//!   cache coherence domain the cache line that contains the linear address", Intel SDM vol. 2A)
//!   followed by `mfence`, which orders it with later loads and stores: the line is then in no
//!   cache, state I, and its next access comes from memory (R_I);
//! - evict, then a load by the owner: the only cached copy, clean, state E.
//!
//! **Where it cannot be forced.** Other architectures have no unprivileged flush instruction
//! this crate relies on (AArch64's `DC CIVAC` may trap at EL0 depending on `SCTLR_EL1.UCI`). There
//! the lines are rewritten by their owner instead, which leaves them Modified in the owner's cache
//! and invalid elsewhere; [`can_flush`] is false and every [`InitialState`] says the state it left
//! (`start`) beside the one the model assumes (`model`), so a report never claims a state it did
//! not force.

use serde::Serialize;

/// A line's MESI state as the seeds' tables name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum LineState {
    /// Modified: one cache holds the only, dirty copy.
    #[serde(rename = "M")]
    Modified,
    /// Exclusive: one cache holds the only, clean copy.
    #[serde(rename = "E")]
    Exclusive,
    /// Invalid in every cache: the line is in memory only (R_I on its next access).
    #[serde(rename = "I")]
    Invalid,
}

impl LineState {
    /// M, E or I.
    pub fn letter(self) -> char {
        match self {
            LineState::Modified => 'M',
            LineState::Exclusive => 'E',
            LineState::Invalid => 'I',
        }
    }
}

/// How a collective's `prepare` puts a kind of line in its starting state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// [`evict`]: clflush + mfence (state I).
    Flush,
    /// [`evict`], then a load by the owner (state E in the owner's cache).
    FlushThenLoad,
    /// The owner stores the value back unchanged (state M in its cache): the fallback where no
    /// flush instruction is available.
    Rewrite,
    /// Nothing to do: the line is the thread's own local buffer, written by the thread itself
    /// just before use, so it is in its cache by construction.
    Construction,
}

/// The starting state of one kind of line of a collective: what the model assumes and what each
/// iteration actually starts with on this host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InitialState {
    /// Which lines (`data line (flag + payload) of every node with children`).
    pub lines: &'static str,
    /// Whose cache holds them when the state is M or E (`its owner`); empty for I.
    pub holder: &'static str,
    /// The state the model prices.
    pub model: LineState,
    /// The state every timed iteration starts with here.
    pub start: LineState,
    /// How `start` is reached.
    pub method: Method,
    /// Where the model's assumption comes from (seed, section, the term it prices).
    pub source: &'static str,
}

impl InitialState {
    /// A kind of line the model wants in `model`: forced with [`Method::Flush`] (I) or
    /// [`Method::FlushThenLoad`] (E) where [`can_flush`]; rewritten (M) for M, and for every
    /// state where nothing can flush.
    pub fn forced(
        lines: &'static str,
        holder: &'static str,
        model: LineState,
        source: &'static str,
    ) -> Self {
        let (start, method) = match (can_flush(), model) {
            (true, LineState::Invalid) => (LineState::Invalid, Method::Flush),
            (true, LineState::Exclusive) => (LineState::Exclusive, Method::FlushThenLoad),
            (_, _) => (LineState::Modified, Method::Rewrite),
        };
        InitialState {
            lines,
            holder,
            model,
            start,
            method,
            source,
        }
    }

    /// A thread-local buffer, in its thread's cache by construction.
    pub fn local(lines: &'static str, source: &'static str) -> Self {
        InitialState {
            lines,
            holder: "its thread",
            model: LineState::Modified,
            start: LineState::Modified,
            method: Method::Construction,
            source,
        }
    }

    /// Whether each iteration starts in the state the model assumes.
    pub fn matches_model(&self) -> bool {
        self.start == self.model
    }
}

/// Whether [`evict`] really removes a line from every cache on this build (x86_64: `clflush`).
pub const fn can_flush() -> bool {
    cfg!(target_arch = "x86_64")
}

/// The instructions [`evict`] uses, or `None` where it does nothing.
pub const fn flush_method() -> Option<&'static str> {
    if can_flush() {
        Some("clflush + mfence")
    } else {
        None
    }
}

/// Evict the cache line holding the first byte of `value` from every cache of the coherence
/// domain (x86_64), without a fence: call [`fence`] after the last one. Does nothing elsewhere.
#[inline]
pub fn evict<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `value` is a live reference, so the address is valid for reads; clflush only
        // writes the line back and invalidates it, it does not change memory contents (and so
        // cannot break any invariant of `T`, atomic or not). SSE2, which `_mm_clflush` needs, is
        // part of the x86_64 baseline.
        #[allow(unsafe_code)]
        unsafe {
            core::arch::x86_64::_mm_clflush(std::ptr::from_ref(value).cast::<u8>());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Order the preceding [`evict`]s before every later load and store (x86_64 `mfence`; a
/// sequentially consistent fence elsewhere).
#[inline]
pub fn fence() {
    // SAFETY: mfence has no memory-safety preconditions; SSE2, which `_mm_mfence` needs, is
    // part of the x86_64 baseline.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    unsafe {
        core::arch::x86_64::_mm_mfence();
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn eviction_keeps_the_value() {
        // clflush writes a dirty line back before invalidating it: the value survives.
        let x = AtomicU64::new(41);
        x.store(42, Ordering::Relaxed);
        evict(&x);
        fence();
        assert_eq!(x.load(Ordering::Relaxed), 42);
    }

    #[test]
    fn forced_states_say_what_they_reach() {
        let i = InitialState::forced("flags", "", LineState::Invalid, "rule 1");
        let e = InitialState::forced("buffers", "owner", LineState::Exclusive, "§4.4");
        if can_flush() {
            assert_eq!((i.start, i.method), (LineState::Invalid, Method::Flush));
            assert_eq!(
                (e.start, e.method),
                (LineState::Exclusive, Method::FlushThenLoad)
            );
            assert!(i.matches_model() && e.matches_model());
            assert_eq!(flush_method(), Some("clflush + mfence"));
        } else {
            // No flush: both are rewritten, Modified, and neither matches the model.
            assert_eq!((i.start, i.method), (LineState::Modified, Method::Rewrite));
            assert!(!i.matches_model() && !e.matches_model());
            assert_eq!(flush_method(), None);
        }
        let l = InitialState::local("buffer", "rule 2");
        assert!(l.matches_model());
        assert_eq!(LineState::Invalid.letter(), 'I');
    }
}
