//! `modelopt run COLLECTIVE`: execute the collective the model prices on this host, with real
//! pinned threads, and show the measured latencies next to the predicted T_min and T_max.
//!
//! What runs is the implementation the machine file's model prices ([`Implementation`]): the
//! one-line broadcast; for the reduction the reduction of `models/small-reduce.cla` where the
//! machine models it as `cla-tree` (the ccNUMA files), else seed 000's small reduction; for the
//! barrier the tree barrier of `models/barrier.cla` where the machine models the barrier as
//! `cla-tree` (with `--degree` there, the counting dissemination barrier it also models as
//! `cla-dissemination`), else seed 000's dissemination barrier. Candidates are trees (`--tree`: broadcast, reduction, tree
//! barrier) or degrees (`--degree`: dissemination barrier); naming the other kind is a one-line
//! error that names the right flag. `optimal` is what the optimizer finds for the machine file. Each candidate is run
//! `--iterations` times by [`modelopt_collectives::runner`] (every iteration started on a
//! timestamp interval and checked), priced with the machine's `Algorithm::cost`, and ranked both
//! ways. Candidates that are the same job (on 2 threads every tree is `0(1)`) run once, under all
//! their names. `docs/run.md` describes what is measured and how.
//!
//! **Placement.** Without `--cpus`, a machine file that `modelopt calibrate` measured on this
//! host ([`socket_packages`]: same CPU model, its CPUs online here, as many packages among them
//! as the file has sockets) is followed: thread i runs on a CPU of the host package standing for
//! the model's socket of thread i ([`modelopt_collectives::placement::pin_by_socket`]); if that
//! package has too few usable CPUs the run is refused with one line. Any other file (a bundled
//! one, one from another CPU) runs thread i on the i-th usable CPU, and a one-line warning says
//! the file's sockets are not this host's packages. `--cpus` pins thread i to the i-th listed
//! CPU, whatever the file says. The many-to-one lines of the broadcast, the tree barrier and the
//! reduction of `models/small-reduce.cla` follow the sockets the threads run on.

use crate::args::MachineFlag;
use crate::job::{check_threads, load_machine};
use anyhow::{anyhow, bail, Context};
use clap::{Args, ValueEnum};
use modelopt_collectives::barrier::DisseminationBarrier;
use modelopt_collectives::bcast::OneLineBroadcast;
use modelopt_collectives::cla_dissemination::ClaDisseminationBarrier;
use modelopt_collectives::cla_reduce::ClaTreeReduce;
use modelopt_collectives::coherence::{self, InitialState, LineState, Method};
use modelopt_collectives::placement::{pin_by_socket, Package, PlacementError};
use modelopt_collectives::reduce::SmallTreeReduce;
use modelopt_collectives::runner::{self, allowed_cpus, assign_cpus, select_cpus};
use modelopt_collectives::stats::kendall_tau_b;
use modelopt_collectives::tree_barrier::TreeBarrier;
use modelopt_collectives::{shapes, Job, Shape, Summary};
use modelopt_host::topology::{self as host_topology, Topology as HostTopology};
use modelopt_model::ccnuma::tree::RootedTree;
use modelopt_model::ccnuma::Ccnuma;
use modelopt_model::dissemination::Schedule;
use modelopt_model::{Collective, Machine, Params, Request, SpaceOptions};
use modelopt_optimizer::limits::{Deadline, Limits};
use modelopt_optimizer::tuner::tune_until;
use modelopt_optimizer::{Objective, SearchOptions};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// The collectives `run` and `validate` can execute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunCollective {
    /// The one-line broadcast over a rooted tree (seed 001 Fig. 1).
    Bcast,
    /// A barrier: the tree barrier of models/barrier.cla where the machine models it so
    /// (ccNUMA files), else the dissemination barrier of degree m (seed 000 Fig. 4.3).
    Barrier,
    /// The small reduction up a tree (seed 000 §4.3).
    Reduce,
}

impl RunCollective {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            RunCollective::Bcast => "bcast",
            RunCollective::Barrier => "barrier",
            RunCollective::Reduce => "reduce",
        }
    }

    fn collective(self) -> Collective {
        match self {
            RunCollective::Bcast => Collective::Bcast,
            RunCollective::Barrier => Collective::Barrier,
            RunCollective::Reduce => Collective::Reduce,
        }
    }

    /// The model algorithms that price an implementation `run` has, by family, in order of
    /// preference: `cla-tree` prices the one-line broadcast, the tree barrier and the reduction
    /// of `models/small-reduce.cla` on ccNUMA files, `small-tree` the seed 000 trees,
    /// `dissemination` the dissemination barrier.
    fn algorithm_names(self) -> &'static [&'static str] {
        match self {
            RunCollective::Bcast => &["cla-tree", "small-tree"],
            RunCollective::Barrier => &["dissemination", "cla-tree"],
            RunCollective::Reduce => &["small-tree", "cla-tree"],
        }
    }

    /// The first of [`RunCollective::algorithm_names`] that `machine` offers: the model that
    /// prices what `run` executes, if the machine has one.
    fn model_algorithm(self, machine: &Machine) -> Option<&'static str> {
        let offered: Vec<&'static str> = machine
            .algorithms_for(self.collective())
            .iter()
            .map(|a| a.name())
            .collect();
        self.algorithm_names()
            .iter()
            .copied()
            .find(|n| offered.contains(n))
    }
}

/// The implementation `run` executes for a collective on a machine: the one its model prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Implementation {
    /// [`OneLineBroadcast`] over a tree (`--tree`).
    OneLineBroadcast,
    /// [`DisseminationBarrier`] of degree m (`--degree`): machines whose barrier model is
    /// `dissemination`, and machines with no barrier model the runner has.
    DisseminationBarrier,
    /// [`TreeBarrier`] of `models/barrier.cla` over a tree (`--tree`): machines whose barrier
    /// model is `cla-tree` (the ccNUMA files).
    TreeBarrier,
    /// [`SmallTreeReduce`] over a tree (`--tree`): machines whose reduction model is
    /// `small-tree`, and machines with no reduction model the runner has.
    SmallTreeReduce,
    /// [`ClaTreeReduce`] of `models/small-reduce.cla` over a tree (`--tree`): machines whose
    /// reduction model is `cla-tree` (the ccNUMA files).
    ClaTreeReduce,
    /// [`ClaDisseminationBarrier`] of degree m (`--degree`) on the ccNUMA files, whose model
    /// is `cla-dissemination`: what `run barrier --degree` executes there.
    ClaDisseminationBarrier,
}

impl Implementation {
    /// What `run collective` executes on `machine`.
    pub fn of(collective: RunCollective, machine: &Machine) -> Self {
        match collective {
            RunCollective::Bcast => Implementation::OneLineBroadcast,
            RunCollective::Reduce => match collective.model_algorithm(machine) {
                Some("cla-tree") => Implementation::ClaTreeReduce,
                _ => Implementation::SmallTreeReduce,
            },
            RunCollective::Barrier => match collective.model_algorithm(machine) {
                Some("cla-tree") => Implementation::TreeBarrier,
                _ => Implementation::DisseminationBarrier,
            },
        }
    }

    /// Whether its candidates are trees (`--tree`) rather than degrees (`--degree`).
    fn takes_trees(self) -> bool {
        !matches!(
            self,
            Implementation::DisseminationBarrier | Implementation::ClaDisseminationBarrier
        )
    }

