//! The committed header `include/modelopt.h` is what cbindgen generates from `src/lib.rs`.
//! Regenerate it with `MODELOPT_UPDATE_HEADER=1 cargo test -p modelopt-capi --test header`.

use std::path::Path;

#[test]
fn committed_header_is_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("modelopt.h");
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(root.join("src/lib.rs"))
        .generate()
        .unwrap()
        .write_to_file(&fresh);
    let fresh = std::fs::read_to_string(&fresh).unwrap();
    let committed_path = root.join("include/modelopt.h");
    if std::env::var_os("MODELOPT_UPDATE_HEADER").is_some() {
        std::fs::write(&committed_path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    assert!(
        committed == fresh,
        "crates/capi/include/modelopt.h is stale: regenerate it with \
         MODELOPT_UPDATE_HEADER=1 cargo test -p modelopt-capi --test header"
    );
}
