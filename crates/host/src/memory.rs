//! The memory this process may use, so that a memory limit past it is refused before a search
//! allocates up to it (an allocation past it aborts, or meets the kernel's OOM killer).

/// The memory this process may use: the machine's (`MemTotal` of `/proc/meminfo`), or its
/// control group's limit where that is lower (cgroup v2 `memory.max`, v1
/// `memory.limit_in_bytes`: a container's); `None` where none can be read.
pub fn usable_bytes() -> Option<u64> {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_total(&text));
    // "max" (v2) or a huge number (v1) where there is no limit: not a number, or not lower.
    let cgroup = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .filter_map(|path| {
        std::fs::read_to_string(path)
            .ok()?
            .trim()
            .parse::<u64>()
            .ok()
    })
    .min();
    match (total, cgroup) {
        (Some(t), Some(c)) => Some(t.min(c)),
        (t, c) => t.or(c),
    }
}

/// `MemTotal` of a `/proc/meminfo` text, bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// A memory limit of `bytes` if this process may use that much ([`usable_bytes`]; unchecked
/// where that cannot be read), else the one-line reason.
pub fn check_limit(bytes: u64) -> Result<u64, String> {
    match usable_bytes() {
        Some(total) if bytes > total => Err(format!(
            "{bytes} bytes: more than the memory this process may use ({total} bytes: the machine's, or its container's limit); give at most {}M",
            total >> 20
        )),
        _ => Ok(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_total_is_read_in_bytes() {
        let text = "MemTotal:       24684084 kB\nMemFree:          1000 kB\n";
        // 24,684,084 KiB × 1,024 = 25,276,502,016 bytes.
        assert_eq!(mem_total(text), Some(25_276_502_016));
        assert_eq!(mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(mem_total("MemTotal: lots kB\n"), None);
    }

    #[test]
    fn a_limit_past_the_usable_memory_is_refused() {
        match usable_bytes() {
            Some(total) => {
                assert_eq!(check_limit(total), Ok(total));
                let e = check_limit(total + 1).unwrap_err();
                assert!(e.contains(&format!("give at most {}M", total >> 20)), "{e}");
            }
            None => assert_eq!(check_limit(u64::MAX), Ok(u64::MAX)),
        }
    }
}