    /// The model algorithm that prices it on `machine`, if the machine has one.
    fn model_algorithm(self, collective: RunCollective, machine: &Machine) -> Option<&'static str> {
        match self {
            Implementation::ClaDisseminationBarrier => machine
                .algorithms_for(Collective::Barrier)
                .iter()
                .any(|a| a.name() == "cla-dissemination")
                .then_some("cla-dissemination"),
            _ => collective.model_algorithm(machine),
        }
    }

    /// Whether it keeps one many-to-one line per (node, socket holding children), laid out for
    /// the sockets the threads run on.
    fn has_socket_lines(self) -> bool {
        matches!(
            self,
            Implementation::OneLineBroadcast
                | Implementation::TreeBarrier
                | Implementation::ClaTreeReduce
        )
    }

    /// The starting state of each kind of line, as the implementation's model assumes and as
    /// this build forces it ([`modelopt_collectives::coherence`]).
    fn initial_states(self) -> Vec<InitialState> {
        match self {
            Implementation::OneLineBroadcast => OneLineBroadcast::initial_states(),
            Implementation::DisseminationBarrier => DisseminationBarrier::initial_states(),
            Implementation::TreeBarrier => TreeBarrier::initial_states(),
            Implementation::SmallTreeReduce => SmallTreeReduce::initial_states(),
            Implementation::ClaTreeReduce => ClaTreeReduce::initial_states(),
            Implementation::ClaDisseminationBarrier => ClaDisseminationBarrier::initial_states(),
        }
    }

    /// The job that runs `tree`.
    fn tree_job(self, tree: RootedTree) -> Job {
        match self {
            Implementation::SmallTreeReduce => Job::Reduce(tree),
            Implementation::TreeBarrier => Job::TreeBarrier(tree),
            Implementation::ClaTreeReduce => Job::ClaTreeReduce(tree),
            _ => Job::Broadcast(tree),
        }
    }
}

/// Output formats of `run` and `validate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunFormat {
    /// A readable table.
    Text,
    /// One JSON object.
    Json,
}

/// Flags of `modelopt run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// The collective to execute.
    #[arg(value_enum)]
    pub collective: RunCollective,
    #[command(flatten)]
    pub machine: MachineFlag,
    /// Threads taking part (at least 2; at most the CPUs this process may use).
    #[arg(long, short = 'n')]
    pub threads: u32,
    /// Trees (bcast, reduce, and barrier on machines that model it as a tree: the ccNUMA files),
    /// comma-separated: optimal, flat, binary, binomial, k-ary:K, levels:K1/K2/..., or an
    /// explicit tree such as 0(1(3),2) [default: optimal,flat,binary,binomial].
    #[arg(long)]
    pub tree: Option<String>,
    /// Dissemination barrier degrees m (barrier on machines that do not model it as a tree),
    /// comma-separated: optimal, all (every m the rounds rule allows), or numbers [default:
    /// optimal,all].
    #[arg(long)]
    pub degree: Option<String>,
    /// Timed, checked iterations per candidate.
    #[arg(long, default_value_t = 1000)]
    pub iterations: u64,
    #[command(flatten)]
    pub host: HostFlags,
    /// Allow more threads than the machine file describes (the model extrapolates).
    #[arg(long)]
    pub extrapolate: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RunFormat::Text)]
    pub format: RunFormat,
}

/// Where and how host runs execute: shared by `run` and `validate`.
#[derive(Debug, Clone, Args)]
pub struct HostFlags {
    /// CPUs to run on, e.g. 0,1 or 0-3,8 (default: every CPU this process may use).
    #[arg(long)]
    pub cpus: Option<String>,
    /// Allow more threads than CPUs (threads share CPUs; latencies then measure the scheduler).
    #[arg(long)]
    pub oversubscribe: bool,
    /// Give up a wait after this many milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Start instant of each iteration this many microseconds after it is announced.
    #[arg(long, default_value_t = 100)]
    pub gap_us: u64,
    /// Stop the optimizer's searches for the `optimal` candidate after this many seconds in
    /// all (the best found so far runs, labelled not proven).
    #[arg(long, value_parser = crate::args::parse_seconds, allow_negative_numbers = true)]
    pub time_limit: Option<Duration>,
    /// Largest search the optimizer starts for the `optimal` candidate without asking (as
    /// the collective commands' --budget).
    #[arg(long, value_parser = crate::args::parse_budget, allow_negative_numbers = true)]
    pub budget: Option<u64>,
    /// Most memory the optimizer's searches for the `optimal` candidate may keep (as the
    /// collective commands' --memory-limit).
    #[arg(long, value_parser = crate::args::parse_memory, allow_negative_numbers = true)]
    pub memory_limit: Option<u64>,
}

impl HostFlags {
    /// The limits of the optimizer's searches.
    pub fn limits(&self) -> Limits {
        crate::job::limits_of(self.time_limit, self.budget, self.memory_limit)
    }
}

/// Run `modelopt run` and return its output.
pub fn run(args: &RunArgs) -> anyhow::Result<String> {
    let machine = load_machine(&args.machine.machine)?;
    let mut setup = Setup::new(
        &machine,
        args.collective,
        args.host.cpus.as_deref(),
        args.host.oversubscribe,
        args.iterations,
        args.host.timeout_ms,
        args.host.gap_us,
    )?
    .with_limits(args.host.limits());
    check_threads(&machine, args.threads, args.extrapolate)?;
    let specs = setup.candidate_specs(args.tree.as_deref(), args.degree.as_deref())?;
    let report = setup.measure(args.threads, &specs)?;
    let out = match args.format {
        RunFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        RunFormat::Text => render_text(&report),
    };
    // After the run, so that a refused run stays a one-line error.
    setup.print_warning();
    Ok(out)
}

/// What is fixed across thread counts: machine, collective, CPUs, placement, runner options.
pub(crate) struct Setup<'m> {
    pub machine: &'m Machine,
    pub collective: RunCollective,
    /// What runs: the implementation the machine's model prices.
    pub implementation: Implementation,
    /// The CPUs threads may use: `--cpus` as given, else every CPU of the affinity mask.
    pub cpus: Vec<usize>,
    pub oversubscribe: bool,
    pub iterations: u64,
    pub timeout: Duration,
    pub gap: Duration,
    pinning: Pinning,
    /// This host's topology, when sysfs can be read: the package of each CPU.
    host: Option<HostTopology>,
    /// One line on how threads are placed (printed in the report).
    placement: String,
    /// One line when the file's placement cannot be followed (printed on stderr after a run).
    pub warning: Option<String>,
    /// The limits of the optimizer's searches for `optimal`, and their deadline (from
    /// [`Setup::with_limits`]): the time limit covers every such search of the command.
    limits: Limits,
    deadline: Deadline,
}

/// How threads are pinned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pinning {
    /// `--cpus`: thread t on the t-th listed CPU.
    Explicit,
    /// The file was calibrated on this host: thread i on a CPU of `packages[socket of i]`.
    BySocket { packages: Vec<Package> },
    /// Thread t on the t-th usable CPU.
    InOrder,
}

/// What a machine file's `[calibration]` table (written by `modelopt calibrate`) says about
/// where it was measured: the CPU model (`/proc/cpuinfo` `model name`) and the CPUs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct CalibrationRecord {
    pub host: String,
    pub cpus: Vec<usize>,
}

#[derive(Deserialize)]
struct RecordOnly {
    calibration: Option<CalibrationRecord>,
}

/// The `[calibration]` record of a machine file's text, if it has one.
pub(crate) fn calibration_record(text: &str) -> Option<CalibrationRecord> {
    toml::from_str::<RecordOnly>(text).ok()?.calibration
}

/// Which host package stands for each of a machine file's sockets: the s-th package, ascending
/// by package id, among the CPUs the file's calibration measured, as `modelopt calibrate`
/// numbers its sockets. `Err` says why the file does not describe this host: no calibration
/// record, another CPU model, a measured CPU not online here, or not as many packages among the
/// measured CPUs as the file has sockets (e.g. this host has fewer packages).
pub(crate) fn socket_packages(
    record: Option<&CalibrationRecord>,
    file_sockets: u32,
    cpu_model: Option<&str>,
    host: Option<&HostTopology>,
) -> Result<Vec<u32>, String> {
    let Some(record) = record else {
        return Err("it has no [calibration] record from `modelopt calibrate`".into());
    };
    let Some(model) = cpu_model else {
        return Err("this host's CPU model cannot be read from /proc/cpuinfo".into());
    };
    if record.host != model {
        return Err(format!(
            "it was calibrated on `{}`, this host is `{model}`",
            record.host
        ));
    }
    let Some(host) = host else {
        return Err("this host's topology cannot be read from sysfs".into());
    };
    let mut ids = BTreeSet::new();
    for &cpu in &record.cpus {
        match host.cpu(cpu) {
            Some(c) => {
                ids.insert(c.package);
            }
            None => return Err(format!("it measured CPU {cpu}, which is not online here")),
        }
    }
    if ids.len() != file_sockets as usize {
        return Err(format!(
            "the CPUs it measured lie in {} package(s) of this host, not its {file_sockets} socket(s)",
            ids.len()
        ));
    }
    Ok(ids.into_iter().collect())
}

