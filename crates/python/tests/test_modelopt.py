"""The modelopt Python module against the modelopt CLI: same values, same error messages.

Run by scripts/python-test.sh (which builds the wheel into a virtualenv and sets MODELOPT_BIN to
the CLI binary: the one given, or one it builds).
"""

import json
import os
import pathlib
import re
import subprocess
import threading

import pytest

import modelopt

ROOT = pathlib.Path(__file__).resolve().parents[3]
CLI = os.environ.get("MODELOPT_BIN", str(ROOT / "target" / "debug" / "modelopt"))


# The CLI ends some errors with a hint naming its own flag; the library's message (which Python
# raises) is the same text without it.
CLI_HINTS = re.compile(
    r" \((pass --size BYTES|pass --extrapolate|raise it with --budget [^)]*|ask for fewer with --top \d+)\)$"
)


def cli(*args):
    """(returncode, stdout, the one-line error without its `modelopt: error: ` prefix and without
    a trailing hint that names a CLI flag)."""
    done = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)
    error = ""
    for line in done.stderr.splitlines():
        if line.startswith("modelopt: error: "):
            error = CLI_HINTS.sub("", line[len("modelopt: error: "):])
    return done.returncode, done.stdout, error


def cli_json(collective, machine, threads, *extra):
    code, out, error = cli(collective, "-m", machine, "-n", str(threads), "--format", "json", *extra)
    assert code == 0, error
    return json.loads(out)


def test_machine_attributes():
    m = modelopt.Machine.bundled("xeon-phi")
    # The Xeon Phi 5110P of seed 000: 60 cores x 4 hardware threads.
    assert m.name == "xeon-phi"
    assert m.family == "cache-coherent"
    assert m.max_threads == 240
    assert "bcast" in m.collectives
    assert "xeon-phi" in modelopt.bundled_machines()


def test_three_lines_give_the_seed_tree():
    m = modelopt.Machine.bundled("xeon-phi")
    best = modelopt.tune(m, "bcast", threads=60)
    # Seed 000, Table B.1, 60 threads: d = 3, k = (4, 4, 3) (1 + 4 + 16 + 48 = 69 >= 60 threads).
    assert best.algorithm == "small-tree"
    assert best.params == {"depth": 3, "degrees": [4, 4, 3]}
    assert best.t_min_ns <= best.t_max_ns
    assert len(best.alternatives) <= 4  # top=5: the best and at most four more


def test_barrier_dissemination_degree():
    m = modelopt.Machine.bundled("xeon-phi")
    best = modelopt.tune(m, "barrier", threads=60, objective="max", top=1)
    # Seed 000, Table B.2, 60 threads: m = 4, r = 3 (4^2 = 16 < 60 <= 64 = 4^3).
    assert best.params == {"degree": 4, "rounds": 3}
    assert best.alternatives == []


def test_ccnuma_barrier_and_reduce_are_offered():
    m = modelopt.Machine.bundled("sandy-bridge-e5-2660")
    assert {"bcast", "barrier", "reduce"} <= set(m.collectives)
    tree = modelopt.tune(m, "barrier", threads=4, algorithm="cla-tree")
    # The flat tree of 3 children on socket 0: T_min = 2 R_I + (k + 1) R_R = 2*70 + 4*35 = 280 ns
    # (seed 001 §2.1 values; crates/graph/tests/collectives.rs derives the formula).
    assert tree.params["tree"] == "0(1,2,3)"
    assert tree.t_min_ns == 280.0
    # The dissemination barrier of degree 1 wins: two rounds of an add (R_I) and a read (R_R),
    # 2 * (70 + 35) = 210 ns (crates/graph/tests/dissemination.rs).
    best = modelopt.tune(m, "barrier", threads=4)
    assert best.algorithm == "cla-dissemination"
    assert best.params == {"degree": 1, "rounds": 2}
    assert best.t_min_ns == 210.0


