//! `modelopt run` and `modelopt validate` as a user runs them (issue 9): real executions on 2
//! pinned threads, checked every iteration, printed beside the model's prediction.

use assert_cmd::Command;
use modelopt_collectives::runner::allowed_cpus;

fn modelopt() -> Command {
    Command::cargo_bin("modelopt").unwrap()
}

fn stdout_of(args: &[&str]) -> String {
    let out = modelopt().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A user error: exit code 2, exactly one line on stderr containing `needle`, no panic.
fn fails_with(args: &[&str], needle: &str) {
    let out = modelopt().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: expected `{needle}` in: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    assert_eq!(
        stderr.lines().count(),
        1,
        "{args:?}: not one line: {stderr}"
    );
}

/// Two threads: on two CPUs when there are, else sharing the one there is.
fn two_threads() -> Vec<&'static str> {
    if allowed_cpus().unwrap().len() >= 2 {
        vec!["--threads", "2"]
    } else {
        vec!["--threads", "2", "--oversubscribe"]
    }
}

#[test]
fn run_bcast_two_threads_prints_prediction_beside_measurement() {
    let mut args = vec![
        "run",
        "bcast",
        "--machine",
        "sandy-bridge-e5-2660",
        "--tree",
        "flat,binary",
        "--iterations",
        "200",
    ];
    args.extend(two_threads());
    let text = stdout_of(&args);
    // On 2 threads flat and binary are the same tree 0(1): one job under both names.
    assert!(text.contains("flat = binary  0(1)"), "{text}");
    // Seed 001 Eq. (2) on one socket (docs/cla.md): T_min = R_L + T_lev(1)
    // = R_L + (R_I + R_R) + R_L + (R_I + R_R) = 2.3 + 105 + 2.3 + 105 = 214.6 ns;
    // T_max = R_L + 2·R_I + R_L + 2·R_R + 4·R_R = 2.3 + 140 + 2.3 + 70 + 140 = 354.6 ns.
    assert!(text.contains("214.6"), "{text}");
    assert!(text.contains("354.6"), "{text}");
    for column in ["T_min", "T_max", "min", "p5", "median", "p95", "in band"] {
        assert!(text.contains(column), "missing {column}: {text}");
    }
    assert!(
        text.contains("predicted ranking (T_min):  flat = binary"),
        "{text}"
    );
    assert!(
        text.contains("measured ranking (median):  flat = binary"),
        "{text}"
    );
    assert!(text.contains("200 checked iterations"), "{text}");
    // Issue 9: the report says which initial states were forced (x86_64: clflush), and that
    // the data and many-to-one lines start where the model prices them: in no cache (R_I).
    if cfg!(target_arch = "x86_64") {
        assert!(
            text.contains("initial states, forced before every iteration (clflush + mfence):"),
            "{text}"
        );
        assert!(
            text.contains(
                "many-to-one line of every (node, socket holding children): I (in no cache)"
            ),
            "{text}"
        );
    } else {
        assert!(text.contains("initial states NOT forced"), "{text}");
        assert!(text.contains("NOT the model's I (in no cache)"), "{text}");
    }
    assert!(text.contains("placement: "), "{text}");
}