/// The usable CPUs of the packages `ids` of `host`, core by core (cores in the topology's
/// order: L3 domain by L3 domain, by lowest CPU number), hardware threads ascending.
pub(crate) fn host_packages(host: &HostTopology, ids: &[u32], usable: &[usize]) -> Vec<Package> {
    let usable: BTreeSet<usize> = usable.iter().copied().collect();
    ids.iter()
        .map(|&id| Package {
            id,
            cores: host
                .sockets
                .iter()
                .filter(|s| s.package == id)
                .flat_map(|s| s.l3_domains.iter().flat_map(|d| d.cores.iter()))
                .map(|c| {
                    c.threads
                        .iter()
                        .copied()
                        .filter(|t| usable.contains(t))
                        .collect::<Vec<_>>()
                })
                .filter(|threads| !threads.is_empty())
                .collect(),
        })
        .collect()
}

/// How to pin, one line describing it, and a warning when the file's placement is not followed.
pub(crate) fn plan_pinning(
    explicit: bool,
    file_sockets: Option<u32>,
    record: Option<&CalibrationRecord>,
    cpu_model: Option<&str>,
    host: Option<&HostTopology>,
    usable: &[usize],
    machine: &str,
) -> (Pinning, String, Option<String>) {
    if explicit {
        return (
            Pinning::Explicit,
            "--cpus as given: thread i on the i-th listed CPU".into(),
            None,
        );
    }
    let Some(sockets) = file_sockets else {
        return (
            Pinning::InOrder,
            format!("thread i on the i-th usable CPU ({machine} has no socket placement)"),
            None,
        );
    };
    match (socket_packages(record, sockets, cpu_model, host), host) {
        (Ok(ids), Some(host)) => {
            let map: Vec<String> = ids
                .iter()
                .enumerate()
                .map(|(s, id)| format!("socket {s} = package {id}"))
                .collect();
            (
                Pinning::BySocket {
                    packages: host_packages(host, &ids, usable),
                },
                format!(
                    "thread i on a CPU of the host package of its socket in {machine}, calibrated on this host ({})",
                    map.join(", ")
                ),
                None,
            )
        }
        (found, _) => {
            let why = found
                .err()
                .unwrap_or_else(|| "this host's topology cannot be read from sysfs".into());
            let packages =
                host.map_or_else(|| "unknown".to_string(), |h| h.sockets.len().to_string());
            (
                Pinning::InOrder,
                format!("thread i on the i-th usable CPU ({machine} does not describe this host)"),
                Some(format!(
                    "{machine} does not describe this host ({why}): its {sockets} socket(s) are not mapped to this host's {packages} package(s), so thread i runs on the i-th usable CPU; pass --cpus to choose"
                )),
            )
        }
    }
}

impl<'m> Setup<'m> {
    pub fn new(
        machine: &'m Machine,
        collective: RunCollective,
        cpus: Option<&str>,
        oversubscribe: bool,
        iterations: u64,
        timeout_ms: u64,
        gap_us: u64,
    ) -> anyhow::Result<Self> {
        if iterations == 0 {
            bail!("--iterations 0: at least one iteration is needed");
        }
        if timeout_ms == 0 {
            bail!("--timeout-ms 0: a wait needs some time");
        }
        let allowed = allowed_cpus()?;
        let requested = cpus.map(parse_cpu_list).transpose()?;
        let cpus = select_cpus(requested.as_deref(), &allowed).context("--cpus")?;
        let host = host_topology::discover().ok();
        let info = host_topology::host_info_at(Path::new("/"));
        let record = calibration_record(machine.text());
        let file_sockets = machine.model::<Ccnuma>().map(|m| m.topology.sockets);
        let (pinning, placement, warning) = plan_pinning(
            requested.is_some(),
            file_sockets,
            record.as_ref(),
            info.cpu_model.as_deref(),
            host.as_ref(),
            &cpus,
            &machine.name,
        );
        Ok(Setup {
            machine,
            collective,
            implementation: Implementation::of(collective, machine),
            cpus,
            oversubscribe,
            iterations,
            timeout: Duration::from_millis(timeout_ms),
            gap: Duration::from_micros(gap_us),
            pinning,
            host,
            placement,
            warning,
            limits: Limits::default(),
            deadline: Deadline::never(),
        })
    }

