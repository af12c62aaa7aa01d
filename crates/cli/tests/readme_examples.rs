//! Every `$ modelopt ...` command shown in a ```` ```console ```` block of README.md is run, and
//! its output compared with the lines the block shows, so the front page cannot go stale.
//!
//! Rules of a README console block:
//! - a line starting with `$ modelopt ` is a command; a `# comment` after it (outside quotes) is
//!   not part of it; arguments are split like a shell does for plain words and `"..."`/`'...'`;
//! - the lines after a command, up to the next `$ ` line or the end of the block, are its output:
//!   standard output followed by standard error, compared line by line with trailing spaces
//!   ignored; blank lines at the end of either are ignored too (a blank line may separate an
//!   output from the next command);
//! - a line that is exactly `...` stands for any number of output lines (zero or more);
//! - a command followed directly by another command or the end of the block shows no output, and
//!   only its success is checked;
//! - commands run in a fresh temporary directory holding links to the repository's `models/`
//!   and `machines/`, so files they write (`--out`, `--plot`, `--dot`) go nowhere.
//!
//! `UPDATE_README=1 cargo test -p modelopt-cli --test readme_examples` rewrites the shown output
//! of every command from the real output, keeping its `...` elisions: the lines before the first
//! `...` keep their count, the lines after the last keep theirs, and a segment between two `...`
//! is found again by its first line (or, failing that, the text of that line before its first
//! `:` or `(`), and dropped when it no longer occurs.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::Duration;

const ELISION: &str = "...";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One `$ modelopt` command of the README and the output lines shown after it.
#[derive(Debug)]
struct Example {
    /// 0-based README line of the command.
    line: usize,
    /// The arguments after `modelopt`.
    args: Vec<String>,
    /// 0-based README lines `[start, end)` of the shown output.
    shown: (usize, usize),
}

