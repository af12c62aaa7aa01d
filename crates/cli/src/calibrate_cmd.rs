//! `modelopt calibrate`: measure this host with the seeds' benchmarks and write one machine file
//! that prices both seeds' cache-line algorithms on it.
//!
//! The file is a `ccnuma` machine (seed 001: `[topology]`, `[line]`, `[multi_line.*]`,
//! `[invalidation]`) with the seed 000 tables under `[min_max]` (reads by location class and
//! state, ping-pong overhead, multi-line T_N, contention T_C), so `bcast`, `barrier` and `reduce`
//! offer both seed 001's `cla-tree` and seed 000's min-max algorithms on it. Every number carries
//! its provenance (benchmark, host, UTC time, samples, MAD, CV, R² for fits); every number that
//! could not be measured here is either absent and listed in `[calibration] not_measured` (a
//! class the host does not have) or marked `estimated = true` with the reason (a slope that needs
//! more simultaneous threads than the host has). `docs/calibration.md` describes each benchmark.

use anyhow::{bail, Context};
use clap::Args;
use modelopt_host::bench::{self, Config, Samples, State, TimerInfo};
use modelopt_host::stats::{self, Fit, Summary};
use modelopt_host::topology::{self, LocationClass, Topology};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Flags of `modelopt calibrate`.
#[derive(Debug, Clone, Args)]
pub struct CalibrateArgs {
    /// Machine file to write (refuses to overwrite an existing file without --force).
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// Overwrite --out if it exists.
    #[arg(long)]
    pub force: bool,
    /// Fewer samples, pairs and sizes: well under a minute on 2 CPUs.
    #[arg(long)]
    pub quick: bool,
    /// CPUs to measure, as a Linux CPU list (`0-3,8`); default: every CPU this process may use.
    #[arg(long, value_name = "LIST")]
    pub threads: Option<String>,
    /// Machine name written in the file (default: the file name without `.toml`).
    #[arg(long)]
    pub name: Option<String>,
    /// Warn when a benchmark's robust coefficient of variation (1.4826·MAD/median) exceeds this.
    #[arg(long, default_value_t = 0.10, value_name = "CV")]
    pub noise_threshold: f64,
}

/// Message sizes of the multi-line benchmarks, lines (seed 000 §3.1 went from 1 line to 8 KiB).
const LINE_COUNTS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

/// One measured value with its provenance.
struct Value {
    value: f64,
    benchmark: String,
    source: String,
    summary: Option<Summary>,
    samples: usize,
    r2: Option<f64>,
}

/// What a run knows while it measures.
struct Run {
    host: String,
    when: String,
    cfg: Config,
    timer: TimerInfo,
    threshold: f64,
    warnings: Vec<String>,
    bar: Option<indicatif::ProgressBar>,
}

impl Run {
    fn step(&self, what: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(what.to_string());
            bar.inc(1);
        }
    }

    fn warn(&mut self, message: String) {
        match &self.bar {
            Some(bar) => bar.println(format!("modelopt: warning: {message}")),
            None => eprintln!("modelopt: warning: {message}"),
        }
        self.warnings.push(message);
    }

    /// Check a measurement's noise and wrap it as a value.
    fn value(&mut self, benchmark: &str, source: &str, samples: &Samples) -> Value {
        let s = samples.summary();
        if s.cv() > self.threshold {
            self.warn(format!(
                "benchmark `{benchmark}` is noisy: CV {:.3} > {:.3} (median {:.2} ns, MAD {:.2} ns)",
                s.cv(),
                self.threshold,
                s.median,
                s.mad
            ));
        }
        Value {
            value: s.median,
            benchmark: benchmark.into(),
            source: source.into(),
            summary: Some(s),
            samples: s.n,
            r2: None,
        }
    }

    /// A TOML inline table for a measured value.
    fn param(&self, v: &Value) -> String {
        let mut out = format!(
            "{{ value = {}, unit = \"ns\", source = {}",
            num(v.value),
            quote(&v.source)
        );
        if let Some(s) = &v.summary {
            let _ = write!(
                out,
                ", stdev = {}, mad = {}, cv = {}",
                num(s.sigma()),
                num(s.mad),
                num4(s.cv())
            );
        }
        let _ = write!(
            out,
            ", benchmark = {}, host = {}, measured_at = {}, samples = {}",
            quote(&v.benchmark),
            quote(&self.host),
            quote(&self.when),
            v.samples.max(1)
        );
        if let Some(r2) = v.r2 {
            let _ = write!(out, ", r2 = {}", num4(r2.min(1.0)));
        }
        out.push_str(" }");
        out
    }
}

impl Run {
    /// A TOML inline table for a measured value of a farther class (`key`) that the machine
    /// file must not price below the nearer class `near` (`near_key`; the loader refuses a
    /// farther line cheaper than a nearer one). A median at or above it is written as
    /// measured. One below it means the two classes are not distinguishable on this host (on a
    /// VM two vCPUs may be hardware threads of one core, whose lines are local to both), so the
    /// value written is the nearer class's, and the entry keeps its own measurement (benchmark,
    /// samples, spread) with a note giving the measured median; a warning says so.
    fn param_at_least(&mut self, v: &Value, key: &str, near: &Value, near_key: &str) -> String {
        if v.value >= near.value {
            return self.param(v);
        }
        let note = format!(
            "measured median {} ns, below {near_key} ({} ns): the two are not distinguishable on this host, so {key} is written as {near_key}'s value (a farther line cannot be cheaper)",
            num(v.value),
            num(near.value)
        );
        self.warn(format!("{key}: {note}"));
        let raised = Value {
            value: near.value,
            benchmark: v.benchmark.clone(),
            source: v.source.clone(),
            summary: v.summary,
            samples: v.samples,
            r2: v.r2,
        };
        let mut out = self.param(&raised);
        // `param` ends its table with " }": the note goes before it.
        out.truncate(out.len() - 2);
        let _ = write!(out, ", note = {} }}", quote(&note));
        out
    }
}