    /// The optimizer's limits for `optimal` (`--budget`, `--time-limit`); the time limit
    /// starts now.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.deadline = limits.deadline();
        self.limits = limits;
        self
    }

    /// Print the placement warning, if any, as one line on stderr.
    pub fn print_warning(&self) {
        if let Some(w) = &self.warning {
            eprintln!("modelopt: warning: {w}");
        }
    }

    /// The CPU of every thread and the socket each thread's lines are laid out for.
    /// On a machine with `topology.sync_line = "domain"`, the L3 domain of each thread's CPU for
    /// the runner's many-to-one lines (package and last-level cache, ranked; a CPU the host does
    /// not describe counts as its socket). `None` otherwise, or when the host is unknown: the
    /// lines then follow the sockets.
    fn l3_domains(&self, cpus: &[usize], sockets: &[u32]) -> Option<Vec<u32>> {
        let by_domain = self
            .machine
            .model::<Ccnuma>()
            .is_some_and(|m| m.topology.sync_line == modelopt_model::ccnuma::SyncLine::Domain);
        let host = self.host.as_ref().filter(|_| by_domain)?;
        let keys: Vec<(u32, usize)> = cpus
            .iter()
            .zip(sockets)
            .map(|(&c, &s)| match host.cpu(c) {
                Some(cpu) => (
                    cpu.package,
                    cpu.llc
                        .as_ref()
                        .and_then(|l| l.iter().min().copied())
                        .unwrap_or(c),
                ),
                None => (s, usize::MAX),
            })
            .collect();
        Some(rank_labels(&keys))
    }

    fn place(&self, threads: u32, model: &Model<'_>) -> anyhow::Result<(Vec<usize>, Vec<u32>)> {
        if let Pinning::BySocket { packages } = &self.pinning {
            let sockets = model
                .sockets
                .clone()
                .unwrap_or_else(|| vec![0; threads as usize]);
            let cpus = pin_by_socket(&sockets, packages, self.oversubscribe).map_err(|e| {
                let hint = match e {
                    PlacementError::PackageFull { .. } if !self.oversubscribe => {
                        "; pass --oversubscribe to share its CPUs, or --cpus to pin elsewhere"
                    }
                    _ => "; pass --cpus to pin elsewhere",
                };
                anyhow!(
                    "--threads {threads}: {e} ({} was calibrated on this host, so its placement is followed){hint}",
                    self.machine.name
                )
            })?;
            return Ok((cpus, sockets));
        }
        let cpus = assign_cpus(threads, &self.cpus, self.oversubscribe).map_err(|e| match e {
            runner::RunError::TooManyThreads { .. } => {
                anyhow!("--threads {threads}: {e}; pass --oversubscribe to run anyway")
            }
            _ => anyhow!("--threads {threads}: {e}"),
        })?;
        // The sockets the threads really run on: their CPUs' packages.
        let sockets = cpus
            .iter()
            .map(|&c| {
                self.host
                    .as_ref()
                    .and_then(|h| h.cpu(c))
                    .map_or(0, |cpu| cpu.package)
            })
            .collect();
        Ok((cpus, sockets))
    }

    /// The candidates `--tree` and `--degree` name (`None`: the flag was not given), for what
    /// runs on this machine: trees for the broadcast, the reduction and the tree barrier,
    /// degrees for the dissemination barriers. On a ccNUMA file, `run barrier --degree` runs
    /// the dissemination barrier the file also models (`cla-dissemination`) instead of the
    /// tree barrier. A flag of the kind nothing here runs is refused in one line naming the
    /// right one.
    pub fn candidate_specs(
        &mut self,
        trees: Option<&str>,
        degrees: Option<&str>,
    ) -> anyhow::Result<CandidateSpecs> {
        let name = &self.machine.name;
        if self.implementation == Implementation::TreeBarrier && degrees.is_some() {
            if trees.is_some() {
                bail!(
                    "--tree and --degree: {name} models two barriers, the tree barrier (`cla-tree`, --tree) and the dissemination barrier (`cla-dissemination`, --degree); `run barrier` runs one of them: name one flag"
                );
            }
            if Implementation::ClaDisseminationBarrier
                .model_algorithm(self.collective, self.machine)
                .is_some()
            {
                self.implementation = Implementation::ClaDisseminationBarrier;
            }
        }
        match (self.implementation, trees, degrees) {
            (Implementation::TreeBarrier, _, Some(_)) => bail!(
                "--degree: {name} models the barrier as a tree (`cla-tree`, models/barrier.cla), so `run barrier` executes the tree barrier: name trees with --tree"
            ),
            (Implementation::DisseminationBarrier, Some(_), _) => bail!(
                "--tree: {name} has no tree model of the barrier, so `run barrier` executes the dissemination barrier: name degrees with --degree"
            ),
            (i, _, Some(_)) if i.takes_trees() => bail!(
                "--degree: `run {}` runs trees: name them with --tree (--degree is for the dissemination barrier)",
                self.collective.name()
            ),
            _ => {}
        }
        CandidateSpecs::parse(
            self.implementation,
            trees.unwrap_or(DEFAULT_TREES),
            degrees.unwrap_or(DEFAULT_DEGREES),
        )
    }

    /// Resolve, run and price every candidate on `threads` threads.
    /// How many thread counts of `lo..=hi` ask the optimizer (`optimal` among the candidates)
    /// a question whose exact search is over the work budget: each such count searches until
    /// the budget is spent (up to ~10 s) before its measurement. Said before `validate`
    /// starts ([`modelopt_optimizer::search::runs_to_budget`], the searches' own estimates).
    pub fn optimal_over_budget(&self, lo: u32, hi: u32, specs: &CandidateSpecs) -> u64 {
        let asks = match specs {
            CandidateSpecs::Trees(shapes) => shapes.contains(&Shape::Optimal),
            CandidateSpecs::Degrees(degrees) => degrees.contains(&DegreeSpec::Optimal),
        };
        let Some(name) = self
            .implementation
            .model_algorithm(self.collective, self.machine)
            .filter(|_| asks)
        else {
            return 0;
        };
        let algorithms = self.machine.algorithms_for(self.collective.collective());
        let Some(algorithm) = algorithms.iter().find(|a| a.name() == name) else {
            return 0;
        };
        let options = SearchOptions {
            limits: self.limits,
            ..SearchOptions::new(Objective::Min, 1)
        };
        (lo..=hi)
            .filter(|&n| {
                Request::new(self.collective.collective(), n).is_ok_and(|request| {
                    modelopt_optimizer::search::runs_to_budget(
                        algorithm.as_ref(),
                        &request,
                        &options,
                    )
                })
            })
            .count() as u64
    }

    pub fn measure(&self, threads: u32, specs: &CandidateSpecs) -> anyhow::Result<RunReport> {
        let model = Model::new(self.machine, self.collective, self.implementation, threads)?;
        let (assigned, sockets) = self.place(threads, &model)?;
        let search = Search {
            limits: self.limits,
            deadline: self.deadline,
        };
        let candidates = resolve(self.implementation, threads, specs, &model, &search)?;
        let mut rows = Vec::with_capacity(candidates.len());
        // The lines the threads really share: one per socket, or with `sync_line = "domain"`
        // one per L3 domain of the CPUs they run on.
        let domains = self.l3_domains(&assigned, &sockets);
        let groups = domains.clone().unwrap_or_else(|| sockets.clone());
        for c in candidates {
            let mut options = runner::RunOptions::new(threads, self.iterations, assigned.clone());
            options.timeout = self.timeout;
            options.gap = self.gap;
            options.sockets = Some(groups.clone());
            let measured = runner::run(&c.job, &options)
                .with_context(|| format!("{} {}", self.collective.name(), c.label))?;
            let summary = measured
                .summary()
                .ok_or_else(|| anyhow!("{}: no sample was measured", c.label))?;
            let predicted = match &c.params {
                Some(p) => model.price(p)?,
                None => None,
            };
            rows.push(CandidateRow {
                label: c.label,
                structure: c.structure,
                params: c.params.as_ref().map(ToString::to_string),
                predicted_min_ns: predicted.map(|p| p.0),
                predicted_max_ns: predicted.map(|p| p.1),
                in_band: predicted.map(|(lo, hi)| lo <= summary.median && summary.median <= hi),
                measured: summary,
                late_iterations: measured.late,
                predicted_rank: None,
                measured_rank: 0,
            });
        }
        rank_rows(&mut rows);
        let priced: Vec<&CandidateRow> = rows
            .iter()
            .filter(|r| r.predicted_min_ns.is_some())
            .collect();
        let tau = kendall_tau_b(
            &priced
                .iter()
                .filter_map(|r| r.predicted_min_ns)
                .collect::<Vec<_>>(),
            &priced.iter().map(|r| r.measured.median).collect::<Vec<_>>(),
        );
        Ok(RunReport {
            collective: self.collective,
            implementation: self.implementation,
            machine: self.machine.name.clone(),
            algorithm: model.algorithm_name(),
            threads,
            shared_cpus: {
                let distinct: BTreeSet<usize> = assigned.iter().copied().collect();
                distinct.len() < assigned.len()
            },
            cpus: assigned,
            placement: self.placement.clone(),
            placement_warning: self.warning.clone(),
            l3_domains: domains,
            sockets,
            initial_states_forced_with: coherence::flush_method(),
            initial_states: self.implementation.initial_states(),
            iterations: self.iterations,
            gap_ns: self.gap.as_nanos() as u64,
            candidates: rows,
            kendall_tau_b: tau,
        })
    }
}

/// `0,1,4-7` → [0, 1, 4, 5, 6, 7].
pub(crate) fn parse_cpu_list(text: &str) -> anyhow::Result<Vec<usize>> {
    let bad = |part: &str| anyhow!("--cpus: `{part}` is not a CPU number or range such as 0-3");
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (
                a.trim().parse::<usize>().map_err(|_| bad(part))?,
                b.trim().parse::<usize>().map_err(|_| bad(part))?,
            ),
            None => {
                let v = part.parse::<usize>().map_err(|_| bad(part))?;
                (v, v)
            }
        };
        if lo > hi || hi - lo > 65_536 {
            return Err(bad(part));
        }
        out.extend(lo..=hi);
        if out.len() > 65_536 {
            bail!("--cpus: more than 65536 CPUs listed");
        }
    }
    if out.is_empty() {
        bail!("--cpus: no CPU given");
    }
    Ok(out)
}

/// Candidates as the user named them, before a thread count is known.
pub(crate) enum CandidateSpecs {
    Trees(Vec<Shape>),
    Degrees(Vec<DegreeSpec>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DegreeSpec {
    Optimal,
    All,
    Degree(u32),
}

/// The trees `run` and `validate` try without `--tree`.
pub(crate) const DEFAULT_TREES: &str = "optimal,flat,binary,binomial";
/// The degrees they try without `--degree`.
pub(crate) const DEFAULT_DEGREES: &str = "optimal,all";

impl CandidateSpecs {
    /// The candidates of `implementation` from the flags' text: `degrees` for the dissemination
    /// barrier, `trees` for every other implementation.
    pub fn parse(
        implementation: Implementation,
        trees: &str,
        degrees: &str,
    ) -> anyhow::Result<Self> {
        Ok(match implementation {
            Implementation::DisseminationBarrier | Implementation::ClaDisseminationBarrier => {
                let mut out = Vec::new();
                for part in degrees.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    out.push(match part {
                        "optimal" => DegreeSpec::Optimal,
                        "all" => DegreeSpec::All,
                        _ => match part.parse::<u32>() {
                            Ok(m) if m >= 1 => DegreeSpec::Degree(m),
                            _ => bail!("--degree: `{part}` is not optimal, all or a degree m ≥ 1"),
                        },
                    });
                }
                if out.is_empty() {
                    bail!("--degree: no degree given");
                }
                CandidateSpecs::Degrees(out)
            }
            _ => {
                let shapes = Shape::parse_list(trees).context("--tree")?;
                if shapes.is_empty() {
                    bail!("--tree: no tree given");
                }
                CandidateSpecs::Trees(shapes)
            }
        })
    }
}

/// Each key's rank among the distinct keys, ascending: equal keys get equal labels and the
/// order of the keys is kept (what the runner's group labels need).
fn rank_labels<K: Ord + Clone>(keys: &[K]) -> Vec<u32> {
    let mut distinct: Vec<K> = keys.to_vec();
    distinct.sort();
    distinct.dedup();
    keys.iter()
        .map(|k| distinct.binary_search(k).map_or(0, |i| i as u32))
        .collect()
}

/// The machine's model of this collective on `threads` threads, if it has one.
pub(crate) struct Model<'m> {
    machine: &'m Machine,
    request: Request,
    algorithm: Option<&'static str>,
    /// Socket of each thread, for the ccNUMA rooted-tree model.
    sockets: Option<Vec<u32>>,
}