#[test]
fn run_json_has_every_statistic_in_order() {
    let mut args = vec![
        "run",
        "barrier",
        "--machine",
        "xeon-phi",
        "--iterations",
        "200",
        "--format",
        "json",
    ];
    args.extend(two_threads());
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&args)).unwrap();
    // xeon-phi models the barrier as the dissemination barrier, which is what runs.
    assert_eq!(v["implementation"], "dissemination-barrier");
    // n = 2: only m = 1, r = 1 (Table B.2), which is also the optimum: one job.
    let c = &v["candidates"].as_array().unwrap()[..];
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["label"], "optimal = m=1");
    assert_eq!(c[0]["structure"], "m=1 r=1");
    // Eq. (4.11): r(R_L + m·R_R + R_R) = 8.6 + 235.8 + 235.8 = 480.2 ns;
    // Eq. (4.12): r(R_R + 4m·R_R + (2m+1)·R_R) = 8·235.8 = 1886.4 ns.
    assert!((c[0]["predicted_min_ns"].as_f64().unwrap() - 480.2).abs() < 1e-9);
    assert!((c[0]["predicted_max_ns"].as_f64().unwrap() - 1886.4).abs() < 1e-9);
    let m = &c[0]["measured"];
    assert_eq!(m["count"], 200);
    let get = |k: &str| m[k].as_f64().unwrap();
    assert!(get("min") > 0.0);
    assert!(get("min") <= get("p5") && get("p5") <= get("median") && get("median") <= get("p95"));
    assert_eq!(v["kendall_tau_b"], serde_json::Value::Null);
    // The barrier's lines: Exclusive in their owner's cache (seed 000 §4.2, §4.4).
    let states = v["initial_states"].as_array().unwrap();
    assert_eq!(states.len(), 1);
    assert_eq!(states[0]["model"], "E");
    let forced = cfg!(target_arch = "x86_64");
    assert_eq!(states[0]["start"], if forced { "E" } else { "M" });
    assert_eq!(v["initial_states_forced_with"].is_null(), !forced);
}

#[test]
fn run_reduce_and_unpriced_candidates() {
    // The Cell chip's barrier model is its own family's, not the dissemination barrier `run`
    // executes: the barrier runs, the prediction is "-".
    let mut args = vec![
        "run",
        "barrier",
        "--machine",
        "cell-chip",
        "--degree",
        "1",
        "--iterations",
        "50",
    ];
    args.extend(two_threads());
    let text = stdout_of(&args);
    assert!(
        text.contains("prediction: none (cell-chip has no model of the barrier this command runs)"),
        "{text}"
    );
    // KSR-1 has no model of either reduction `run` has (seed 000's `small-tree`,
    // models/small-reduce.cla's `cla-tree`): seed 000's reduction runs, unpriced.
    let mut args = vec![
        "run",
        "reduce",
        "--machine",
        "ksr1",
        "--tree",
        "flat",
        "--iterations",
        "20",
    ];
    args.extend(two_threads());
    let text = stdout_of(&args);
    assert!(
        text.starts_with("run reduce on this host:")
            && text
                .contains("prediction: none (ksr1 has no model of the reduce this command runs)"),
        "{text}"
    );
    let mut args = vec![
        "run",
        "reduce",
        "--machine",
        "xeon-phi",
        "--tree",
        "optimal,binomial",
        "--iterations",
        "50",
    ];
    args.extend(two_threads());
    let text = stdout_of(&args);
    assert!(text.contains("optimal = binomial  0(1)"), "{text}");
}

