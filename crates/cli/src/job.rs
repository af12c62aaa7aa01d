//! The checked stage of the CLI: raw flags ([`crate::args`]) become a loaded machine, a
//! validated request and search options, once, with one policy for each check. Commands take
//! what this module builds and trust it.

use crate::args::{SearchFlags, TreeFlags};
use modelopt_model::{Machine, SpaceOptions};
use modelopt_optimizer::{Limits, Progress, ProgressSink, SearchOptions};
use std::io::IsTerminal;
use std::sync::Arc;

/// A piece of user text short enough for a one-line error: at most 60 characters, then an
/// ellipsis and the full length.
pub fn clip(s: &str) -> String {
    modelopt_model::error::clip(s)
}

/// The widest a padded text column is made: Rust's formatter refuses widths above 65,535 (a
/// panic), and no reader wants a wider column; longer cells simply overflow it.
pub const MAX_COLUMN: usize = 200;

/// Longest parameter text a text report shows in full (a tree of thousands of threads is
/// hundreds of kilobytes; JSON and CSV keep it whole).
const MAX_PARAMS_TEXT: usize = 160;

/// Parameters for a text report: whole when short, else the first characters, an ellipsis and
/// where the rest is.
pub fn params_text(s: &str) -> String {
    let n = s.chars().count();
    if n <= MAX_PARAMS_TEXT {
        return s.to_string();
    }
    let head: String = s.chars().take(MAX_PARAMS_TEXT - 40).collect();
    format!("{head}… ({n} characters; the whole with --format json or csv)")
}

/// A number for a message: plain when it reads well, scientific far from 1 (never 309 digits).
pub fn compact(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-3..1e7).contains(&a) {
        format!("{v:.3e}")
    } else {
        format!("{v}")
    }
}

/// Load a machine by bundled name or path (the rule is in `modelopt_model::machine`), with the
/// `.cla` tree collectives the graph crate prices attached (barrier and reduce on ccNUMA).
pub fn load_machine(name: &str) -> anyhow::Result<Machine> {
    let mut machine = modelopt_model::machine::load(name)?;
    modelopt_graph::collectives::attach(&mut machine)?;
    Ok(machine)
}

/// The one thread-count policy of every command (and of the Python and C bindings):
/// [`modelopt_optimizer::job::check_threads`].
pub fn check_threads(machine: &Machine, threads: u32, extrapolate: bool) -> anyhow::Result<()> {
    modelopt_optimizer::job::check_threads(machine, threads.into(), extrapolate)
        .map(|_| ())
        .map_err(job_error)
}

/// A library job error as the CLI says it: the library's one line (which names no flag), then
/// the flag that would help where there is one.
pub fn job_error(e: modelopt_optimizer::JobError) -> anyhow::Error {
    use modelopt_optimizer::{JobError, TuneError};
    let hint = match &e {
        JobError::BeyondMachine { .. } => " (pass --extrapolate)".to_string(),
        JobError::Tune {
            error: TuneError::NothingApplies {
                needs_size: true, ..
            },
            ..
        } => " (pass --size BYTES)".to_string(),
        JobError::Tune {
            error: TuneError::Budget { budget, .. },
            ..
        } if budget.estimate == u64::MAX => {
            " (its size does not even fit a 64-bit count, so no budget covers it: ask for fewer threads, or leave --search at auto)".to_string()
        }
        JobError::Tune {
            error: TuneError::Budget { budget, .. },
            ..
        } => format!(
            // A refusal happens before the search starts, whatever the time limit, so the
            // budget must be raised; a time limit then ends the larger search early with the
            // best found by then.
            " (raise it with --budget {}, and add --time-limit SECONDS to stop early with the best found by then)",
            budget.estimate
        ),
        JobError::Tune {
            error: TuneError::Rows { rows, .. },
            ..
        } => format!(
            " (ask for fewer with --top {}, or raise --memory-limit)",
            rows.max_rows
        ),
        _ => String::new(),
    };
    anyhow::anyhow!("{}{hint}", modelopt_optimizer::job::one_line(&e))
}

/// Whether a machine's models depend on initial cache-line states (`--state`): the family
/// registry says.
pub fn has_cache_states(machine: &Machine) -> bool {
    machine.family_entry().cache_states
}

/// Refuse a metric the machine's family does not predict, before any search:
/// [`modelopt_optimizer::job::check_metric`].
pub fn check_metric(machine: &Machine, metric: modelopt_model::Metric) -> anyhow::Result<()> {
    modelopt_optimizer::job::check_metric(machine, metric).map_err(job_error)
}

/// `, buffers E` for machines whose models use cache states, nothing otherwise (output headers).
pub fn buffers_note<'m>(mut machines: impl Iterator<Item = &'m Machine>, state: &str) -> String {
    if machines.any(has_cache_states) {
        format!(", buffers {state}")
    } else {
        String::new()
    }
}

