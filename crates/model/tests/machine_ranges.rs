//! Machine files: TOML errors name their key, and every number lies in its unit's sane physical
//! range (`spec::UNIT_RANGES`, documented in docs/machine-format.md), with compact numbers in the
//! message.

mod common;
use common::{error_of, line_of};

use modelopt_model::machine::from_text;
use modelopt_model::registry;
use modelopt_model::spec::{compact, param_rows, unit_range, UNIT_RANGES};

fn phi_text() -> &'static str {
    common::bundled_text("xeon-phi")
}

#[test]
fn type_error_names_the_key_line_and_column() {
    let text = phi_text().replace("value = 235.8,", "value = \"x\",");
    let err = error_of(&text);
    let line = line_of(&text, "value = \"x\"");
    assert!(err.starts_with(&format!("test.toml:{line}:")), "{err}");
    assert!(err.contains("key `line.remote.value`"), "{err}");
    assert!(err.contains("invalid type"), "{err}");
}

#[test]
fn type_error_in_a_plain_table_names_the_key() {
    let text = phi_text().replace("cores_per_socket = 60", "cores_per_socket = \"sixty\"");
    let err = error_of(&text);
    assert!(err.contains("key `topology.cores_per_socket`"), "{err}");
}

#[test]
fn duplicate_key_names_the_table_and_key() {
    let text = phi_text().replace("[line]\n", "[line]\nremote = 3\n");
    let err = error_of(&text);
    // The second `remote` is the duplicate: it is on the line after the first one.
    let line = line_of(&text, "remote  = { value = 235.8");
    assert!(err.starts_with(&format!("test.toml:{line}:1:")), "{err}");
    assert!(err.contains("key `line.remote`"), "{err}");
    assert!(err.contains("duplicate key"), "{err}");

    let text = phi_text().replace("sockets = 1\n", "sockets = 1\nsockets = 2\n");
    let err = error_of(&text);
    assert!(err.contains("key `topology.sockets`"), "{err}");
}

#[test]
fn unknown_field_in_an_array_of_tables_names_the_array_and_field() {
    let text = phi_text().replacen("[[ping_pong]]\n", "[[ping_pong]]\nbytes = 3\n", 1);
    let err = error_of(&text);
    assert!(err.contains("key `ping_pong.bytes`"), "{err}");
}

#[test]
fn tiny_values_are_rejected_with_the_range_and_why() {
    // The machine: every value 1e-300. The first number of xeon-phi.toml is
    // line.local = 8.6 ns; the ns range is 1e-3 ns (1 ps) to 1e9 ns (1 s).
    let text = phi_text().replace("value = 8.6,", "value = 1e-300,");
    let err = error_of(&text);
    assert!(err.contains("key `line.local`"), "{err}");
    assert!(
        err.contains("value 1e-300 ns is outside the sane range 0.001 to 1e9 ns"),
        "{err}"
    );
    assert!(err.contains("1 ps to 1 s"), "{err}");
}

#[test]
fn huge_values_are_printed_compactly() {
    for (bad, shown) in [
        ("1e308", "1e308"),
        ("1.7976931348623157e308", "1.7976931348623157e308"),
    ] {
        let text = phi_text().replace("value = 235.8,", &format!("value = {bad},"));
        let err = error_of(&text);
        assert!(err.contains(&format!("value {shown} ns")), "{err}");
        assert!(err.len() < 300, "{err}");
    }
    let text = phi_text().replace("value = 235.8,", "value = -1e308,");
    let err = error_of(&text);
    assert!(err.contains("-1e308"), "{err}");
    assert!(err.len() < 300, "{err}");
}

#[test]
fn huge_stdev_is_rejected() {
    let text = phi_text().replace("stdev = 25.486", "stdev = 1e300");
    let err = error_of(&text);
    assert!(err.contains("stdev"), "{err}");
    assert!(err.contains("1e300"), "{err}");
}

#[test]
fn line_size_must_be_a_power_of_two_from_8_to_4096() {
    for bad in ["48", "4", "8192"] {
        let text = phi_text().replace("line_bytes = 64", &format!("line_bytes = {bad}"));
        let err = error_of(&text);
        assert!(err.contains("key `topology.line_bytes`"), "{err}");
        assert!(err.contains("power of two from 8 to 4096"), "{err}");
    }
    let text = phi_text().replace("line_bytes = 64", "line_bytes = 128");
    assert!(from_text("test.toml", &text).is_ok());
}

#[test]
fn counts_above_the_thread_limit_are_rejected() {
    let text = phi_text().replace("cores_per_socket = 60", "cores_per_socket = 4000000000");
    let err = error_of(&text);
    assert!(err.contains("1048576"), "{err}");
}

#[test]
fn compact_numbers() {
    assert_eq!(compact(235.8), "235.8");
    assert_eq!(compact(0.0), "0");
    assert_eq!(compact(1e6), "1e6");
    assert_eq!(compact(1e-300), "1e-300");
    assert_eq!(compact(f64::MAX), "1.7976931348623157e308");
    assert_eq!(compact(0.001), "0.001");
}

#[test]
fn every_unit_of_the_bundled_machines_has_a_range_and_their_values_fit() {
    for (name, text) in registry::bundled() {
        for row in param_rows(text) {
            let range = unit_range(&row.unit).unwrap_or_else(|| {
                panic!("{name}: {} has unit {} with no range", row.key, row.unit)
            });
            assert!(
                row.value == 0.0 || range.contains(row.value.abs()),
                "{name}: {} = {}",
                row.key,
                row.value
            );
        }
    }
    // Ranges are non-empty and every unit is listed once.
    for (i, r) in UNIT_RANGES.iter().enumerate() {
        assert!(r.min > 0.0 && r.min < r.max, "{}", r.unit);
        assert!(
            UNIT_RANGES[i + 1..].iter().all(|o| o.unit != r.unit),
            "{}",
            r.unit
        );
    }
}
