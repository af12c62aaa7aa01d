//! # modelopt-python
//!
//! The `modelopt` Python module: a thin layer over the library's checked job
//! ([`modelopt_optimizer::job`]), so that a Python autotuner gets exactly what the CLI computes.
//!
//! - [`PyMachine`] (`modelopt.Machine`): a loaded machine (bundled name or TOML file);
//! - `modelopt.tune(...)`: builds a [`TuneJob`], runs it with the GIL released, and returns a
//!   [`PyResult_`] (`modelopt.Result`) whose `to_dict()` is the CLI's JSON parsed by Python's
//!   `json` module, so the two cannot drift;
//! - `modelopt.sweep(...)`: [`modelopt_optimizer::job::sweep`] rows as [`PySweep`];
//! - every error is one `modelopt.ModelOptError` whose message is the CLI's one line; a panic in
//!   the library is caught and raised as a `ModelOptError` too, never a crash.
//!
//! Build and test: `scripts/python-test.sh` (maturin + pytest in a virtualenv under `target/`).
#![deny(missing_docs)]

use modelopt_model::{machine, BufferStates, Collective, Machine, Metric};
use modelopt_optimizer::job::{one_line, sweep_with, JobError, TuneJob};
use modelopt_optimizer::limits;
use modelopt_optimizer::search::SearchOptions;
use modelopt_optimizer::sweep::Row;
use modelopt_optimizer::{Objective, Report};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

create_exception!(
    modelopt,
    ModelOptError,
    PyException,
    "Any error of modelopt: bad input (machine, threads, collective, ...) or a failed search. \
     The message is the one line the `modelopt` CLI prints."
);

/// A library error as a Python exception, rendered as the CLI renders it.
fn to_py(error: &JobError) -> PyErr {
    ModelOptError::new_err(one_line(error))
}

/// A loaded machine with the `.cla` tree collectives attached (barrier and reduce on ccNUMA,
/// priced by the graph crate), as the CLI loads it.
fn with_cla_collectives(mut machine: Machine) -> Result<Machine, JobError> {
    modelopt_graph::collectives::attach(&mut machine)
        .map_err(|e| JobError::Invalid(format!("the bundled .cla programs: {e}")))?;
    Ok(machine)
}

/// Run `f` and turn a panic into a `ModelOptError` (no unwinding into the interpreter).
fn guarded<T>(f: impl FnOnce() -> Result<T, JobError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(to_py(&error)),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(ModelOptError::new_err(format!(
                "internal error in modelopt (please report it): {what}"
            )))
        }
    }
}

/// Parse a string parameter with the library's own parser (`FromStr`), naming the parameter.
fn parse<T: std::str::FromStr<Err = String>>(what: &str, text: &str) -> PyResult<T> {
    text.parse()
        .map_err(|e: String| ModelOptError::new_err(format!("{what}: {e}")))
}

/// A Python integer as an `i64`, or a `ModelOptError` naming the parameter.
fn integer(what: &str, value: &Bound<'_, PyAny>) -> PyResult<i64> {
    value.extract::<i64>().map_err(|_| {
        let shown = value
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| "?".into());
        ModelOptError::new_err(format!(
            "{what} {shown}: expected an integer (64-bit at most)"
        ))
    })
}

/// A Python integer as a non-negative value of `T`, or a `ModelOptError` naming the parameter.
/// Every unsigned 64-bit value is taken (the CLI's `--budget 18446744073709551615` too).
fn unsigned<T: TryFrom<u64>>(what: &str, value: &Bound<'_, PyAny>) -> PyResult<T> {
    let out_of_range =
        |v: &dyn std::fmt::Display| ModelOptError::new_err(format!("{what} {v}: out of range"));
    if let Ok(v) = value.extract::<u64>() {
        return T::try_from(v).map_err(|_| out_of_range(&v));
    }
    // Not a u64: a negative integer is out of range, anything else not an integer.
    let v = integer(what, value)?;
    Err(out_of_range(&v))
}