/// A TOML inline table for an estimated value (not measured here), with the reason.
fn estimate(value: f64, source: &str, note: &str) -> String {
    format!(
        "{{ value = {}, unit = \"ns\", source = {}, estimated = true, note = {} }}",
        num(value),
        quote(source),
        quote(note)
    )
}

fn num(v: f64) -> String {
    let v = if v == 0.0 { 0.0 } else { v };
    format!("{v:.3}")
}

fn num4(v: f64) -> String {
    format!("{v:.4}")
}

/// A TOML basic string: JSON string escapes (`\"`, `\\`, `\n`, `\uXXXX`) are TOML's too.
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

/// `YYYY-MM-DDThh:mm:ssZ` for seconds since the Unix epoch (proleptic Gregorian, UTC), by
/// H. Hinnant's `civil_from_days`.
fn rfc3339_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The CPUs to measure: `--threads` (each must be online and allowed) or every allowed online CPU.
fn choose_cpus(
    list: Option<&str>,
    topo: &Topology,
    allowed: &[usize],
) -> anyhow::Result<Vec<usize>> {
    let usable: Vec<usize> = topo
        .cpus
        .iter()
        .map(|c| c.id)
        .filter(|c| allowed.contains(c))
        .collect();
    let cpus = match list {
        None => usable.clone(),
        Some(text) => {
            let asked = topology::parse_cpu_list(text)
                .map_err(|e| anyhow::anyhow!("--threads {text}: {e}"))?;
            if let Some(bad) = asked.iter().find(|c| !usable.contains(c)) {
                bail!(
                    "--threads: CPU {bad} is not online or not allowed for this process (usable: {})",
                    list_text(&usable)
                );
            }
            asked
        }
    };
    if cpus.len() < 2 {
        bail!(
            "calibration needs at least 2 CPUs to move lines between (got {}: {})",
            cpus.len(),
            list_text(&cpus)
        );
    }
    Ok(cpus)
}

fn list_text(cpus: &[usize]) -> String {
    cpus.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Run the command: measure, write the file, return a summary for stdout.
pub fn run(args: &CalibrateArgs) -> anyhow::Result<String> {
    if args.out.exists() && !args.force {
        bail!("{} exists; use --force to overwrite it", args.out.display());
    }
    if !(args.noise_threshold.is_finite() && args.noise_threshold > 0.0) {
        bail!("--noise-threshold must be a positive number");
    }
    let name = match &args.name {
        Some(n) => n.clone(),
        None => args
            .out
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("host")
            .to_string(),
    };
    let full = topology::discover().context("topology discovery")?;
    let info = topology::host_info_at(Path::new("/"));
    let allowed = modelopt_host::affinity::allowed_cpus().context("reading the affinity mask")?;
    let cpus = choose_cpus(args.threads.as_deref(), &full, &allowed)?;
    let topo = full.restricted_to(&cpus);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let cpu_model = info
        .cpu_model
        .clone()
        .unwrap_or_else(|| "unknown CPU".into());
    let host = if info.virtualized.is_some() {
        format!("{cpu_model} (VM)")
    } else {
        cpu_model.clone()
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "calibrate [{bar:30}] {pos}/{len} {msg} ({elapsed})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar
    });
    let mut run = Run {
        host,
        when: rfc3339_utc(now),
        cfg: if args.quick {
            Config::QUICK
        } else {
            Config::FULL
        },
        timer: bench::measure_timer(10_000),
        threshold: args.noise_threshold,
        warnings: Vec::new(),
        bar,
    };
    if let Some(why) = &info.virtualized {
        run.warn(format!(
            "this host looks virtual ({why}): vCPUs may share physical cores or be descheduled, and the topology sysfs shows is the hypervisor's; see docs/calibration.md"
        ));
    }
    if allowed.len() < full.present.len() {
        let cgroup = topology::cgroup_cpuset_at(Path::new("/"))
            .map(|c| format!(" (cgroup cpuset {})", list_text(&c)))
            .unwrap_or_default();
        run.warn(format!(
            "only {} of the host's {} CPUs may be used by this process{cgroup}: the file describes those",
            allowed.len(),
            full.present.len()
        ));
    }
    if !topo.shape().uniform {
        run.warn("the measured CPUs are not a uniform sockets × cores × threads grid; [topology] gives the largest counts".into());
    }
    let result = measure(&mut run, &topo, &cpus, &name, &cpu_model, &info, args.quick);
    if let Some(bar) = &run.bar {
        bar.finish_and_clear();
    }
    let (text, summary) = result?;
    // Check with the loader before writing: a file modelopt cannot read is no calibration.
    modelopt_model::machine::from_text(&args.out.display().to_string(), &text).map_err(|e| {
        anyhow::anyhow!("the measured values do not make a valid machine ({e}); nothing written")
    })?;
    std::fs::write(&args.out, &text)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    Ok(format!(
        "wrote {} ({} CPUs, {}): {summary}{}\n",
        args.out.display(),
        cpus.len(),
        run.host,
        if run.warnings.is_empty() {
            String::new()
        } else {
            format!(
                "; {} warning(s), listed in [calibration]",
                run.warnings.len()
            )
        }
    ))
}