#[test]
fn run_reduce_on_a_ccnuma_machine_runs_the_reduction_it_recommends() {
    // The E5-2660 models the reduction as models/small-reduce.cla (`cla-tree`), so `run reduce`
    // executes that program over the default trees. On 2 threads every tree is 0(1), the
    // optimum included: one job under four names.
    let text = stdout_of(&[
        "run",
        "reduce",
        "--machine",
        "sandy-bridge-e5-2660",
        "--threads",
        "2",
        "--oversubscribe",
        "--iterations",
        "50",
    ]);
    assert!(
        text.starts_with("run reduce (the reduction of models/small-reduce.cla) on this host:"),
        "{text}"
    );
    assert!(
        text.contains("prediction: sandy-bridge-e5-2660 `cla-tree` (T_min..T_max, ns)"),
        "{text}"
    );
    assert!(
        text.contains("optimal = flat = binary = binomial  0(1)"),
        "{text}"
    );
    // models/small-reduce.cla on 0(1), both threads on socket 0 (R_I = 70, R_R = 35, R_L = 2.3
    // ns, seed 001 §2.1), docs/cla.md §12 (crates/graph/tests/collectives.rs derives it):
    // T_min = the root's write of ready[0] from memory (R_I) + the child's read of it (R_R)
    // + the child's copy val[1] → slot[0,0] (R_L + R_I) + its add to ack[0,0] from memory
    // (R_I) + the root's read of it (R_R) + the root's copy slot[0,*] → val[0] (R_R + R_L)
    // = 70 + 35 + 72.3 + 70 + 35 + 37.3 = 319.6 ns.
    assert!(text.contains("  319.6  "), "{text}");
    assert!(text.contains("50 checked iterations"), "{text}");
    assert!(
        text.contains(
            "sockets of threads 0..1 (one many-to-one line per node and socket holding children): "
        ),
        "{text}"
    );
    if cfg!(target_arch = "x86_64") {
        assert!(
            text.contains("slot line of every child, in its parent's buffers: I (in no cache)"),
            "{text}"
        );
        assert!(
            text.contains("ready flag of every node with children: I (in no cache)"),
            "{text}"
        );
    }
    // JSON: the implementation names the program, and the candidate is priced at 319.6 ns with
    // T_max ≥ T_min; four threads sharing the CPUs run named trees, all priced and checked.
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "run",
        "reduce",
        "--machine",
        "sandy-bridge-e5-2660",
        "--threads",
        "4",
        "--oversubscribe",
        "--tree",
        "flat,binary,2(0,1(3))",
        "--iterations",
        "30",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(v["implementation"], "cla-tree-reduce");
    assert_eq!(v["algorithm"], "cla-tree");
    let c = v["candidates"].as_array().unwrap();
    assert_eq!(c.len(), 3);
    assert_eq!(c[0]["structure"], "0(1,2,3)");
    assert_eq!(c[1]["structure"], "0(1(3),2)");
    assert_eq!(c[2]["structure"], "2(0,1(3))");
    for row in c {
        let (lo, hi) = (
            row["predicted_min_ns"].as_f64().unwrap(),
            row["predicted_max_ns"].as_f64().unwrap(),
        );
        assert!(lo > 0.0 && lo <= hi, "{row}");
        assert_eq!(row["measured"]["count"], 30);
    }

    // `validate` goes through the same path.
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "validate",
        "--machine",
        "sandy-bridge-e5-2660",
        "--collective",
        "reduce",
        "--threads",
        "2..=2",
        "--oversubscribe",
        "--iterations",
        "30",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(v["summary"]["priced"], 1);
    let run = &v["runs"][0];
    assert_eq!(run["implementation"], "cla-tree-reduce");
    assert!((run["candidates"][0]["predicted_min_ns"].as_f64().unwrap() - 319.6).abs() < 1e-9);
}

#[test]
fn run_barrier_with_degrees_on_a_ccnuma_machine_runs_the_counting_dissemination_barrier() {
    // The E5-2660 also models the barrier as `cla-dissemination` (docs/cla.md §12), which
    // `modelopt barrier` recommends on one socket; `--degree` runs that program. On 2 threads
    // m = 1, one round: the add fetches the owner's fresh counter (R_I = 70), the owner reads it
    // back (R_R = 35): T_min = 105 ns; T_max: the owner polled first (R_I), the add steals the
    // line (R_R), the owner re-reads it (R_R): 140 ns (crates/graph/tests/dissemination.rs).
    let mut args = vec![
        "run",
        "barrier",
        "--machine",
        "sandy-bridge-e5-2660",
        "--degree",
        "optimal,all",
        "--iterations",
        "50",
        "--format",
        "json",
    ];
    args.extend(two_threads());
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&args)).unwrap();
    assert_eq!(v["implementation"], "cla-dissemination-barrier", "{v}");
    assert_eq!(v["algorithm"], "cla-dissemination", "{v}");
    let candidates = v["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 1, "optimal = m=1: one job, {v}");
    assert_eq!(candidates[0]["label"], "optimal = m=1", "{v}");
    assert_eq!(candidates[0]["structure"], "m=1 r=1", "{v}");
    assert_eq!(candidates[0]["predicted_min_ns"].as_f64(), Some(105.0));
    assert_eq!(candidates[0]["predicted_max_ns"].as_f64(), Some(140.0));
    // Four threads sharing the CPUs, every degree: 1..=3, with the rounds the program needs
    // (⌈log_2 4⌉ = 2, ⌈log_3 4⌉ = 2, ⌈log_4 4⌉ = 1), each checked every iteration; m = 1 costs
    // two rounds of R_I + R_R (210 ns), m = 2 and m = 3 both 3·R_I + 3·R_R (315 ns).
    let text = stdout_of(&[
        "run",
        "barrier",
        "--machine",
        "sandy-bridge-e5-2660",
        "--threads",
        "4",
        "--oversubscribe",
        "--degree",
        "all",
        "--iterations",
        "30",
    ]);
    assert!(
        text.starts_with(
            "run barrier (the dissemination barrier that counts notifications, cla-dissemination) on this host:"
        ),
        "{text}"
    );
    for row in [
        "m=1        m=1 r=2    210.0  280.0",
        "m=2        m=2 r=2    315.0  420.0",
        "m=3        m=3 r=1    315.0  420.0",
    ] {
        assert!(text.contains(row), "{row}\n{text}");
    }
    if cfg!(target_arch = "x86_64") {
        assert!(
            text.contains("round counter of every (thread, round): I (in no cache)"),
            "{text}"
        );
    }
}