/// Split a command line like a shell for words and simple quotes; drop a trailing `# comment`.
fn split_args(command: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c == '#' && !in_word => break,
            None if c.is_whitespace() => {
                if in_word {
                    args.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            None => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        args.push(current);
    }
    args
}

/// Every command of every console block.
fn examples(lines: &[&str]) -> Vec<Example> {
    let mut out = Vec::new();
    let mut in_console = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("```") {
            in_console = !in_console && line.trim() == "```console";
            i += 1;
            continue;
        }
        if in_console {
            if let Some(command) = line.strip_prefix("$ modelopt ") {
                let start = i + 1;
                let mut end = start;
                while end < lines.len()
                    && !lines[end].starts_with("$ ")
                    && !lines[end].starts_with("```")
                {
                    end += 1;
                }
                out.push(Example {
                    line: i,
                    args: split_args(command),
                    shown: (start, end),
                });
                i = end;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Run an example in `dir`; its stdout then stderr, lines with trailing spaces removed.
fn run(example: &Example, dir: &Path) -> Result<Vec<String>, String> {
    let out = Command::cargo_bin("modelopt")
        .unwrap()
        .args(&example.args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(format!("exit {:?}: {text}", out.status.code()));
    }
    Ok(text.lines().map(|l| l.trim_end().to_string()).collect())
}

/// Split a shown output at its `...` lines: (segments, leading `...`, trailing `...`).
fn segments(shown: &[String]) -> (Vec<Vec<String>>, bool, bool) {
    let mut segs = vec![Vec::new()];
    for line in shown {
        if line == ELISION {
            segs.push(Vec::new());
        } else {
            segs.last_mut().unwrap().push(line.clone());
        }
    }
    let leading = shown.first().is_some_and(|l| l == ELISION);
    let trailing = shown.len() > 1 && shown.last().is_some_and(|l| l == ELISION);
    (segs, leading, trailing)
}

/// Whether `output` matches the shown lines with their `...` elisions.
fn matches(shown: &[String], output: &[String]) -> bool {
    let (segs, _, _) = segments(shown);
    if segs.len() == 1 {
        return segs[0] == output;
    }
    let first = &segs[0];
    let last = &segs[segs.len() - 1];
    if output.len() < first.len() + last.len()
        || output[..first.len()] != first[..]
        || output[output.len() - last.len()..] != last[..]
    {
        return false;
    }
    // Middle segments, leftmost first, between the anchored ends.
    let mut cursor = first.len();
    let limit = output.len() - last.len();
    for seg in &segs[1..segs.len() - 1] {
        let found = (cursor..=limit.saturating_sub(seg.len()))
            .find(|&at| at + seg.len() <= limit && output[at..at + seg.len()] == seg[..]);
        match found {
            Some(at) => cursor = at + seg.len(),
            None => return false,
        }
    }
    true
}

/// The text of a line before its first `:` or `(` (the whole line when that is shorter than
/// three characters), used to find a segment whose first line changed.
fn anchor(line: &str) -> &str {
    let cut = line.find([':', '(']).unwrap_or(line.len());
    if line[..cut].trim().len() < 3 {
        line
    } else {
        &line[..cut]
    }
}

/// New shown lines for `output`, keeping the elisions of `shown` (see the module docs).
fn regenerate(shown: &[String], output: &[String]) -> Vec<String> {
    let (segs, _, _) = segments(shown);
    if segs.len() == 1 {
        return output.to_vec();
    }
    let head = segs[0].len().min(output.len());
    let tail = segs[segs.len() - 1].len().min(output.len() - head);
    let limit = output.len() - tail;
    let mut new: Vec<String> = output[..head].to_vec();
    let mut cursor = head;
    for seg in &segs[1..segs.len() - 1] {
        new.push(ELISION.to_string());
        let Some(first) = seg.first() else { continue };
        let found = (cursor..limit)
            .find(|&at| output[at] == *first)
            .or_else(|| (cursor..limit).find(|&at| output[at].starts_with(anchor(first))));
        if let Some(at) = found {
            let end = (at + seg.len()).min(limit);
            new.extend_from_slice(&output[at..end]);
            cursor = end;
        }
    }
    new.push(ELISION.to_string());
    new.extend_from_slice(&output[limit..]);
    // Two elisions in a row say nothing more than one.
    new.dedup_by(|a, b| a == ELISION && b == ELISION);
    new
}

/// Remove blank lines at the end; returns how many there were.
fn trim_blank_tail(lines: &mut Vec<String>) -> usize {
    let mut n = 0;
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
        n += 1;
    }
    n
}

fn link_repo_dirs(dir: &Path) {
    for name in ["models", "machines"] {
        let target = repo_root().join(name);
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, dir.join(name)).unwrap();
        #[cfg(not(unix))]
        {
            let _ = target;
        }
    }
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let path = repo_root().join("README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let examples = examples(&lines);
    assert!(
        examples.len() >= 10,
        "found only {} examples",
        examples.len()
    );
    let update = std::env::var_os("UPDATE_README").is_some();
    let mut replacements: Vec<((usize, usize), Vec<String>)> = Vec::new();
    let mut failures = Vec::new();
    for example in &examples {
        let dir = tempfile::tempdir().unwrap();
        link_repo_dirs(dir.path());
        let mut shown: Vec<String> = lines[example.shown.0..example.shown.1]
            .iter()
            .map(|l| l.trim_end().to_string())
            .collect();
        let blank_after = trim_blank_tail(&mut shown);
        let output = match run(example, dir.path()) {
            Ok(mut output) => {
                trim_blank_tail(&mut output);
                output
            }
            Err(e) => {
                failures.push(format!(
                    "README.md:{}: `modelopt {}`: {e}",
                    example.line + 1,
                    example.args.join(" ")
                ));
                continue;
            }
        };
        if shown.is_empty() || matches(&shown, &output) {
            continue;
        }
        if update {
            let mut new = regenerate(&shown, &output);
            new.extend(std::iter::repeat_n(String::new(), blank_after));
            replacements.push((example.shown, new));
        } else {
            failures.push(format!(
                "README.md:{}: `modelopt {}` printed:\n{}\n--- but README shows:\n{}",
                example.line + 1,
                example.args.join(" "),
                output.join("\n"),
                shown.join("\n")
            ));
        }
    }
    if update && !replacements.is_empty() {
        let mut new_lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        // From the bottom up, so earlier line numbers stay valid.
        for ((start, end), new) in replacements.into_iter().rev() {
            new_lines.splice(start..end, new);
        }
        let mut new_text = new_lines.join("\n");
        new_text.push('\n');
        std::fs::write(&path, new_text).unwrap();
    }
    assert!(
        failures.is_empty(),
        "{} README example(s) are stale (UPDATE_README=1 rewrites them):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn elision_rules() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let out = s(&["a", "b", "c", "d", "e"]);
    assert!(matches(&s(&["a", "b", "c", "d", "e"]), &out));
    assert!(!matches(&s(&["a", "b", "c", "d"]), &out));
    assert!(matches(&s(&["a", "...", "e"]), &out));
    assert!(matches(&s(&["...", "c", "..."]), &out));
    assert!(matches(&s(&["a", "b", "...", "c", "d", "e"]), &out));
    assert!(!matches(&s(&["a", "...", "d"]), &out));
    assert!(!matches(&s(&["...", "x", "..."]), &out));
    assert!(matches(&s(&["..."]), &out));
    // Regenerating keeps head and tail counts and finds a middle segment by its first line.
    let new = s(&["a", "B", "why: x", "y", "z"]);
    assert_eq!(
        regenerate(&s(&["a", "...", "why: old", "...", "e"]), &new),
        s(&["a", "...", "why: x", "...", "z"])
    );
    assert_eq!(
        split_args(r#"graph "0(1(3),2)" --x 'a b'   # comment"#),
        s(&["graph", "0(1(3),2)", "--x", "a b"])
    );
}