impl<'m> Model<'m> {
    fn new(
        machine: &'m Machine,
        collective: RunCollective,
        implementation: Implementation,
        threads: u32,
    ) -> anyhow::Result<Self> {
        let request = Request::new(collective.collective(), threads)?;
        let algorithm = implementation.model_algorithm(collective, machine);
        let sockets = machine
            .model::<Ccnuma>()
            .map(|m| m.topology.sockets_of(threads));
        Ok(Model {
            machine,
            request,
            algorithm,
            sockets,
        })
    }

    fn algorithm_name(&self) -> Option<String> {
        self.algorithm.map(str::to_string)
    }

    /// The model's parameters for a tree (rooted tree for ccNUMA, level degrees for seed 000).
    fn tree_params(&self, parents: &[Option<u32>], level: Option<Vec<u32>>) -> Option<Params> {
        match self.algorithm? {
            "cla-tree" => Some(Params::RootedTree {
                parents: parents.to_vec(),
                sockets: self.sockets.clone()?,
                domains: Vec::new(),
            }),
            "small-tree" => level.map(|degrees| Params::Tree {
                depth: degrees.len() as u32,
                degrees,
            }),
            _ => None,
        }
    }

    /// What the optimizer finds best, with the machine's defaults (objective min).
    /// The optimizer's best and whether it is proven optimal (a search stopped by its budget
    /// or a heuristic is not: the candidate's label says so).
    fn optimal(&self, search: &Search) -> anyhow::Result<(Params, bool)> {
        let Some(name) = self.algorithm else {
            bail!(
                "{} has no model of the {} this command runs, so `optimal` has no meaning: name the candidates",
                self.machine.name,
                self.request.collective()
            );
        };
        let options = SearchOptions {
            space: SpaceOptions::default(),
            limits: search.limits,
            ..SearchOptions::new(Objective::Min, 1)
        };
        let tuning = tune_until(
            self.machine,
            &self.request,
            &options,
            Some(name),
            search.deadline,
        )
        .map_err(|e| {
            anyhow!(
                "optimal {} on {}: {e}",
                self.request.collective(),
                self.machine.name
            )
        })?;
        let best = tuning.best().ok_or_else(|| {
            anyhow!(
                "the optimizer found no {} configuration",
                self.request.collective()
            )
        })?;
        Ok((best.scored.params.clone(), !tuning.heuristic()))
    }

    /// (T_min, T_max) in ns, or `None` without a model.
    fn price(&self, params: &Params) -> anyhow::Result<Option<(f64, f64)>> {
        let Some(name) = self.algorithm else {
            return Ok(None);
        };
        let algorithms = self.machine.algorithms_for(self.request.collective());
        let Some(algorithm) = algorithms.iter().find(|a| a.name() == name) else {
            return Ok(None);
        };
        let cost = algorithm
            .cost(&self.request, params)
            .with_context(|| format!("pricing {params} on {}", self.machine.name))?;
        Ok(Some((cost.min_ns, cost.max_ns)))
    }
}

/// One executable candidate.
struct Candidate {
    label: String,
    /// The tree in nested form, or `m=.. r=..`.
    structure: String,
    job: Job,
    params: Option<Params>,
}

/// A tree as a parent array, with its level degrees when it is one of seed 000's trees.
type TreeShape = (Vec<Option<u32>>, Option<Vec<u32>>);

/// The parent array (and level degrees, for seed 000's trees) of the optimizer's tree.
fn tree_of(found: Params, threads: u32) -> anyhow::Result<TreeShape> {
    Ok(match found {
        Params::RootedTree { parents, .. } => (parents, None),
        Params::Tree { degrees, .. } => (shapes::level_degrees(threads, &degrees)?, Some(degrees)),
        other => bail!("the optimizer answered `{other}`, not a tree"),
    })
}

/// The optimizer's limits for `optimal` and the command's deadline.
struct Search {
    limits: Limits,
    deadline: Deadline,
}

fn resolve(
    implementation: Implementation,
    threads: u32,
    specs: &CandidateSpecs,
    model: &Model<'_>,
    search: &Search,
) -> anyhow::Result<Vec<Candidate>> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut push = |label: String, job: Job, structure: String, params: Option<Params>| match out
        .iter_mut()
        .find(|c| c.job == job)
    {
        Some(same) => {
            same.label = format!("{} = {label}", same.label);
            if same.params.is_none() {
                same.params = params;
            }
        }
        None => out.push(Candidate {
            label,
            structure,
            job,
            params,
        }),
    };
    match specs {
        CandidateSpecs::Trees(shapes_list) => {
            for shape in shapes_list {
                let mut label = shape.to_string();
                let (parents, level) = match shape {
                    Shape::Optimal => match model.optimal(search)? {
                        (found, false) => {
                            // A search stopped by its budget answered: the best found.
                            label = "optimal (best found, not proven)".into();
                            tree_of(found, threads)?
                        }
                        (found, true) => tree_of(found, threads)?,
                    },
                    _ => {
                        let parents = shape
                            .parents(threads)
                            .ok_or_else(|| anyhow!("tree `{shape}` has no parent array"))?
                            .with_context(|| format!("--tree {shape}"))?;
                        (parents, shape.level_degrees(threads))
                    }
                };
                let tree = RootedTree::from_parents(&parents)
                    .with_context(|| format!("--tree {shape}"))?;
                let params = model.tree_params(&parents, level);
                let structure = tree.nested();
                push(label, implementation.tree_job(tree), structure, params);
            }
        }
        CandidateSpecs::Degrees(list) => {
            for spec in list {
                let degrees: Vec<(String, u32)> = match spec {
                    DegreeSpec::Optimal => match model.optimal(search)?.0 {
                        Params::Dissemination { degree, .. } => vec![("optimal".into(), degree)],
                        other => bail!("the optimizer answered `{other}`, not a degree"),
                    },
                    // The counting barrier takes every m of 1..n−1 (its rounds follow);
                    // seed 000's, the degrees its rounds rule allows.
                    DegreeSpec::All
                        if implementation == Implementation::ClaDisseminationBarrier =>
                    {
                        (1..threads).map(|m| (format!("m={m}"), m)).collect()
                    }
                    DegreeSpec::All => paper_degrees(threads)
                        .into_iter()
                        .map(|m| (format!("m={m}"), m))
                        .collect(),
                    DegreeSpec::Degree(m) => vec![(format!("m={m}"), *m)],
                };
                for (label, m) in degrees {
                    if m >= threads {
                        bail!(
                            "--degree {m}: a barrier of {threads} threads takes m between 1 and {}",
                            threads - 1
                        );
                    }
                    let (rounds, job) = if implementation == Implementation::ClaDisseminationBarrier
                    {
                        let schedule =
                            Schedule::new(threads, m).with_context(|| format!("--degree {m}"))?;
                        (schedule.round_count(), Job::ClaDissemination { degree: m })
                    } else {
                        let rounds = DisseminationBarrier::paper_rounds(threads, m);
                        (rounds, Job::Barrier { degree: m, rounds })
                    };
                    let params = model
                        .algorithm
                        .map(|_| Params::Dissemination { degree: m, rounds });
                    push(label, job, format!("m={m} r={rounds}"), params);
                }
            }
        }
    }
    Ok(out)
}

