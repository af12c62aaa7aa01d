//! Linux CPU topology from sysfs: sockets (packages), last-level-cache (L3) domains, cores and
//! hardware threads, NUMA nodes, online CPUs, and the signs of a virtual machine.
//!
//! Every reader takes a `root` path (`/` on a real host) so that tests can build a fake sysfs tree
//! in a temporary directory. The files read are the kernel's documented ABI
//! (Documentation/ABI/stable/sysfs-devices-system-cpu and .../testing/sysfs-devices-system-cpu):
//!
//! | file (under `sys/devices/system/cpu/`) | used for |
//! |---|---|
//! | `online`, `present` | CPUs that run, CPUs that exist |
//! | `cpuN/topology/physical_package_id` | socket |
//! | `cpuN/topology/core_id`, `thread_siblings_list` | core (the set of SMT siblings) |
//! | `cpuN/cache/indexI/{level,type,shared_cpu_list,coherency_line_size}` | L3 domain, line size |
//! | `../node/nodeK/cpulist` | NUMA node |
//!
//! The hierarchy is kept whole ([`Socket`] → [`L3Domain`] → [`Core`] → hardware threads) so that
//! a machine file with a cost per level can be written from it directly; the flat
//! `sockets × cores_per_socket × threads_per_core` shape of today's machine files is
//! [`Topology::shape`].

use crate::error::HostError;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Largest CPU number accepted in a CPU list (a guard against a corrupt file asking for a huge
/// allocation). Linux's own limit (`CONFIG_NR_CPUS`) is 8192.
pub const MAX_CPU: usize = 8191;

/// How two hardware threads relate, nearest first: the location classes of seed 000 Tables
/// 1.5–1.8 and seed 001 §2.1, named after the hardware level they share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LocationClass {
    /// Two hardware threads of one core (SMT siblings), sharing L1 and L2.
    SmtSibling,
    /// Two cores sharing a last-level cache (L3) domain.
    SameL3,
    /// Two cores of one socket in different L3 domains (e.g. two CCXs or sub-NUMA clusters).
    SameSocket,
    /// Two sockets.
    OtherSocket,
}

impl LocationClass {
    /// Every class, nearest first.
    pub const ALL: [LocationClass; 4] = [
        LocationClass::SmtSibling,
        LocationClass::SameL3,
        LocationClass::SameSocket,
        LocationClass::OtherSocket,
    ];

    /// The key used in machine files and reports (`same_l3`).
    pub fn key(self) -> &'static str {
        match self {
            LocationClass::SmtSibling => "smt_sibling",
            LocationClass::SameL3 => "same_l3",
            LocationClass::SameSocket => "same_socket",
            LocationClass::OtherSocket => "other_socket",
        }
    }
}

/// One hardware thread (a Linux CPU).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cpu {
    /// Linux CPU number.
    pub id: usize,
    /// `physical_package_id`: the socket.
    pub package: u32,
    /// `core_id` (unique within a package only).
    pub core_id: u32,
    /// The SMT siblings, this CPU included (`thread_siblings_list`).
    pub siblings: Vec<usize>,
    /// The CPUs sharing this CPU's last-level cache (`shared_cpu_list` of the highest cache
    /// level); `None` when sysfs has no cache information.
    pub llc: Option<Vec<usize>>,
    /// Level of that cache (3 on most servers).
    pub llc_level: Option<u32>,
    /// NUMA node, when `/sys/devices/system/node` lists one.
    pub node: Option<u32>,
}

/// One core: its hardware threads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Core {
    /// `core_id` of its threads.
    pub core_id: u32,
    /// Linux CPU numbers of its hardware threads, ascending.
    pub threads: Vec<usize>,
}

/// One last-level-cache domain of a socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct L3Domain {
    /// Its cores, by lowest CPU number.
    pub cores: Vec<Core>,
}

/// One socket (package).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Socket {
    /// `physical_package_id`.
    pub package: u32,
    /// Its L3 domains, by lowest CPU number.
    pub l3_domains: Vec<L3Domain>,
}

