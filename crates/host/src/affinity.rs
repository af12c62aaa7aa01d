//! The CPUs this process may run on, and pinning a thread to one of them.
//!
//! Linux only, through libc's `sched_getaffinity`/`sched_setaffinity` (man 2 sched_setaffinity).
//! The mask already reflects a cgroup cpuset limit (the kernel intersects them); the cgroup file
//! is read separately only to say *why* fewer CPUs are allowed ([`crate::topology::cgroup_cpuset_at`]).
//! `cpu_set_t` holds `CPU_SETSIZE` = 1024 CPUs; hosts with more are not supported by this mask.

use crate::error::HostError;

/// The CPUs the calling thread may run on (its affinity mask), ascending.
#[cfg(target_os = "linux")]
pub fn allowed_cpus() -> Result<Vec<usize>, HostError> {
    // SAFETY: cpu_set_t is a plain bit array for which all-zero is a valid (empty) value;
    // sched_getaffinity writes at most size_of::<cpu_set_t>() bytes into it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(HostError::Sys {
            call: "sched_getaffinity",
            source: std::io::Error::last_os_error(),
        });
    }
    let size = usize::try_from(libc::CPU_SETSIZE).unwrap_or(1024);
    // SAFETY: CPU_ISSET reads one bit of a valid set; cpu < CPU_SETSIZE.
    Ok((0..size)
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}

/// The CPUs the calling thread may run on (unsupported off Linux).
#[cfg(not(target_os = "linux"))]
pub fn allowed_cpus() -> Result<Vec<usize>, HostError> {
    Err(HostError::Unsupported(format!(
        "affinity masks are read on Linux only (this is {})",
        std::env::consts::OS
    )))
}

/// Pin the calling thread to one CPU.
#[cfg(target_os = "linux")]
pub fn pin_current_thread(cpu: usize) -> Result<(), HostError> {
    let size = usize::try_from(libc::CPU_SETSIZE).unwrap_or(1024);
    if cpu >= size {
        return Err(HostError::CpuNotUsable {
            cpu,
            usable: format!("0-{} (the affinity mask size)", size - 1),
        });
    }
    // SAFETY: an all-zero cpu_set_t is the empty set; CPU_SET writes one bit below CPU_SETSIZE;
    // sched_setaffinity reads size_of::<cpu_set_t>() bytes of it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut set) };
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(HostError::Sys {
            call: "sched_setaffinity",
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// Pin the calling thread to one CPU (unsupported off Linux).
#[cfg(not(target_os = "linux"))]
pub fn pin_current_thread(cpu: usize) -> Result<(), HostError> {
    let _ = cpu;
    Err(HostError::Unsupported(format!(
        "thread pinning is implemented on Linux only (this is {})",
        std::env::consts::OS
    )))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn pinning_to_an_allowed_cpu_keeps_the_thread_there() {
        let allowed = allowed_cpus().unwrap();
        assert!(!allowed.is_empty());
        let cpu = *allowed.last().unwrap();
        std::thread::spawn(move || {
            pin_current_thread(cpu).unwrap();
            assert_eq!(allowed_cpus().unwrap(), vec![cpu]);
        })
        .join()
        .unwrap();
    }
}
