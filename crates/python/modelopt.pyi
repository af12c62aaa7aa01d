"""Optimal collective-communication parameters from analytical models of many-core machines.

A thin layer over the modelopt Rust library: the same checked request and the same result
(the CLI's ``--format json`` report, docs/json-schema.md) as the ``modelopt`` command.
"""

import os
from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

__version__: str

class ModelOptError(Exception):
    """Any error of modelopt; the message is the one line the ``modelopt`` CLI prints."""

class Machine:
    """A machine model, loaded and validated once; immutable and thread-safe."""

    @staticmethod
    def bundled(name: str) -> "Machine":
        """A bundled machine by name (``xeon-phi``, ...; see ``bundled_machines()``)."""
    @staticmethod
    def from_file(path: "str | os.PathLike[str]") -> "Machine":
        """A machine from a TOML file; errors name the file, line, column and key."""
    @property
    def name(self) -> str:
        """Short name (``xeon-phi``)."""
    @property
    def family(self) -> str:
        """Model family (``cache-coherent``, ``ccnuma``, ...)."""
    @property
    def max_threads(self) -> int:
        """Largest thread count the hardware runs; beyond it pass ``extrapolate=True``."""
    @property
    def description(self) -> str:
        """One-line description."""
    @property
    def origin(self) -> str:
        """Where it was read from (a path, or ``bundled:NAME``)."""
    @property
    def collectives(self) -> List[str]:
        """The collectives this machine models (``bcast``, ``barrier``, ...)."""

class Result:
    """The result of ``tune``: the CLI's JSON report as Python objects."""

    @property
    def algorithm(self) -> str:
        """The winning algorithm."""
    @property
    def params(self) -> Dict[str, Any]:
        """The winning parameters, e.g. ``{"depth": 3, "degrees": [4, 4, 3]}``."""
    @property
    def t_min_ns(self) -> float:
        """Best-case latency, ns (rounded to 1e-3)."""
    @property
    def t_max_ns(self) -> float:
        """Worst-case latency, ns (rounded to 1e-3)."""
    @property
    def throughput_bytes_per_s(self) -> Optional[float]:
        """Throughput in bytes/s where the model gives one."""
    @property
    def alternatives(self) -> List[Dict[str, Any]]:
        """The next best configurations, best first."""
    @property
    def algorithms(self) -> List[Dict[str, Any]]:
        """Every algorithm considered: its best configuration or why it does not apply."""
    @property
    def why(self) -> List[Dict[str, Any]]:
        """The winner's cost terms (``label``, ``min_ns``, ``max_ns``)."""
    @property
    def estimated_params(self) -> List[str]:
        """Machine parameters marked estimated that the winner's cost depends on."""
    @property
    def heuristic(self) -> bool:
        """Whether the winner comes from a heuristic search, not a proven optimum."""
    def to_dict(self) -> Dict[str, Any]:
        """The report as a dict, equal to the CLI's ``--format json`` output parsed."""
    def to_json(self) -> str:
        """The report as JSON text, byte for byte the CLI's ``--format json`` output."""

class Sweep:
    """Rows of ``sweep``: one per algorithm and point."""

    def to_dicts(self) -> List[Dict[str, Any]]:
        """The rows as dicts (machine, collective, state, threads, size_bytes, algorithm,
        params, t_min_ns, t_max_ns, [throughput_bytes_per_s], score, winner, exact,
        [gap_percent])."""
    def to_json(self) -> str:
        """The rows as a JSON array."""
    @property
    def stats(self) -> Dict[str, Any]:
        """Counters: points, rows, beyond_machine, not_applicable, over_budget, not_exact
        (points not proven optimal), stopped (why a time limit ended the sweep early, or None)."""
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Dict[str, Any]]: ...

def tune(
    machine: Machine,
    collective: str,
    threads: int,
    size: Optional[int] = None,
    state: str = "E",
    metric: str = "latency",
    objective: str = "min",
    top: Optional[int] = None,
    algorithm: Optional[str] = None,
    fix: Optional[Dict[str, int]] = None,
    extrapolate: bool = False,
    root: Optional[int] = None,
    placement: str = "by-thread-id",
    search: str = "auto",
    budget: Optional[int] = None,
    time_limit: Optional[float] = None,
    memory_limit: Optional[Union[int, str]] = None,
) -> Result:
    """Tune a collective: the CLI's ``modelopt COLLECTIVE -m M -n THREADS --format json``.

    ``size`` in bytes (default 0: one small item); ``top`` ranked configurations, the best
    included (default 5); ``fix`` pins parameters (``{"k": 7}``). Rooted trees (``cla-tree``
    on ccNUMA machines): ``root`` thread, ``placement`` ``"by-thread-id"`` or ``"optimal"``
    (the search chooses how many threads run on each socket, or L3 domain), ``search``
    ``"auto"``, ``"exhaustive"`` or ``"dp"``. Limits: ``budget`` (work units; larger searches
    are refused up front), ``time_limit`` in seconds (the best found by then, not exact) and
    ``memory_limit`` (bytes, or text such as ``"4G"``; default 2 GiB: a search whose tables
    need more answers with its best tree, its gap and what it would need).
    The CLI's ``--root``, ``--placement``, ``--search``, ``--budget``, ``--time-limit``,
    ``--memory-limit``.
    Releases the GIL while searching. Raises ``ModelOptError`` on bad input.
    """

def sweep(
    machine: Machine,
    collective: str,
    threads: Iterable[int],
    sizes: Optional[Iterable[int]] = None,
    extrapolate: bool = False,
    objective: str = "min",
    algorithm: Optional[str] = None,
    root: Optional[int] = None,
    placement: str = "by-thread-id",
    search: str = "auto",
    budget: Optional[int] = None,
    time_limit: Optional[float] = None,
    memory_limit: Optional[Union[int, str]] = None,
) -> Sweep:
    """Sweep thread counts x sizes (default ``[0]``); at most 100,000 points per call. The
    search options are ``tune``'s; ``time_limit`` (seconds) holds for the whole sweep."""

def version() -> str:
    """The modelopt library version."""

def bundled_machines() -> List[str]:
    """The bundled machine names."""
