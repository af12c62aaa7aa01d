//! Pinning threads where a machine model places them: thread i on a CPU of the host package
//! that stands for the model's socket of thread i.
//!
//! The ccNUMA model places thread i on socket `sockets_of(threads)[i]` (seed 001 §4: "we
//! schedule up to eight threads in one socket and the rest of them in the second one"; the
//! model's `Topology::place`: socket by socket, one thread per core first, then the next hardware
//! thread of every core). [`pin_by_socket`] turns that into CPUs: socket s is the host package
//! `packages[s]`, and the k-th thread placed on socket s runs on the k-th CPU of
//! [`Package::order`] — the first hardware thread of every core, cores in the given order, then
//! the second hardware thread of every core, and so on, which is the order `place` fills a
//! socket in. Which host package stands for which socket is the caller's to decide (for a
//! machine file calibrated on this host: the s-th package, ascending, among the CPUs it measured).
//!
//! The function is pure (no sysfs, no affinity calls), so it is tested on synthetic topologies,
//! and it costs O(threads + CPUs).

use crate::runner::MAX_THREADS_PER_CPU;

/// One host package as pinning sees it: its usable CPUs, core by core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// The package id (`physical_package_id`), for messages.
    pub id: u32,
    /// Its cores in the order the model numbers them, each with its usable hardware threads
    /// (Linux CPU numbers), first thread first. Cores without a usable CPU may be left out.
    pub cores: Vec<Vec<usize>>,
}

impl Package {
    /// The CPUs in the order threads fill them: hardware thread 0 of every core, then hardware
    /// thread 1 of every core, ...
    pub fn order(&self) -> Vec<usize> {
        let depth = self.cores.iter().map(Vec::len).max().unwrap_or(0);
        let mut out = Vec::with_capacity(self.cores.iter().map(Vec::len).sum());
        for hw in 0..depth {
            out.extend(self.cores.iter().filter_map(|c| c.get(hw).copied()));
        }
        out
    }
}

/// Why threads cannot be pinned as the model places them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlacementError {
    /// A thread sits on a socket for which there is no host package.
    #[error("the model places threads on {sockets} sockets but only {packages} host package(s) can stand for them")]
    TooFewPackages {
        /// Sockets the threads use (highest socket + 1).
        sockets: u32,
        /// Packages given.
        packages: usize,
    },
    /// More threads on a socket than its package has usable CPUs (without oversubscription,
    /// or beyond [`MAX_THREADS_PER_CPU`] per CPU with it).
    #[error("the model places {threads} threads on socket {socket} but its host package {package} has {cpus} usable CPU(s)")]
    PackageFull {
        /// The model's socket.
        socket: u32,
        /// The host package standing for it.
        package: u32,
        /// Threads placed on it.
        threads: usize,
        /// Its usable CPUs.
        cpus: usize,
    },
}

