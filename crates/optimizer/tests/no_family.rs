//! The optimizer searches and knows nothing of any model family (issue 8, item 3): its library
//! code names no family module of `modelopt-model`. Families are found, not listed: every
//! directory module of `crates/model/src` (`ccnuma/`, `cell/`, …) is one, so a new family is
//! covered without editing this test. Unit tests at the end of a file (`#[cfg(test)] mod tests`)
//! may use a family as an oracle; integration tests and benches may too.

use std::fs;
use std::path::{Path, PathBuf};

fn families(model_src: &Path) -> Vec<String> {
    let mut out: Vec<String> = fs::read_dir(model_src)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().join("mod.rs").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The library part of a source file: up to its unit-test module, without `//` comments.
fn library_code(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod tests"))
        {
            break;
        }
        let without_comment = line.split("//").next().unwrap_or("");
        code.push_str(without_comment);
        code.push('\n');
    }
    code
}

/// The line where `code` first uses `family` as a whole identifier (`ccnuma::…`,
/// `{tree, ccnuma}`, …): the optimizer has no reason to spell a family's name at all.
fn names(code: &str, family: &str) -> Option<usize> {
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(i) = code[from..].find(family) {
        let at = from + i;
        let before = at.checked_sub(1).map(|b| bytes[b]);
        let after = bytes.get(at + family.len()).copied();
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        if !before.is_some_and(ident) && !after.is_some_and(ident) {
            return Some(code[..at].lines().count());
        }
        from = at + family.len();
    }
    None
}

#[test]
fn the_optimizer_library_names_no_model_family() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let families = families(&root.join("../model/src"));
    // The six families of the seeds today; finding fewer would mean the scan is broken.
    assert!(families.len() >= 6, "families found: {families:?}");
    assert!(families.iter().any(|f| f == "ccnuma"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    files.sort();
    assert!(files.len() >= 10, "sources found: {files:?}");
    let mut offences = Vec::new();
    for file in &files {
        let code = library_code(&fs::read_to_string(file).unwrap());
        for family in &families {
            if let Some(line) = names(&code, family) {
                offences.push(format!("{}:{line}: {family}", file.display()));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "the optimizer must reach families only through modelopt-model's neutral traits \
         (Algorithm, LevelCost, PlacedTreeCost): {offences:#?}"
    );
}

#[test]
fn the_scan_finds_a_family_path_in_each_form() {
    // The detector itself: each way Rust can name a module is caught, a longer identifier is not.
    assert!(names("use modelopt_model::ccnuma::bcast::TreeCosts;", "ccnuma").is_some());
    assert!(names("use modelopt_model::{ccnuma, tree};", "ccnuma").is_some());
    assert!(names("use modelopt_model::{tree, ccnuma};", "ccnuma").is_some());
    assert!(names("let x = ccnuma::bcast::f();", "ccnuma").is_some());
    assert!(names("let ccnuma_like = 1;", "ccnuma").is_none());
    assert!(names("cell_count::f()", "cell").is_none());
    let text = "use a::b;\n#[cfg(test)]\nmod tests {\n    use modelopt_model::ccnuma::X;\n}\n";
    assert!(names(&library_code(text), "ccnuma").is_none());
    assert!(names(&library_code("use x; // ccnuma::y\n"), "ccnuma").is_none());
}
