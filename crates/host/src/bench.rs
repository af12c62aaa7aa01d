//! The seeds' cache-line benchmarks, runnable on any Linux host.
//!
//! Every benchmark pins each of its threads to one CPU ([`crate::affinity`]), runs `warmup`
//! untimed iterations, then `samples` timed ones, and **forces the coherence state of every line
//! before every sample** ([`crate::mem`]). Threads meet at a spinning barrier between phases, so
//! only the measured operation is inside the timed region. Times are taken with
//! [`std::time::Instant`] (`CLOCK_MONOTONIC`, which Linux reads from the TSC through the vDSO on
//! x86_64); its overhead — the median of back-to-back readings, [`TimerInfo`] — is subtracted
//! from every timed region, and its resolution is reported. A chase over K lines is timed as
//! one region and divided by K, so a 20 ns timer costs 20/K ns per line.
//!
//! | function | seed | what is timed |
//! |---|---|---|
//! | [`read_local`] | 000 §1.3.1, R_L | the reader chases lines it holds itself (M or E) |
//! | [`read_remote`] | 000 §1.3.1, Tables 1.5–1.8, R_R / R_Q | the reader chases lines another CPU holds in M, E or S |
//! | [`read_memory`] | 000 §1.3.1, R_I / R_QI | the reader chases flushed lines whose pages a `home` CPU placed |
//! | [`ping_pong`] | 000 ch. 2, Eq. 2.1; ch. 3, Eq. 3.1 | half the round trip of an N-line ping-pong |
//! | [`copy_congestion`] | 001 §2.2, Eq. 1 | n readers copying N lines each, at once, from one owner |
//! | [`contention`] | 000 §3.2, Eqs. 3.2/3.3 | n readers copying one line at once, started on a timestamp |
//! | [`invalidation`] | 001 §2.3 | a locked write to a line n readers share |

use crate::affinity::pin_current_thread;
use crate::error::HostError;
use crate::mem::{self, Line, Slot};
use crate::stats::Summary;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A coherence state to force a line into before a sample (seed 000 §1.2, MESI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    /// Modified.
    M,
    /// Exclusive.
    E,
    /// Shared.
    S,
    /// Invalid (in memory only).
    I,
}

impl State {
    /// The letter.
    pub fn letter(self) -> &'static str {
        match self {
            State::M => "M",
            State::E => "E",
            State::S => "S",
            State::I => "I",
        }
    }
}

/// How many samples, how much warm-up, how many lines per chase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Timed samples per measurement.
    pub samples: usize,
    /// Untimed iterations first (page faults, TLB, frequency ramp).
    pub warmup: usize,
    /// Lines per pointer chase (a read sample is the chase time divided by this).
    pub chase_lines: usize,
}

impl Config {
    /// `--quick`: 200 samples, 20 warm-up, 32-line chases.
    pub const QUICK: Config = Config {
        samples: 200,
        warmup: 20,
        chase_lines: 32,
    };
    /// Default: 2000 samples, 200 warm-up, 64-line chases (seed 000 took 5000 per point).
    pub const FULL: Config = Config {
        samples: 2000,
        warmup: 200,
        chase_lines: 64,
    };
}

/// The timer's own cost and granularity, ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimerInfo {
    /// Median of the difference of two back-to-back `Instant::now()` calls: subtracted from every
    /// timed region.
    pub overhead_ns: f64,
    /// Smallest non-zero difference seen: the timer's resolution.
    pub resolution_ns: f64,
    /// Pairs of readings taken.
    pub samples: usize,
}

/// Measure the timer (on the calling thread).
pub fn measure_timer(samples: usize) -> TimerInfo {
    let mut diffs = Vec::with_capacity(samples);
    for _ in 0..samples.max(1) {
        let a = Instant::now();
        let b = Instant::now();
        diffs.push(b.duration_since(a).as_nanos() as f64);
    }
    let resolution = diffs
        .iter()
        .copied()
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    let overhead = Summary::of(&diffs).map_or(0.0, |s| s.median);
    TimerInfo {
        overhead_ns: overhead,
        resolution_ns: if resolution.is_finite() {
            resolution
        } else {
            1.0
        },
        samples: diffs.len(),
    }
}