/// Pool a benchmark over representative pairs.
fn over_pairs(
    run: &Run,
    pairs: &[(usize, usize)],
    what: &str,
    mut one: impl FnMut(usize, usize) -> Result<Samples, modelopt_host::HostError>,
) -> anyhow::Result<Samples> {
    let mut parts = Vec::new();
    for &(a, b) in pairs {
        run.step(&format!("{what} {a}→{b}"));
        parts.push(one(a, b).with_context(|| format!("{what} between CPUs {a} and {b}"))?);
    }
    Ok(Samples::pooled(&parts))
}

/// Everything measured, written as TOML. Returns (file text, one-line summary).
#[allow(clippy::too_many_lines)]
fn measure(
    run: &mut Run,
    topo: &Topology,
    cpus: &[usize],
    name: &str,
    cpu_model: &str,
    info: &topology::HostInfo,
    quick: bool,
) -> anyhow::Result<(String, String)> {
    let cfg = run.cfg;
    let timer = run.timer;
    let per_class = if quick { 1 } else { 3 };
    let max_readers = if quick { 3 } else { 8 };
    let classes = topo.classes();
    let class_pairs: Vec<(LocationClass, Vec<(usize, usize)>)> = classes
        .iter()
        .map(|&c| (c, topo.representative_pairs(c, per_class)))
        .collect();
    let reader = cpus[0];
    let mut not_measured: Vec<(String, String)> = Vec::new();
    let pair_count: usize = class_pairs.iter().map(|(_, p)| p.len()).sum();
    if let Some(bar) = &run.bar {
        // local (2) + memory (2) + 3 states per pair + ping-pong sizes ×2 + congestion + contention
        // + invalidation: an estimate of the steps, refined as the run goes.
        let steps = 4 + 3 * pair_count + 2 * LINE_COUNTS.len() + 8 * max_readers + 8;
        bar.set_length(steps as u64);
    }

    // Seed 000 §1.3.1: local reads (R_L), M and E.
    let mut reads: Vec<(String, State, Value)> = Vec::new();
    for state in [State::M, State::E] {
        run.step(&format!("local read {}", state.letter()));
        let s = bench::read_local(reader, state, &cfg, &timer).context("local read")?;
        let bench_name = format!("read_local {} (CPU {reader})", state.letter());
        let v = run.value(
            &bench_name,
            &format!("modelopt calibrate: {}-line chase of lines the reader holds in {}, per line (seed 000 §1.3.1)", cfg.chase_lines, state.letter()),
            &s,
        );
        reads.push(("local".into(), state, v));
    }
    // R_I: flushed lines in local memory.
    run.step("memory read (local node)");
    let s = bench::read_memory(reader, reader, &cfg, &timer).context("memory read")?;
    let invalid = run.value(
        &format!("read_memory local (CPU {reader})"),
        "modelopt calibrate: chase of lines flushed from every cache, pages on the reader's NUMA node (seed 000 §1.3.1, R_I)",
        &s,
    );
    // R_QI: flushed lines homed on another NUMA node.
    let mut invalid_remote = None;
    let reader_node = topo.cpu(reader).and_then(|c| c.node);
    let remote_home = topo
        .numa_nodes
        .iter()
        .find(|n| Some(n.id) != reader_node)
        .and_then(|n| n.cpus.first().copied());
    match remote_home {
        Some(home) => {
            run.step("memory read (remote node)");
            let s = bench::read_memory(reader, home, &cfg, &timer).context("remote memory read")?;
            invalid_remote = Some(run.value(
                &format!("read_memory remote (CPU {reader}, pages placed by CPU {home})"),
                "modelopt calibrate: chase of flushed lines whose pages another NUMA node's CPU placed (seed 001 §2.1, R_QI)",
                &s,
            ));
        }
        None => not_measured.push((
            "line.invalid_remote_socket".into(),
            format!(
                "the measured CPUs have {} NUMA node(s): no remote memory to read",
                topo.numa_nodes.len().max(1)
            ),
        )),
    }

    // Reads by location class and state (seed 000 Tables 1.5–1.8).
    let mut class_reads: Vec<(LocationClass, State, Value)> = Vec::new();
    for (class, pairs) in &class_pairs {
        for state in [State::M, State::E, State::S] {
            let helper = |a: usize, b: usize| cpus.iter().copied().find(|&c| c != a && c != b);
            if state == State::S && pairs.iter().any(|&(a, b)| helper(a, b).is_none()) {
                not_measured.push((
                    format!("min_max.reads.{}.S", class.key()),
                    "S needs a third CPU to share the line with the owner".into(),
                ));
                continue;
            }
            let what = format!("read {} {}", class.key(), state.letter());
            let s = over_pairs(run, pairs, &what, |a, b| {
                bench::read_remote(a, b, helper(a, b), state, &cfg, &timer)
            })?;
            let v = run.value(
                &format!("read_remote {} {} (pairs {})", class.key(), state.letter(), pairs_text(pairs)),
                &format!(
                    "modelopt calibrate: {}-line chase of lines another CPU ({}) holds in {}, per line (seed 000 §1.3.1, Tables 1.5–1.8)",
                    cfg.chase_lines,
                    class_words(*class),
                    state.letter()
                ),
                &s,
            );
            class_reads.push((*class, state, v));
        }
    }
    let read_of = |class: LocationClass, state: State| {
        class_reads
            .iter()
            .find(|(c, s, _)| *c == class && *s == state)
            .map(|(_, _, v)| v)
    };
    // R_R: the nearest class of two cores of one socket; R_Q: another socket.
    let Some(remote_class) = [LocationClass::SameL3, LocationClass::SameSocket]
        .into_iter()
        .find(|c| classes.contains(c))
    else {
        bail!("the measured CPUs ({}) are hardware threads of one core or of different sockets only: R_R (two cores of one socket) cannot be measured; add a CPU of another core with --threads", list_text(cpus));
    };
    let (Some(r_r), Some(r_r_m)) = (
        read_of(remote_class, State::E),
        read_of(remote_class, State::M),
    ) else {
        bail!("internal: the R_R reads are missing");
    };
    let r_q = read_of(LocationClass::OtherSocket, State::E);
    if r_q.is_none() {
        not_measured.push((
            "line.remote_socket".into(),
            "the measured CPUs are on one socket".into(),
        ));
    }
    for class in LocationClass::ALL {
        if !classes.contains(&class) {
            not_measured.push((
                format!("min_max.reads.{}", class.key()),
                format!("no two measured CPUs are {}", class_words(class)),
            ));
        }
    }
    let r_l = &reads[1].2; // local E (seed 000 Table 1.5b uses the E column for R_L)
    let remote_pair = class_pairs
        .iter()
        .find(|(c, _)| *c == remote_class)
        .and_then(|(_, p)| p.first().copied())
        .ok_or_else(|| anyhow::anyhow!("internal: no pair of the R_R class"))?;

    // Ping-pong, 1..128 lines, E-E and I-I (seed 000 ch. 2–3).
    // (buffer states, (N, median T_N) points, samples)
    type Points = Vec<(f64, f64)>;
    let mut pp_points: Vec<(State, Points, usize)> = Vec::new();
    let mut t1 = None;
    for state in [State::E, State::I] {
        let mut points = Vec::new();
        let mut samples = 0;
        for &n in &LINE_COUNTS {
            run.step(&format!(
                "ping-pong {}-{} N={n}",
                state.letter(),
                state.letter()
            ));
            let (a, b) = remote_pair;
            let s = bench::ping_pong(a, b, n, state, state, &cfg, &timer)
                .with_context(|| format!("ping-pong of {n} lines"))?;
            let what = format!(
                "ping_pong {}-{} N={n} (CPUs {a},{b})",
                state.letter(),
                state.letter()
            );
            let v = run.value(&what, "", &s);
            samples += v.samples;
            if n == 1 && state == State::E {
                t1 = Some(v.value);
            }
            points.push((n as f64, v.value));
        }
        pp_points.push((state, points, samples));
    }
    let mut multi_line_text = String::new();
    let mut fit_notes = Vec::new();
    for (state, points, samples) in &pp_points {
        let l = state.letter();
        let (o, q, p, r2, held) = fit_eq_3_1(points)?;
        if let Some(n) = held.note(r2) {
            fit_notes.push(format!("{l}-{l}: {n}"));
        }
        let bench_name = format!("ping_pong {l}-{l}, N = 1..128 lines, fit of seed 000 Eq. 3.1");
        let src = "modelopt calibrate: least-squares fit of T_N = o·N + q − p/N to ping-pong medians (seed 000 Eq. 3.1, Table 3.1)";
        let fitted = |value: f64| Value {
            value,
            benchmark: bench_name.clone(),
            source: src.into(),
            summary: None,
            samples: *samples,
            r2: Some(r2),
        };
        let _ = writeln!(
            multi_line_text,
            "\n[[min_max.multi_line]]\nsender = \"{l}\"\nreceiver = \"{l}\"\nq = {}\no = {}\np = {}",
            match held.q {
                Some(free) => estimate(0.0, src, &format!("held at 0 by the fit's bound q ≥ 0 (the free fit gave q = {free:.1})")),
                None => run.param(&fitted(q)),
            },
            run.param(&fitted(o)),
            match held.p {
                Some(free) => estimate(0.0, src, &format!("held at 0 by the fit's bound p ≥ 0 (the free fit gave p = {free:.1})")),
                None => run.param(&fitted(p)),
            }
        );
    }
    // Eq. 2.1: T_1 ≈ R_{L,E} + R_{R,E} + R_{R,M} + O.
    let t1 = t1.ok_or_else(|| anyhow::anyhow!("internal: no one-line ping-pong"))?;
    let estimate_2_1 = r_l.value + r_r.value + r_r_m.value;
    let overhead = t1 - estimate_2_1;

    // Seed 001 Eq. 1 within a socket: n simultaneous copiers of N lines from one owner.
    let owner = remote_pair.0;
    let socket_of = |c: usize| topo.cpu(c).map(|x| x.package);
    let same_socket: Vec<usize> = cpus
        .iter()
        .copied()
        .filter(|&c| c != owner && socket_of(c) == socket_of(owner))
        .take(max_readers)
        .collect();
    let intra = congestion(run, owner, &same_socket, "intra-socket")?;
    let other_socket: Vec<usize> = cpus
        .iter()
        .copied()
        .filter(|&c| socket_of(c) != socket_of(owner))
        .take(max_readers)
        .collect();
    let inter = if other_socket.is_empty() {
        not_measured.push((
            "multi_line.inter_socket".into(),
            "the measured CPUs are on one socket".into(),
        ));
        None
    } else {
        Some(congestion(run, owner, &other_socket, "inter-socket")?)
    };

    // Contention (seed 000 §3.2): n = 1.. readers of one line, E-E and I-I.
    let contenders: Vec<usize> = cpus
        .iter()
        .copied()
        .filter(|&c| c != reader)
        .take(max_readers)
        .collect();
    let mut contention_text = String::new();
    for state in [State::E, State::I] {
        let l = state.letter();
        let mut points = Vec::new();
        let mut samples = 0;
        for n in 1..=contenders.len() {
            run.step(&format!("contention {l}-{l} n={n}"));
            let s = bench::contention(reader, &contenders[..n], state, &cfg, &timer)
                .with_context(|| format!("contention with {n} readers"))?;
            let v = run.value(&format!("contention {l}-{l} n={n}"), "", &s);
            samples += v.samples;
            points.push((n as f64, v.value));
        }
        contention_text.push_str(&contention_entry(run, state, &points, samples)?);
    }

    // Invalidation (seed 001 §2.3): a write to a line n readers share.
    let mut inv_points = Vec::new();
    let mut inv_samples = 0;
    for n in 1..=contenders.len() {
        run.step(&format!("invalidation n={n}"));
        let s = bench::invalidation(reader, &contenders[..n], &cfg, &timer)
            .with_context(|| format!("invalidation with {n} sharers"))?;
        let v = run.value(&format!("invalidation n={n}"), "", &s);
        inv_samples += v.samples;
        inv_points.push((n as f64, v.value));
    }
    let inv_bench = format!(
        "invalidation, locked write by CPU {reader} to a line shared by n = 1..{} readers",
        contenders.len()
    );
    let inv_src = "modelopt calibrate: T_inv(n) = t_0 + s·n fitted to the medians of a locked write's time (seed 001 §2.3)";
    let invalidation_text = if inv_points.len() >= 2 {
        let f = stats::fit_line("T_inv(n) = t_0 + s·n", &inv_points)?;
        let (slope, base) = (f.coefficients[0], f.coefficients[1]);
        let rule = if slope >= 0.5 * r_r.value {
            "per-owner"
        } else {
            "single"
        };
        let val = |value| Value {
            value,
            benchmark: inv_bench.clone(),
            source: inv_src.into(),
            summary: None,
            samples: inv_samples,
            r2: Some(f.r2),
        };
        format!(
            "rule = \"{rule}\"\nsource = {}\nbase = {}\nper_sharer = {}\n",
            quote(&format!("measured: slope s = {slope:.1} ns per sharer against R_R = {:.1} ns (per-owner when s ≥ R_R/2), seed 001 §2.3", r_r.value)),
            run.param(&val(base)),
            run.param(&val(slope)),
        )
    } else {
        not_measured.push((
            "invalidation.per_sharer".into(),
            "needs at least 2 sharers besides the writer (3 CPUs); the rule is seed 001's".into(),
        ));
        let single = Value {
            value: inv_points.first().map_or(0.0, |p| p.1),
            benchmark: inv_bench.clone(),
            source: "modelopt calibrate: median time of a locked write to a line one other CPU shares (seed 001 §2.3)".into(),
            summary: None,
            samples: inv_samples,
            r2: None,
        };
        format!(
            "rule = \"per-owner\"\nsource = \"seed 001 §2.3 (not measured here: one sharer only)\"\nbase = {}\n",
            run.param(&single)
        )
    };

    // Assemble the file.
    let shape = topo.shape();
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# Calibrated by `modelopt calibrate{}` on {} ({}), {} CPUs: {}.\n\
         # Every measured number gives its benchmark, host, UTC time, samples, spread (stdev = 1.4826·MAD)\n\
         # and, for fits, R². Numbers this host could not measure are absent (see [calibration] not_measured)\n\
         # or marked `estimated = true` with the reason. Benchmarks: docs/calibration.md.\n",
        if quick { " --quick" } else { "" },
        cpu_model,
        run.when,
        cpus.len(),
        list_text(cpus)
    );
    let _ = writeln!(t, "name = {}", quote(name));
    let _ = writeln!(t, "family = \"ccnuma\"");
    let _ = writeln!(
        t,
        "description = {}",
        quote(&format!(
            "{cpu_model}{}, {} CPUs measured by modelopt calibrate at {}",
            if info.virtualized.is_some() {
                " (VM)"
            } else {
                ""
            },
            cpus.len(),
            run.when
        ))
    );
    let _ = writeln!(t, "max_threads = {}\n", cpus.len());
    let _ = writeln!(
        t,
        "# The measured CPUs' hierarchy: {}.\n[topology]\nsockets = {}\ncores_per_socket = {}\nthreads_per_core = {}\nline_bytes = {}\n",
        hierarchy_text(topo),
        shape.sockets,
        shape.cores_per_socket,
        shape.threads_per_core,
        topo.line_bytes.unwrap_or(64)
    );
    let _ = writeln!(
        t,
        "# Seed 001 §2.1 classes. R_R is the `{}` class (E state).",
        remote_class.key()
    );
    let local = run.param(r_l);
    let remote = run.param_at_least(r_r, "line.remote", r_l, "line.local");
    let _ = writeln!(t, "[line]\nlocal = {local}\nremote = {remote}");
    if let Some(q) = r_q {
        // Ordered against the value written for R_R (raised to R_L if it had to be).
        let near = if r_r.value >= r_l.value { r_r } else { r_l };
        let remote_socket = run.param_at_least(q, "line.remote_socket", near, "line.remote");
        let _ = writeln!(t, "remote_socket = {remote_socket}");
    }
    let _ = writeln!(t, "invalid = {}", run.param(&invalid));
    if let Some(qi) = &invalid_remote {
        let far = run.param_at_least(qi, "line.invalid_remote_socket", &invalid, "line.invalid");
        let _ = writeln!(t, "invalid_remote_socket = {far}");
    }
    let _ = writeln!(t, "\n# Seed 001 Eq. 1: T_m(n, N) = q + o·N + c·n·N.");
    t.push_str(&multi_line_table(run, "intra_socket", &intra));
    if let Some(inter) = &inter {
        t.push_str(&multi_line_table(run, "inter_socket", inter));
    }
    let _ = writeln!(t, "\n[invalidation]\n{invalidation_text}");
    let _ = writeln!(
        t,
        "# Seed 000 tables: reads by location class and state (Tables 1.5–1.8), ping-pong overhead\n\
         # (Eq. 2.1), multi-line T_N (Eq. 3.1) and contention T_C (Eqs. 3.2/3.3). With them this machine\n\
         # also offers seed 000's small-tree broadcast/reduction and dissemination barrier."
    );
    let _ = writeln!(t, "[min_max.reads.local]");
    for (_, state, v) in &reads {
        let _ = writeln!(t, "{} = {}", state.letter(), run.param(v));
    }
    let _ = writeln!(t, "I = {}", run.param(&invalid));
    for class in LocationClass::ALL {
        let rows: Vec<_> = class_reads.iter().filter(|(c, _, _)| *c == class).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(t, "\n[min_max.reads.{}]", class.key());
        for (_, state, v) in rows {
            let _ = writeln!(t, "{} = {}", state.letter(), run.param(v));
        }
    }
    let pp_value = Value {
        value: overhead,
        benchmark: format!("ping_pong E-E N=1 (CPUs {},{})", remote_pair.0, remote_pair.1),
        source: format!(
            "modelopt calibrate: O = T_1 − (R_L,E + R_R,E + R_R,M) = {t1:.1} − ({:.1} + {:.1} + {:.1}) (seed 000 Eq. 2.1)",
            r_l.value, r_r.value, r_r_m.value
        ),
        summary: None,
        samples: pp_points.first().map_or(1, |p| p.2 / LINE_COUNTS.len()),
        r2: None,
    };
    let _ = writeln!(
        t,
        "\n[[min_max.ping_pong]]\nlocation = \"{}\"\nsend_states = [\"E\"]\nrecv_states = [\"E\"]\nequation = \"seed 000, Eq. (2.1)\"\noverhead = {}",
        remote_class.key(),
        run.param(&pp_value)
    );
    t.push_str(&multi_line_text);
    t.push_str(&contention_text);
    for note in fit_notes {
        run.warnings.push(note);
    }
    let _ = writeln!(
        t,
        "\n[calibration]\ntool = {}\nhost = {}\nmeasured_at = {}\ncpus = [{}]",
        quote(&format!(
            "modelopt {} calibrate{}",
            env!("CARGO_PKG_VERSION"),
            if quick { " --quick" } else { "" }
        )),
        quote(cpu_model),
        quote(&run.when),
        list_text(cpus).replace(',', ", ")
    );
    if let Some(v) = &info.virtualized {
        let _ = writeln!(t, "virtualized = {}", quote(v));
    }
    let _ = writeln!(
        t,
        "timer_overhead_ns = {}\ntimer_resolution_ns = {}",
        num(timer.overhead_ns),
        num(timer.resolution_ns)
    );
    let _ = writeln!(t, "not_measured = [");
    for (key, reason) in &not_measured {
        let _ = writeln!(
            t,
            "  {{ key = {}, reason = {} }},",
            quote(key),
            quote(reason)
        );
    }
    let _ = writeln!(t, "]\nwarnings = [");
    for w in &run.warnings {
        let _ = writeln!(t, "  {},", quote(w));
    }
    let _ = writeln!(t, "]");
    let summary = format!(
        "R_L {:.1} ns, R_R {:.1} ns{}, R_I {:.1} ns{}, T_1 {:.1} ns (Eq. 2.1 overhead {:+.1} ns)",
        r_l.value,
        r_r.value,
        r_q.map(|q| format!(", R_Q {:.1} ns", q.value))
            .unwrap_or_default(),
        invalid.value,
        invalid_remote
            .as_ref()
            .map(|q| format!(", R_QI {:.1} ns", q.value))
            .unwrap_or_default(),
        t1,
        overhead
    );
    Ok((t, summary))
}