/// The degrees seed 000's rounds rule allows: m = 1 for n = 2, m = 2..n−1 otherwise.
fn paper_degrees(threads: u32) -> Vec<u32> {
    if threads == 2 {
        vec![1]
    } else {
        (2..threads).collect()
    }
}

/// One candidate's prediction and measurement.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CandidateRow {
    /// Names it was asked by (`optimal = flat` when two names are one job).
    pub label: String,
    /// The tree in nested form or `m=.. r=..`.
    pub structure: String,
    /// The model's parameters, as `modelopt bcast` prints them.
    pub params: Option<String>,
    /// T_min, ns.
    pub predicted_min_ns: Option<f64>,
    /// T_max, ns.
    pub predicted_max_ns: Option<f64>,
    /// Whether the measured median lies in [T_min, T_max].
    pub in_band: Option<bool>,
    /// Statistics of the measured latencies, ns.
    pub measured: Summary,
    /// Iterations in which a thread saw the start signal after the start instant.
    pub late_iterations: u64,
    /// 1-based rank by T_min (ties share a rank), among priced candidates.
    pub predicted_rank: Option<usize>,
    /// 1-based rank by measured median (ties share a rank).
    pub measured_rank: usize,
}

/// The output of `modelopt run` for one thread count.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RunReport {
    pub collective: RunCollective,
    /// What ran (`tree-barrier` or `dissemination-barrier` for the barrier).
    pub implementation: Implementation,
    pub machine: String,
    /// The model algorithm that priced the candidates (none: the machine has no model of it).
    pub algorithm: Option<String>,
    pub threads: u32,
    pub cpus: Vec<usize>,
    /// Whether threads share CPUs (`--oversubscribe`): the latencies then measure the scheduler.
    pub shared_cpus: bool,
    /// How threads were placed, one line.
    pub placement: String,
    /// Why the machine file's sockets could not be followed, if they could not.
    pub placement_warning: Option<String>,
    /// The socket of each thread as the collective's lines were laid out (the many-to-one lines
    /// of the broadcast and the tree barrier: one per node and socket holding children).
    pub sockets: Vec<u32>,
    /// With `topology.sync_line = "domain"`: the L3 domain of each thread (ranked) that the
    /// many-to-one lines were laid out by instead, one per node and domain holding children.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l3_domains: Option<Vec<u32>>,
    /// The instructions that forced the initial states (`null`: none could, see
    /// `initial_states[].start`).
    pub initial_states_forced_with: Option<&'static str>,
    /// Per kind of line: the state the model assumes and the state every iteration started in.
    pub initial_states: Vec<InitialState>,
    pub iterations: u64,
    pub gap_ns: u64,
    pub candidates: Vec<CandidateRow>,
    /// Kendall's τ_b between T_min and the measured medians of the priced candidates.
    pub kendall_tau_b: Option<f64>,
}

impl RunReport {
    /// Indices of the priced candidates in predicted order (T_min, then input order).
    pub fn predicted_order(&self) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.candidates.len())
            .filter(|&i| self.candidates[i].predicted_min_ns.is_some())
            .collect();
        idx.sort_by(|&a, &b| {
            let key = |i: usize| self.candidates[i].predicted_min_ns.unwrap_or(f64::INFINITY);
            key(a).total_cmp(&key(b)).then(a.cmp(&b))
        });
        idx
    }

    /// Indices in measured order (median, then p5, then input order).
    pub fn measured_order(&self) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.candidates.len()).collect();
        idx.sort_by(|&a, &b| {
            let (x, y) = (&self.candidates[a].measured, &self.candidates[b].measured);
            x.median
                .total_cmp(&y.median)
                .then(x.p5.total_cmp(&y.p5))
                .then(a.cmp(&b))
        });
        idx
    }
}

fn rank_rows(rows: &mut [CandidateRow]) {
    use modelopt_collectives::stats::competition_ranks;
    let medians: Vec<f64> = rows.iter().map(|r| r.measured.median).collect();
    for (r, rank) in rows.iter_mut().zip(competition_ranks(&medians)) {
        r.measured_rank = rank;
    }
    let priced: Vec<(usize, f64)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.predicted_min_ns.map(|p| (i, p)))
        .collect();
    let ranks = competition_ranks(&priced.iter().map(|p| p.1).collect::<Vec<_>>());
    for ((i, _), rank) in priced.iter().zip(ranks) {
        rows[*i].predicted_rank = Some(rank);
    }
}

/// A latency in ns with one decimal, or `-`.
pub(crate) fn ns(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:.1}"))
}

fn render_text(report: &RunReport) -> String {
    let mut out = String::new();
    let cpus: Vec<String> = report.cpus.iter().map(usize::to_string).collect();
    let what = match report.implementation {
        Implementation::TreeBarrier => "barrier (the tree barrier of models/barrier.cla)",
        Implementation::ClaTreeReduce => "reduce (the reduction of models/small-reduce.cla)",
        Implementation::ClaDisseminationBarrier => {
            "barrier (the dissemination barrier that counts notifications, cla-dissemination)"
        }
        _ => report.collective.name(),
    };
    let _ = writeln!(
        out,
        "run {what} on this host: {} threads on CPUs {}, {} checked iterations per candidate, each started {} µs after it is announced",
        report.threads,
        cpus.join(","),
        report.iterations,
        report.gap_ns / 1000
    );
    let _ = match &report.algorithm {
        Some(a) => writeln!(
            out,
            "prediction: {} `{a}` (T_min..T_max, ns)",
            report.machine
        ),
        None => writeln!(
            out,
            "prediction: none ({} has no model of the {} this command runs)",
            report.machine,
            report.collective.name()
        ),
    };
    let _ = writeln!(out, "placement: {}", report.placement);
    if report.implementation.has_socket_lines() {
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        match &report.l3_domains {
            Some(domains) => {
                let _ = writeln!(
                    out,
                    "sockets of threads 0..{}: {}; their L3 domains (one many-to-one line per node and domain holding children, sync_line = \"domain\"): {}",
                    report.threads.saturating_sub(1),
                    list(&report.sockets),
                    list(domains)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "sockets of threads 0..{} (one many-to-one line per node and socket holding children): {}",
                    report.threads.saturating_sub(1),
                    list(&report.sockets)
                );
            }
        }
    }
    out.push_str(&initial_states_text(
        report.initial_states_forced_with,
        &report.initial_states,
    ));
    out.push('\n');
    out.push_str(&table(report));
    out.push('\n');
    // `<` between candidates ranked apart, `,` between ties (same T_min, or same median and p5).
    let names = |order: Vec<usize>, key: &dyn Fn(usize) -> (f64, f64)| -> String {
        let mut text = String::new();
        for (pos, &i) in order.iter().enumerate() {
            if pos > 0 {
                let tied = key(order[pos - 1]) == key(i);
                text.push_str(if tied { ", " } else { " < " });
            }
            text.push_str(&report.candidates[i].label);
        }
        text
    };
    let by_prediction = |i: usize| (report.candidates[i].predicted_min_ns.unwrap_or(0.0), 0.0);
    let by_measurement = |i: usize| {
        let m = &report.candidates[i].measured;
        (m.median, m.p5)
    };
    let _ = writeln!(
        out,
        "predicted ranking (T_min):  {}",
        or_none(names(report.predicted_order(), &by_prediction))
    );
    let _ = writeln!(
        out,
        "measured ranking (median):  {}",
        names(report.measured_order(), &by_measurement)
    );
    let _ = writeln!(
        out,
        "Kendall tau_b (T_min vs median): {}",
        report.kendall_tau_b.map_or_else(
            || "n/a (fewer than two priced candidates that differ)".to_string(),
            |t| format!("{t:.3}")
        )
    );
    if report.shared_cpus {
        let _ = writeln!(
            out,
            "note: threads share CPUs (--oversubscribe): these latencies measure the scheduler, not the caches"
        );
    }
    let late: u64 = report.candidates.iter().map(|c| c.late_iterations).sum();
    if late > 0 {
        let _ = writeln!(
            out,
            "note: {late} {} started late (a thread saw the start signal after the start instant; raise --gap-us or free the CPUs)",
            if late == 1 { "iteration" } else { "iterations" }
        );
    }
    out
}

