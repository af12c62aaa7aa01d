//! Inputs a hostile or careless user gives the binary: files named like bundled machines,
//! FIFOs, directories and symbolic links as machine files, and configurations outside a model's
//! validity. Each test is named after what it catches (issue 12).

use assert_cmd::Command;
use std::path::Path;
use std::time::Duration;

fn modelopt_in(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("modelopt").unwrap();
    cmd.current_dir(dir).timeout(Duration::from_secs(30));
    cmd
}

fn phi_text() -> &'static str {
    modelopt_model::registry::bundled()
        .collect::<Vec<_>>()
        .iter()
        .find(|(name, _)| *name == "xeon-phi")
        .map(|(_, text)| *text)
        .unwrap()
}

/// A user error: exit 2, one line on stderr containing `needle`.
fn fails_in(dir: &Path, args: &[&str], needle: &str) {
    let out = modelopt_in(dir).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: want `{needle}`: {stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
}

fn stdout_in(dir: &Path, args: &[&str]) -> String {
    let out = modelopt_in(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_file_named_like_a_bundled_machine_does_not_shadow_it() {
    let dir = tempfile::tempdir().unwrap();
    // A file `xeon-phi` in the working directory with another name and thread limit.
    let impostor = phi_text()
        .replace("name = \"xeon-phi\"", "name = \"impostor\"")
        .replace("max_threads = 240", "max_threads = 200");
    std::fs::write(dir.path().join("xeon-phi"), &impostor).unwrap();
    std::fs::write(dir.path().join("scc"), "not even toml [").unwrap();
    // The bare names are the bundled machines.
    let shown = stdout_in(dir.path(), &["machines", "show", "xeon-phi"]);
    assert!(
        shown
            .starts_with("xeon-phi (bundled:xeon-phi), family cache-coherent, at most 240 threads"),
        "{shown}"
    );
    let bcast = stdout_in(
        dir.path(),
        &["bcast", "-m", "scc", "-n", "48", "--size", "3072"],
    );
    assert!(bcast.starts_with("bcast on scc (bundled:scc)"), "{bcast}");
    // With a `/` it is the file, and the header says so.
    let shown = stdout_in(dir.path(), &["machines", "show", "./xeon-phi"]);
    assert!(
        shown.starts_with("impostor (./xeon-phi), family cache-coherent, at most 200 threads"),
        "{shown}"
    );
}

#[test]
fn a_name_ending_in_toml_is_a_path_not_a_bundled_name() {
    let dir = tempfile::tempdir().unwrap();
    fails_in(
        dir.path(),
        &["machines", "show", "xeon-phi.toml"],
        "no such file (the bundled machine is named `xeon-phi`",
    );
    std::fs::write(
        dir.path().join("mine.toml"),
        phi_text().replace("name = \"xeon-phi\"", "name = \"mine\""),
    )
    .unwrap();
    let shown = stdout_in(dir.path(), &["machines", "show", "mine.toml"]);
    assert!(shown.starts_with("mine (mine.toml)"), "{shown}");
}

#[test]
fn unknown_bare_name_explains_the_path_rule() {
    let dir = tempfile::tempdir().unwrap();
    fails_in(
        dir.path(),
        &["machines", "show", "my-machine"],
        "a file path must contain `/` or end in `.toml`",
    );
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("d.toml")).unwrap();
    fails_in(
        dir.path(),
        &["machines", "show", "d.toml"],
        "is not a regular file (it is a directory)",
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.toml");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    // Nobody writes to the FIFO: opening it would block forever; the 30 s limit would fail.
    fails_in(
        dir.path(),
        &["machines", "show", "./pipe.toml"],
        "is not a regular file (it is a FIFO, socket or device)",
    );
}

#[cfg(unix)]
#[test]
fn a_device_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fails_in(
        dir.path(),
        &["machines", "show", "/dev/zero"],
        "is not a regular file",
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_machine_file_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("real.toml"),
        phi_text().replace("name = \"xeon-phi\"", "name = \"linked\""),
    )
    .unwrap();
    std::os::unix::fs::symlink("real.toml", dir.path().join("link.toml")).unwrap();
    let shown = stdout_in(dir.path(), &["machines", "show", "link.toml"]);
    assert!(shown.starts_with("linked (link.toml)"), "{shown}");
    // A dangling link is "no such file".
    std::os::unix::fs::symlink("gone.toml", dir.path().join("dangling.toml")).unwrap();
    fails_in(
        dir.path(),
        &["machines", "show", "dangling.toml"],
        "no such file",
    );
}

#[test]
fn a_machine_of_tiny_values_is_refused_with_the_range() {
    let dir = tempfile::tempdir().unwrap();
    // Every number 1e-300: the first Param of xeon-phi.toml is line.local (8.6 ns).
    let mut tiny = String::new();
    for line in phi_text().lines() {
        let line = match line.find("value = ") {
            Some(at) => {
                let rest = &line[at + 8..];
                let end = rest.find(',').unwrap_or(rest.len());
                format!("{}value = 1e-300{}", &line[..at], &rest[end..])
            }
            None => line.to_string(),
        };
        tiny.push_str(&line);
        tiny.push('\n');
    }
    std::fs::write(dir.path().join("tiny.toml"), tiny).unwrap();
    fails_in(
        dir.path(),
        &["bcast", "-m", "tiny.toml", "-n", "8"],
        "key `line.local`: value 1e-300 ns is outside the sane range 0.001 to 1e9 ns",
    );
}

#[test]
fn scc_never_recommends_a_degree_outside_the_models_validity() {
    let dir = tempfile::tempdir().unwrap();
    // 96 lines at P = 48: the best valid degree is k = 7, 152.965 µs (worked out by hand in
    // crates/model/tests/scc.rs, best_k_depends_on_size_and_metric); unchecked it was k = 47.
    let json = stdout_in(
        dir.path(),
        &[
            "bcast", "-m", "scc", "-n", "48", "--size", "3072", "--format", "json", "--top", "30",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["params"], serde_json::json!({"k": 7}), "{json}");
    assert!(
        (v["t_min_ns"].as_f64().unwrap() - 152_965.0).abs() < 1e-3,
        "{json}"
    );
    for alt in v["alternatives"].as_array().unwrap() {
        if let Some(k) = alt["params"]["k"].as_i64() {
            assert!(k <= 24, "{alt}");
        }
    }
    // Pinned outside the domain: refused with the reason.
    fails_in(
        dir.path(),
        &[
            "bcast", "-m", "scc", "-n", "48", "--size", "3072", "--fix", "k=47",
        ],
        "outside the model's validity",
    );
}
