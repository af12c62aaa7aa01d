//! Timed, checked executions of a collective on pinned threads.
//!
//! [`run`] starts one thread per participant, pins thread t to CPU `cpus[t]`, and repeats the
//! collective `iterations` times. Each iteration, driven by thread 0 (the leader), is:
//!
//! 1. **prepare**: every thread puts the lines it owns in the initial states the collective's
//!    model assumes (the `prepare` method of the collective, [`crate::coherence`]: evicted from
//!    every cache, or evicted and reloaded by the owner, where the hardware allows it), then
//!    reports ready; [`Measurement::initial_states`] says which states were forced;
//! 2. **start on a timestamp interval** (seed 000 §3.2, seed 001 §4 "RDTSC intervals"): the leader
//!    publishes a start instant `gap` in the future; every thread spins on its clock until it;
//! 3. **the collective**, then each thread reads its clock: its finish instant;
//! 4. **check**: each thread checks its own result (the broadcast payload, the arrivals seen after
//!    leaving the barrier, the reduction's value at the root) and reports done; the leader takes
//!    the iteration's latency as the last finish instant minus the start instant.
//!
//! **Clocks.** All instants are read with [`std::time::Instant`], which on Linux is
//! `clock_gettime(CLOCK_MONOTONIC)`: one clock for the whole system, read through the vDSO from
//! the invariant TSC on current x86 machines, so instants taken on different CPUs are comparable.
//! Its read costs about 20–30 ns and is part of every measured latency (once at the end). The
//! seeds used RDTSC directly for the same purpose.
//!
//! A thread that sees the start signal only after the start instant (it was descheduled, or the
//! gap was too short) is **late**: its iteration still counts and is still checked, and the
//! number of late iterations is reported, because it inflates the measurement.
//!
//! Every wait has a deadline ([`crate::wait`]); a failure in any thread stops all of them and
//! [`run`] returns a [`RunError`] naming the thread, the stage and the iteration.

use crate::barrier::{BarrierError, DisseminationBarrier};
use crate::bcast::{OneLineBroadcast, Payload, PAYLOAD_WORDS};
use crate::cla_dissemination::ClaDisseminationBarrier;
use crate::cla_reduce::ClaTreeReduce;
use crate::coherence::InitialState;
use crate::reduce::SmallTreeReduce;
use crate::stats::Summary;
use crate::tree_barrier::TreeBarrier;
use crate::wait::{Stage, WaitError, Waiter};
use crossbeam_utils::CachePadded;
use modelopt_model::ccnuma::tree::RootedTree;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most iterations one run takes (each keeps one 8-byte sample).
pub const MAX_ITERATIONS: u64 = 10_000_000;

/// With oversubscription, at most this many threads share one CPU.
pub const MAX_THREADS_PER_CPU: usize = 8;

/// A collective to execute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// The one-line broadcast over a rooted tree (seed 001 Fig. 1); the root is the tree's.
    Broadcast(RootedTree),
    /// The dissemination barrier with degree m and r rounds (seed 000 Fig. 4.3).
    Barrier {
        /// m.
        degree: u32,
        /// r.
        rounds: u32,
    },
    /// The small reduction (sum, wrapping) up a rooted tree (seed 000 §4.3).
    Reduce(RootedTree),
    /// The tree barrier of `models/barrier.cla` over a rooted tree (arrival up, release down),
    /// with the many-to-one lines laid out for [`RunOptions::sockets`].
    TreeBarrier(RootedTree),
    /// The reduction (sum, wrapping) of `models/small-reduce.cla` over a rooted tree, with the
    /// many-to-one lines laid out for [`RunOptions::sockets`].
    ClaTreeReduce(RootedTree),
    /// The dissemination barrier that counts notifications, one line per thread and round, of
    /// degree m (`cla-dissemination`; the rounds follow).
    ClaDissemination {
        /// m.
        degree: u32,
    },
}

