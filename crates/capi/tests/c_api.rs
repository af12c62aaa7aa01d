//! The C interface called from Rust: the same numbers as the library's job, errors as messages,
//! NULL safety and concurrent calls; and the C example compiled with the system C compiler.

use modelopt::*;
use modelopt_model::{machine, Collective};
use modelopt_optimizer::job::TuneJob;
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::ptr;

fn load(name: &str) -> *mut modelopt_machine {
    let name = CString::new(name).unwrap();
    let mut err = ptr::null_mut();
    let m = unsafe { modelopt_machine_load(name.as_ptr(), &mut err) };
    assert!(!m.is_null() && err.is_null());
    m
}

fn message(err: *mut modelopt_error) -> String {
    let text = unsafe { CStr::from_ptr(modelopt_error_message(err)) }
        .to_str()
        .unwrap()
        .to_string();
    unsafe { modelopt_error_free(err) };
    text
}

#[test]
fn broadcast_tree_equals_the_library_and_the_seed() {
    let m = load("xeon-phi");
    let mut err = ptr::null_mut();
    let r = unsafe { modelopt_tune(m, MODELOPT_BCAST, 60, 0, &mut err) };
    assert!(!r.is_null() && err.is_null());
    let phi = machine::load("xeon-phi").unwrap();
    let report = TuneJob::builder(&phi, Collective::Bcast, 60)
        .build()
        .unwrap()
        .run()
        .unwrap();
    unsafe {
        let alg = CStr::from_ptr(modelopt_result_algorithm(r))
            .to_str()
            .unwrap();
        assert_eq!(alg, report.algorithm);
        assert_eq!(modelopt_result_t_min_ns(r), report.t_min_ns);
        assert_eq!(modelopt_result_t_max_ns(r), report.t_max_ns);
        // Seed 000, Table B.1 at 60 threads: depth 3, degrees (4, 4, 3) — 1 + 4 + 16 + 48 ≥ 60.
        assert_eq!(modelopt_result_tree_depth(r), 3);
        let degrees: Vec<i32> = (0..4).map(|i| modelopt_result_tree_degree(r, i)).collect();
        assert_eq!(degrees, vec![4, 4, 3, -1]);
        assert_eq!(modelopt_result_dissemination_degree(r), -1);
        let mut v = 0i64;
        let k2 = CString::new("k2").unwrap();
        assert!(modelopt_result_param_named(r, k2.as_ptr(), &mut v));
        assert_eq!(v, 4);
        let nope = CString::new("nope").unwrap();
        assert!(!modelopt_result_param_named(r, nope.as_ptr(), &mut v));
        // The JSON is the CLI's: serde_json of the same report, pretty, newline-terminated.
        let json = CStr::from_ptr(modelopt_result_json(r)).to_str().unwrap();
        assert_eq!(json, serde_json::to_string_pretty(&report).unwrap() + "\n");
        modelopt_result_free(r);
        modelopt_machine_free(m);
    }
}

#[test]
fn barrier_dissemination_degree_and_rounds() {
    let m = load("xeon-phi");
    let mut err = ptr::null_mut();
    let max = CString::new("max").unwrap();
    let r = unsafe {
        modelopt_tune_with(
            m,
            MODELOPT_BARRIER,
            60,
            0,
            max.as_ptr(),
            ptr::null(),
            ptr::null(),
            1,
            false,
            &mut err,
        )
    };
    assert!(!r.is_null());
    unsafe {
        // Seed 000, Table B.2 at 60 threads: m = 4, r = 3 (4^3 = 64 ≥ 60 > 4^2).
        assert_eq!(modelopt_result_dissemination_degree(r), 4);
        assert_eq!(modelopt_result_dissemination_rounds(r), 3);
        assert_eq!(modelopt_result_tree_depth(r), -1);
        modelopt_result_free(r);
        modelopt_machine_free(m);
    }
}

#[test]
fn a_ccnuma_machine_offers_the_cla_tree_reduction() {
    let m = load("sandy-bridge-e5-2660");
    let mut err = ptr::null_mut();
    let r = unsafe {
        modelopt_tune_with(
            m,
            MODELOPT_REDUCE,
            2,
            0,
            ptr::null(),
            ptr::null(),
            ptr::null(),
            1,
            false,
            &mut err,
        )
    };
    assert!(!r.is_null());
    unsafe {
        // Tree 0(1) on socket 0 (seed 001 §2.1 values): R_I + R_R + (R_I + R_L) + R_I + R_R +
        // (R_R + R_L) = 70 + 35 + 72.3 + 70 + 35 + 37.3 = 319.6 ns, the graph crate's derivation.
        assert!((modelopt_result_t_min_ns(r) - 319.6).abs() < 1e-9);
        modelopt_result_free(r);
        modelopt_machine_free(m);
    }
}