#[test]
fn run_barrier_on_a_ccnuma_machine_runs_the_tree_barrier_it_recommends() {
    // The E5-2660 models the barrier as models/barrier.cla (`cla-tree`), so `run barrier`
    // executes that tree barrier over the default trees. On 2 threads every tree is 0(1), the
    // optimum included: one job under four names.
    let mut args = vec![
        "run",
        "barrier",
        "--machine",
        "sandy-bridge-e5-2660",
        "--iterations",
        "50",
    ];
    args.extend(two_threads());
    let text = stdout_of(&args);
    assert!(
        text.starts_with("run barrier (the tree barrier of models/barrier.cla) on this host:"),
        "{text}"
    );
    assert!(
        text.contains("prediction: sandy-bridge-e5-2660 `cla-tree` (T_min..T_max, ns)"),
        "{text}"
    );
    assert!(
        text.contains("optimal = flat = binary = binomial  0(1)"),
        "{text}"
    );
    // models/barrier.cla on 0(1), both threads on socket 0 (R_I = 70, R_R = 35 ns, seed 001
    // §2.1), docs/cla.md §4–§6:
    // T_min: the child's add fetches ack[0,0] from memory (R_I), the root's wait reads it from
    // the child (R_R), the root's release write fetches go[0] from memory (R_I), the child's
    // wait reads it (R_R): 2·R_I + 2·R_R = 210 ns.
    // T_max: the root polls ack[0,0] first (R_I) and the add steals it and the root re-reads
    // (2·R_R: n-writers, k = 1); go[0] then pays the poller's first fetch (R_I), the write's
    // RFO of the shared line (R_R) and the child's re-read (R_R): 2·R_I + 4·R_R = 280 ns.
    assert!(text.contains("210.0  280.0"), "{text}");
    assert!(text.contains("50 checked iterations"), "{text}");
    // Its lines are laid out per (node, child socket) like the broadcast's, and start in no
    // cache, as the program declares them (`memory`).
    assert!(
        text.contains(
            "sockets of threads 0..1 (one many-to-one line per node and socket holding children): "
        ),
        "{text}"
    );
    if cfg!(target_arch = "x86_64") {
        assert!(
            text.contains(
                "many-to-one (ack) line of every (node, socket holding children): I (in no cache)"
            ),
            "{text}"
        );
        assert!(
            text.contains("go (release) flag of every node with children: I (in no cache)"),
            "{text}"
        );
    }

    // Four threads sharing the CPUs, named trees: the flat tree 0(1,2,3) on socket 0 costs
    // T_min = 2·R_I + (k + 1)·R_R = 140 + 140 = 280 ns (k = 3 adds in a chain, the root's
    // read) and T_max = (R_I + 2k·R_R) + (R_I + k·R_R + R_R) = 280 + 210 = 490 ns (three
    // writers steal ack[0,0] from the root; three pollers of go[0]). The binary tree is
    // priced too, and both are checked every iteration.
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "run",
        "barrier",
        "--machine",
        "sandy-bridge-e5-2660",
        "--threads",
        "4",
        "--oversubscribe",
        "--tree",
        "flat,binary",
        "--iterations",
        "30",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(v["implementation"], "tree-barrier");
    assert_eq!(v["algorithm"], "cla-tree");
    let c = v["candidates"].as_array().unwrap();
    assert_eq!(c.len(), 2);
    assert_eq!(c[0]["structure"], "0(1,2,3)");
    assert_eq!(c[1]["structure"], "0(1(3),2)");
    assert!((c[0]["predicted_min_ns"].as_f64().unwrap() - 280.0).abs() < 1e-9);
    assert!((c[0]["predicted_max_ns"].as_f64().unwrap() - 490.0).abs() < 1e-9);
    assert!(c[1]["predicted_min_ns"].as_f64().is_some());
    for row in c {
        assert_eq!(row["measured"]["count"], 30);
    }

    // `validate` goes through the same path.
    let mut args = vec![
        "validate",
        "--machine",
        "sandy-bridge-e5-2660",
        "--collective",
        "barrier",
        "--iterations",
        "30",
        "--format",
        "json",
    ];
    args.extend(two_threads());
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&args)).unwrap();
    assert_eq!(v["summary"]["priced"], 1);
    let run = &v["runs"][0];
    assert_eq!(run["implementation"], "tree-barrier");
    assert!((run["candidates"][0]["predicted_min_ns"].as_f64().unwrap() - 210.0).abs() < 1e-9);
}