/// A participant told to stall (never to enter the collective) in one iteration: a fault
/// injected to test that the others give up at their deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stall {
    /// The thread that stalls.
    pub thread: u32,
    /// The iteration (1-based) in which it stalls.
    pub iteration: u64,
}

/// How to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// Threads taking part (the job's tree or barrier must have as many).
    pub threads: u32,
    /// Iterations, each timed and checked.
    pub iterations: u64,
    /// The CPU of each thread: thread t runs on `cpus[t % cpus.len()]` (see [`assign_cpus`]).
    pub cpus: Vec<usize>,
    /// Every wait gives up after this long.
    pub timeout: Duration,
    /// The start instant is this far after the leader publishes it.
    pub gap: Duration,
    /// Each thread enters the collective up to this much after the start instant (a pseudo-random
    /// delay per thread and iteration): zero for measurements; tests use it to let threads arrive
    /// at a barrier at different times.
    pub arrival_jitter: Duration,
    /// Fault injection for tests.
    pub stall: Option<Stall>,
    /// The synchronization group of each thread (`threads` entries), as the many-to-one lines of
    /// the broadcast, the tree barrier and the reduction of `models/small-reduce.cla` are laid
    /// out: one line per (node, group holding children). The group is the thread's socket, or its
    /// L3 domain on a machine whose file says `topology.sync_line = "domain"`. `None`: every
    /// thread in one group. The labels are free (package ids, the model's socket numbers,
    /// ranked L3 domains); only equality and order matter.
    pub sockets: Option<Vec<u32>>,
}

impl RunOptions {
    /// `iterations` iterations of `threads` threads on `cpus`, a 10 s timeout, a 100 µs start gap,
    /// no jitter, no fault.
    pub fn new(threads: u32, iterations: u64, cpus: Vec<usize>) -> Self {
        RunOptions {
            threads,
            iterations,
            cpus,
            timeout: Duration::from_secs(10),
            gap: Duration::from_micros(100),
            arrival_jitter: Duration::ZERO,
            stall: None,
            sockets: None,
        }
    }
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Fewer than 2 threads, or no iteration.
    #[error("{0}")]
    Config(String),
    /// The tree does not have one node per thread.
    #[error("the tree {tree} has {nodes} nodes but {threads} threads take part")]
    TreeSize {
        /// The tree.
        tree: String,
        /// Its nodes.
        nodes: usize,
        /// Threads.
        threads: u32,
    },
    /// The barrier's degree and rounds are not a barrier.
    #[error(transparent)]
    Barrier(#[from] BarrierError),
    /// The placement does not give one socket per thread.
    #[error("the placement gives {sockets} sockets for {threads} threads (one socket per thread)")]
    Placement {
        /// Entries of the placement.
        sockets: usize,
        /// Threads.
        threads: u32,
    },
    /// More threads than CPUs, without permission to share.
    #[error("{threads} spinning threads need {threads} CPUs but only {cpus} may be used (spinning threads must not share a CPU)")]
    TooManyThreads {
        /// Threads asked for.
        threads: u32,
        /// CPUs available.
        cpus: usize,
    },
    /// The allowed CPUs cannot be read.
    #[error("cannot read the CPUs this process may run on (sched_getaffinity)")]
    NoAffinity,
    /// A CPU asked for is not in the allowed set.
    #[error("CPU {cpu} is not one this process may run on (allowed: {allowed})")]
    CpuNotAllowed {
        /// The CPU.
        cpu: usize,
        /// The allowed set, as a list.
        allowed: String,
    },
    /// Pinning failed.
    #[error("cannot pin thread {thread} to CPU {cpu}")]
    Pin {
        /// Thread.
        thread: u32,
        /// CPU.
        cpu: usize,
    },
    /// A wait ran out of time.
    #[error("iteration {iteration}: {source}")]
    Timeout {
        /// Iteration (1-based).
        iteration: u64,
        /// Which thread, which stage.
        source: WaitError,
    },
    /// A wrong result.
    #[error("iteration {iteration}: thread {thread} {what}")]
    Wrong {
        /// Iteration (1-based).
        iteration: u64,
        /// The thread that found it.
        thread: u32,
        /// What was wrong.
        what: String,
    },
    /// A participant thread panicked or could not start.
    #[error("thread {0} ended abnormally")]
    Thread(u32),
}

/// A tree runner refused its placement: the same error as a placement of the wrong length.
impl From<crate::many_to_one::SocketsMismatch> for RunError {
    fn from(e: crate::many_to_one::SocketsMismatch) -> Self {
        RunError::Placement {
            sockets: e.sockets,
            threads: u32::try_from(e.nodes).unwrap_or(u32::MAX),
        }
    }
}

/// The measured latencies of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// One latency per iteration, in nanoseconds: last finish instant minus start instant.
    pub samples_ns: Vec<f64>,
    /// Iterations in which some thread saw the start signal after the start instant.
    pub late: u64,
    /// The CPU each thread ran on.
    pub cpus: Vec<usize>,
    /// The socket of each thread as the collective's lines were laid out (all 0 without a
    /// placement).
    pub sockets: Vec<u32>,
    /// The state every iteration started with, per kind of line, beside the model's.
    pub initial_states: Vec<InitialState>,
}