/// A machine model: a bundled machine or a TOML machine file, loaded and validated once.
///
/// Immutable; safe to share between threads.
#[pyclass(frozen, name = "Machine", module = "modelopt")]
pub struct PyMachine {
    machine: Arc<Machine>,
}

#[pymethods]
impl PyMachine {
    /// Load a bundled machine by name (`xeon-phi`, `scc`, ...; `bundled_machines()` lists
    /// them). Never reads the filesystem.
    #[staticmethod]
    fn bundled(name: &str) -> PyResult<PyMachine> {
        let machine = guarded(|| {
            let bare = name.strip_suffix(".toml").unwrap_or(name);
            match modelopt_model::registry::bundled().find(|(n, _)| *n == bare) {
                Some((n, text)) => {
                    with_cla_collectives(machine::from_text(&format!("bundled:{n}"), text)?)
                }
                None => Err(JobError::Invalid(format!(
                    "{name}: unknown bundled machine (bundled: {}; Machine.from_file reads a TOML file)",
                    machine::bundled_names().join(", ")
                ))),
            }
        })?;
        Ok(PyMachine {
            machine: Arc::new(machine),
        })
    }

    /// Load a machine from a TOML file (errors name the file, line, column and key).
    #[staticmethod]
    fn from_file(py: Python<'_>, path: std::path::PathBuf) -> PyResult<PyMachine> {
        let text = path.to_string_lossy().into_owned();
        // The loader reads a name with `/` or `.toml` as a path; make a bare file name one.
        let text = if text.contains('/') {
            text
        } else {
            format!("./{text}")
        };
        Self::load(py, &text)
    }

    /// Short name (`xeon-phi`).
    #[getter]
    fn name(&self) -> &str {
        &self.machine.name
    }

    /// Model family (`cache-coherent`, `ccnuma`, ...).
    #[getter]
    fn family(&self) -> &str {
        &self.machine.family
    }

    /// Largest thread count the hardware runs; beyond it pass `extrapolate=True`.
    #[getter]
    fn max_threads(&self) -> u32 {
        self.machine.max_threads
    }

    /// One-line description.
    #[getter]
    fn description(&self) -> &str {
        &self.machine.description
    }

    /// Where it was read from (a path, or `bundled:NAME`).
    #[getter]
    fn origin(&self) -> &str {
        &self.machine.origin
    }

    /// The collectives this machine models, by name.
    #[getter]
    fn collectives(&self) -> Vec<&'static str> {
        self.machine
            .collectives()
            .into_iter()
            .map(Collective::name)
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Machine(name={:?}, family={:?}, max_threads={})",
            self.machine.name, self.machine.family, self.machine.max_threads
        )
    }
}

impl PyMachine {
    fn load(py: Python<'_>, name: &str) -> PyResult<PyMachine> {
        let machine = py.detach(|| guarded(|| with_cla_collectives(machine::load(name)?)))?;
        Ok(PyMachine {
            machine: Arc::new(machine),
        })
    }
}

/// The result of `modelopt.tune`: the CLI's JSON report as Python objects.
///
/// Every attribute is read from `to_dict()`, the report's JSON (docs/json-schema.md) parsed
/// by Python's `json` module, so it is the CLI's `--format json` output field for field.
#[pyclass(frozen, name = "Result", module = "modelopt")]
pub struct PyResult_ {
    json: String,
    value: Py<PyDict>,
}

impl PyResult_ {
    fn field<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        Ok(self
            .value
            .bind(py)
            .get_item(key)?
            .unwrap_or_else(|| py.None().into_bound(py)))
    }

    fn list<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.value.bind(py).get_item(key)? {
            Some(v) => Ok(v),
            None => Ok(PyList::empty(py).into_any()),
        }
    }
}

