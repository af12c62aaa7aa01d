//! Regression tests of issue 12 about output files: nothing `--out`/`--plot` does may damage a
//! file it should not touch, and one failing output leaves none behind.

use assert_cmd::Command;
use std::fs;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};

fn modelopt() -> Command {
    Command::cargo_bin("modelopt").unwrap()
}

#[test]
fn regression_out_dev_full_is_an_error_and_the_device_stays_a_device() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("skipped: this system has no /dev/full");
        return;
    }
    let out = modelopt()
        .args(["barrier", "-m", "xeon-phi", "-n", "8", "--out", "/dev/full"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot write /dev/full"), "{stderr}");
    assert!(!stderr.contains(".modelopt-"), "temp path leaked: {stderr}");
    assert!(fs::metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn regression_out_keeps_a_private_file_private() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("result.txt");
    fs::write(&path, "old").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    modelopt()
        .args(["barrier", "-m", "xeon-phi", "-n", "8", "--out"])
        .arg(&path)
        .assert()
        .success();
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(fs::read_to_string(&path).unwrap().contains("dissemination"));
}

#[test]
fn regression_out_through_a_symlink_writes_the_target_and_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.txt");
    let link = dir.path().join("link.txt");
    fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    modelopt()
        .args(["barrier", "-m", "xeon-phi", "-n", "8", "--out"])
        .arg(&link)
        .assert()
        .success();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read_to_string(&real).unwrap().contains("dissemination"));
}

#[test]
fn regression_plot_and_bad_out_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("ok.svg");
    let out = modelopt()
        .args([
            "sweep", "-m", "xeon-phi", "-c", "barrier", "-n", "2..=8", "--plot",
        ])
        .arg(&svg)
        .args(["--out", "/nonexistent/x.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!svg.exists(), "the chart was written although --out failed");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn out_dash_is_standard_output() {
    let out = modelopt()
        .args(["barrier", "-m", "xeon-phi", "-n", "8", "--out", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // Printed once, not twice.
    assert_eq!(text.matches("best: dissemination").count(), 1, "{text}");
}

#[test]
fn regression_top_3_shows_three_rows() {
    let out = modelopt()
        .args([
            "bcast", "-m", "xeon-phi", "-n", "60", "--top", "3", "--format", "csv",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // A header and three ranked rows.
    assert_eq!(text.lines().count(), 4, "{text}");
}

#[test]
fn regression_compare_the_same_machine_twice_is_refused() {
    let out = modelopt()
        .args([
            "compare",
            "--machines",
            "xeon-phi,xeon-phi",
            "-c",
            "barrier",
            "-n",
            "2..=4",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("xeon-phi is listed twice"), "{stderr}");
}

#[test]
fn regression_unknown_fix_name_is_named() {
    let out = modelopt()
        .args(["barrier", "-m", "xeon-phi", "-n", "8", "--fix", "nope=3"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("unknown parameter `nope`"), "{stderr}");
    assert!(stderr.contains("degree"), "{stderr}");
}