impl Measurement {
    /// min, p5, median, p95, ... of the samples.
    pub fn summary(&self) -> Option<Summary> {
        Summary::of(&self.samples_ns)
    }
}

/// The CPUs this process may run on (Linux: `sched_getaffinity`), ascending.
pub fn allowed_cpus() -> Result<Vec<usize>, RunError> {
    let mut ids: Vec<usize> = core_affinity::get_core_ids()
        .ok_or(RunError::NoAffinity)?
        .into_iter()
        .map(|c| c.id)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Err(RunError::NoAffinity);
    }
    Ok(ids)
}

/// Check `requested` CPUs against `allowed` (all of `allowed` when `None`), keeping their order
/// and dropping repeats.
pub fn select_cpus(requested: Option<&[usize]>, allowed: &[usize]) -> Result<Vec<usize>, RunError> {
    let Some(requested) = requested else {
        return Ok(allowed.to_vec());
    };
    let mut out: Vec<usize> = Vec::new();
    for &cpu in requested {
        if !allowed.contains(&cpu) {
            let list: Vec<String> = allowed.iter().map(usize::to_string).collect();
            return Err(RunError::CpuNotAllowed {
                cpu,
                allowed: list.join(","),
            });
        }
        if !out.contains(&cpu) {
            out.push(cpu);
        }
    }
    if out.is_empty() {
        return Err(RunError::Config("no CPU to run on".into()));
    }
    Ok(out)
}

/// One CPU per thread from `cpus`, in order. More threads than CPUs is refused unless
/// `oversubscribe`, which assigns them round-robin (spinning threads then share CPUs and the
/// waits yield: the latencies measure the scheduler, not the caches).
pub fn assign_cpus(
    threads: u32,
    cpus: &[usize],
    oversubscribe: bool,
) -> Result<Vec<usize>, RunError> {
    if cpus.is_empty() {
        return Err(RunError::Config("no CPU to run on".into()));
    }
    if threads as usize > cpus.len() && !oversubscribe {
        return Err(RunError::TooManyThreads {
            threads,
            cpus: cpus.len(),
        });
    }
    if threads as usize > cpus.len().saturating_mul(MAX_THREADS_PER_CPU) {
        return Err(RunError::Config(format!(
            "{threads} threads on {} CPUs: at most {MAX_THREADS_PER_CPU} threads may share a CPU",
            cpus.len()
        )));
    }
    Ok((0..threads as usize)
        .map(|t| cpus[t % cpus.len()])
        .collect())
}