/// One NUMA node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumaNode {
    /// Node number.
    pub id: u32,
    /// Its CPUs.
    pub cpus: Vec<usize>,
}

/// The flat shape today's machine files use (`[topology]` of `machines/*.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Sockets.
    pub sockets: u32,
    /// Largest number of cores of one socket.
    pub cores_per_socket: u32,
    /// Largest number of hardware threads of one core.
    pub threads_per_core: u32,
    /// Whether every socket has the same cores and every core the same threads.
    pub uniform: bool,
}

/// The hierarchy of a set of CPUs (all online CPUs, or those a process may use).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    /// The CPUs, ascending by number.
    pub cpus: Vec<Cpu>,
    /// Sockets → L3 domains → cores → threads, each ordered by lowest CPU number.
    pub sockets: Vec<Socket>,
    /// NUMA nodes with at least one of the CPUs (empty when sysfs lists none).
    pub numa_nodes: Vec<NumaNode>,
    /// Coherency line size in bytes, when sysfs gives one.
    pub line_bytes: Option<u32>,
    /// CPUs that exist (`present`), which may be more than those described.
    pub present: Vec<usize>,
}

impl Topology {
    /// The CPU with Linux number `id`.
    pub fn cpu(&self, id: usize) -> Option<&Cpu> {
        self.cpus
            .binary_search_by_key(&id, |c| c.id)
            .ok()
            .map(|i| &self.cpus[i])
    }

    /// How two distinct CPUs relate; `None` if either is not in the topology or `a == b`.
    pub fn classify(&self, a: usize, b: usize) -> Option<LocationClass> {
        if a == b {
            return None;
        }
        let (x, y) = (self.cpu(a)?, self.cpu(b)?);
        Some(if x.package != y.package {
            LocationClass::OtherSocket
        } else if x.siblings.contains(&b) {
            LocationClass::SmtSibling
        } else if x.llc.as_ref().is_some_and(|l| l.contains(&b)) || x.llc.is_none() {
            // Without cache information the whole socket is taken as one domain.
            LocationClass::SameL3
        } else {
            LocationClass::SameSocket
        })
    }

    /// Up to `count` representative pairs (a, b), a < b, of a location class: the pairs of the
    /// class in lexicographic order, taking in a first pass only pairs whose two CPUs no chosen
    /// pair uses yet (so the pairs spread over the machine), then filling up in order.
    /// Deterministic.
    pub fn representative_pairs(&self, class: LocationClass, count: usize) -> Vec<(usize, usize)> {
        let mut chosen = Vec::new();
        let mut used = BTreeSet::new();
        let mut all = Vec::new();
        for (i, a) in self.cpus.iter().enumerate() {
            for b in &self.cpus[i + 1..] {
                if self.classify(a.id, b.id) == Some(class) {
                    all.push((a.id, b.id));
                }
            }
            // Bound the work on 200-CPU hosts: enough candidates for a spread.
            if all.len() > count.saturating_mul(64) {
                break;
            }
        }
        for &(a, b) in &all {
            if chosen.len() == count {
                break;
            }
            if !used.contains(&a) && !used.contains(&b) {
                used.insert(a);
                used.insert(b);
                chosen.push((a, b));
            }
        }
        for &(a, b) in &all {
            if chosen.len() == count {
                break;
            }
            if !chosen.contains(&(a, b)) {
                chosen.push((a, b));
            }
        }
        chosen
    }

    /// The classes with at least one pair among the CPUs.
    pub fn classes(&self) -> Vec<LocationClass> {
        LocationClass::ALL
            .into_iter()
            .filter(|c| !self.representative_pairs(*c, 1).is_empty())
            .collect()
    }

