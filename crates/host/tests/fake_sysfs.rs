//! Topology discovery on fake sysfs trees written in a temporary directory.

use modelopt_host::topology::{cgroup_cpuset_at, discover_at, host_info_at, parse_cpu_list};
use modelopt_host::{HostError, LocationClass};
use std::fs;
use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// 2 sockets × 2 L3 domains × 4 cores × 2 SMT threads = 32 CPUs, numbered the way Linux numbers
/// most Intel servers: the first hardware thread of every core first (CPUs 0–15), then the
/// second (16–31). Core c (0..16) has threads c and c+16; socket = c / 8; L3 domain within the
/// socket = (c % 8) / 4; NUMA node = socket.
fn fake_two_socket(root: &Path) {
    write(root, "sys/devices/system/cpu/online", "0-31\n");
    write(root, "sys/devices/system/cpu/present", "0-31\n");
    for cpu in 0..32 {
        let core = cpu % 16;
        let socket = core / 8;
        let domain = (core % 8) / 4;
        let first = socket * 8 + domain * 4; // lowest core of the L3 domain
        let base = format!("sys/devices/system/cpu/cpu{cpu}");
        write(
            root,
            &format!("{base}/topology/physical_package_id"),
            &format!("{socket}\n"),
        );
        write(
            root,
            &format!("{base}/topology/core_id"),
            &format!("{}\n", core % 8),
        );
        write(
            root,
            &format!("{base}/topology/thread_siblings_list"),
            &format!("{core},{}\n", core + 16),
        );
        for (index, level, kind, shared) in [
            (0, 1, "Data", format!("{core},{}", core + 16)),
            (1, 1, "Instruction", format!("{core},{}", core + 16)),
            (2, 2, "Unified", format!("{core},{}", core + 16)),
            (
                3,
                3,
                "Unified",
                format!("{}-{},{}-{}", first, first + 3, first + 16, first + 19),
            ),
        ] {
            let c = format!("{base}/cache/index{index}");
            write(root, &format!("{c}/level"), &format!("{level}\n"));
            write(root, &format!("{c}/type"), &format!("{kind}\n"));
            write(
                root,
                &format!("{c}/shared_cpu_list"),
                &format!("{shared}\n"),
            );
            write(root, &format!("{c}/coherency_line_size"), "64\n");
        }
    }
    write(root, "sys/devices/system/node/node0/cpulist", "0-7,16-23\n");
    write(
        root,
        "sys/devices/system/node/node1/cpulist",
        "8-15,24-31\n",
    );
    write(root, "sys/devices/system/node/possible", "0-1\n");
}

#[test]
fn two_socket_two_l3_four_core_smt2_hierarchy() {
    let dir = tempfile::tempdir().unwrap();
    fake_two_socket(dir.path());
    let t = discover_at(dir.path()).unwrap();
    assert_eq!(t.cpus.len(), 32);
    assert_eq!(t.line_bytes, Some(64));
    // Hierarchy by hand: socket 0 = cores 0–7 → domains {0-3}, {4-7}; core 0 = CPUs 0 and 16.
    assert_eq!(t.sockets.len(), 2);
    for s in &t.sockets {
        assert_eq!(s.l3_domains.len(), 2);
        for d in &s.l3_domains {
            assert_eq!(d.cores.len(), 4);
            assert!(d.cores.iter().all(|c| c.threads.len() == 2));
        }
    }
    assert_eq!(t.sockets[0].package, 0);
    assert_eq!(t.sockets[0].l3_domains[0].cores[0].threads, vec![0, 16]);
    assert_eq!(t.sockets[0].l3_domains[1].cores[0].threads, vec![4, 20]);
    assert_eq!(t.sockets[1].l3_domains[1].cores[3].threads, vec![15, 31]);
    assert_eq!(t.cpu(9).unwrap().node, Some(1));
    assert_eq!(t.numa_nodes.len(), 2);
    let shape = t.shape();
    assert_eq!(
        (
            shape.sockets,
            shape.cores_per_socket,
            shape.threads_per_core
        ),
        (2, 8, 2)
    );
    assert!(shape.uniform);
    // Classes: 0–16 SMT siblings; 0–3 one L3; 0–4 one socket, two L3 domains; 0–8 two sockets.
    assert_eq!(t.classify(0, 16), Some(LocationClass::SmtSibling));
    assert_eq!(t.classify(0, 3), Some(LocationClass::SameL3));
    assert_eq!(t.classify(0, 19), Some(LocationClass::SameL3));
    assert_eq!(t.classify(0, 4), Some(LocationClass::SameSocket));
    assert_eq!(t.classify(0, 8), Some(LocationClass::OtherSocket));
    assert_eq!(t.classify(0, 0), None);
    assert_eq!(t.classes(), LocationClass::ALL.to_vec());
    // Representative pairs: first pass one pair per first CPU, in lexicographic order:
    // SMT pairs are (0,16), (1,17), (2,18).
    assert_eq!(
        t.representative_pairs(LocationClass::SmtSibling, 3),
        vec![(0, 16), (1, 17), (2, 18)]
    );
    // Other-socket pairs start (0,8); the next first CPU not yet used is 1 → (1,9).
    assert_eq!(
        t.representative_pairs(LocationClass::OtherSocket, 2),
        vec![(0, 8), (1, 9)]
    );
}

