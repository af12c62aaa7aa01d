//! Helpers shared by the model crate's integration tests.

use modelopt_model::machine::from_text;
use modelopt_model::registry;

/// The text of a bundled machine file.
pub fn bundled_text(name: &str) -> &'static str {
    registry::bundled()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| text)
        .unwrap_or_else(|| panic!("no bundled machine {name}"))
}

/// The error of loading `text` as `test.toml`, checked to be one line that names the file.
pub fn error_of(text: &str) -> String {
    let err = from_text("test.toml", text).unwrap_err().to_string();
    assert!(!err.contains('\n'), "error is not one line: {err}");
    assert!(
        err.starts_with("test.toml"),
        "error does not name the file: {err}"
    );
    err
}

/// The 1-based line of the first line of `text` containing `needle`.
pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}