/// SplitMix64 (Steele, Lea & Flood 2014): distinct, reproducible payloads and values.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The payload broadcast in iteration `epoch`: distinct in every iteration.
pub fn payload_of(epoch: u64) -> Payload {
    std::array::from_fn(|w| mix(epoch.wrapping_mul(PAYLOAD_WORDS as u64 + 1) ^ w as u64))
}

/// The value thread `thread` contributes to the reduction of iteration `epoch`.
pub fn value_of(epoch: u64, thread: u32) -> u64 {
    mix(epoch.rotate_left(32) ^ u64::from(thread) ^ 0x5eed)
}

enum Shared {
    Broadcast(OneLineBroadcast),
    Barrier(DisseminationBarrier),
    Reduce(SmallTreeReduce),
    TreeBarrier(TreeBarrier),
    ClaTreeReduce(ClaTreeReduce),
    ClaDissemination(ClaDisseminationBarrier),
}

impl Shared {
    fn initial_states(&self) -> Vec<InitialState> {
        match self {
            Shared::Broadcast(_) => OneLineBroadcast::initial_states(),
            Shared::Barrier(_) => DisseminationBarrier::initial_states(),
            Shared::Reduce(_) => SmallTreeReduce::initial_states(),
            Shared::TreeBarrier(_) => TreeBarrier::initial_states(),
            Shared::ClaTreeReduce(_) => ClaTreeReduce::initial_states(),
            Shared::ClaDissemination(_) => ClaDisseminationBarrier::initial_states(),
        }
    }

    fn prepare(&self, me: u32) {
        match self {
            Shared::Broadcast(b) => b.prepare(me),
            Shared::Barrier(b) => b.prepare(me),
            Shared::Reduce(r) => r.prepare(me),
            Shared::TreeBarrier(b) => b.prepare(me),
            Shared::ClaTreeReduce(r) => r.prepare(me),
            Shared::ClaDissemination(b) => b.prepare(me),
        }
    }
}

/// Per-thread bookkeeping, one line per thread.
#[derive(Debug, Default)]
struct Slot {
    ready: AtomicU64,
    done: AtomicU64,
    finish_ns: AtomicU64,
    late: AtomicBool,
}

struct Control {
    origin: Instant,
    /// Whether two threads run on one CPU: waits then yield at once.
    shares_cpu: bool,
    prepare: CachePadded<AtomicU64>,
    go: CachePadded<AtomicU64>,
    start_ns: CachePadded<AtomicU64>,
    abort: AtomicBool,
    slots: Vec<CachePadded<Slot>>,
    /// Barrier arrivals (dissemination or tree): thread t writes the iteration here just before
    /// entering.
    arrived: Vec<CachePadded<AtomicU64>>,
    errors: Mutex<Vec<RunError>>,
}