#[test]
fn validate_two_threads_scores_the_prediction_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("validate.svg");
    let plot_arg = plot.to_str().unwrap();
    let mut args = vec![
        "validate",
        "--machine",
        "sandy-bridge-e5-2660",
        "--iterations",
        "100",
        "--plot",
        plot_arg,
    ];
    args.extend(two_threads());
    let text = stdout_of(&args);
    assert!(text.contains("median inside [T_min, T_max]:"), "{text}");
    assert!(text.contains("of 1 priced candidates"), "{text}");
    // One distinct tree on 2 threads: nothing to rank.
    assert!(text.contains("0 of 0 thread counts"), "{text}");
    assert!(text.contains("mean Kendall tau_b: n/a"), "{text}");
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("n = 2"));

    let mut args = vec![
        "validate",
        "--machine",
        "xeon-phi",
        "--collective",
        "barrier",
        "--iterations",
        "50",
        "--format",
        "json",
    ];
    args.extend(two_threads());
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&args)).unwrap();
    assert_eq!(v["summary"]["priced"], 1);
    assert_eq!(v["runs"].as_array().unwrap().len(), 1);
}

#[test]
fn more_threads_than_cpus_is_refused_in_one_line() {
    let cpu = allowed_cpus().unwrap()[0].to_string();
    fails_with(
        &["run", "bcast", "-m", "sandy-bridge-e5-2660", "-n", "2", "--cpus", &cpu, "--iterations", "10"],
        "--threads 2: 2 spinning threads need 2 CPUs but only 1 may be used (spinning threads must not share a CPU); pass --oversubscribe to run anyway",
    );
    // With permission it runs.
    stdout_of(&[
        "run",
        "bcast",
        "-m",
        "sandy-bridge-e5-2660",
        "-n",
        "2",
        "--cpus",
        &cpu,
        "--iterations",
        "10",
        "--oversubscribe",
    ]);
}