@pytest.mark.parametrize("name", modelopt.bundled_machines())
def test_every_bundled_machine_equals_the_cli_json(name):
    m = modelopt.Machine.bundled(name)
    threads = min(8, m.max_threads)
    for collective in m.collectives:
        code, out, error = cli(collective, "-m", name, "-n", str(threads), "--format", "json")
        if code == 0:
            result = modelopt.tune(m, collective, threads=threads)
            assert result.to_dict() == json.loads(out), (name, collective)
            assert result.to_json() == out
            d = result.to_dict()
            assert result.algorithm == d["algorithm"]
            assert result.params == d["params"]
            assert result.t_min_ns == d["t_min_ns"]
            assert result.t_max_ns == d["t_max_ns"]
            assert result.throughput_bytes_per_s == d.get("throughput_bytes_per_s")
            assert result.alternatives == d["alternatives"]
            assert result.algorithms == d.get("algorithms", [])
            assert result.why == d.get("why", [])
            assert result.estimated_params == d.get("estimated_params", [])
        else:
            with pytest.raises(modelopt.ModelOptError) as raised:
                modelopt.tune(m, collective, threads=threads)
            assert str(raised.value) == error


def test_options_equal_the_cli_json():
    m = modelopt.Machine.bundled("xeon-phi")
    expected = cli_json("bcast", "xeon-phi", 60, "--size", "8192", "--state", "I", "--objective", "max", "--top", "3")
    got = modelopt.tune(m, "bcast", threads=60, size=8192, state="I", objective="max", top=3)
    assert got.to_dict() == expected
    expected = cli_json("barrier", "xeon-phi", 60, "--fix", "m=2")
    got = modelopt.tune(m, "barrier", threads=60, fix={"m": 2})
    assert got.to_dict() == expected
    assert got.params["degree"] == 2


def test_rooted_tree_options_equal_the_cli_json():
    # --placement optimal on the chiplet machine: the answer names each thread's L3 domain.
    chiplet = modelopt.Machine.bundled("chiplet-2s-4x8")
    expected = cli_json("bcast", "chiplet-2s-4x8", 5, "--placement", "optimal")
    got = modelopt.tune(chiplet, "bcast", threads=5, placement="optimal")
    assert got.to_dict() == expected
    assert got.params["domain"] == [0, 0, 0, 0, 0]
    # --root, --search on the E5-2660's closed-form broadcast.
    sandy = modelopt.Machine.bundled("sandy-bridge-e5-2660")
    expected = cli_json("bcast", "sandy-bridge-e5-2660", 10, "--algorithm", "cla-tree", "--root", "9", "--search", "exhaustive")
    got = modelopt.tune(sandy, "bcast", threads=10, algorithm="cla-tree", root=9, search="exhaustive")
    assert got.to_dict() == expected
    assert got.params["parent"][9] == -1
    # A budget too small for the exhaustive search is refused with the CLI's message.
    code, _, error = cli("barrier", "-m", "sandy-bridge-e5-2660", "-n", "10", "--search", "exhaustive", "--budget", "10")
    assert code == 2 and error
    with pytest.raises(modelopt.ModelOptError) as raised:
        modelopt.tune(sandy, "barrier", threads=10, search="exhaustive", budget=10)
    assert str(raised.value) == error
    # A time limit stops the search with the best so far, marked not exact.
    stopped = modelopt.tune(sandy, "reduce", threads=16, time_limit=0.05)
    assert stopped.to_dict()["exact"] is False
    # A memory limit, as bytes or as the CLI's text: 48 threads on the four sockets need
    # 9,679,704 bytes of tables at the least (worked out in the CLI test
    # a_memory_limit_is_obeyed_and_a_refusal_says_what_the_tables_need), so 9 MiB answers
    # with the need, as the CLI does.
    four = modelopt.Machine.bundled("xeon-e5-4650-4s")
    expected = cli_json("bcast", "xeon-e5-4650-4s", 48, "--algorithm", "cla-tree", "--memory-limit", "9M")
    assert expected["stopped"] == {"reason": "memory-limit", "limit": 9 << 20, "needed": 9679704}
    for memory in ["9M", 9 << 20]:
        got = modelopt.tune(four, "bcast", threads=48, algorithm="cla-tree", memory_limit=memory)
        assert got.to_dict() == expected
    for bad in [0, -1, "4X", (1 << 20) - 1, 2**64, 1.5]:
        with pytest.raises(modelopt.ModelOptError):
            modelopt.tune(four, "bcast", threads=12, algorithm="cla-tree", memory_limit=bad)