impl Control {
    fn now_ns(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn fail(&self, error: RunError) {
        self.abort.store(true, Ordering::Relaxed);
        let mut errors = self.errors.lock().unwrap_or_else(|e| e.into_inner());
        errors.push(error);
    }
}

/// Execute `job` as `options` say; every iteration is timed and checked.
pub fn run(job: &Job, options: &RunOptions) -> Result<Measurement, RunError> {
    let n = options.threads;
    if n < 2 {
        return Err(RunError::Config(format!(
            "a collective needs at least 2 threads (got {n})"
        )));
    }
    if options.iterations == 0 {
        return Err(RunError::Config("at least one iteration is needed".into()));
    }
    if options.iterations > MAX_ITERATIONS {
        return Err(RunError::Config(format!(
            "{} iterations: at most {MAX_ITERATIONS} in one run",
            options.iterations
        )));
    }
    if options.cpus.is_empty() {
        return Err(RunError::Config("no CPU to run on".into()));
    }
    if n as usize > options.cpus.len().saturating_mul(MAX_THREADS_PER_CPU) {
        return Err(RunError::Config(format!(
            "{n} threads on {} CPUs: at most {MAX_THREADS_PER_CPU} threads may share a CPU",
            options.cpus.len()
        )));
    }
    let tree_fits = |tree: &RootedTree| -> Result<(), RunError> {
        if tree.len() != n as usize {
            return Err(RunError::TreeSize {
                tree: tree.nested(),
                nodes: tree.len(),
                threads: n,
            });
        }
        Ok(())
    };
    let sockets = match &options.sockets {
        Some(s) if s.len() != n as usize => {
            return Err(RunError::Placement {
                sockets: s.len(),
                threads: n,
            })
        }
        Some(s) => s.clone(),
        None => vec![0; n as usize],
    };
    let shared = match job {
        Job::Broadcast(tree) => {
            tree_fits(tree)?;
            Shared::Broadcast(OneLineBroadcast::with_sockets(tree, &sockets)?)
        }
        Job::Barrier { degree, rounds } => {
            Shared::Barrier(DisseminationBarrier::new(n, *degree, *rounds)?)
        }
        Job::Reduce(tree) => {
            tree_fits(tree)?;
            Shared::Reduce(SmallTreeReduce::new(tree))
        }
        Job::TreeBarrier(tree) => {
            tree_fits(tree)?;
            Shared::TreeBarrier(TreeBarrier::with_sockets(tree, &sockets)?)
        }
        Job::ClaTreeReduce(tree) => {
            tree_fits(tree)?;
            Shared::ClaTreeReduce(ClaTreeReduce::with_sockets(tree, &sockets)?)
        }
        Job::ClaDissemination { degree } => {
            Shared::ClaDissemination(ClaDisseminationBarrier::new(n, *degree)?)
        }
    };
    let cpus: Vec<usize> = (0..n as usize)
        .map(|t| options.cpus[t % options.cpus.len()])
        .collect();
    let mut distinct = cpus.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let control = Control {
        origin: Instant::now(),
        shares_cpu: distinct.len() < cpus.len(),
        prepare: CachePadded::new(AtomicU64::new(0)),
        go: CachePadded::new(AtomicU64::new(0)),
        start_ns: CachePadded::new(AtomicU64::new(0)),
        abort: AtomicBool::new(false),
        slots: (0..n).map(|_| CachePadded::new(Slot::default())).collect(),
        arrived: (0..n)
            .map(|_| CachePadded::new(AtomicU64::new(0)))
            .collect(),
        errors: Mutex::new(Vec::new()),
    };
    let mut samples = Vec::new();
    let mut late = 0;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|t| {
                let (shared, control, cpu) = (&shared, &control, cpus[t as usize]);
                std::thread::Builder::new()
                    .name(format!("modelopt-run-{t}"))
                    .spawn_scoped(s, move || participant(t, cpu, shared, control, options))
            })
            .collect();
        for (t, handle) in handles.into_iter().enumerate() {
            match handle.map(|h| h.join()) {
                Ok(Ok(Some((s, l)))) => {
                    samples = s;
                    late = l;
                }
                Ok(Ok(None)) => {}
                _ => control.fail(RunError::Thread(t as u32)),
            }
        }
    });
    let errors = control
        .errors
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(first) = errors.into_iter().next() {
        return Err(first);
    }
    Ok(Measurement {
        samples_ns: samples,
        late,
        cpus,
        sockets,
        initial_states: shared.initial_states(),
    })
}