/// Where a line in `state` is: `I (in no cache)`, `E in the parent's cache`.
fn state_text(state: LineState, holder: &str) -> String {
    match state {
        LineState::Invalid => "I (in no cache)".into(),
        _ => format!(
            "{} in {}'s cache",
            state.letter(),
            if holder.is_empty() {
                "its owner"
            } else {
                holder
            }
        ),
    }
}

/// The initial-states block of a report: which states were forced, and which could not be.
pub(crate) fn initial_states_text(forced_with: Option<&str>, states: &[InitialState]) -> String {
    let mut out = String::new();
    let _ = match forced_with {
        Some(how) => writeln!(
            out,
            "initial states, forced before every iteration ({how}):"
        ),
        None => writeln!(
            out,
            "initial states NOT forced: this architecture has no cache-flush instruction modelopt uses, so lines start where their owner rewrote them:"
        ),
    };
    for s in states {
        let now = state_text(s.start, s.holder);
        let _ = if s.method == Method::Construction {
            writeln!(out, "  {}: {now}, by construction — {}", s.lines, s.source)
        } else if s.matches_model() {
            writeln!(out, "  {}: {now} — {}", s.lines, s.source)
        } else {
            writeln!(
                out,
                "  {}: {now}, NOT the model's {} — {}",
                s.lines,
                state_text(s.model, s.holder),
                s.source
            )
        };
    }
    out
}

fn or_none(s: String) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s
    }
}

fn table(report: &RunReport) -> String {
    let header = [
        "candidate",
        "structure",
        "T_min",
        "T_max",
        "min",
        "p5",
        "median",
        "p95",
        "in band",
        "rank pred/meas",
        "late",
    ];
    let rows: Vec<Vec<String>> = report
        .candidates
        .iter()
        .map(|c| {
            vec![
                c.label.clone(),
                c.structure.clone(),
                ns(c.predicted_min_ns),
                ns(c.predicted_max_ns),
                ns(Some(c.measured.min)),
                ns(Some(c.measured.p5)),
                ns(Some(c.measured.median)),
                ns(Some(c.measured.p95)),
                c.in_band
                    .map_or("-".into(), |b| if b { "yes" } else { "no" }.into()),
                format!(
                    "{}/{}",
                    c.predicted_rank.map_or("-".into(), |r| r.to_string()),
                    c.measured_rank
                ),
                c.late_iterations.to_string(),
            ]
        })
        .collect();
    render_columns(&header, &rows)
}