#[pymethods]
impl PyResult_ {
    /// The winning algorithm's name.
    #[getter]
    fn algorithm<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "algorithm")
    }

    /// The winning parameters, e.g. `{"depth": 3, "degrees": [4, 4, 3]}`.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "params")
    }

    /// Best-case latency, ns (rounded to 1e-3).
    #[getter]
    fn t_min_ns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "t_min_ns")
    }

    /// Worst-case latency, ns (rounded to 1e-3).
    #[getter]
    fn t_max_ns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "t_max_ns")
    }

    /// Throughput in bytes/s where the model gives one, else `None`.
    #[getter]
    fn throughput_bytes_per_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "throughput_bytes_per_s")
    }

    /// The next best configurations, best first (dicts).
    #[getter]
    fn alternatives<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.list(py, "alternatives")
    }

    /// Every algorithm considered: its best configuration or why it does not apply (dicts).
    #[getter]
    fn algorithms<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.list(py, "algorithms")
    }

    /// The winner's cost terms (dicts with `label`, `min_ns`, `max_ns`).
    #[getter]
    fn why<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.list(py, "why")
    }

    /// The machine parameters marked estimated that the winner's cost depends on.
    #[getter]
    fn estimated_params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.list(py, "estimated_params")
    }

    /// Whether the winner comes from a heuristic search rather than a proven optimum.
    #[getter]
    fn heuristic(&self, py: Python<'_>) -> PyResult<bool> {
        match self.value.bind(py).get_item("heuristic")? {
            Some(v) => v.extract(),
            None => Ok(false),
        }
    }

    /// The report as a dict: the CLI's `--format json`, parsed (a fresh copy each call).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.json)
    }

    /// The report as JSON text, exactly the CLI's `--format json` output.
    fn to_json(&self) -> String {
        self.json.clone()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Result(algorithm={}, params={}, t_min_ns={}, t_max_ns={})",
            self.algorithm(py)?.repr()?,
            self.params(py)?.repr()?,
            self.t_min_ns(py)?.repr()?,
            self.t_max_ns(py)?.repr()?
        ))
    }
}

/// Rows of `modelopt.sweep`: one per algorithm and point, in the sweep's order.
#[pyclass(frozen, name = "Sweep", module = "modelopt")]
pub struct PySweep {
    json: String,
    len: usize,
    /// The sweep's counters as JSON (`SweepStats`).
    stats: String,
}

#[pymethods]
impl PySweep {
    /// The sweep's counters: points, rows, beyond_machine, not_applicable, over_budget,
    /// not_exact (points not proven optimal) and stopped (why the time limit ended it early,
    /// or None).
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.stats)
    }

    /// The rows as a list of dicts (the same fields as `modelopt sweep --format json`).
    fn to_dicts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.json)
    }

    /// The rows as JSON text (an array of objects).
    fn to_json(&self) -> String {
        self.json.clone()
    }

    fn __len__(&self) -> usize {
        self.len
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.to_dicts(py)?.try_iter().map(Bound::into_any)
    }

    fn __repr__(&self) -> String {
        format!("Sweep({} rows)", self.len)
    }
}

/// `json.loads(text)`.
fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// The JSON text of a serializable value, as the CLI writes it.
fn to_json<T: serde::Serialize>(value: &T) -> Result<String, JobError> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| JobError::Invalid(format!("cannot write the result as JSON: {e}")))
}

/// The rooted-tree options and the search's limits of `tune` and `sweep`, as the CLI's
/// `--root`, `--placement`, `--search`, `--budget` and `--time-limit`.
struct TreeOptions<'a, 'py> {
    root: Option<&'a Bound<'py, PyAny>>,
    placement: &'a str,
    search: &'a str,
    budget: Option<&'a Bound<'py, PyAny>>,
    time_limit: Option<f64>,
    memory_limit: Option<&'a Bound<'py, PyAny>>,
}

