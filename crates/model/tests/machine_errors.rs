//! Bad machine files give one-line errors naming file, line, column and key — never a panic.

mod common;
use common::{error_of, line_of};

use modelopt_model::machine::load;

fn phi_text() -> &'static str {
    common::bundled_text("xeon-phi")
}

#[test]
fn malformed_toml_names_line_and_column() {
    let text = phi_text().replace("remote  = { value = 235.8,", "remote  = { value = 235.8,,");
    let err = error_of(&text);
    let line = line_of(&text, "235.8,,");
    assert!(err.starts_with(&format!("test.toml:{line}:")), "{err}");
}

#[test]
fn missing_parameter_names_the_key() {
    let text: String = phi_text()
        .lines()
        .filter(|l| !l.starts_with("invalid = {"))
        .collect::<Vec<_>>()
        .join("\n");
    let err = error_of(&text);
    assert!(err.contains("missing field `invalid`"), "{err}");
}

#[test]
fn negative_zero_and_nan_values_are_rejected_with_their_key() {
    for (bad, what) in [
        ("-235.8", "must be positive"),
        ("0.0", "must be positive"),
        ("nan", "finite"),
    ] {
        let text = phi_text().replace("value = 235.8,", &format!("value = {bad},"));
        let err = error_of(&text);
        let line = line_of(&text, &format!("value = {bad},"));
        assert!(err.contains("key `line.remote`"), "{err}");
        assert!(err.contains(what), "{err}");
        assert!(err.starts_with(&format!("test.toml:{line}:")), "{err}");
    }
}

#[test]
fn absurd_values_are_rejected() {
    let text = phi_text().replace("value = 235.8,", "value = 1e30,");
    let err = error_of(&text);
    assert!(err.contains("outside the sane range"), "{err}");
    assert!(err.contains("1e30 ns"), "{err}");
}

#[test]
fn wrong_unit_is_rejected() {
    let text = phi_text().replace(
        "remote  = { value = 235.8, unit = \"ns\"",
        "remote  = { value = 235.8, unit = \"us\"",
    );
    assert!(error_of(&text).contains("unit must be \"ns\""));
}

#[test]
fn unknown_field_and_family_are_rejected() {
    let text = phi_text().replace("[topology]", "[topology]\nsocketz = 3");
    assert!(error_of(&text).contains("unknown field `socketz`"));
    let text = phi_text().replace("family = \"cache-coherent\"", "family = \"quantum\"");
    assert!(error_of(&text).contains("unknown model family `quantum`"));
}

#[test]
fn impossible_topology_is_rejected() {
    let text = phi_text().replace("max_threads = 240", "max_threads = 241");
    assert!(error_of(&text).contains("max_threads"));
    let text = phi_text().replace("cores_per_socket = 60", "cores_per_socket = 0");
    assert!(error_of(&text).contains("topology.cores_per_socket"));
}

#[test]
fn missing_file_and_directory_are_clear() {
    let err = load("no/such/machine.toml").unwrap_err().to_string();
    assert!(err.contains("no such file"), "{err}");
    let dir = std::env::temp_dir();
    let err = load(dir.to_str().unwrap()).unwrap_err().to_string();
    assert!(err.contains("not a regular file"), "{err}");
}

#[test]
fn a_machine_file_on_disk_loads_and_wins_over_the_bundled_name() {
    let dir = std::env::temp_dir().join(format!("modelopt-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("my-phi.toml");
    std::fs::write(
        &path,
        phi_text().replace("name = \"xeon-phi\"", "name = \"my-phi\""),
    )
    .unwrap();
    let m = load(path.to_str().unwrap()).unwrap();
    assert_eq!(m.name, "my-phi");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_multi_line_constant_may_be_zero_but_not_negative_nor_leave_one_line_free() {
    // Seed 000 Eq. 3.1, T_N = o·N + q − p/N, asks o > 0, q ≥ 0, p ≥ 0 and T_1 = o + q − p > 0
    // (docs/machine-format.md). E-E with q = 0 and p = 0: T_N = 76·N, a valid machine.
    let ee_q = "q = { value = 1521.0, unit = \"ns\", source = \"seed 000, Table 3.1 (E-E); Figure 3.1a\" }";
    let ee_p = "p = { value = 1096.0, unit = \"ns\", source = \"seed 000, Table 3.1 (E-E); Figure 3.1a\" }";
    assert!(phi_text().contains(ee_q) && phi_text().contains(ee_p));
    let zero = |q: &str, p: &str| {
        phi_text()
            .replace(ee_q, &ee_q.replace("1521.0", q))
            .replace(ee_p, &ee_p.replace("1096.0", p))
    };
    assert!(modelopt_model::machine::from_text("test.toml", &zero("0.0", "0.0")).is_ok());
    // q < 0 names its key; q = 0 with the table's p = 1096: T_1 = 76 − 1096 < 0, named at p.
    let err = error_of(&zero("-1.0", "0.0"));
    assert!(
        err.contains("multi_line[0].q") && err.contains("must not be negative"),
        "{err}"
    );
    let err = error_of(&zero("0.0", "1096.0"));
    assert!(
        err.contains("multi_line[0].p") && err.contains("T_1"),
        "{err}"
    );
}
