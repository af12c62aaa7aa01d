//! `rust-version` in the root Cargo.toml must be true: no locked dependency may declare a newer
//! minimum Rust than the workspace does (proptest 1.12 and sprs 0.11 need 1.88).
//!
//! Reads `cargo metadata --format-version 1 --locked --offline --filter-platform <host>`, whose
//! packages are every crate of the lockfile this host builds, each with its declared
//! `rust_version`. Filtered to the host because a build downloads only the crates of its
//! platform: unfiltered, offline metadata fails on a fresh Linux machine for want of
//! Windows-only crates (`anstyle-wincon`), which this check therefore does not see.

use std::process::Command;

/// `1.88` or `1.88.0` as (major, minor, patch).
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

#[test]
fn no_locked_dependency_needs_a_newer_rust_than_rust_version_says() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let about = Command::new(rustc).arg("-vV").output().unwrap();
    let about = String::from_utf8_lossy(&about.stdout);
    let host = about
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host");
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--offline",
            "--filter-platform",
            host,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let members: Vec<&str> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let packages = meta["packages"].as_array().unwrap();
    let ours = packages
        .iter()
        .find(|p| p["name"] == "modelopt-cli")
        .and_then(|p| p["rust_version"].as_str())
        .expect("the workspace declares rust-version");
    let mut too_new = Vec::new();
    let mut newest = ("", "0");
    for p in packages {
        let Some(rv) = p["rust_version"].as_str() else {
            continue;
        };
        let id = p["id"].as_str().unwrap_or("");
        if members.contains(&id) {
            assert_eq!(rv, ours, "{} has its own rust-version", p["name"]);
            continue;
        }
        if version(rv) > version(newest.1) {
            newest = (p["name"].as_str().unwrap_or(""), rv);
        }
        if version(rv) > version(ours) {
            too_new.push(format!("{} {} needs Rust {rv}", p["name"], p["version"]));
        }
    }
    assert!(
        too_new.is_empty(),
        "rust-version = \"{ours}\" in Cargo.toml, but: {} (newest: {} {})",
        too_new.join("; "),
        newest.0,
        newest.1
    );
}