/// The CPU of every thread: thread i on package `packages[thread_sockets[i]]`, the k-th thread
/// of a socket on the k-th CPU of that package's [`Package::order`]. With `oversubscribe`, a
/// socket with more threads than CPUs wraps around its package's CPUs (at most
/// [`MAX_THREADS_PER_CPU`] per CPU); without, it is refused.
///
/// Complexity: O(threads + CPUs of the packages).
pub fn pin_by_socket(
    thread_sockets: &[u32],
    packages: &[Package],
    oversubscribe: bool,
) -> Result<Vec<usize>, PlacementError> {
    let needed = thread_sockets.iter().max().map_or(0, |&s| s as usize + 1);
    if needed > packages.len() {
        return Err(PlacementError::TooFewPackages {
            sockets: u32::try_from(needed).unwrap_or(u32::MAX),
            packages: packages.len(),
        });
    }
    let mut on_socket = vec![0usize; needed];
    for &s in thread_sockets {
        on_socket[s as usize] += 1;
    }
    let orders: Vec<Vec<usize>> = packages[..needed].iter().map(Package::order).collect();
    for (s, (&threads, order)) in on_socket.iter().zip(&orders).enumerate() {
        let fits = if oversubscribe {
            threads <= order.len().saturating_mul(MAX_THREADS_PER_CPU)
        } else {
            threads <= order.len()
        };
        if threads > 0 && !fits {
            return Err(PlacementError::PackageFull {
                socket: s as u32,
                package: packages[s].id,
                threads,
                cpus: order.len(),
            });
        }
    }
    let mut next = vec![0usize; needed];
    Ok(thread_sockets
        .iter()
        .map(|&s| {
            let s = s as usize;
            let order = &orders[s];
            let cpu = order[next[s] % order.len()];
            next[s] += 1;
            cpu
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelopt_model::ccnuma::Topology;

    /// `n` packages of `cores` cores with `smt` threads each; CPU numbering as Linux does on
    /// many servers: first thread of every core of every package, package by package, then the
    /// second threads (package p, core c, thread h → h·n·cores + p·cores + c).
    fn grid(n: u32, cores: usize, smt: usize) -> Vec<Package> {
        (0..n as usize)
            .map(|p| Package {
                id: p as u32,
                cores: (0..cores)
                    .map(|c| {
                        (0..smt)
                            .map(|h| h * n as usize * cores + p * cores + c)
                            .collect()
                    })
                    .collect(),
            })
            .collect()
    }

    fn model_sockets(sockets: u32, cores: u32, smt: u32, threads: u32) -> Vec<u32> {
        Topology {
            sockets,
            cores_per_socket: cores,
            threads_per_core: smt,
            line_bytes: 64,
            domains_per_socket: 1,
            sync_line: modelopt_model::ccnuma::SyncLine::Socket,
        }
        .sockets_of(threads)
    }

    #[test]
    fn two_packages_of_four_cpus() {
        // 2 packages × 2 cores × 2 threads: package 0 = cores {0,4}, {1,5}; package 1 = {2,6},
        // {3,7}. The model (2 sockets × 2 cores × 2 threads) places 6 threads: one per core
        // first, socket by socket — threads 0,1 on socket 0, 2,3 on socket 1 — then the second
        // hardware threads: 4,5 on socket 0, 6,7 would be on socket 1.
        let sockets = model_sockets(2, 2, 2, 6);
        assert_eq!(sockets, vec![0, 0, 1, 1, 0, 0]);
        let packages = grid(2, 2, 2);
        assert_eq!(packages[0].order(), vec![0, 1, 4, 5]);
        assert_eq!(packages[1].order(), vec![2, 3, 6, 7]);
        // Socket 0 gets 0, 1, then its second hardware threads 4, 5; socket 1 gets 2, 3.
        assert_eq!(
            pin_by_socket(&sockets, &packages, false).unwrap(),
            vec![0, 1, 2, 3, 4, 5]
        );
        // An explicit placement (thread 1 on socket 1) follows it too: 0 → 0, 1 → 2, 2 → 1.
        assert_eq!(
            pin_by_socket(&[0, 1, 0], &packages, false).unwrap(),
            vec![0, 2, 1]
        );
        // Five threads on socket 1 of 4 CPUs: refused, or wrapped when oversubscribed.
        let crowded = [1, 1, 1, 1, 1];
        assert_eq!(
            pin_by_socket(&crowded, &packages, false).unwrap_err(),
            PlacementError::PackageFull {
                socket: 1,
                package: 1,
                threads: 5,
                cpus: 4
            }
        );
        assert_eq!(
            pin_by_socket(&crowded, &packages, true).unwrap(),
            vec![2, 3, 6, 7, 2]
        );
    }

    #[test]
    fn one_package_of_two_cpus() {
        // The CI machine: one package, two CPUs (one core each). A one-socket model places
        // both threads on socket 0 → CPUs 0, 1. A two-socket file puts thread 1 on socket 1,
        // for which there is no package: refused, never pinned to package 0 in silence.
        let packages = vec![Package {
            id: 0,
            cores: vec![vec![0], vec![1]],
        }];
        assert_eq!(
            pin_by_socket(&model_sockets(1, 2, 1, 2), &packages, false).unwrap(),
            vec![0, 1]
        );
        let two_socket = model_sockets(2, 1, 1, 2);
        assert_eq!(two_socket, vec![0, 1]);
        assert_eq!(
            pin_by_socket(&two_socket, &packages, false).unwrap_err(),
            PlacementError::TooFewPackages {
                sockets: 2,
                packages: 1
            }
        );
        // A package without usable CPUs cannot hold a thread even when sharing.
        let empty = vec![Package {
            id: 3,
            cores: vec![],
        }];
        assert!(matches!(
            pin_by_socket(&[0], &empty, true),
            Err(PlacementError::PackageFull { cpus: 0, .. })
        ));
        assert_eq!(
            pin_by_socket(&[], &packages, false).unwrap(),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn two_hundred_cpus_on_eight_packages() {
        // 8 packages × 25 cores, no SMT, CPUs numbered round-robin over the packages
        // (package p, core c → CPU 8c + p), as some firmware does. The model (8 × 25 × 1) puts
        // thread i on socket ⌊i/25⌋ as core i mod 25, so thread i → CPU 8·(i mod 25) + ⌊i/25⌋:
        // thread 0 → 0, thread 24 → 192, thread 25 → 1, thread 199 → 8·24 + 7 = 199.
        let packages: Vec<Package> = (0..8)
            .map(|p| Package {
                id: p,
                cores: (0..25).map(|c| vec![8 * c + p as usize]).collect(),
            })
            .collect();
        let sockets = model_sockets(8, 25, 1, 200);
        let cpus = pin_by_socket(&sockets, &packages, false).unwrap();
        assert_eq!((cpus[0], cpus[24], cpus[25], cpus[199]), (0, 192, 1, 199));
        for (i, &cpu) in cpus.iter().enumerate() {
            assert_eq!(cpu, 8 * (i % 25) + i / 25);
        }
        // Every CPU once.
        let mut sorted = cpus.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..200).collect::<Vec<_>>());
        // 16 threads on that file: 16 on socket 0 (one socket holds 25), CPUs 0, 8, ..., 120.
        let cpus = pin_by_socket(&model_sockets(8, 25, 1, 16), &packages, false).unwrap();
        assert_eq!(cpus, (0..16).map(|c| 8 * c).collect::<Vec<_>>());
    }
}