/// Spin until `ready()` holds; after a million spins, yield between checks so that an
/// oversubscribed host (more spinning threads than free CPUs) still makes progress.
#[inline]
fn spin_until(ready: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !ready() {
        if spins < 1_000_000 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// A reusable spinning barrier for a fixed number of threads.
#[derive(Debug)]
pub struct SpinBarrier {
    parties: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    /// A barrier for `parties` threads.
    pub fn new(parties: usize) -> Self {
        SpinBarrier {
            parties: parties.max(1),
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
        }
    }

    /// Wait until all parties have arrived.
    pub fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.parties {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
        } else {
            spin_until(|| self.generation.load(Ordering::Acquire) != generation);
        }
    }
}

/// Run `body(role, barrier)` on one thread per CPU of `cpus` (role i pinned to `cpus[i]`) and
/// collect the results by role. A thread that cannot be pinned still runs (so the others do not
/// wait forever at the barrier) and the pinning error is returned afterwards.
fn team<T: Send>(
    cpus: &[usize],
    body: impl Fn(usize, &SpinBarrier) -> T + Sync,
) -> Result<Vec<T>, HostError> {
    let barrier = SpinBarrier::new(cpus.len());
    let pin_error: Mutex<Option<HostError>> = Mutex::new(None);
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = cpus
            .iter()
            .enumerate()
            .map(|(role, &cpu)| {
                let (barrier, body, pin_error) = (&barrier, &body, &pin_error);
                std::thread::Builder::new()
                    .name(format!("modelopt-bench-{cpu}"))
                    .spawn_scoped(scope, move || {
                        if let Err(e) = pin_current_thread(cpu) {
                            if let Ok(mut slot) = pin_error.lock() {
                                slot.get_or_insert(e);
                            }
                        }
                        body(role, barrier)
                    })
            })
            .collect();
        let mut out = Vec::with_capacity(handles.len());
        for h in handles {
            match h {
                Ok(h) => out.push(
                    h.join()
                        .map_err(|_| HostError::Thread("a measuring thread panicked".into()))?,
                ),
                Err(e) => return Err(HostError::Thread(format!("cannot spawn: {e}"))),
            }
        }
        Ok(out)
    })?;
    if let Some(e) = pin_error.into_inner().ok().flatten() {
        return Err(e);
    }
    Ok(results)
}

fn elapsed_ns(start: Instant) -> f64 {
    start.elapsed().as_nanos() as f64
}

/// The samples of one measurement, ns per operation, the timer overhead already subtracted.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// One value per timed sample.
    pub values: Vec<f64>,
}

impl Samples {
    /// Their robust summary.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.values).unwrap_or(Summary {
            n: 0,
            median: f64::NAN,
            mad: f64::NAN,
            q1: f64::NAN,
            q3: f64::NAN,
            min: f64::NAN,
            max: f64::NAN,
            mean: f64::NAN,
        })
    }

    /// Pool several measurements (e.g. representative pairs of one location class).
    pub fn pooled(parts: &[Samples]) -> Samples {
        Samples {
            values: parts
                .iter()
                .flat_map(|p| p.values.iter().copied())
                .collect(),
        }
    }
}

/// Turn raw timed-region samples into per-operation ones: subtract the timer overhead, divide by
/// `per` operations.
fn finish(raw: &[f64], timer: &TimerInfo, per: f64, what: &str) -> Result<Samples, HostError> {
    if raw.is_empty() || raw.iter().any(|v| !v.is_finite()) {
        return Err(HostError::Thread(format!("{what}: no samples")));
    }
    Ok(Samples {
        values: raw.iter().map(|v| (v - timer.overhead_ns) / per).collect(),
    })
}

fn distinct(cpus: &[usize], benchmark: &str) -> Result<(), HostError> {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != cpus.len() {
        return Err(HostError::TooFewCpus {
            benchmark: benchmark.into(),
            needed: cpus.len(),
            got: sorted.len(),
        });
    }
    Ok(())
}