#[test]
fn bad_input_is_an_error_message_never_a_crash() {
    let m = load("xeon-phi");
    let mut err = ptr::null_mut();
    unsafe {
        let r = modelopt_tune(m, MODELOPT_BARRIER, 1, 0, &mut err);
        assert!(r.is_null());
        assert_eq!(
            message(err),
            "threads = 1: a collective needs at least 2 threads"
        );
        let r = modelopt_tune(m, MODELOPT_BARRIER, 100_000, 0, &mut err);
        assert!(r.is_null());
        assert_eq!(
            message(err),
            "threads = 100000: xeon-phi runs at most 240 threads; extrapolation models more"
        );
        let r = modelopt_tune(m, 42, 60, 0, &mut err);
        assert!(r.is_null());
        assert!(message(err).starts_with("collective 42:"));
        let bad = CString::new("sideways").unwrap();
        let r = modelopt_tune_with(
            m,
            MODELOPT_BCAST,
            60,
            0,
            bad.as_ptr(),
            ptr::null(),
            ptr::null(),
            5,
            false,
            &mut err,
        );
        assert!(r.is_null());
        assert!(message(err).starts_with("--objective: unknown objective `sideways`"));
        let r = modelopt_tune_with(
            m,
            MODELOPT_BCAST,
            60,
            0,
            ptr::null(),
            ptr::null(),
            ptr::null(),
            0,
            false,
            &mut err,
        );
        assert!(r.is_null());
        assert_eq!(
            message(err),
            "top = 0: at least the best configuration must be kept (top = 1)"
        );
        // NULL handles and NULL error pointers.
        let r = modelopt_tune(ptr::null(), MODELOPT_BCAST, 60, 0, &mut err);
        assert!(r.is_null());
        assert_eq!(message(err), "machine: NULL handle");
        assert!(modelopt_tune(ptr::null(), MODELOPT_BCAST, 60, 0, ptr::null_mut()).is_null());
        assert!(modelopt_machine_load(ptr::null(), ptr::null_mut()).is_null());
        let missing = CString::new("no-such-machine").unwrap();
        assert!(modelopt_machine_load(missing.as_ptr(), &mut err).is_null());
        assert!(!message(err).is_empty());
        assert!(modelopt_result_t_min_ns(ptr::null()).is_nan());
        assert_eq!(modelopt_result_tree_depth(ptr::null()), -1);
        assert!(modelopt_result_algorithm(ptr::null()).is_null());
        assert!(modelopt_result_json(ptr::null()).is_null());
        assert!(modelopt_error_message(ptr::null()).is_null());
        modelopt_result_free(ptr::null_mut());
        modelopt_error_free(ptr::null_mut());
        modelopt_machine_free(m);
        modelopt_machine_free(ptr::null_mut());
    }
}

/// A handle pointer that may cross threads (the handles are immutable and Send + Sync).
#[derive(Clone, Copy)]
struct Shared(*const modelopt_machine);
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