#[test]
fn restricting_to_an_affinity_mask_shrinks_the_hierarchy() {
    let dir = tempfile::tempdir().unwrap();
    fake_two_socket(dir.path());
    let t = discover_at(dir.path()).unwrap();
    // CPUs 0, 1, 16: one socket, one L3 domain, cores {0,16} and {1}.
    let r = t.restricted_to(&[0, 1, 16]);
    assert_eq!(r.sockets.len(), 1);
    assert_eq!(r.sockets[0].l3_domains.len(), 1);
    let shape = r.shape();
    assert_eq!(
        (
            shape.sockets,
            shape.cores_per_socket,
            shape.threads_per_core
        ),
        (1, 2, 2)
    );
    assert!(!shape.uniform);
    assert_eq!(
        r.classes(),
        vec![LocationClass::SmtSibling, LocationClass::SameL3]
    );
    assert_eq!(r.numa_nodes.len(), 1);
}

#[test]
fn a_root_without_sysfs_is_a_typed_unsupported_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        discover_at(dir.path()),
        Err(HostError::Unsupported(_))
    ));
}

#[test]
fn a_malformed_file_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    fake_two_socket(dir.path());
    write(
        dir.path(),
        "sys/devices/system/cpu/cpu3/topology/thread_siblings_list",
        "3-x\n",
    );
    let err = discover_at(dir.path()).unwrap_err();
    assert!(matches!(err, HostError::Parse { .. }));
    assert!(
        err.to_string()
            .contains("cpu3/topology/thread_siblings_list"),
        "{err}"
    );
}

#[test]
fn hypervisor_flag_and_cgroup_limit_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "proc/cpuinfo",
        "processor\t: 0\nmodel name\t: Fake CPU @ 2.0GHz\nflags\t\t: fpu sse2 hypervisor avx\n",
    );
    write(dir.path(), "proc/self/cgroup", "0::/user.slice/job\n");
    write(
        dir.path(),
        "sys/fs/cgroup/user.slice/job/cpuset.cpus.effective",
        "2-3\n",
    );
    let info = host_info_at(dir.path());
    assert_eq!(info.cpu_model.as_deref(), Some("Fake CPU @ 2.0GHz"));
    assert!(info.virtualized.unwrap().contains("hypervisor"));
    assert_eq!(cgroup_cpuset_at(dir.path()), Some(vec![2, 3]));
    let bare = tempfile::tempdir().unwrap();
    assert_eq!(host_info_at(bare.path()).virtualized, None);
}

#[test]
fn cpu_lists_parse_as_the_kernel_writes_them() {
    assert_eq!(
        parse_cpu_list("0-3,8,10-11\n").unwrap(),
        vec![0, 1, 2, 3, 8, 10, 11]
    );
    assert_eq!(parse_cpu_list("").unwrap(), Vec::<usize>::new());
    assert!(parse_cpu_list("3-1").is_err());
    assert!(parse_cpu_list("0-99999999").is_err());
}
