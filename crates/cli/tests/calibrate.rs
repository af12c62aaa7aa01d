//! `modelopt calibrate` on the machine the tests run on (2 CPUs on CI): the file it writes loads,
//! holds positive values ordered as the hardware orders them, says what it could not measure,
//! and drives the tuning commands.

use assert_cmd::Command;
use modelopt_host::topology;
use modelopt_model::ccnuma::Ccnuma;

fn modelopt() -> Command {
    Command::cargo_bin("modelopt").unwrap()
}

/// The first two CPUs this process may use (calibration of 2 CPUs, as on CI).
fn two_cpus() -> String {
    let allowed = modelopt_host::affinity::allowed_cpus().unwrap();
    assert!(allowed.len() >= 2, "these tests need 2 CPUs");
    format!("{},{}", allowed[0], allowed[1])
}

/// Whether two CPUs' medians are distinguishable: median ± 2σ intervals apart.
fn ordered(low: f64, low_sd: f64, high: f64, high_sd: f64) -> bool {
    low + 2.0 * low_sd < high - 2.0 * high_sd
}

#[test]
fn quick_calibration_of_two_cpus_loads_is_positive_ordered_and_honest() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("host.toml");
    let cpus = two_cpus();
    let run = modelopt()
        .args(["calibrate", "--quick", "--threads", &cpus, "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stdout).contains("wrote"));

    let machine = modelopt_model::machine::load(out.to_str().unwrap()).unwrap();
    assert_eq!(machine.family, "ccnuma");
    assert_eq!(machine.max_threads, 2);
    let text = machine.text().to_string();
    let rows = machine.params();
    // Every measured number is positive, except the fitted ping-pong overhead O of Eq. 2.1 and
    // the invalidation slope, which may be negative; every one says how it was measured.
    for row in &rows {
        if row.estimated {
            assert!(row.value >= 0.0, "{}", row.key);
            continue;
        }
        if !(row.key.ends_with("overhead") || row.key.ends_with("per_sharer")) {
            assert!(row.value > 0.0, "{} = {}", row.key, row.value);
        }
        assert!(row.source.contains("modelopt calibrate"), "{}", row.key);
    }
    let get = |key: &str| rows.iter().find(|r| r.key == key).cloned();
    let r_l = get("line.local").unwrap();
    let r_r = get("line.remote").unwrap();
    let r_i = get("line.invalid").unwrap();
    // R_L (own L1) is far below R_R (another core) wherever the two CPUs are separate cores;
    // on a VM whose two vCPUs are at that moment hardware threads of one core the reads are
    // alike, and a median of R_R below R_L is written at R_L with a note that says so.
    let remote_line = text.lines().find(|l| l.starts_with("remote = ")).unwrap();
    if remote_line.contains("note = ") {
        assert_eq!(r_r.value, r_l.value, "{remote_line}");
        assert!(
            remote_line.contains("not distinguishable on this host"),
            "{remote_line}"
        );
    } else {
        assert!(
            r_l.value < r_r.value,
            "R_L {} !< R_R {}",
            r_l.value,
            r_r.value
        );
    }
    // R_R < R_I wherever the measurement can tell them apart.
    let sd = |r: &modelopt_model::spec::ParamRow| r.stdev.unwrap_or(0.0);
    assert!(
        !ordered(r_i.value, sd(&r_i), r_r.value, sd(&r_r)),
        "R_I {} is clearly below R_R {}",
        r_i.value,
        r_r.value
    );
    // Provenance: benchmark, host, time, samples on every measured line cost.
    for key in ["local", "remote", "invalid"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap();
        for field in [
            "benchmark = ",
            "host = ",
            "measured_at = ",
            "samples = ",
            "mad = ",
            "cv = ",
        ] {
            assert!(line.contains(field), "{key} lacks {field}");
        }
    }

    // Classes this host does not have are absent and listed, not invented.
    let full = topology::discover().unwrap();
    let ids: Vec<usize> = cpus.split(',').map(|c| c.parse().unwrap()).collect();
    let topo = full.restricted_to(&ids);
    let c: &Ccnuma = machine.model().unwrap();
    if topo.shape().sockets == 1 {
        assert!(get("line.remote_socket").is_none());
        assert!(text.contains("key = \"line.remote_socket\""));
        assert!(text.contains("key = \"multi_line.inter_socket\""));
        assert_eq!(c.topology.sockets, 1);
    } else {
        assert!(get("line.remote_socket").is_some());
    }
    if topo.numa_nodes.len() < 2 {
        assert!(get("line.invalid_remote_socket").is_none());
        assert!(text.contains("key = \"line.invalid_remote_socket\""));
    }
    // With two CPUs no slope over simultaneous readers can be measured: estimated, with a reason.
    let slope = get("min_max.contention[0].c").unwrap();
    assert!(slope.estimated);
    // Both seeds' algorithms are offered.
    assert!(c.min_max.is_some());

    // End to end: the tuning commands run on the calibrated file.
    let bcast = modelopt()
        .args(["bcast", "--threads", "2", "--machine"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        bcast.status.success(),
        "{}",
        String::from_utf8_lossy(&bcast.stderr)
    );
    let stdout = String::from_utf8_lossy(&bcast.stdout);
    assert!(
        stdout.contains("cla-tree") && stdout.contains("small-tree"),
        "{stdout}"
    );
    for command in ["barrier", "reduce"] {
        let r = modelopt()
            .args([command, "--threads", "2", "--machine"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            r.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
    }

    // The file is not overwritten without --force.
    let again = modelopt()
        .args(["calibrate", "--quick", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
}

#[test]
fn bad_cpu_lists_are_one_line_user_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.toml");
    for (list, needle) in [
        ("0", "at least 2 CPUs"),
        ("0,9000", "above the limit"),
        ("0,4000", "not online or not allowed"),
        ("3-1", "backwards"),
    ] {
        let r = modelopt()
            .args(["calibrate", "--quick", "--threads", list, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{list}: {stderr}");
        assert!(stderr.contains(needle), "{list}: {stderr}");
        assert!(!stderr.contains("panicked"));
        assert!(!out.exists());
    }
}