def test_sweep_takes_the_clis_search_options():
    # Free splits over the four sockets at a budget of 100: of 2..=12 threads, neither the one
    # table over the box nor the search by the bounds of the splits (docs/cla.md section 13)
    # gets far enough at any point to prove it; at the default budget all 11 are proven (and
    # at 1000 those of 2..=7 threads, since clip passes are admitted by their work).
    four = modelopt.Machine.bundled("xeon-e5-4650-4s")
    code, out, error = cli(
        "sweep", "-m", "xeon-e5-4650-4s", "-c", "bcast", "-n", "2..=12", "--algorithm", "cla-tree",
        "--placement", "optimal", "--budget", "100", "--format", "json",
    )
    assert code == 0, error
    got = modelopt.sweep(
        four, "bcast", threads=range(2, 13), algorithm="cla-tree", placement="optimal", budget=100
    )
    assert got.to_dicts() == json.loads(out)["rows"]
    assert got.stats["not_exact"] == 11
    default = modelopt.sweep(
        four, "bcast", threads=range(2, 13), algorithm="cla-tree", placement="optimal"
    )
    assert default.stats["not_exact"] == 0
    assert got.stats["stopped"] is None
    # The time limit holds for the whole sweep (63 broadcasts, 3-7 s in release without it,
    # the larger ones ~0.6 s each): it ends early with the rows finished by then.
    import time
    t0 = time.monotonic()
    cut = modelopt.sweep(four, "bcast", threads=range(2, 65), algorithm="cla-tree", time_limit=0.5)
    assert time.monotonic() - t0 < 10
    assert cut.stats["stopped"] is not None
    assert len(cut) <= 63
    # Every unsigned 64-bit budget is taken, as the CLI takes it.
    expected = cli_json("bcast", "xeon-e5-4650-4s", 8, "--budget", str(2**64 - 1))
    assert modelopt.tune(four, "bcast", threads=8, budget=2**64 - 1).to_dict() == expected
    # Bad options: the same one-line messages as tune's.
    for kwargs in [
        {"placement": "nope"},
        {"search": "nope"},
        {"objective": "nope"},
        {"time_limit": 0.0},
        {"time_limit": float("nan")},
        {"budget": -1},
        {"root": -1},
        {"algorithm": "nope"},
    ]:
        with pytest.raises(modelopt.ModelOptError):
            modelopt.sweep(four, "bcast", threads=[4], **kwargs)


def test_machine_from_file_equals_bundled():
    m = modelopt.Machine.from_file(str(ROOT / "machines" / "xeon-phi.toml"))
    assert m.name == "xeon-phi"
    assert modelopt.tune(m, "barrier", threads=60).params == {"degree": 4, "rounds": 3}


def test_sweep_rows():
    m = modelopt.Machine.bundled("xeon-phi")
    table = modelopt.sweep(m, "barrier", threads=range(2, 241))
    rows = table.to_dicts()
    # One barrier algorithm on this machine, 239 thread counts (2..240).
    assert len(table) == len(rows) == 239
    assert [r["threads"] for r in rows] == list(range(2, 241))
    row60 = rows[60 - 2]
    assert (row60["params"], row60["winner"]) == ({"degree": 4, "rounds": 3}, True)
    assert list(table) == rows
    # Beyond the machine: skipped unless extrapolating.
    assert len(modelopt.sweep(m, "barrier", threads=[300])) == 0
    assert len(modelopt.sweep(m, "barrier", threads=[300], extrapolate=True)) == 1


@pytest.mark.parametrize(
    "call, cli_args",
    [
        (lambda m: modelopt.tune(m, "barrier", threads=1), ["barrier", "-m", "xeon-phi", "-n", "1"]),
        (lambda m: modelopt.tune(m, "barrier", threads=100000), ["barrier", "-m", "xeon-phi", "-n", "100000"]),
        (lambda m: modelopt.tune(m, "bcast", threads=60, top=0), ["bcast", "-m", "xeon-phi", "-n", "60", "--top", "0"]),
        (lambda m: modelopt.tune(m, "bcast", threads=60, algorithm="nope"), ["bcast", "-m", "xeon-phi", "-n", "60", "--algorithm", "nope"]),
    ],
)
def test_errors_are_the_clis_message(call, cli_args):
    m = modelopt.Machine.bundled("xeon-phi")
    code, _, error = cli(*cli_args)
    assert code == 2 and error
    with pytest.raises(modelopt.ModelOptError) as raised:
        call(m)
    assert str(raised.value) == error