#[test]
fn bad_run_and_validate_inputs_are_one_line_errors() {
    let base = [
        "run",
        "bcast",
        "-m",
        "sandy-bridge-e5-2660",
        "-n",
        "2",
        "--oversubscribe",
    ];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        base.iter().copied().chain(extra.iter().copied()).collect()
    };
    fails_with(&with(&["--tree", "star"]), "unknown tree `star`");
    fails_with(
        &with(&["--tree", "0(1(2))"]),
        "the tree has 3 nodes but 2 threads take part",
    );
    fails_with(&with(&["--tree", "k-ary:0"]), "is not a degree");
    fails_with(
        &with(&["--cpus", "100000"]),
        "CPU 100000 is not one this process may run on",
    );
    fails_with(
        &with(&["--cpus", "1-x"]),
        "--cpus: `1-x` is not a CPU number",
    );
    fails_with(&with(&["--iterations", "0"]), "at least one iteration");
    // KSR-1 has no model of a barrier `run` executes (dissemination or tree), so the default
    // `optimal` degree has no meaning.
    fails_with(
        &["run", "barrier", "-m", "ksr1", "-n", "2", "--oversubscribe"],
        "ksr1 has no model of the barrier this command runs, so `optimal` has no meaning",
    );
    // The flag naming the other kind of candidate is refused, naming the right one: trees
    // where the barrier is the dissemination barrier (and degrees for the broadcast, which only
    // runs trees). A ccNUMA file models both barriers: one flag picks one, both are refused.
    fails_with(
        &[
            "run",
            "barrier",
            "-m",
            "sandy-bridge-e5-2660",
            "-n",
            "2",
            "--oversubscribe",
            "--degree",
            "1",
            "--tree",
            "flat",
        ],
        "--tree and --degree: sandy-bridge-e5-2660 models two barriers, the tree barrier (`cla-tree`, --tree) and the dissemination barrier (`cla-dissemination`, --degree); `run barrier` runs one of them: name one flag",
    );
    fails_with(
        &[
            "run",
            "barrier",
            "-m",
            "xeon-phi",
            "-n",
            "2",
            "--oversubscribe",
            "--tree",
            "flat",
        ],
        "--tree: xeon-phi has no tree model of the barrier, so `run barrier` executes the dissemination barrier: name degrees with --degree",
    );
    fails_with(
        &with(&["--degree", "1"]),
        "--degree: `run bcast` runs trees",
    );
    fails_with(
        &[
            "validate",
            "-m",
            "sandy-bridge-e5-2660",
            "--collective",
            "barrier",
            "--threads",
            "2",
            "--oversubscribe",
            "--degree",
            "1",
            "--tree",
            "flat",
        ],
        "name one flag",
    );
    // The counting barrier's degrees are 1..n−1 too.
    fails_with(
        &[
            "run",
            "barrier",
            "-m",
            "sandy-bridge-e5-2660",
            "-n",
            "2",
            "--oversubscribe",
            "--degree",
            "2",
        ],
        "--degree 2: a barrier of 2 threads takes m between 1 and 1",
    );
    fails_with(
        &[
            "run",
            "barrier",
            "-m",
            "xeon-phi",
            "-n",
            "2",
            "--oversubscribe",
            "--degree",
            "2",
        ],
        "--degree 2: a barrier of 2 threads takes m between 1 and 1",
    );
    fails_with(
        &["run", "bcast", "-m", "sandy-bridge-e5-2660", "-n", "1"],
        "at least 2 threads",
    );
    fails_with(
        &[
            "validate",
            "-m",
            "sandy-bridge-e5-2660",
            "--threads",
            "2",
            "--oversubscribe",
            "--plot",
            "out.gif",
        ],
        "cannot tell the image format",
    );
}