/// Search options from the Python arguments, each checked as the CLI checks its flag.
fn search_options(
    objective: Objective,
    top: usize,
    tree: TreeOptions<'_, '_>,
) -> PyResult<SearchOptions> {
    let mut options = SearchOptions::new(objective, top);
    options.memory_available = modelopt_host::memory::usable_bytes();
    options.space.root = tree.root.map(|r| unsigned("root", r)).transpose()?;
    options.space.placement = parse("placement", tree.placement)?;
    options.tree_search = parse("search", tree.search)?;
    if let Some(budget) = tree.budget {
        options.limits.work_budget = unsigned("budget", budget)?;
    }
    if let Some(memory) = tree.memory_limit {
        // Bytes as an int, or the CLI's text ("4G"); both checked by the CLI's rule.
        let text = match memory.extract::<String>() {
            Ok(text) => text,
            Err(_) => unsigned::<u64>("memory_limit", memory)?.to_string(),
        };
        options.limits.memory_limit = limits::memory_limit_bytes(&text)
            .and_then(modelopt_host::memory::check_limit)
            .map_err(|e| ModelOptError::new_err(format!("memory_limit: {e}")))?;
    }
    options.limits.time_limit = tree
        .time_limit
        .map(|t| {
            limits::time_limit_seconds(t)
                .map_err(|e| ModelOptError::new_err(format!("time_limit: {e}")))
        })
        .transpose()?;
    Ok(options)
}