    /// The flat sockets × cores × threads shape (largest counts when not uniform).
    pub fn shape(&self) -> Shape {
        let cores: Vec<Vec<usize>> = self
            .sockets
            .iter()
            .map(|s| {
                s.l3_domains
                    .iter()
                    .flat_map(|d| d.cores.iter().map(|c| c.threads.len()))
                    .collect()
            })
            .collect();
        let cores_per_socket = cores.iter().map(Vec::len).max().unwrap_or(0);
        let threads_per_core = cores.iter().flatten().copied().max().unwrap_or(0);
        let uniform = cores
            .iter()
            .all(|s| s.len() == cores_per_socket && s.iter().all(|&t| t == threads_per_core));
        Shape {
            sockets: to_u32(self.sockets.len()),
            cores_per_socket: to_u32(cores_per_socket),
            threads_per_core: to_u32(threads_per_core),
            uniform,
        }
    }

    /// The same hierarchy restricted to the CPUs in `keep` (e.g. the affinity mask).
    pub fn restricted_to(&self, keep: &[usize]) -> Topology {
        let cpus: Vec<Cpu> = self
            .cpus
            .iter()
            .filter(|c| keep.contains(&c.id))
            .cloned()
            .collect();
        let numa_nodes = self
            .numa_nodes
            .iter()
            .map(|n| NumaNode {
                id: n.id,
                cpus: n
                    .cpus
                    .iter()
                    .copied()
                    .filter(|c| keep.contains(c))
                    .collect(),
            })
            .filter(|n| !n.cpus.is_empty())
            .collect();
        Topology {
            sockets: build_hierarchy(&cpus),
            cpus,
            numa_nodes,
            line_bytes: self.line_bytes,
            present: self.present.clone(),
        }
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Parse a kernel CPU list such as `0-3,8,10-11` (Documentation/admin-guide/cputopology.rst).
/// Ranges are bounded by [`MAX_CPU`]. The result is ascending without duplicates.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, String> {
    let mut out = BTreeSet::new();
    for part in text.trim().split(',').filter(|p| !p.trim().is_empty()) {
        let part = part.trim();
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (parse_cpu(a)?, parse_cpu(b)?),
            None => {
                let c = parse_cpu(part)?;
                (c, c)
            }
        };
        if lo > hi {
            return Err(format!("range {part} runs backwards"));
        }
        out.extend(lo..=hi);
    }
    Ok(out.into_iter().collect())
}

fn parse_cpu(text: &str) -> Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a CPU number", text.trim()))?;
    if n > MAX_CPU {
        return Err(format!("CPU {n} is above the limit {MAX_CPU}"));
    }
    Ok(n)
}