/// Left-aligned first two columns, right-aligned numbers.
pub(crate) fn render_columns(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count()).min(crate::job::MAX_COLUMN);
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i < 2 {
                    format!("{c:<w$}", w = width[i])
                } else {
                    format!("{c:>w$}", w = width[i])
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(header.to_vec());
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelopt_host::topology::Cpu;

    /// A synthetic host: `packages` packages (ids from `ids`) of `cores` cores with `smt`
    /// hardware threads each, CPU numbers from `number(package index, core, thread)`.
    fn host(
        ids: &[u32],
        cores: usize,
        smt: usize,
        number: impl Fn(usize, usize, usize) -> usize,
    ) -> HostTopology {
        let mut cpus = Vec::new();
        for (p, &id) in ids.iter().enumerate() {
            for c in 0..cores {
                let siblings: Vec<usize> = {
                    let mut v: Vec<usize> = (0..smt).map(|h| number(p, c, h)).collect();
                    v.sort_unstable();
                    v
                };
                for h in 0..smt {
                    cpus.push(Cpu {
                        id: number(p, c, h),
                        package: id,
                        core_id: c as u32,
                        siblings: siblings.clone(),
                        llc: None,
                        llc_level: None,
                        node: None,
                    });
                }
            }
        }
        cpus.sort_by_key(|c| c.id);
        let all: Vec<usize> = cpus.iter().map(|c| c.id).collect();
        HostTopology {
            cpus,
            sockets: Vec::new(),
            numa_nodes: Vec::new(),
            line_bytes: Some(64),
            present: all.clone(),
        }
        // `restricted_to` builds the socket → L3 → core hierarchy from the CPUs.
        .restricted_to(&all)
    }

    fn record(host: &str, cpus: impl IntoIterator<Item = usize>) -> CalibrationRecord {
        CalibrationRecord {
            host: host.into(),
            cpus: cpus.into_iter().collect(),
        }
    }

    #[test]
    fn sync_groups_are_ranked_package_and_cache_keys() {
        // Threads on CPUs of package 1 (L3 led by CPU 8), package 0 (L3s led by CPUs 0 and 4):
        // ranks in (package, first CPU of the L3) order, equal keys equal labels.
        let keys = [(1u32, 8usize), (0, 4), (0, 0), (0, 4), (1, 8)];
        assert_eq!(rank_labels(&keys), vec![2, 1, 0, 1, 2]);
        assert_eq!(rank_labels::<(u32, usize)>(&[]), Vec::<u32>::new());
    }

    fn model_sockets(sockets: u32, cores: u32, smt: u32, threads: u32) -> Vec<u32> {
        modelopt_model::ccnuma::Topology {
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
    fn calibration_records_are_read_from_machine_text() {
        // The [calibration] table as `modelopt calibrate` writes it, among other tables.
        let text = "name = \"h\"\n[topology]\nsockets = 1\n[calibration]\ntool = \"modelopt\"\nhost = \"Xeon X\"\nmeasured_at = \"2026-01-01T00:00:00Z\"\ncpus = [0, 1]\ntimer_overhead_ns = 20.0\n";
        assert_eq!(calibration_record(text), Some(record("Xeon X", [0, 1])));
        assert_eq!(calibration_record("name = \"h\"\n"), None);
    }

    #[test]
    fn two_packages_of_four_cpus_calibrated_here_are_followed() {
        // 2 packages × 2 cores × 2 threads, Linux numbering: thread h of core c of package p is
        // CPU 4h + 2p + c, so package 0 = {0, 4}, {1, 5} and package 1 = {2, 6}, {3, 7}.
        let h = host(&[0, 1], 2, 2, |p, c, t| 4 * t + 2 * p + c);
        let rec = record("Xeon X", 0..8);
        assert_eq!(
            socket_packages(Some(&rec), 2, Some("Xeon X"), Some(&h)),
            Ok(vec![0, 1])
        );
        let usable: Vec<usize> = (0..8).collect();
        let (pinning, text, warning) = plan_pinning(
            false,
            Some(2),
            Some(&rec),
            Some("Xeon X"),
            Some(&h),
            &usable,
            "my-host",
        );
        assert_eq!(warning, None);
        assert!(
            text.contains("socket 0 = package 0, socket 1 = package 1"),
            "{text}"
        );
        let Pinning::BySocket { packages } = pinning else {
            panic!("expected the file's placement to be followed")
        };
        assert_eq!(packages[0].cores, vec![vec![0, 4], vec![1, 5]]);
        assert_eq!(packages[1].cores, vec![vec![2, 6], vec![3, 7]]);
        // The model (2 sockets × 2 cores × 2 threads) puts 8 threads on sockets
        // 0,0,1,1,0,0,1,1 (one per core first): CPUs 0,1,2,3 then the siblings 4,5,6,7.
        let sockets = model_sockets(2, 2, 2, 8);
        assert_eq!(sockets, vec![0, 0, 1, 1, 0, 0, 1, 1]);
        assert_eq!(
            pin_by_socket(&sockets, &packages, false).unwrap(),
            vec![0, 1, 2, 3, 4, 5, 6, 7]
        );
        // With CPU 1 not usable (affinity), socket 0 has 3 CPUs: 0, 4, 5 in fill order.
        let without_1: Vec<usize> = (0..8).filter(|&c| c != 1).collect();
        let packages = host_packages(&h, &[0, 1], &without_1);
        assert_eq!(packages[0].order(), vec![0, 5, 4]);
        // Packages 0 and 2 (1 offline): socket 1 stands for package 2.
        let h = host(&[0, 2], 2, 1, |p, c, _| 2 * p + c);
        assert_eq!(
            socket_packages(Some(&record("Xeon X", 0..4)), 2, Some("Xeon X"), Some(&h)),
            Ok(vec![0, 2])
        );
    }

    #[test]
    fn one_package_of_two_cpus_cannot_stand_for_two_sockets() {
        // The CI machine: one package, CPUs 0 and 1.
        let h = host(&[0], 2, 1, |_, c, _| c);
        let rec = record("Xeon X", [0, 1]);
        // Calibrated here with one socket: followed.
        assert_eq!(
            socket_packages(Some(&rec), 1, Some("Xeon X"), Some(&h)),
            Ok(vec![0])
        );
        // A file with two sockets whose CPUs lie in one package of this host.
        let why = socket_packages(Some(&rec), 2, Some("Xeon X"), Some(&h)).unwrap_err();
        assert_eq!(
            why,
            "the CPUs it measured lie in 1 package(s) of this host, not its 2 socket(s)"
        );
        let (pinning, _, warning) = plan_pinning(
            false,
            Some(2),
            Some(&rec),
            Some("Xeon X"),
            Some(&h),
            &[0, 1],
            "two-socket",
        );
        assert_eq!(pinning, Pinning::InOrder);
        assert_eq!(
            warning.unwrap(),
            "two-socket does not describe this host (the CPUs it measured lie in 1 package(s) of this host, not its 2 socket(s)): its 2 socket(s) are not mapped to this host's 1 package(s), so thread i runs on the i-th usable CPU; pass --cpus to choose"
        );
        // Another CPU model, no record, a CPU that is not here, an unreadable host.
        assert_eq!(
            socket_packages(Some(&rec), 1, Some("Epyc Y"), Some(&h)).unwrap_err(),
            "it was calibrated on `Xeon X`, this host is `Epyc Y`"
        );
        assert!(socket_packages(None, 1, Some("Xeon X"), Some(&h))
            .unwrap_err()
            .contains("no [calibration] record"));
        assert_eq!(
            socket_packages(Some(&record("Xeon X", [0, 5])), 1, Some("Xeon X"), Some(&h))
                .unwrap_err(),
            "it measured CPU 5, which is not online here"
        );
        assert!(socket_packages(Some(&rec), 1, None, Some(&h)).is_err());
        assert!(socket_packages(Some(&rec), 1, Some("Xeon X"), None).is_err());
        // --cpus wins over everything, without a warning; a file without sockets (the
        // cache-coherent family) is run in CPU order without one either.
        let (pinning, text, warning) = plan_pinning(true, Some(2), None, None, None, &[0, 1], "x");
        assert_eq!((pinning, warning), (Pinning::Explicit, None));
        assert!(text.starts_with("--cpus as given"));
        let (pinning, _, warning) = plan_pinning(false, None, None, None, None, &[0, 1], "phi");
        assert_eq!((pinning, warning), (Pinning::InOrder, None));
    }

    #[test]
    fn two_hundred_cpus_on_eight_packages_are_mapped_package_by_package() {
        // 8 packages × 25 cores, no SMT, CPUs numbered round-robin over the packages
        // (package p, core c → CPU 8c + p). A file calibrated on all 200 CPUs with 8 sockets of
        // 25 cores puts thread i on socket ⌊i/25⌋, core i mod 25 → CPU 8·(i mod 25) + ⌊i/25⌋.
        let h = host(&[0, 1, 2, 3, 4, 5, 6, 7], 25, 1, |p, c, _| 8 * c + p);
        let rec = record("Big", 0..200);
        let ids = socket_packages(Some(&rec), 8, Some("Big"), Some(&h)).unwrap();
        assert_eq!(ids, (0..8).collect::<Vec<u32>>());
        let usable: Vec<usize> = (0..200).collect();
        let packages = host_packages(&h, &ids, &usable);
        let cpus = pin_by_socket(&model_sockets(8, 25, 1, 200), &packages, false).unwrap();
        for (i, &cpu) in cpus.iter().enumerate() {
            assert_eq!(cpu, 8 * (i % 25) + i / 25, "thread {i}");
        }
        // 30 threads: 25 on socket 0 (CPUs 0, 8, ..., 192), then 5 on socket 1 (1, 9, ..., 33).
        let cpus = pin_by_socket(&model_sockets(8, 25, 1, 30), &packages, false).unwrap();
        assert_eq!(cpus[24], 192);
        assert_eq!(&cpus[25..], &[1, 9, 17, 25, 33]);
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0,1").unwrap(), vec![0, 1]);
        assert_eq!(parse_cpu_list("0-3, 8").unwrap(), vec![0, 1, 2, 3, 8]);
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
        assert!(parse_cpu_list("").is_err());
    }

    #[test]
    fn the_barrier_that_runs_is_the_one_the_machine_models() {
        // ccNUMA files model the barrier as models/barrier.cla (`cla-tree`, attached by
        // load_machine): the tree barrier runs. Xeon Phi and the E5-2670 model it as the
        // dissemination barrier; the Cell chip has a barrier model of its own family, which
        // prices neither implementation: the dissemination barrier runs there, unpriced.
        let of = |name: &str, c: RunCollective| {
            Implementation::of(c, &crate::job::load_machine(name).unwrap())
        };
        for name in ["sandy-bridge-e5-2660", "xeon-e5-4650-4s"] {
            assert_eq!(
                of(name, RunCollective::Barrier),
                Implementation::TreeBarrier
            );
        }
        for name in ["xeon-phi", "sandy-bridge-e5-2670", "cell-chip"] {
            assert_eq!(
                of(name, RunCollective::Barrier),
                Implementation::DisseminationBarrier
            );
        }
        let sandy = crate::job::load_machine("sandy-bridge-e5-2660").unwrap();
        assert_eq!(
            RunCollective::Barrier.model_algorithm(&sandy),
            Some("cla-tree")
        );
        // ccNUMA files model the reduction as models/small-reduce.cla (`cla-tree`): its
        // runner runs; Xeon Phi models it as seed 000's small reduction (`small-tree`).
        assert_eq!(
            RunCollective::Reduce.model_algorithm(&sandy),
            Some("cla-tree")
        );
        for name in ["sandy-bridge-e5-2660", "xeon-e5-4650-4s", "chiplet-2s-4x8"] {
            assert_eq!(
                of(name, RunCollective::Reduce),
                Implementation::ClaTreeReduce
            );
        }
        assert!(Implementation::ClaTreeReduce.takes_trees());
        assert!(Implementation::ClaTreeReduce.has_socket_lines());
        assert!(!Implementation::SmallTreeReduce.has_socket_lines());
        assert_eq!(
            of("xeon-phi", RunCollective::Bcast),
            Implementation::OneLineBroadcast
        );
        assert_eq!(
            of("xeon-phi", RunCollective::Reduce),
            Implementation::SmallTreeReduce
        );
        assert!(Implementation::TreeBarrier.takes_trees());
        assert!(!Implementation::DisseminationBarrier.takes_trees());
    }

    #[test]
    fn degree_lists() {
        let dissemination = Implementation::DisseminationBarrier;
        match CandidateSpecs::parse(dissemination, "", "optimal, all,3").unwrap() {
            CandidateSpecs::Degrees(d) => assert_eq!(
                d,
                vec![DegreeSpec::Optimal, DegreeSpec::All, DegreeSpec::Degree(3)]
            ),
            CandidateSpecs::Trees(_) => panic!("degrees expected"),
        }
        assert!(CandidateSpecs::parse(dissemination, "", "0").is_err());
        assert!(CandidateSpecs::parse(Implementation::OneLineBroadcast, "star", "").is_err());
        // The tree barrier takes trees, and ignores the degree text.
        match CandidateSpecs::parse(Implementation::TreeBarrier, "flat,0(1)", "0").unwrap() {
            CandidateSpecs::Trees(t) => assert_eq!(t.len(), 2),
            CandidateSpecs::Degrees(_) => panic!("trees expected"),
        }
        // n = 2: only m = 1 (Table B.2); n = 5: m = 2, 3, 4.
        assert_eq!(paper_degrees(2), vec![1]);
        assert_eq!(paper_degrees(5), vec![2, 3, 4]);
    }
}