/// R_L: `cpu` chases lines in its own cache, in state M (it wrote them) or E (flushed, then read
/// by itself). Per-line ns.
pub fn read_local(
    cpu: usize,
    state: State,
    cfg: &Config,
    timer: &TimerInfo,
) -> Result<Samples, HostError> {
    let raw = team(&[cpu], |_, _| {
        let slots = mem::chase_slots(cfg.chase_lines);
        let mut out = Vec::with_capacity(cfg.samples);
        for i in 0..cfg.warmup + cfg.samples {
            match state {
                State::M => mem::dirty_slots(&slots),
                _ => {
                    mem::flush_slots(&slots);
                    std::hint::black_box(mem::touch_slots(&slots));
                }
            }
            let t = Instant::now();
            std::hint::black_box(mem::chase(&slots));
            let ns = elapsed_ns(t);
            if i >= cfg.warmup {
                out.push(ns);
            }
        }
        out
    })?;
    finish(&raw.concat(), timer, cfg.chase_lines as f64, "read_local")
}

/// R_R (or R_Q across sockets) by state: `owner` holds the lines in `state` (M: it wrote them;
/// E: flushed, then it read them; S: flushed, then it and `helper` read them), then `reader`
/// chases them. Per-line ns. S needs a `helper` CPU distinct from both; I is [`read_memory`].
pub fn read_remote(
    owner: usize,
    reader: usize,
    helper: Option<usize>,
    state: State,
    cfg: &Config,
    timer: &TimerInfo,
) -> Result<Samples, HostError> {
    let mut cpus = vec![owner, reader];
    if state == State::S {
        let Some(h) = helper else {
            return Err(HostError::TooFewCpus {
                benchmark: "read_remote S".into(),
                needed: 3,
                got: 2,
            });
        };
        cpus.push(h);
    }
    distinct(&cpus, "read_remote")?;
    let slots = mem::chase_slots(cfg.chase_lines);
    let raw = team(&cpus, |role, barrier| {
        let mut out = Vec::with_capacity(cfg.samples);
        for i in 0..cfg.warmup + cfg.samples {
            // Phase 1: the owner forces the state.
            if role == 0 {
                match state {
                    State::M => mem::dirty_slots(&slots),
                    _ => {
                        mem::flush_slots(&slots);
                        std::hint::black_box(mem::touch_slots(&slots));
                    }
                }
            }
            barrier.wait();
            // Phase 2 (S only): the helper reads too, so the lines are shared.
            if role == 2 {
                std::hint::black_box(mem::touch_slots(&slots));
            }
            barrier.wait();
            // Phase 3: the reader chases.
            if role == 1 {
                let t = Instant::now();
                std::hint::black_box(mem::chase(&slots));
                let ns = elapsed_ns(t);
                if i >= cfg.warmup {
                    out.push(ns);
                }
            }
            barrier.wait();
        }
        out
    })?;
    finish(&raw.concat(), timer, cfg.chase_lines as f64, "read_remote")
}

/// Chase slots whose pages are first touched by `home` (Linux places a page on the NUMA node of
/// the CPU that first touches it): 2048 slots (256 KiB, above glibc's mmap threshold, so fresh
/// pages) of which the first `k` are linked.
fn slots_homed_on(home: usize, k: usize) -> Result<Vec<Slot>, HostError> {
    let mut made = team(&[home], |_, _| {
        let slots: Vec<Slot> = (0..2048.max(k)).map(|_| Slot::default()).collect();
        let linked = mem::chase_slots(k);
        for (i, s) in linked.iter().enumerate() {
            slots[i].line.words[0]
                .store(s.line.words[0].load(Ordering::Relaxed), Ordering::Relaxed);
        }
        slots
    })?;
    made.pop()
        .ok_or_else(|| HostError::Thread("no allocation thread".into()))
}

