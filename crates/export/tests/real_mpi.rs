//! Proof against the real libraries: runs `scripts/mpi-check.sh` on the hand-built files when
//! Open MPI and MPICH are installed (`scripts/mpi-install.sh`), and prints why it skips when not.
//! The script checks that Open MPI runs with a classic rules file and that a rules file forcing a
//! slow bcast changes the measured time, and that MPICH runs with the JSON and fails with a
//! broken one.

use std::process::Command;

#[test]
fn real_libraries_accept_the_generated_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let missing: Vec<&str> = [
        "mpicc.openmpi",
        "mpirun.openmpi",
        "mpicc.mpich",
        "mpiexec.mpich",
    ]
    .into_iter()
    .filter(|tool| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {tool}"))
            .output()
            .map_or(true, |o| !o.status.success())
    })
    .collect();
    if !missing.is_empty() {
        println!(
            "skipped: {} not installed (run scripts/mpi-install.sh)",
            missing.join(", ")
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("modelopt-real-mpi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let status = Command::new("cargo")
        .current_dir(&root)
        .args([
            "run",
            "-q",
            "-p",
            "modelopt-export",
            "--example",
            "handbuilt_files",
            "--",
        ])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success(), "writing the hand-built files failed");
    let out = Command::new("bash")
        .arg(root.join("scripts/mpi-check.sh"))
        .arg(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "mpi-check failed:\n{text}");
    assert!(text.contains("mpi-check: 0 failed"));
}