/// Tune a collective on a machine: the best configuration, the next best, every algorithm's
/// line and the winner's cost terms — the CLI's `modelopt COLLECTIVE --format json`.
///
/// The GIL is released while the search runs. Raises `ModelOptError` with the CLI's message
/// on bad input (threads below 2 or above the machine without `extrapolate`, an unknown
/// collective, state, metric, objective or algorithm, `top` 0, ...).
#[pyfunction]
#[pyo3(signature = (
    machine, collective, threads, size=None, state="E", metric="latency", objective="min",
    top=None, algorithm=None, fix=None, extrapolate=false, root=None, placement="by-thread-id",
    search="auto", budget=None, time_limit=None, memory_limit=None
))]
#[allow(clippy::too_many_arguments)]
fn tune(
    py: Python<'_>,
    machine: &PyMachine,
    collective: &str,
    threads: &Bound<'_, PyAny>,
    size: Option<&Bound<'_, PyAny>>,
    state: &str,
    metric: &str,
    objective: &str,
    top: Option<&Bound<'_, PyAny>>,
    algorithm: Option<String>,
    fix: Option<&Bound<'_, PyDict>>,
    extrapolate: bool,
    root: Option<&Bound<'_, PyAny>>,
    placement: &str,
    search: &str,
    budget: Option<&Bound<'_, PyAny>>,
    time_limit: Option<f64>,
    memory_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyResult_> {
    let collective: Collective = parse("collective", collective)?;
    let threads = integer("threads", threads)?;
    let size: u64 = size.map_or(Ok(0), |s| unsigned("size", s))?;
    let state: BufferStates = parse("state", state)?;
    let metric: Metric = parse("metric", metric)?;
    let objective: Objective = parse("objective", objective)?;
    let top: usize = top.map_or(Ok(5), |t| unsigned("top", t))?;
    let mut fixed = Vec::new();
    if let Some(fix) = fix {
        for (key, value) in fix.iter() {
            let name: String = key
                .extract()
                .map_err(|_| ModelOptError::new_err("fix: parameter names are strings"))?;
            fixed.push((name.clone(), integer(&format!("fix {name}="), &value)?));
        }
    }
    let mut options = search_options(
        objective,
        top.max(1),
        TreeOptions {
            root,
            placement,
            search,
            budget,
            time_limit,
            memory_limit,
        },
    )?;
    options.fixed = fixed;
    let machine = Arc::clone(&machine.machine);
    let json = py.detach(move || {
        guarded(|| {
            let report: Report = TuneJob::builder(&machine, collective, threads)
                .size(size)
                .state(state)
                .metric(metric)
                .search_options(options)
                .top(top)
                .algorithm(algorithm)
                .extrapolate(extrapolate)
                .build()?
                .run()?;
            to_json(&report)
        })
    })?;
    let value = json_loads(py, &json)?.cast_into::<PyDict>()?.unbind();
    Ok(PyResult_ { json, value })
}

/// Sweep a collective over thread counts × sizes (buffers E, latency, objective min): one row
/// per algorithm and point, `winner` marking the best at each point. Thread counts above the
/// machine's `max_threads` are skipped unless `extrapolate=True`.
///
/// `objective`, `algorithm` (one, or all), `root`, `placement`, `search`, `budget`,
/// `time_limit` and `memory_limit` are `tune`'s; the time limit holds for the whole sweep (rows finished by then
/// stand, and `stats["stopped"]` says why it ended early).
///
/// The GIL is released while the sweep runs. At most 100,000 points per call.
#[pyfunction]
#[pyo3(name = "sweep", signature = (
    machine, collective, threads, sizes=None, extrapolate=false, objective="min",
    algorithm=None, root=None, placement="by-thread-id", search="auto", budget=None,
    time_limit=None, memory_limit=None
))]
#[allow(clippy::too_many_arguments)]
fn sweep_fn(
    py: Python<'_>,
    machine: &PyMachine,
    collective: &str,
    threads: &Bound<'_, PyAny>,
    sizes: Option<&Bound<'_, PyAny>>,
    extrapolate: bool,
    objective: &str,
    algorithm: Option<String>,
    root: Option<&Bound<'_, PyAny>>,
    placement: &str,
    search: &str,
    budget: Option<&Bound<'_, PyAny>>,
    time_limit: Option<f64>,
    memory_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySweep> {
    let collective: Collective = parse("collective", collective)?;
    let objective: Objective = parse("objective", objective)?;
    let limit = modelopt_optimizer::job::MAX_SWEEP_POINTS as usize;
    let threads: Vec<u32> = integers(threads, "threads", limit)?;
    let sizes: Vec<u64> = match sizes {
        Some(s) => integers(s, "sizes", limit)?,
        None => vec![0],
    };
    let options = search_options(
        objective,
        1,
        TreeOptions {
            root,
            placement,
            search,
            budget,
            time_limit,
            memory_limit,
        },
    )?;
    let machine = Arc::clone(&machine.machine);
    let (json, len, stats) = py.detach(move || {
        guarded(|| {
            let (rows, stats): (Vec<Row>, _) = sweep_with(
                &machine,
                collective,
                threads,
                sizes,
                extrapolate,
                algorithm,
                options,
            )?;
            Ok((to_json(&rows)?, rows.len(), to_json(&stats)?))
        })
    })?;
    Ok(PySweep { json, len, stats })
}

/// Non-negative integers from a Python iterable (a `range`, a list, ...), at most `limit`.
fn integers<T: TryFrom<i64>>(
    values: &Bound<'_, PyAny>,
    what: &str,
    limit: usize,
) -> PyResult<Vec<T>> {
    let iter = values
        .try_iter()
        .map_err(|_| ModelOptError::new_err(format!("{what}: expected an iterable of integers")))?;
    let mut out = Vec::new();
    for item in iter {
        if out.len() == limit {
            return Err(ModelOptError::new_err(format!(
                "{what}: more than {limit} values (split the sweep)"
            )));
        }
        let v = integer(what, &item?)?;
        let t = T::try_from(v).map_err(|_| {
            ModelOptError::new_err(format!("{what} {v}: out of range for this parameter"))
        })?;
        out.push(t);
    }
    Ok(out)
}

/// The version of the modelopt library this module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The bundled machine names.
#[pyfunction]
fn bundled_machines() -> Vec<&'static str> {
    machine::bundled_names()
}

/// Optimal collective-communication parameters from analytical models of many-core machines.
#[pymodule]
#[pyo3(name = "modelopt")]
fn modelopt_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ModelOptError", m.py().get_type::<ModelOptError>())?;
    m.add_class::<PyMachine>()?;
    m.add_class::<PyResult_>()?;
    m.add_class::<PySweep>()?;
    m.add_function(wrap_pyfunction!(tune, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_fn, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(bundled_machines, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