/// R_I / R_QI: `reader` chases lines flushed from every cache, in pages placed by `home`
/// (`home == reader` for local memory, a CPU of another NUMA node for remote memory). Per-line ns.
pub fn read_memory(
    reader: usize,
    home: usize,
    cfg: &Config,
    timer: &TimerInfo,
) -> Result<Samples, HostError> {
    let slots = slots_homed_on(home, cfg.chase_lines)?;
    let chain = &slots[..cfg.chase_lines];
    let raw = team(&[reader], |_, _| {
        let mut out = Vec::with_capacity(cfg.samples);
        for i in 0..cfg.warmup + cfg.samples {
            mem::flush_slots(chain);
            let t = Instant::now();
            std::hint::black_box(mem::chase(chain));
            let ns = elapsed_ns(t);
            if i >= cfg.warmup {
                out.push(ns);
            }
        }
        out
    })?;
    finish(&raw.concat(), timer, cfg.chase_lines as f64, "read_memory")
}

/// Seed 000 ch. 2–3 ping-pong with `lines`-line buffers between CPUs `a` and `b`: each thread has
/// a send buffer (forced to `send` state: E = flushed then read by its owner, I = flushed,
/// M = written) and a receive buffer (forced to `recv`: E, I or M, by its owner). `a` copies its
/// send buffer into `b`'s receive buffer, writing the last line's canary last; `b` polls the
/// canary, then copies back; `a` polls. The sample is half the round trip (Eq. 2.1: T = RTT/2).
pub fn ping_pong(
    a: usize,
    b: usize,
    lines: usize,
    send: State,
    recv: State,
    cfg: &Config,
    timer: &TimerInfo,
) -> Result<Samples, HostError> {
    distinct(&[a, b], "ping_pong")?;
    let lines = lines.max(1);
    let bufs: [(Vec<Line>, Vec<Line>); 2] = [
        (mem::lines(lines), mem::lines(lines)),
        (mem::lines(lines), mem::lines(lines)),
    ];
    let force = |buf: &[Line], state: State| match state {
        State::M => mem::dirty(buf, 0),
        State::E | State::S => {
            mem::flush(buf);
            std::hint::black_box(mem::touch(buf));
        }
        State::I => mem::flush(buf),
    };
    let raw = team(&[a, b], |role, barrier| {
        let (send_mine, recv_mine) = (&bufs[role].0, &bufs[role].1);
        let recv_peer = &bufs[1 - role].1;
        let mut out = Vec::with_capacity(cfg.samples);
        for i in 0..cfg.warmup + cfg.samples {
            let canary = (i as u64) * 2 + 1;
            force(send_mine, State::M);
            force(send_mine, send);
            force(recv_mine, recv);
            barrier.wait();
            let last = &recv_mine[lines - 1].words[0];
            if role == 0 {
                let t = Instant::now();
                mem::copy_with_canary(send_mine, recv_peer, canary);
                spin_until(|| last.load(Ordering::Acquire) == canary + 1);
                let ns = elapsed_ns(t);
                if i >= cfg.warmup {
                    out.push(ns);
                }
            } else {
                spin_until(|| last.load(Ordering::Acquire) == canary);
                mem::copy_with_canary(send_mine, recv_peer, canary + 1);
            }
            barrier.wait();
        }
        out
    })?;
    finish(&raw.concat(), timer, 2.0, "ping_pong")
}

/// Seed 001 §2.2 one-directional multi-line transfer with congestion (Eq. 1): `owner` writes one
/// `lines`-line buffer per reader (M in its cache); then every reader copies its own buffer into
/// a private one, all starting at one timestamp. Each reader's time is a sample of
/// T_m(n = readers.len(), N = lines); they are pooled. ns per transfer (not per line).
pub fn copy_congestion(
    owner: usize,
    readers: &[usize],
    lines: usize,
    cfg: &Config,
    timer: &TimerInfo,
) -> Result<Samples, HostError> {
    let mut cpus = vec![owner];
    cpus.extend_from_slice(readers);
    distinct(&cpus, "copy_congestion")?;
    let lines = lines.max(1);
    let shared: Vec<Vec<Line>> = readers.iter().map(|_| mem::lines(lines)).collect();
    let start = StartClock::new();
    let raw = team(&cpus, |role, barrier| {
        let private = mem::lines(lines);
        let mut out = Vec::with_capacity(cfg.samples);
        for i in 0..cfg.warmup + cfg.samples {
            if role == 0 {
                for buf in &shared {
                    mem::dirty(buf, i as u64);
                }
                start.schedule();
            } else {
                mem::dirty(&private, 0);
            }
            barrier.wait();
            if role > 0 {
                start.wait();
                let t = Instant::now();
                mem::copy(&shared[role - 1], &private);
                let ns = elapsed_ns(t);
                if i >= cfg.warmup {
                    out.push(ns);
                }
            }
            barrier.wait();
        }
        out
    })?;
    finish(&raw.concat(), timer, 1.0, "copy_congestion")
}