/// One participant's loop. The leader (thread 0) returns the samples and the late count.
fn participant(
    me: u32,
    cpu: usize,
    shared: &Shared,
    control: &Control,
    options: &RunOptions,
) -> Option<(Vec<f64>, u64)> {
    if !core_affinity::set_for_current(core_affinity::CoreId { id: cpu }) {
        control.fail(RunError::Pin { thread: me, cpu });
        return None;
    }
    let mut waiter = Waiter::new(me, options.timeout, &control.abort);
    if control.shares_cpu {
        waiter = waiter.with_yield_after(Duration::ZERO);
    }
    let leader = me == 0;
    let mut samples = Vec::with_capacity(if leader {
        usize::try_from(options.iterations.min(1 << 24)).unwrap_or(0)
    } else {
        0
    });
    let mut late_iterations = 0u64;
    for it in 1..=options.iterations {
        match iteration(me, it, shared, control, options, &waiter) {
            Ok(Some((sample, late))) => {
                samples.push(sample);
                late_iterations += u64::from(late);
            }
            Ok(None) => {}
            Err(IterationError::Wait(WaitError::Aborted { .. })) => return None,
            Err(IterationError::Wait(source)) => {
                control.fail(RunError::Timeout {
                    iteration: it,
                    source,
                });
                return None;
            }
            Err(IterationError::Wrong(what)) => {
                control.fail(RunError::Wrong {
                    iteration: it,
                    thread: me,
                    what,
                });
                return None;
            }
        }
    }
    leader.then_some((samples, late_iterations))
}

enum IterationError {
    Wait(WaitError),
    Wrong(String),
}

impl From<WaitError> for IterationError {
    fn from(e: WaitError) -> Self {
        IterationError::Wait(e)
    }
}

/// One iteration of one thread; the leader returns the latency and whether any thread was late.
fn iteration(
    me: u32,
    it: u64,
    shared: &Shared,
    control: &Control,
    options: &RunOptions,
    waiter: &Waiter<'_>,
) -> Result<Option<(f64, bool)>, IterationError> {
    let leader = me == 0;
    let slot = &control.slots[me as usize];
    // 1. Prepare: lines in their initial states.
    if leader {
        control.prepare.store(it, Ordering::Release);
    } else {
        waiter.wait(Stage::Prepare, || {
            control.prepare.load(Ordering::Acquire) >= it
        })?;
    }
    shared.prepare(me);
    let arrived = &control.arrived[me as usize];
    arrived.store(arrived.load(Ordering::Relaxed), Ordering::Relaxed);
    slot.ready.store(it, Ordering::Release);
    // 2. Start on a timestamp interval.
    if leader {
        for other in &control.slots {
            waiter.wait(Stage::AllPrepared, || {
                other.ready.load(Ordering::Acquire) >= it
            })?;
        }
        let gap = u64::try_from(options.gap.as_nanos()).unwrap_or(u64::MAX);
        control
            .start_ns
            .store(control.now_ns().saturating_add(gap), Ordering::Relaxed);
        control.go.store(it, Ordering::Release);
    } else {
        waiter.wait(Stage::StartSignal, || {
            control.go.load(Ordering::Acquire) >= it
        })?;
    }
    let start = control.start_ns.load(Ordering::Relaxed);
    let late = control.now_ns() > start;
    // The root's payload and every thread's reduction value, computed before the start instant
    // so that the timed region holds the collective only (the buffers sit in registers or the
    // thread's own stack: in its cache, as the models' R_L for user data assumes).
    let sent = match shared {
        Shared::Broadcast(b) if me == b.root() => payload_of(it),
        _ => [0; PAYLOAD_WORDS],
    };
    let value = value_of(it, me);
    if let Shared::ClaTreeReduce(r) = shared {
        // `val[me]` (models/small-reduce.cla `line val[t] cache thread=t`): in my cache.
        r.set_value(me, value);
    }
    let jitter = u64::try_from(options.arrival_jitter.as_nanos()).unwrap_or(u64::MAX);
    let enter = if jitter > 0 {
        start.saturating_add(mix(it ^ (u64::from(me) << 40)) % (jitter + 1))
    } else {
        start
    };
    // Spin without yielding until the start instant (unless threads share CPUs): a thread that
    // yields here may not be running when the instant comes.
    let start_waiter = if control.shares_cpu {
        *waiter
    } else {
        waiter.with_yield_after(Duration::MAX)
    };
    start_waiter.wait(Stage::StartInstant, || control.now_ns() >= enter)?;
    if options.stall
        == Some(Stall {
            thread: me,
            iteration: it,
        })
    {
        // Never enter: wait until the others give up (they time out first: this wait's own
        // deadline is twice theirs plus a second) and return as aborted.
        let patient = Waiter::new(
            me,
            options.timeout.saturating_mul(2) + Duration::from_secs(1),
            &control.abort,
        );
        patient.wait(Stage::InjectedStall, || false)?;
    }
    // 3. The collective.
    let outcome = match shared {
        Shared::Broadcast(b) => Outcome::Payload(b.broadcast(me, it, &sent, waiter)?),
        Shared::Barrier(b) => {
            arrived.store(it, Ordering::Release);
            b.wait(me, it, waiter)?;
            Outcome::Left
        }
        Shared::Reduce(r) => {
            Outcome::Reduced(r.reduce(me, it, value, u64::wrapping_add, waiter)?)
        }
        Shared::TreeBarrier(b) => {
            arrived.store(it, Ordering::Release);
            b.wait(me, it, waiter)?;
            Outcome::Left
        }
        Shared::ClaDissemination(b) => {
            arrived.store(it, Ordering::Release);
            b.wait(me, it, waiter)?;
            Outcome::Left
        }
        Shared::ClaTreeReduce(r) => {
            Outcome::Reduced(r.reduce(me, it, u64::wrapping_add, waiter)?)
        }
    };
    let finish = control.now_ns();
    slot.finish_ns.store(finish, Ordering::Relaxed);
    slot.late.store(late, Ordering::Relaxed);
    // 4. Check, out of the timed region.
    check(me, it, &outcome, shared, control)?;
    slot.done.store(it, Ordering::Release);
    if !leader {
        return Ok(None);
    }
    let mut last = 0;
    let mut any_late = false;
    for other in &control.slots {
        waiter.wait(Stage::AllFinished, || {
            other.done.load(Ordering::Acquire) >= it
        })?;
        last = last.max(other.finish_ns.load(Ordering::Relaxed));
        any_late |= other.late.load(Ordering::Relaxed);
    }
    Ok(Some((last.saturating_sub(start) as f64, any_late)))
}