/// Tell the user (on stderr) when a machine's numbers include estimates.
pub fn note_estimates(machine: &Machine) {
    let estimated = machine.estimated_params();
    if !estimated.is_empty() {
        let keys: Vec<&str> = estimated.iter().map(|p| p.key.as_str()).collect();
        eprintln!(
            "note: {} uses estimated parameters (no measurement or source gives them): {} (see `modelopt machines show {}`)",
            machine.name,
            keys.join(", "),
            machine.name
        );
    }
}

/// Says, before a loop of searches starts (a sweep's points, sensitivity's tunings), that it
/// runs fewer of them at once than there are threads: each may take the memory limit, and
/// together they are held to the memory this process may use
/// ([`SearchOptions::searches_at_once`]). Silent when nothing is held back.
pub fn note_searches_at_once(label: &str, options: &SearchOptions) {
    let workers = modelopt_optimizer::parallel::workers();
    let at_once = options.searches_at_once();
    if let (true, Some(available)) = (at_once < workers, options.memory_available) {
        eprintln!(
            "note: {label} runs {at_once} search{} at a time, not {workers} (one a thread): each may take the memory limit of {}, and this process may use {} (lower --memory-limit to run more at once)",
            if at_once == 1 { "" } else { "es" },
            modelopt_optimizer::limits::format_limit(options.limits.memory_limit),
            gib_down(available),
        );
    }
}

/// Bytes in GiB with one decimal, rounded down (memory a process may use: never overstated).
fn gib_down(bytes: u64) -> String {
    let tenths = u128::from(bytes) * 10 / (1u128 << 30);
    format!("{}.{} GiB", tenths / 10, tenths % 10)
}

/// The limits of `--time-limit`, `--budget` and `--memory-limit` (the defaults when not
/// given).
pub fn limits_of(
    time_limit: Option<std::time::Duration>,
    budget: Option<u64>,
    memory_limit: Option<u64>,
) -> Limits {
    let default = Limits::default();
    Limits {
        time_limit,
        work_budget: budget.unwrap_or(default.work_budget),
        memory_limit: memory_limit.unwrap_or(default.memory_limit),
    }
}

impl SearchFlags {
    /// The limits every search of this command obeys.
    pub fn limits(&self) -> Limits {
        limits_of(self.time_limit, self.budget, self.memory_limit)
    }

    /// The search options, built once from the flags: keep `top` configurations per algorithm.
    pub fn options(&self, top: usize, trees: Option<&TreeFlags>) -> SearchOptions {
        SearchOptions {
            objective: self.objective,
            top: top.max(1),
            space: SpaceOptions {
                ordering: self.ordering,
                rounds: self.rounds,
                root: trees.and_then(|t| t.root),
                placement: trees.map(|t| t.placement).unwrap_or_default(),
            },
            tree_search: trees.map(|t| t.tree_search).unwrap_or_default(),
            fixed: self.fix.clone(),
            limits: self.limits(),
            progress: progress(),
            // What the searches of one command share (sweeps run fewer points at once when
            // their memory limits would pass it).
            memory_available: modelopt_host::memory::usable_bytes(),
        }
    }
}

/// A progress bar on stderr, shown only when stderr is a terminal (so pipes and files stay
/// clean); long searches announce themselves in one line either way.
struct Bar(indicatif::ProgressBar);

impl ProgressSink for Bar {
    fn begin(&self, what: &str, total: Option<u64>) {
        if let Some(total) = total {
            self.0.set_length(total);
        }
        self.0.set_position(0);
        self.0.set_message(what.to_string());
    }

    fn advance(&self, units: u64) {
        self.0.inc(units);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// The progress sink of this run: a bar on a terminal, nothing otherwise.
pub fn progress() -> Progress {
    if !std::io::stderr().is_terminal() {
        return Progress::none();
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{bar:40}] {pos}/{len}, {elapsed} (eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    Progress::to(Arc::new(Bar(bar)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_clipped_with_its_length() {
        let tree = "0(".repeat(10_000);
        let c = clip(&tree);
        // 60 kept characters, an ellipsis, and the length of the whole (20,000).
        assert!(c.ends_with("… (20000 characters)"), "{c}");
        assert_eq!(c.chars().take_while(|ch| *ch != '…').count(), 60);
        assert_eq!(clip("0(1,2)"), "0(1,2)");
    }

    #[test]
    fn numbers_are_compact() {
        assert_eq!(compact(f64::MAX), "1.798e308");
        assert_eq!(compact(1e-300), "1.000e-300");
        assert_eq!(compact(2.5), "2.5");
    }
}