fn read(path: &Path) -> Result<String, HostError> {
    std::fs::read_to_string(path).map_err(|source| HostError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn read_list(path: &Path) -> Result<Vec<usize>, HostError> {
    let text = read(path)?;
    parse_cpu_list(&text).map_err(|reason| HostError::Parse {
        path: path.to_path_buf(),
        text: text.trim().to_string(),
        reason,
    })
}

fn read_u32(path: &Path) -> Result<u32, HostError> {
    let text = read(path)?;
    let t = text.trim();
    // physical_package_id is -1 on some platforms without package information: socket 0.
    if t == "-1" {
        return Ok(0);
    }
    t.parse().map_err(|_| HostError::Parse {
        path: path.to_path_buf(),
        text: t.to_string(),
        reason: "not a non-negative integer".into(),
    })
}

/// The sysfs CPU directory under `root`.
fn cpu_dir(root: &Path) -> PathBuf {
    root.join("sys/devices/system/cpu")
}

/// Discover the topology of the online CPUs of the host whose filesystem root is `root`
/// (`Path::new("/")` on the real host).
///
/// Errors: [`HostError::Unsupported`] when `root` has no sysfs CPU tree (not Linux, or sysfs not
/// mounted); [`HostError::Read`]/[`HostError::Parse`] when a file the kernel documents is missing
/// or malformed.
pub fn discover_at(root: &Path) -> Result<Topology, HostError> {
    let dir = cpu_dir(root);
    let online_path = dir.join("online");
    if !online_path.is_file() {
        return Err(HostError::Unsupported(format!(
            "{} does not exist (modelopt reads the Linux sysfs CPU topology)",
            online_path.display()
        )));
    }
    let online = read_list(&online_path)?;
    let present = match read_list(&dir.join("present")) {
        Ok(p) => p,
        Err(HostError::Read { .. }) => online.clone(),
        Err(e) => return Err(e),
    };
    let nodes = read_numa_nodes(root)?;
    let mut line_bytes = None;
    let mut cpus = Vec::with_capacity(online.len());
    for &id in &online {
        let base = dir.join(format!("cpu{id}"));
        let topo = base.join("topology");
        let package = read_u32(&topo.join("physical_package_id"))?;
        let core_id = read_u32(&topo.join("core_id"))?;
        let siblings = read_list(&topo.join("thread_siblings_list"))?;
        let (llc, llc_level, line) = read_llc(&base.join("cache"))?;
        if line_bytes.is_none() {
            line_bytes = line;
        }
        let node = nodes.iter().find(|n| n.cpus.contains(&id)).map(|n| n.id);
        cpus.push(Cpu {
            id,
            package,
            core_id,
            siblings,
            llc,
            llc_level,
            node,
        });
    }
    if cpus.is_empty() {
        return Err(HostError::Unsupported(format!(
            "{} lists no online CPU",
            online_path.display()
        )));
    }
    Ok(Topology {
        sockets: build_hierarchy(&cpus),
        numa_nodes: nodes
            .into_iter()
            .map(|n| NumaNode {
                id: n.id,
                cpus: n.cpus.into_iter().filter(|c| online.contains(c)).collect(),
            })
            .filter(|n| !n.cpus.is_empty())
            .collect(),
        cpus,
        line_bytes,
        present,
    })
}

/// [`discover_at`] on the real host.
pub fn discover() -> Result<Topology, HostError> {
    if !cfg!(target_os = "linux") {
        return Err(HostError::Unsupported(format!(
            "{} is not Linux",
            std::env::consts::OS
        )));
    }
    discover_at(Path::new("/"))
}

/// What a CPU's `cache/` directory says: the last-level cache's sharing CPUs and level, and the
/// coherency line size.
type LlcInfo = (Option<Vec<usize>>, Option<u32>, Option<u32>);

/// The highest-level unified or data cache of a CPU: its sharing CPUs, level, and line size.
fn read_llc(cache: &Path) -> Result<LlcInfo, HostError> {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return Ok((None, None, None));
    };
    let mut best: Option<(u32, Vec<usize>)> = None;
    let mut line = None;
    let mut indices: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("index"))
        })
        .collect();
    indices.sort();
    for index in indices {
        let level = read_u32(&index.join("level"))?;
        let kind = read(&index.join("type")).unwrap_or_else(|_| "Unified".into());
        if kind.trim() == "Instruction" {
            continue;
        }
        if line.is_none() {
            line = read_u32(&index.join("coherency_line_size")).ok();
        }
        let shared = read_list(&index.join("shared_cpu_list"))?;
        if best.as_ref().is_none_or(|(l, _)| level > *l) {
            best = Some((level, shared));
        }
    }
    Ok(match best {
        Some((level, shared)) => (Some(shared), Some(level), line),
        None => (None, None, line),
    })
}

fn read_numa_nodes(root: &Path) -> Result<Vec<NumaNode>, HostError> {
    let dir = root.join("sys/devices/system/node");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut nodes = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(id) = name
            .to_str()
            .and_then(|n| n.strip_prefix("node"))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let cpus = read_list(&entry.path().join("cpulist"))?;
        nodes.push(NumaNode { id, cpus });
    }
    nodes.sort_by_key(|n| n.id);
    Ok(nodes)
}