/// The bundled E5-2660 file renamed `name`, reshaped to `sockets` × `cores` × 1 and given a
/// `[calibration]` record naming `host` and `cpus`, as `modelopt calibrate` writes it.
fn calibrated_file(
    dir: &std::path::Path,
    name: &str,
    sockets: u32,
    cores: u32,
    host: &str,
    cpus: &[usize],
) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../machines");
    let text = std::fs::read_to_string(root.join("sandy-bridge-e5-2660.toml")).unwrap();
    let text = text
        .replace(
            "sockets = 2\ncores_per_socket = 8\nthreads_per_core = 2",
            &format!("sockets = {sockets}\ncores_per_socket = {cores}\nthreads_per_core = 1"),
        )
        .replace(
            "max_threads = 32",
            &format!("max_threads = {}", sockets * cores),
        )
        .replace(
            "name = \"sandy-bridge-e5-2660\"",
            &format!("name = \"{name}\""),
        );
    let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
    let text = format!(
        "{text}\n[calibration]\ntool = \"test\"\nhost = \"{host}\"\nmeasured_at = \"2026-01-01T00:00:00Z\"\ncpus = [{}]\ntimer_overhead_ns = 20.0\ntimer_resolution_ns = 10.0\n",
        list.join(", ")
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn issue_9_run_follows_a_file_calibrated_on_this_host_and_warns_for_another() {
    let Some(model) = modelopt_host::topology::host_info_at(std::path::Path::new("/")).cpu_model
    else {
        return; // No CPU model in /proc/cpuinfo: no file can be recognised as this host's.
    };
    let Ok(topo) = modelopt_host::topology::discover() else {
        return;
    };
    let allowed = allowed_cpus().unwrap();
    // Two usable CPUs of one package (the CI machine has exactly that).
    let Some(package) = topo.sockets.iter().map(|s| s.package).find(|&p| {
        allowed
            .iter()
            .filter(|&&c| topo.cpu(c).is_some_and(|x| x.package == p))
            .count()
            >= 2
    }) else {
        return;
    };
    let pair: Vec<usize> = allowed
        .iter()
        .copied()
        .filter(|&c| topo.cpu(c).is_some_and(|x| x.package == package))
        .take(2)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let cpus = pair
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",");

    // Calibrated here, one socket: followed, no warning.
    let here = calibrated_file(dir.path(), "here", 1, 2, &model, &pair);
    let out = modelopt()
        .args([
            "run",
            "bcast",
            "-m",
            &here,
            "-n",
            "2",
            "--iterations",
            "100",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "calibrated on this host (socket 0 = package {package})"
        )),
        "{text}"
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The same file claiming two sockets over CPUs of one package: one warning line, and the
    // run still happens (in CPU order).
    let two = calibrated_file(dir.path(), "two-sockets", 2, 1, &model, &pair);
    let out = modelopt()
        .args([
            "run",
            "bcast",
            "-m",
            &two,
            "-n",
            "2",
            "--iterations",
            "50",
            "--cpus",
            &cpus,
        ])
        .output()
        .unwrap();
    // With --cpus the user chose: no warning.
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = modelopt()
        .args(["run", "bcast", "-m", &two, "-n", "2", "--iterations", "50"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("modelopt: warning: two-sockets does not describe this host (the CPUs it measured lie in 1 package(s) of this host, not its 2 socket(s))"),
        "{stderr}"
    );

    // Another CPU model: the same one-line warning, naming both.
    let other = calibrated_file(dir.path(), "other", 1, 2, "Some Other CPU", &pair);
    let out = modelopt()
        .args([
            "run",
            "bcast",
            "-m",
            &other,
            "-n",
            "2",
            "--iterations",
            "50",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("it was calibrated on `Some Other CPU`, this host is"),
        "{stderr}"
    );

    // Calibrated here but asked for more threads than the package has usable CPUs: refused in
    // one line rather than pinned to another package (only where the package is that small).
    let in_package = allowed
        .iter()
        .filter(|&&c| topo.cpu(c).is_some_and(|x| x.package == package))
        .count();
    if in_package == 2 {
        fails_with(
            &[
                "run",
                "bcast",
                "-m",
                &here,
                "-n",
                "3",
                "--extrapolate",
                "--iterations",
                "5",
            ],
            "the model places 3 threads on socket 0 but its host package",
        );
    }
}

#[test]
fn an_optimal_tree_from_a_stopped_search_is_labelled_not_proven() {
    // 12 threads on the E5-2660 (8 + 4): the barrier's exhaustive search is over the default
    // budget (docs/cla.md §12), so `optimal` is the best found and its label says so.
    let text = stdout_of(&[
        "run",
        "barrier",
        "--machine",
        "sandy-bridge-e5-2660",
        "--threads",
        "12",
        "--oversubscribe",
        "--iterations",
        "5",
        "--tree",
        "optimal",
    ]);
    assert!(text.contains("optimal (best found, not proven)"), "{text}");
}

#[test]
fn validate_says_before_it_starts_where_the_optimizer_is_over_its_budget() {
    // Eight sockets of two single-threaded cores, threads placed socket by socket: 16 threads
    // fill all eight. The exact search under the default objective (min) is sized by its
    // covering pass: every count vector of the box × table entries, K the widest socket's
    // count (2). By suffix states S·K + 2·R + 6·S + ⌈S²/4⌉, R the suffix states its node
    // stages reach: with sockets as units a stage-s state is (remote groups, local group or
    // not), a node on σ ≥ s reaches (8 − s)·2 of them, one on σ < s 9 − s, so R = Σ_s
    // 2(8 − s)² + s(9 − s) = 128 + 106 + 86 + 68 + 52 + 38 + 26 + 16 = 520 and per vector
    // 16 + 1,040 + 48 + 16 = 1,120; by envelopes S·K + 6·S + 3·S² = 16 + 48 + 192 = 256
    // (sockets as units prefer the suffix states, and take the envelopes where only theirs are
    // within the budget). 16 threads have 3^8 = 6,561 vectors: 7,348,320 entries by suffix
    // states and 1,679,616 by envelopes, both over a budget of 1.5·10^6; 15 threads (7 full
    // sockets and one, every socket used: the same R) 3^7 × 2 = 4,374 vectors, 4,898,880 and
    // 1,119,744 entries, the envelopes within it. So of 15..=16 one count is over.
    let dir = tempfile::tempdir().unwrap();
    let four = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../machines/xeon-e5-4650-4s.toml"
    ))
    .unwrap();
    let tiny = four
        .replace("sockets = 4\n", "sockets = 8\n")
        .replace("cores_per_socket = 8\n", "cores_per_socket = 2\n")
        .replace("threads_per_core = 2\n", "threads_per_core = 1\n")
        .replace("max_threads = 64\n", "max_threads = 16\n")
        .replace("name = \"xeon-e5-4650-4s\"", "name = \"tiny8\"");
    let path = dir.path().join("tiny8.toml");
    std::fs::write(&path, tiny).unwrap();
    let out = modelopt()
        .args([
            "validate",
            "-m",
            path.to_str().unwrap(),
            "--collective",
            "bcast",
            "--threads",
            "15..=16",
            "--oversubscribe",
            "--iterations",
            "2",
            "--tree",
            "optimal",
            // The budget keeps both sides (1.68e6 > 1.5e6 > 1.12e6), and the time limit bounds
            // the over-budget search for the whole command.
            "--budget",
            "1500000",
            "--time-limit",
            "2",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("note: validate: at 1 of its 2 thread counts the optimizer's answer may not be proven optimal within the work budget"),
        "{stderr}"
    );
    // run takes the same limits, checked as the collective commands check them.
    fails_with(
        &[
            "run",
            "bcast",
            "-m",
            "xeon-phi",
            "--threads",
            "2",
            "--time-limit",
            "0",
        ],
        "--time-limit",
    );
}

#[test]
fn run_on_a_domain_lines_machine_lays_the_lines_out_by_l3_domain() {
    // chiplet-2s-4x8-domain-lines says `sync_line = "domain"`: the runner's many-to-one lines
    // follow the L3 domains of the CPUs the threads run on (ranked package and last-level-cache
    // keys), and the report says so; with one line per socket (chiplet-2s-4x8) it does not.
    let run = |machine: &str| -> serde_json::Value {
        let mut args = vec![
            "run",
            "bcast",
            "--machine",
            machine,
            "--tree",
            "flat",
            "--iterations",
            "50",
            "--format",
            "json",
        ];
        args.extend(two_threads());
        serde_json::from_str(&stdout_of(&args)).unwrap()
    };
    let sockets = run("chiplet-2s-4x8");
    assert!(sockets.get("l3_domains").is_none(), "{sockets}");
    let domains = run("chiplet-2s-4x8-domain-lines");
    match domains.get("l3_domains") {
        // Two threads: one or two L3 domains, labelled from 0 in the order of their keys.
        Some(d) => {
            let d: Vec<u64> = serde_json::from_value(d.clone()).unwrap();
            assert!(d == [0, 0] || d == [0, 1] || d == [1, 0], "{domains}");
        }
        // A host whose topology could not be read: the lines follow the sockets.
        None => assert!(
            std::fs::metadata("/sys/devices/system/cpu").is_err(),
            "{domains}"
        ),
    }
    // The text says which lines the run used.
    let mut args = vec![
        "run",
        "bcast",
        "--machine",
        "chiplet-2s-4x8-domain-lines",
        "--tree",
        "flat",
        "--iterations",
        "50",
    ];
    args.extend(two_threads());
    let text = stdout_of(&args);
    if domains.get("l3_domains").is_some() {
        assert!(
            text.contains(
                "their L3 domains (one many-to-one line per node and domain holding children"
            ),
            "{text}"
        );
    }
}