#[test]
fn one_machine_tuned_from_several_threads_at_once() {
    let m = Shared(load("xeon-phi"));
    let results: Vec<(f64, i32)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(move || unsafe {
                    let m = m;
                    let r = modelopt_tune(m.0, MODELOPT_BCAST, 60, 0, ptr::null_mut());
                    let out = (modelopt_result_t_min_ns(r), modelopt_result_tree_depth(r));
                    modelopt_result_free(r);
                    out
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(results.windows(2).all(|w| w[0] == w[1]), "{results:?}");
    assert_eq!(results[0].1, 3);
    unsafe { modelopt_machine_free(m.0 as *mut _) };
}

/// target/<profile>: the directory of this test binary's parent (`deps/..`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

/// The static library to link the C example against.
///
/// The test binary depends on this package's library, which cargo builds in one rustc run with
/// all the crate types of `[lib]` (cdylib, staticlib, rlib) into `deps/` under names without a
/// hash: the `libmodelopt.a` there is the one compiled from the sources and with the features of
/// this very test build, and cargo rebuilds it whenever a source changes (its fingerprint is this
/// unit's own). Cargo only copies it up to `target/<profile>/` for a `cargo build` of the
/// package, so it is taken from `deps/`. Only when it is missing (the binary run outside cargo)
/// is it built here: `cargo build -p modelopt-capi` resolves features for that package alone and
/// compiles `serde`, `syn` and our crates a second time (45–57 s in the clean-clone CI).
fn static_library() -> PathBuf {
    let profile = profile_dir();
    let built_with_the_tests = profile.join("deps").join("libmodelopt.a");
    if built_with_the_tests.exists() {
        return built_with_the_tests;
    }
    // Cargo releases the target directory's lock before it runs tests.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = std::process::Command::new(cargo);
    build.args(["build", "--quiet", "-p", "modelopt-capi", "--lib"]);
    if profile.file_name().is_some_and(|p| p == "release") {
        build.arg("--release");
    }
    if let Some(target) = profile.parent() {
        build.env("CARGO_TARGET_DIR", target);
    }
    assert!(
        build.status().unwrap().success(),
        "cargo build -p modelopt-capi failed"
    );
    let lib = profile.join("libmodelopt.a");
    assert!(lib.exists(), "{} not built", lib.display());
    lib
}

#[test]
fn c_example_compiles_links_and_prints_the_librarys_numbers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let lib = static_library();
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("tune");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = std::process::Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root.join("crates/capi/include"))
        .arg(root.join("examples/c/tune.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success(), "{cc} failed on examples/c/tune.c");
    let out = std::process::Command::new(&exe)
        .args(["xeon-phi", "60"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let value = |key: &str| -> String {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key} ")))
            .unwrap_or_else(|| panic!("no `{key}` in:\n{text}"))
            .to_string()
    };
    let phi = machine::load("xeon-phi").unwrap();
    let bcast = TuneJob::builder(&phi, Collective::Bcast, 60)
        .build()
        .unwrap()
        .run()
        .unwrap();
    let barrier = TuneJob::builder(&phi, Collective::Barrier, 60)
        .objective("max".parse().unwrap())
        .top(1)
        .build()
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(value("machine"), "xeon-phi");
    assert_eq!(value("version"), env!("CARGO_PKG_VERSION"));
    assert_eq!(value("bcast.algorithm"), bcast.algorithm);
    // %.3f of the report's times, which are rounded to 1e-3 already.
    assert_eq!(value("bcast.t_min_ns"), format!("{:.3}", bcast.t_min_ns));
    assert_eq!(value("bcast.t_max_ns"), format!("{:.3}", bcast.t_max_ns));
    let modelopt_model::Params::Tree { depth, degrees } = &bcast.params else {
        panic!("not a tree: {:?}", bcast.params)
    };
    assert_eq!(value("bcast.depth"), depth.to_string());
    for (i, k) in degrees.iter().enumerate() {
        assert_eq!(value(&format!("bcast.k{}", i + 1)), k.to_string());
    }
    assert_eq!(value("barrier.algorithm"), barrier.algorithm);
    assert_eq!(
        value("barrier.t_max_ns"),
        format!("{:.3}", barrier.t_max_ns)
    );
    // Seed 000, Table B.2: m = 4, r = 3 at 60 threads.
    assert_eq!(value("barrier.m"), "4");
    assert_eq!(value("barrier.r"), "3");
    assert_eq!(value("barrier.rounds"), "3");
    assert_eq!(
        value("error"),
        "threads = 1: a collective needs at least 2 threads"
    );
}

mod never_a_crash {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Whatever the collective code, thread count, size and options, a call returns a
        /// result or an error message — never a panic, never both, never neither.
        #[test]
        fn any_request_gives_a_result_or_an_error(
            collective in -2i32..9,
            threads in prop_oneof![Just(i64::MIN), -5i64..3, 2i64..40, 200i64..300, Just(1i64 << 40)],
            size in prop_oneof![Just(0u64), 1u64..100_000, Just(u64::MAX)],
            objective in prop::sample::select(vec!["min", "max", "blend:0.5", "blend:7", "", "x"]),
            top in 0u32..4,
            extrapolate in any::<bool>(),
        ) {
            let m = load("xeon-phi");
            let objective = CString::new(objective).unwrap();
            let mut err = ptr::null_mut();
            let r = unsafe {
                modelopt_tune_with(m, collective, threads, size, objective.as_ptr(),
                    ptr::null(), ptr::null(), top, extrapolate, &mut err)
            };
            prop_assert!(r.is_null() != err.is_null());
            if r.is_null() {
                let text = message(err);
                prop_assert!(!text.is_empty() && !text.contains('\n'), "{}", text);
            } else {
                let t = unsafe { modelopt_result_t_min_ns(r) };
                prop_assert!(t.is_finite() && t >= 0.0);
                unsafe { modelopt_result_free(r) };
            }
            unsafe { modelopt_machine_free(m) };
        }
    }
}

#[test]
fn rooted_tree_options_and_limits_reach_the_search() {
    let mut err = ptr::null_mut();
    let tune = |m, collective, threads, root, placement: &str, search: &str, budget, limit, err| {
        let placement = CString::new(placement).unwrap();
        let search = CString::new(search).unwrap();
        unsafe {
            modelopt_tune_tree(
                m,
                collective,
                threads,
                ptr::null(),
                root,
                placement.as_ptr(),
                search.as_ptr(),
                budget,
                limit,
                ptr::null(),
                1,
                err,
            )
        }
    };
    let json = |r: *mut modelopt_result| -> serde_json::Value {
        let text = unsafe { CStr::from_ptr(modelopt_result_json(r)) };
        serde_json::from_str(text.to_str().unwrap()).unwrap()
    };
    // --placement optimal on the chiplet machine: 5 threads fit one L3 domain, so the exact
    // answer names domain 0 for every thread; the flat tree costs R_L + R_I + R_R + R_L + R_I
    // + 4·R_R = 1.43 + 122 + 35 + 1.43 + 122 + 140 = 421.86 ns (machines/chiplet-2s-4x8.toml).
    let chiplet = load("chiplet-2s-4x8");
    let r = tune(
        chiplet,
        MODELOPT_BCAST,
        5,
        -1,
        "optimal",
        "auto",
        0,
        0.0,
        &mut err,
    );
    assert!(!r.is_null() && err.is_null());
    let v = json(r);
    assert_eq!(v["exact"], true);
    assert_eq!(v["params"]["domain"], serde_json::json!([0, 0, 0, 0, 0]));
    assert!((unsafe { modelopt_result_t_min_ns(r) } - 421.86).abs() < 1e-6);
    unsafe { modelopt_result_free(r) };
    // --root 9 and --search exhaustive on the E5-2660's closed-form broadcast.
    let sandy = load("sandy-bridge-e5-2660");
    let r = tune(
        sandy,
        MODELOPT_BCAST,
        10,
        9,
        "by-thread-id",
        "exhaustive",
        0,
        0.0,
        &mut err,
    );
    assert!(!r.is_null() && err.is_null());
    assert_eq!(json(r)["params"]["parent"][9], -1);
    unsafe { modelopt_result_free(r) };
    // A budget of 10 refuses the exhaustive barrier up front; a time limit answers, not exact.
    let r = tune(
        sandy,
        MODELOPT_BARRIER,
        10,
        -1,
        "by-thread-id",
        "exhaustive",
        10,
        0.0,
        &mut err,
    );
    assert!(r.is_null());
    assert!(message(err).contains("over the work budget"));
    let r = tune(
        sandy,
        MODELOPT_REDUCE,
        16,
        -1,
        "by-thread-id",
        "auto",
        0,
        0.05,
        &mut err,
    );
    assert!(!r.is_null());
    assert_eq!(json(r)["exact"], false);
    unsafe { modelopt_result_free(r) };
    // Bad options are one-line messages naming the flag.
    for (placement, search, limit, needle) in [
        ("anywhere", "auto", 0.0, "--placement"),
        ("optimal", "magic", 0.0, "--search"),
        ("optimal", "auto", -1.0, "--time-limit"),
        ("optimal", "auto", f64::NAN, "--time-limit"),
    ] {
        let r = tune(
            sandy,
            MODELOPT_BCAST,
            8,
            -1,
            placement,
            search,
            0,
            limit,
            &mut err,
        );
        assert!(r.is_null());
        let text = message(err);
        assert!(text.contains(needle) && !text.contains('\n'), "{text}");
    }
    // --memory-limit: 48 threads on the four sockets need 9,679,704 bytes of tables at the
    // least (worked out in the CLI test
    // a_memory_limit_is_obeyed_and_a_refusal_says_what_the_tables_need), so 9M answers with
    // what they need, not exact; a bad size is the flag's message.
    let four = load("xeon-e5-4650-4s");
    let with_memory = |memory: &str, err| {
        let memory = CString::new(memory).unwrap();
        let placement = CString::new("by-thread-id").unwrap();
        unsafe {
            modelopt_tune_tree(
                four,
                MODELOPT_BCAST,
                48,
                ptr::null(),
                -1,
                placement.as_ptr(),
                ptr::null(),
                0,
                0.0,
                memory.as_ptr(),
                1,
                err,
            )
        }
    };
    let r = with_memory("9M", &mut err);
    assert!(!r.is_null() && err.is_null());
    let v = json(r);
    assert_eq!(v["exact"], false);
    assert_eq!(
        v["stopped"],
        serde_json::json!({"reason": "memory-limit", "limit": 9_437_184u64, "needed": 9_679_704u64})
    );
    unsafe { modelopt_result_free(r) };
    let r = with_memory("4X", &mut err);
    assert!(r.is_null());
    let text = message(err);
    assert!(
        text.contains("--memory-limit") && !text.contains('\n'),
        "{text}"
    );
    unsafe {
        modelopt_machine_free(chiplet);
        modelopt_machine_free(sandy);
        modelopt_machine_free(four);
    }
}