/// Group CPUs into sockets → L3 domains → cores, each ordered by lowest CPU number.
fn build_hierarchy(cpus: &[Cpu]) -> Vec<Socket> {
    // package → llc key → core key (sibling list) → (core_id, threads)
    type Cores = BTreeMap<Vec<usize>, (u32, Vec<usize>)>;
    let mut tree: BTreeMap<u32, BTreeMap<Vec<usize>, Cores>> = BTreeMap::new();
    for cpu in cpus {
        let llc_key = cpu.llc.clone().unwrap_or_default();
        let core = tree
            .entry(cpu.package)
            .or_default()
            .entry(llc_key)
            .or_default()
            .entry(cpu.siblings.clone())
            .or_insert((cpu.core_id, Vec::new()));
        core.1.push(cpu.id);
    }
    let lowest = |v: &[usize]| v.first().copied().unwrap_or(usize::MAX);
    let mut sockets: Vec<Socket> = tree
        .into_iter()
        .map(|(package, domains)| {
            let mut l3_domains: Vec<L3Domain> = domains
                .into_values()
                .map(|cores| {
                    let mut cores: Vec<Core> = cores
                        .into_values()
                        .map(|(core_id, mut threads)| {
                            threads.sort_unstable();
                            Core { core_id, threads }
                        })
                        .collect();
                    cores.sort_by_key(|c| lowest(&c.threads));
                    L3Domain { cores }
                })
                .collect();
            l3_domains.sort_by_key(|d| d.cores.first().map_or(usize::MAX, |c| lowest(&c.threads)));
            Socket {
                package,
                l3_domains,
            }
        })
        .collect();
    sockets.sort_by_key(|s| {
        s.l3_domains
            .first()
            .and_then(|d| d.cores.first())
            .map_or(usize::MAX, |c| lowest(&c.threads))
    });
    sockets
}

/// What the host says about itself: CPU model and signs of virtualization.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostInfo {
    /// `model name` of the first processor in `/proc/cpuinfo`.
    pub cpu_model: Option<String>,
    /// Why the host looks virtual (`hypervisor` CPU flag, `/sys/hypervisor/type`), if it does.
    pub virtualized: Option<String>,
}

/// Read [`HostInfo`] under `root`. Missing files mean "unknown", not an error.
pub fn host_info_at(root: &Path) -> HostInfo {
    let cpuinfo = std::fs::read_to_string(root.join("proc/cpuinfo")).unwrap_or_default();
    let field = |name: &str| {
        cpuinfo.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
    };
    let cpu_model = field("model name")
        .or_else(|| field("Model"))
        .filter(|m| !m.is_empty());
    let mut reasons = Vec::new();
    if field("flags").is_some_and(|f| f.split_whitespace().any(|x| x == "hypervisor")) {
        reasons.push("the CPU reports the `hypervisor` flag".to_string());
    }
    if let Ok(t) = std::fs::read_to_string(root.join("sys/hypervisor/type")) {
        if !t.trim().is_empty() {
            reasons.push(format!("/sys/hypervisor/type is `{}`", t.trim()));
        }
    }
    HostInfo {
        cpu_model,
        virtualized: (!reasons.is_empty()).then(|| reasons.join("; ")),
    }
}

/// The cgroup v2 cpuset limit of this process (`cpuset.cpus.effective` of its cgroup), under
/// `root`; `None` when there is no cgroup v2 cpuset file to read.
pub fn cgroup_cpuset_at(root: &Path) -> Option<Vec<usize>> {
    let cgroup = std::fs::read_to_string(root.join("proc/self/cgroup")).ok()?;
    let path = cgroup
        .lines()
        .find_map(|l| l.strip_prefix("0::"))?
        .trim()
        .trim_start_matches('/');
    let mut dir = root.join("sys/fs/cgroup");
    if !path.is_empty() {
        dir = dir.join(path);
    }
    let text = std::fs::read_to_string(dir.join("cpuset.cpus.effective")).ok()?;
    let list = parse_cpu_list(&text).ok()?;
    (!list.is_empty()).then_some(list)
}