fn pairs_text(pairs: &[(usize, usize)]) -> String {
    pairs
        .iter()
        .map(|(a, b)| format!("{a}-{b}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn class_words(class: LocationClass) -> &'static str {
    match class {
        LocationClass::SmtSibling => "an SMT sibling of the reader's core",
        LocationClass::SameL3 => "another core of the reader's L3 domain",
        LocationClass::SameSocket => "a core of another L3 domain of the reader's socket",
        LocationClass::OtherSocket => "a core of another socket",
    }
}

fn hierarchy_text(topo: &Topology) -> String {
    topo.sockets
        .iter()
        .map(|s| {
            format!(
                "socket {}: {}",
                s.package,
                s.l3_domains
                    .iter()
                    .map(|d| {
                        format!(
                            "L3 {{{}}}",
                            d.cores
                                .iter()
                                .map(|c| list_text(&c.threads))
                                .collect::<Vec<_>>()
                                .join(" | ")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Fit seed 000 Eq. 3.1 within its bounds q ≥ 0 and p ≥ 0 (a free fit below either, noise
/// on a busy host, is refitted with it held at 0). Returns (o, q, p, R², what was held).
fn fit_eq_3_1(points: &[(f64, f64)]) -> anyhow::Result<(f64, f64, f64, f64, Held)> {
    let b = stats::fit_multi_line_bounded(points)?;
    let (o, q, p) = (
        b.fit.coefficients[0],
        b.fit.coefficients[1],
        b.fit.coefficients[2],
    );
    check_fit(o, o + q - p, "T_N")?;
    Ok((
        o,
        q,
        p,
        b.fit.r2,
        Held {
            q: b.q_held,
            p: b.p_held,
        },
    ))
}

/// The coefficients of Eq. 3.1 a fit held at 0, with the free fit's values.
struct Held {
    q: Option<f64>,
    p: Option<f64>,
}

impl Held {
    fn note(&self, r2: f64) -> Option<String> {
        let free: Vec<String> = [("q", self.q), ("p", self.p)]
            .iter()
            .filter_map(|(name, v)| v.map(|v| format!("{name} = {v:.1}")))
            .collect();
        (!free.is_empty()).then(|| {
            format!(
                "the free Eq. 3.1 fit gave {}, outside q, p ≥ 0; refitted with them held at 0 (R² {r2:.3})",
                free.join(", ")
            )
        })
    }
}

fn check_fit(slope: f64, at_one: f64, what: &str) -> anyhow::Result<()> {
    if !(slope > 0.0 && at_one > 0.0) {
        bail!("the {what} fit is not physical (slope {slope:.2} ns, value at 1 = {at_one:.2} ns): the host is too noisy to calibrate; try again on an idle host or without --quick");
    }
    Ok(())
}

/// Seed 001 Eq. 1 points for one owner and its readers.
struct Congestion {
    fit: Fit,
    readers: usize,
    samples: usize,
    label: String,
}

fn congestion(
    run: &mut Run,
    owner: usize,
    readers: &[usize],
    label: &str,
) -> anyhow::Result<Congestion> {
    let (cfg, timer) = (run.cfg, run.timer);
    let mut points = Vec::new();
    let mut samples = 0;
    for n in 1..=readers.len() {
        for &lines in &LINE_COUNTS {
            run.step(&format!("{label} copy n={n} N={lines}"));
            let s = bench::copy_congestion(owner, &readers[..n], lines, &cfg, &timer)
                .with_context(|| format!("{label} copy of {lines} lines by {n} readers"))?;
            let v = run.value(&format!("copy {label} n={n} N={lines}"), "", &s);
            samples += v.samples;
            points.push((n as f64, lines as f64, v.value));
        }
    }
    let fit = if readers.len() >= 2 {
        stats::fit_congestion(&points)?
    } else {
        let line: Vec<(f64, f64)> = points.iter().map(|p| (p.1, p.2)).collect();
        let f = stats::fit_line("T_m(1, N) = q + o·N", &line)?;
        // Reorder to [q, o] like fit_congestion.
        Fit {
            coefficients: vec![f.coefficients[1], f.coefficients[0]],
            r2: f.r2,
            points: f.points,
        }
    };
    Ok(Congestion {
        fit,
        readers: readers.len(),
        samples,
        label: format!("copy {label} from CPU {owner} by {}", list_text(readers)),
    })
}

fn multi_line_table(run: &Run, key: &str, c: &Congestion) -> String {
    let src = "modelopt calibrate: least-squares fit of T_m(n, N) = q + o·N + c·n·N to one-directional copy medians, N = 1..128 (seed 001 Eq. 1, Table 1)";
    let bench_name = format!("{}, n = 1..{}", c.label, c.readers);
    let val = |value: f64| Value {
        value,
        benchmark: bench_name.clone(),
        source: src.into(),
        summary: None,
        samples: c.samples,
        r2: Some(c.fit.r2),
    };
    let q = c.fit.coefficients[0];
    let o = c.fit.coefficients[1];
    let c_text = match c.fit.coefficients.get(2) {
        Some(&cc) if cc >= 0.0 => run.param(&val(cc)),
        Some(&cc) => estimate(
            0.0,
            src,
            &format!("the fit gave c = {cc:.3} < 0 (no congestion visible); Eq. 1 needs c ≥ 0"),
        ),
        None => estimate(
            0.0,
            "seed 001 Table 1 (no intra-socket congestion observed)",
            "not measured: congestion needs at least 2 simultaneous readers besides the owner",
        ),
    };
    format!(
        "\n[multi_line.{key}]\nq = {}\no = {}\nc = {c_text}\nr2 = {}\n",
        if q >= 0.0 {
            run.param(&val(q))
        } else {
            estimate(
                0.0,
                src,
                &format!("the fit gave q = {q:.1} < 0; Eq. 1 needs q ≥ 0"),
            )
        },
        run.param(&val(o)),
        num4(c.fit.r2.clamp(0.0, 1.0))
    )
}

/// One `[[min_max.contention]]` entry from T_C(n) medians: Eq. 3.2 (cached) or 3.3 (invalid,
/// with 4 or more points), as many parameters as the points determine.
fn contention_entry(
    run: &Run,
    state: State,
    points: &[(f64, f64)],
    samples: usize,
) -> anyhow::Result<String> {
    let l = state.letter();
    let src = if state == State::I {
        "modelopt calibrate: least-squares fit of T_C(n) = c·n + b − a/n to contention medians (seed 000 Eq. 3.3, Table 3.2)"
    } else {
        "modelopt calibrate: least-squares fit of T_C(n) = c·n + b to contention medians (seed 000 Eq. 3.2, Table 3.2)"
    };
    let bench_name = format!("contention {l}-{l}, n = 1..{} readers", points.len());
    let amortized = state == State::I && points.len() >= 4;
    let mut out = format!("\n[[min_max.contention]]\nsender = \"{l}\"\nreceiver = \"{l}\"\n");
    if points.len() < 2 {
        let b = points.first().map_or(0.0, |p| p.1);
        let v = Value {
            value: b,
            benchmark: bench_name,
            source:
                "modelopt calibrate: T_C(1) = b + c with c = 0 (one reader only), seed 000 Eq. 3.2"
                    .into(),
            summary: None,
            samples,
            r2: None,
        };
        let _ = writeln!(
            out,
            "b = {}\nc = {}",
            run.param(&v),
            estimate(
                0.0,
                "seed 000 Eq. 3.2",
                "not measured: the slope needs at least 2 simultaneous readers besides the owner"
            )
        );
        return Ok(out);
    }
    let f = stats::fit_contention(points, amortized)?;
    let val = |value: f64| Value {
        value,
        benchmark: bench_name.clone(),
        source: src.into(),
        summary: None,
        samples,
        r2: (f.dof() > 0).then_some(f.r2),
    };
    let (c, b) = (f.coefficients[0], f.coefficients[1]);
    let a = f.coefficients.get(2).copied();
    let c_text = if c >= 0.0 {
        run.param(&val(c))
    } else {
        estimate(
            0.0,
            src,
            &format!("the fit gave c = {c:.2} < 0 (no contention visible); Eq. 3.2 needs c ≥ 0"),
        )
    };
    let b_eff = if c >= 0.0 { b } else { b + c };
    check_fit(1.0, b_eff + c.max(0.0) - a.unwrap_or(0.0).max(0.0), "T_C")?;
    let _ = writeln!(out, "b = {}\nc = {c_text}", run.param(&val(b_eff)));
    if let Some(a) = a {
        let _ = writeln!(
            out,
            "a = {}",
            if a >= 0.0 {
                run.param(&val(a))
            } else {
                estimate(
                    0.0,
                    src,
                    &format!("the fit gave a = {a:.1} < 0; Eq. 3.3 needs a ≥ 0"),
                )
            }
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_farther_class_measured_below_a_nearer_one_is_written_at_its_value_with_a_note() {
        let mut run = Run {
            host: "test CPU".into(),
            when: "2026-11-27T00:00:00Z".into(),
            cfg: Config::QUICK,
            timer: TimerInfo {
                overhead_ns: 0.0,
                resolution_ns: 1.0,
                samples: 1,
            },
            threshold: 0.1,
            warnings: Vec::new(),
            bar: None,
        };
        let of = |samples: &[f64]| {
            let s = modelopt_host::stats::Summary::of(samples).unwrap();
            Value {
                value: s.median,
                benchmark: "read".into(),
                source: "modelopt calibrate: test".into(),
                summary: Some(s),
                samples: s.n,
                r2: None,
            }
        };
        // The case CI met on a VM: R_L median 2.125 ns, R_R median 2.0 ns.
        let local = of(&[2.0, 2.125, 2.125, 2.25]);
        let remote = of(&[1.875, 2.0, 2.0, 2.125]);
        assert_eq!((local.value, remote.value), (2.125, 2.0));
        let written = run.param_at_least(&remote, "line.remote", &local, "line.local");
        assert!(
            written.starts_with("{ value = 2.125, unit = \"ns\""),
            "{written}"
        );
        assert!(
            written.ends_with(", note = \"measured median 2.000 ns, below line.local (2.125 ns): the two are not distinguishable on this host, so line.remote is written as line.local's value (a farther line cannot be cheaper)\" }"),
            "{written}"
        );
        assert!(written.contains("benchmark = \"read\""), "{written}");
        assert_eq!(run.warnings.len(), 1);
        // At or above the nearer class: written as measured, no note, no warning.
        let farther = of(&[20.0, 21.0, 22.0]);
        let written = run.param_at_least(&farther, "line.remote", &local, "line.local");
        assert_eq!(written, run.param(&farther));
        assert!(!written.contains("note"));
        assert_eq!(run.warnings.len(), 1);
        // The written entry loads: the value is ordered, the note is a known field.
        let toml_text = format!(
            "[line]\nremote = {}\n",
            run.param_at_least(&remote, "line.remote", &local, "line.local")
        );
        assert!(toml_text.parse::<toml::Table>().is_ok(), "{toml_text}");
    }

    #[test]
    fn utc_dates_by_hand() {
        // 0 s is the epoch; 1_700_000_000 s = 19675 days + 80000 s → 2023-11-14, 22:13:20.
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(1_700_000_000), "2023-11-14T22:13:20Z");
        // 2000-02-29 (a leap day of a century leap year) = 11016 days → 951_782_400 s.
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn strings_are_toml_escaped() {
        // JSON escapes a quote as \" and a backslash as \\, which TOML basic strings read back.
        assert_eq!(quote("a \"b\" \\ c"), r#""a \"b\" \\ c""#);
    }

    #[test]
    fn a_negative_p_is_refitted_with_p_zero() {
        // T_N = 10·N + 100 + 50/N (p = −50 < 0): the refit T = o·N + q is reported with p = 0.
        let pts: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0]
            .iter()
            .map(|&n| (n, 10.0 * n + 100.0 + 50.0 / n))
            .collect();
        let (o, _q, p, r2, held) = fit_eq_3_1(&pts).unwrap();
        assert_eq!(p, 0.0);
        assert!(o > 0.0);
        assert!(held.p.is_some_and(|p| (p + 50.0).abs() < 1e-6) && held.q.is_none());
        assert!(held.note(r2).unwrap().contains("p = -50.0"));
    }
}