@pytest.mark.parametrize(
    "call",
    [
        lambda: modelopt.Machine.bundled("no-such-machine"),
        lambda: modelopt.Machine.from_file("/nonexistent/host.toml"),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "scatter", threads=8),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "bcast", threads=-1),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "bcast", threads=2**80),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "bcast", threads="many"),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "bcast", threads=8, size=-5),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "bcast", threads=8, size=2**40),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "bcast", threads=8, state="Q"),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "bcast", threads=8, metric="joules"),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "bcast", threads=8, objective="blend:7"),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "bcast", threads=2**21, extrapolate=True),
        lambda: modelopt.tune(modelopt.Machine.bundled("xeon-phi"), "bcast", threads=8, fix={"k1": "x"}),
        lambda: modelopt.tune(modelopt.Machine.bundled("sandy-bridge-e5-2660"), "bcast", threads=8, placement="anywhere"),
        lambda: modelopt.tune(modelopt.Machine.bundled("sandy-bridge-e5-2660"), "bcast", threads=8, search="magic"),
        lambda: modelopt.tune(modelopt.Machine.bundled("sandy-bridge-e5-2660"), "bcast", threads=8, root=-1),
        lambda: modelopt.tune(modelopt.Machine.bundled("sandy-bridge-e5-2660"), "bcast", threads=8, root=8),
        lambda: modelopt.tune(modelopt.Machine.bundled("sandy-bridge-e5-2660"), "bcast", threads=8, budget=-5),
        lambda: modelopt.tune(modelopt.Machine.bundled("sandy-bridge-e5-2660"), "bcast", threads=8, time_limit=0),
        lambda: modelopt.tune(modelopt.Machine.bundled("sandy-bridge-e5-2660"), "bcast", threads=8, time_limit=float("nan")),
        lambda: modelopt.tune(modelopt.Machine.bundled("sandy-bridge-e5-2660"), "barrier", threads=4, search="dp"),
        lambda: modelopt.sweep(modelopt.Machine.bundled("xeon-phi"), "barrier", threads=range(2, 10**7)),
        lambda: modelopt.sweep(modelopt.Machine.bundled("xeon-phi"), "barrier", threads=[]),
        lambda: modelopt.sweep(modelopt.Machine.bundled("xeon-phi"), "barrier", threads=[1]),
        lambda: modelopt.sweep(modelopt.Machine.bundled("xeon-phi"), "barrier", threads=7),
    ],
)
def test_bad_input_raises_modelopt_error(call):
    with pytest.raises(modelopt.ModelOptError) as raised:
        call()
    message = str(raised.value)
    assert message and "\n" not in message


def test_huge_threads_without_extrapolate_names_the_limit():
    m = modelopt.Machine.bundled("xeon-phi")
    with pytest.raises(modelopt.ModelOptError, match="xeon-phi runs at most 240 threads"):
        modelopt.tune(m, "bcast", threads=5000)


def test_invalid_machine_file_names_the_file(tmp_path):
    path = tmp_path / "host.toml"
    path.write_text("name = 3\n")
    with pytest.raises(modelopt.ModelOptError, match="host.toml"):
        modelopt.Machine.from_file(str(path))


def test_tuning_from_threads_releases_the_gil():
    m = modelopt.Machine.bundled("xeon-phi")
    results = []

    def work():
        results.append(modelopt.tune(m, "bcast", threads=60).to_dict())

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(results) == 4 and all(r == results[0] for r in results)


@pytest.mark.parametrize("collective, threads", [("barrier", "2..=240"), ("bcast", "2..=64")])
def test_sweep_rows_equal_the_cli_sweep_json(collective, threads):
    code, out, error = cli("sweep", "-m", "xeon-phi", "-c", collective, "-n", threads, "--format", "json")
    assert code == 0, error
    lo, hi = (int(t) for t in threads.split("..="))
    got = modelopt.sweep(modelopt.Machine.bundled("xeon-phi"), collective, threads=range(lo, hi + 1))
    assert got.to_dicts() == json.loads(out)["rows"]