/// A start time shared by a team, as in seed 000 §3.2 ("an array of time intervals ... every
/// iteration starts when the RDTSC reaches the desired value"): the scheduler sets a deadline a
/// fixed interval ahead, every participant spins until the clock passes it.
struct StartClock {
    base: Instant,
    deadline_ns: AtomicU64,
}

/// How far ahead a start is scheduled: long enough for every thread to leave the barrier.
const START_INTERVAL: Duration = Duration::from_micros(20);

impl StartClock {
    fn new() -> Self {
        StartClock {
            base: Instant::now(),
            deadline_ns: AtomicU64::new(0),
        }
    }
    fn schedule(&self) {
        let at = self.base.elapsed() + START_INTERVAL;
        self.deadline_ns.store(
            u64::try_from(at.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Release,
        );
    }
    fn wait(&self) {
        let deadline = Duration::from_nanos(self.deadline_ns.load(Ordering::Acquire));
        spin_until(|| self.base.elapsed() >= deadline);
    }
}

/// Seed 000 §3.2 contention: one global line held by `owner` in `state` (E: flushed, then read by
/// the owner; I: flushed — the owner then only schedules), copied at one timestamp by every
/// reader into a private line forced to the same state. The sample of an iteration is the
/// **slowest** reader's copy time (the time until all n have the line, which is what a parent in
/// a broadcast tree waits for). ns.
pub fn contention(
    owner: usize,
    readers: &[usize],
    state: State,
    cfg: &Config,
    timer: &TimerInfo,
) -> Result<Samples, HostError> {
    let mut cpus = vec![owner];
    cpus.extend_from_slice(readers);
    distinct(&cpus, "contention")?;
    let global = mem::lines(1);
    let slowest: Vec<AtomicU64> = (0..cfg.warmup + cfg.samples)
        .map(|_| AtomicU64::new(0))
        .collect();
    let start = StartClock::new();
    team(&cpus, |role, barrier| {
        let private = mem::lines(1);
        for (i, slot) in slowest.iter().enumerate() {
            if role == 0 {
                mem::dirty(&global, i as u64);
                mem::flush(&global);
                if state != State::I {
                    std::hint::black_box(mem::touch(&global));
                }
            } else {
                mem::flush(&private);
                if state != State::I {
                    std::hint::black_box(mem::touch(&private));
                }
            }
            barrier.wait();
            if role == 0 {
                start.schedule();
            }
            barrier.wait();
            if role > 0 {
                start.wait();
                let t = Instant::now();
                mem::copy(&global, &private);
                let ns = elapsed_ns(t) as u64;
                slot.fetch_max(ns, Ordering::Relaxed);
            }
            barrier.wait();
        }
    })?;
    let raw: Vec<f64> = slowest[cfg.warmup..]
        .iter()
        .map(|s| s.load(Ordering::Relaxed) as f64)
        .collect();
    finish(&raw, timer, 1.0, "contention")
}

/// Seed 001 §2.3 invalidation: a line is flushed, read by every reader (so n caches share it),
/// then `writer` performs a locked read-modify-write on it (`fetch_add`, which cannot retire before
/// the read-for-ownership and the invalidations complete, unlike a plain store that waits in the
/// store buffer). The sample is that write's time. ns.
pub fn invalidation(
    writer: usize,
    readers: &[usize],
    cfg: &Config,
    timer: &TimerInfo,
) -> Result<Samples, HostError> {
    let mut cpus = vec![writer];
    cpus.extend_from_slice(readers);
    distinct(&cpus, "invalidation")?;
    let line = mem::lines(1);
    let raw = team(&cpus, |role, barrier| {
        let mut out = Vec::with_capacity(cfg.samples);
        for i in 0..cfg.warmup + cfg.samples {
            if role == 0 {
                mem::flush(&line);
            }
            barrier.wait();
            if role > 0 {
                std::hint::black_box(mem::touch(&line));
            }
            barrier.wait();
            if role == 0 {
                let t = Instant::now();
                line[0].words[0].fetch_add(1, Ordering::AcqRel);
                let ns = elapsed_ns(t);
                if i >= cfg.warmup {
                    out.push(ns);
                }
            }
            barrier.wait();
        }
        out
    })?;
    finish(&raw.concat(), timer, 1.0, "invalidation")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::affinity::allowed_cpus;

    const TINY: Config = Config {
        samples: 20,
        warmup: 2,
        chase_lines: 8,
    };

    #[test]
    fn the_timer_overhead_is_subtracted_before_dividing_by_the_operations() {
        // Raw regions 120 and 140 ns, timer overhead 20 ns, 10 lines per region:
        // (120 − 20)/10 = 10 and (140 − 20)/10 = 12 ns per line.
        let timer = TimerInfo {
            overhead_ns: 20.0,
            resolution_ns: 1.0,
            samples: 1,
        };
        let s = finish(&[120.0, 140.0], &timer, 10.0, "t").unwrap();
        assert_eq!(s.values, vec![10.0, 12.0]);
        // Pooling concatenates: median of {10, 12, 20} is 12.
        let pooled = Samples::pooled(&[s, Samples { values: vec![20.0] }]);
        assert_eq!(pooled.summary().median, 12.0);
        assert!(finish(&[], &timer, 1.0, "t").is_err());
    }

    #[test]
    fn timer_overhead_is_small_and_resolution_positive() {
        let t = measure_timer(1000);
        assert!(t.resolution_ns > 0.0);
        assert!(t.overhead_ns >= 0.0 && t.overhead_ns < 100_000.0);
    }

    #[test]
    fn barrier_synchronizes_a_team() {
        let cpus = allowed_cpus().unwrap();
        let cpu = cpus[0];
        // Two roles on one CPU still pass the barrier (yielding), and each sees the other's
        // write of the phase before.
        let flag = AtomicU64::new(0);
        let seen = team(&[cpu, cpu], |role, b| {
            if role == 0 {
                flag.store(7, Ordering::Release);
            }
            b.wait();
            flag.load(Ordering::Acquire)
        })
        .unwrap();
        assert_eq!(seen, vec![7, 7]);
    }

    #[test]
    fn local_read_and_memory_read_run_and_are_positive() {
        let cpus = allowed_cpus().unwrap();
        let timer = measure_timer(1000);
        let local = read_local(cpus[0], State::E, &TINY, &timer).unwrap();
        let memory = read_memory(cpus[0], cpus[0], &TINY, &timer).unwrap();
        assert_eq!(local.values.len(), 20);
        assert!(memory.summary().median > 0.0);
    }

    #[test]
    fn two_cpu_benchmarks_run() {
        let cpus = allowed_cpus().unwrap();
        if cpus.len() < 2 {
            return;
        }
        let timer = measure_timer(1000);
        let (a, b) = (cpus[0], cpus[1]);
        assert!(
            read_remote(a, b, None, State::M, &TINY, &timer)
                .unwrap()
                .summary()
                .median
                > 0.0
        );
        assert!(read_remote(a, b, None, State::S, &TINY, &timer).is_err());
        assert!(
            ping_pong(a, b, 2, State::E, State::E, &TINY, &timer)
                .unwrap()
                .summary()
                .median
                > 0.0
        );
        assert!(
            copy_congestion(a, &[b], 4, &TINY, &timer)
                .unwrap()
                .summary()
                .median
                > 0.0
        );
        assert!(
            contention(a, &[b], State::I, &TINY, &timer)
                .unwrap()
                .summary()
                .median
                > 0.0
        );
        assert!(
            invalidation(a, &[b], &TINY, &timer)
                .unwrap()
                .summary()
                .median
                > 0.0
        );
        assert!(matches!(
            ping_pong(a, a, 1, State::E, State::E, &TINY, &timer),
            Err(HostError::TooFewCpus { .. })
        ));
    }
}
