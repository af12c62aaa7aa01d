//! Sparse budgets: a table over every count vector of the box that stores only the pages some
//! entry of which was written (docs/cla.md §11, "Sparse envelopes").
//!
//! ## Why
//! The envelope budgets of the backward pass (`ScalarPass::backward`, two [`Bound`]s a node
//! stage: 2·S² entries a count vector) were the largest of its tables on L3 domains, yet
//! almost all of them stay empty: a budget is written only where some tree within the root's
//! budget passes (measured at 50 domain-line threads: 15,852 live of 78,121,827). Stored by
//! pages of [`PAGE`] entries, a table costs a directory of one `u32` a page (4 bytes for
//! [`PAGE`] entries, 1/128 of the dense table) and 528 bytes for each page written (512 and
//! its pointer).
//!
//! ## Bounded
//! Pages are allocated one at a time, each counted against an allowance the caller gives
//! ([`Paged::entry`] refuses one past it), so the memory limit holds however many budgets come
//! live; at worst every page is written and the table holds the dense one and its directory.
//! Lookups cost a directory load and a page load; an entry never written reads as `empty`.

use super::covering::Bound;

/// Entries a page: 64 pairs of [`Bound`]s, 512 bytes.
pub(super) const PAGE: usize = 64;

/// Bytes a page is counted for: its [`PAGE`] pairs of [`Bound`]s (512) and 16 for its
/// pointer in the list of pages (8, twice over while that list grows by doubling).
pub(super) const PAGE_BYTES: u64 = (PAGE * std::mem::size_of::<(Bound, Bound)>() + 16) as u64;

/// Bytes of the directory of a table over `len` entries: one `u32` a page.
pub(super) fn directory_bytes(len: u64) -> u64 {
    len.div_ceil(PAGE as u64).saturating_mul(4)
}

/// A sparse table of pairs of [`Bound`]s over `0..len`.
#[derive(Debug, Clone, Default)]
pub(super) struct Paged {
    /// Per page, 0 when none was written, else 1 + its place in `pages`.
    directory: Vec<u32>,
    /// Each page allocated on its own (boxed): never moved or over-allocated as the list
    /// grows, so what it takes is what [`PAGE_BYTES`] counts.
    #[allow(clippy::vec_box)]
    pages: Vec<Box<[(Bound, Bound); PAGE]>>,
    empty: (Bound, Bound),
    len: usize,
}

/// A page was refused: the allowance given to [`Paged::entry`] would be passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Full;

impl Paged {
    /// A table over `0..len` whose entries all read as `empty`; `len` 0 holds nothing.
    pub(super) fn new(len: usize, empty: (Bound, Bound)) -> Self {
        Paged {
            directory: vec![0; len.div_ceil(PAGE)],
            pages: Vec::new(),
            empty,
            len,
        }
    }

    /// Whether the table has no entries at all (a stage no node reaches).
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entry at `i`, `None` past the end.
    pub(super) fn get(&self, i: usize) -> Option<(Bound, Bound)> {
        if i >= self.len {
            return None;
        }
        let page = self.directory[i / PAGE] as usize;
        Some(match page.checked_sub(1) {
            Some(p) => self.pages[p][i % PAGE],
            None => self.empty,
        })
    }

    /// The entry at `i` to write, its page allocated if none was, which adds [`PAGE_BYTES`] to
    /// `*used`; `Err(Full)` when that would pass `allowance` (nothing is then allocated).
    /// `None` past the end.
    pub(super) fn entry(
        &mut self,
        i: usize,
        used: &mut u64,
        allowance: u64,
    ) -> Result<Option<&mut (Bound, Bound)>, Full> {
        if i >= self.len {
            return Ok(None);
        }
        let slot = &mut self.directory[i / PAGE];
        if *slot == 0 {
            let after = used.saturating_add(PAGE_BYTES);
            // A page index past u32 would need 2 TiB of pages: refused as over any allowance.
            let Ok(next) = u32::try_from(self.pages.len() + 1) else {
                return Err(Full);
            };
            if after > allowance {
                return Err(Full);
            }
            *used = after;
            self.pages.push(Box::new([self.empty; PAGE]));
            *slot = next;
        }
        let p = *slot as usize - 1;
        Ok(Some(&mut self.pages[p][i % PAGE]))
    }

    /// The pages written so far.
    #[cfg(test)]
    pub(super) fn pages(&self) -> usize {
        self.pages.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: (Bound, Bound) = (Bound::NEG_INFINITY, Bound::NEG_INFINITY);

    #[test]
    fn unwritten_entries_read_as_empty_and_writes_read_back() {
        // 200 entries: pages 0..64, 64..128, 128..192, 192..200 (a directory of 4).
        let mut t = Paged::new(200, NONE);
        assert_eq!(t.get(0), Some(NONE));
        assert_eq!(t.get(199), Some(NONE));
        assert_eq!(t.get(200), None);
        let mut used = 0;
        *t.entry(130, &mut used, u64::MAX).unwrap().unwrap() = (1.0, 2.0);
        *t.entry(191, &mut used, u64::MAX).unwrap().unwrap() = (3.0, 4.0);
        *t.entry(199, &mut used, u64::MAX).unwrap().unwrap() = (5.0, 6.0);
        // 130 and 191 share the page 128..192; 199 is on the last: two pages of 64 × 8 bytes
        // and 16 for each pointer, 2 × 528 = 1,056 bytes.
        assert_eq!(t.pages(), 2);
        assert_eq!(used, 2 * 528);
        assert_eq!(t.get(130), Some((1.0, 2.0)));
        assert_eq!(t.get(191), Some((3.0, 4.0)));
        assert_eq!(t.get(199), Some((5.0, 6.0)));
        // The rest of a written page and the unwritten pages read as empty.
        assert_eq!(t.get(129), Some(NONE));
        assert_eq!(t.get(63), Some(NONE));
        assert!(t.entry(200, &mut used, u64::MAX).unwrap().is_none());
    }

    #[test]
    fn a_page_past_the_allowance_is_refused_and_nothing_is_allocated() {
        let mut t = Paged::new(1_000, NONE);
        let mut used = 0;
        // An allowance of 1,000 bytes holds one page of 528, not two.
        assert!(t.entry(0, &mut used, 1_000).is_ok());
        assert!(t.entry(63, &mut used, 1_000).is_ok());
        assert_eq!(t.entry(64, &mut used, 1_000), Err(Full));
        assert_eq!((t.pages(), used), (1, 528));
        assert_eq!(t.get(64), Some(NONE));
        // The directory: ⌈1,000 / 64⌉ = 16 pages, 4 bytes each.
        assert_eq!(directory_bytes(1_000), 64);
        assert!(!t.is_empty());
        assert!(Paged::new(0, NONE).is_empty());
    }
}