enum Outcome {
    Payload(Payload),
    Left,
    Reduced(Option<u64>),
}

fn check(
    me: u32,
    it: u64,
    outcome: &Outcome,
    shared: &Shared,
    control: &Control,
) -> Result<(), IterationError> {
    match (outcome, shared) {
        (Outcome::Payload(got), _) => {
            let want = payload_of(it);
            if *got != want {
                return Err(IterationError::Wrong(format!(
                    "received payload {got:x?}, not iteration {it}'s {want:x?}"
                )));
            }
        }
        (Outcome::Left, _) => {
            // After leaving, every thread must have arrived in this iteration.
            for (t, a) in control.arrived.iter().enumerate() {
                let seen = a.load(Ordering::Acquire);
                if seen < it {
                    return Err(IterationError::Wrong(format!(
                        "left the barrier before thread {t} arrived"
                    )));
                }
            }
        }
        (Outcome::Reduced(result), Shared::Reduce(_) | Shared::ClaTreeReduce(_)) => {
            let (threads, root) = match shared {
                Shared::Reduce(r) => (r.threads(), r.root()),
                Shared::ClaTreeReduce(r) => (r.threads(), r.root()),
                _ => return Ok(()),
            };
            let want = (0..threads).fold(0u64, |acc, t| acc.wrapping_add(value_of(it, t)));
            match (*result, me == root) {
                (Some(got), true) if got == want => {}
                (Some(got), true) => {
                    return Err(IterationError::Wrong(format!(
                        "(the root) reduced to {got:#x}, not the sum {want:#x}"
                    )))
                }
                (None, false) => {}
                _ => {
                    return Err(IterationError::Wrong(
                        "got a result where the root should, or none at the root".into(),
                    ))
                }
            }
        }
        (Outcome::Reduced(_), _) => {}
    }
    Ok(())
}
