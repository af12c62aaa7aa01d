//! Where output files go, and how they are written so that nothing is damaged.
//!
//! Every file a command writes (`--out`, `--plot`) goes through [`Outputs`]: all of a command's
//! files are prepared first and committed together, so when one of them fails (`--plot ok.svg
//! --out /nonexistent/x.csv`) none is left behind. The rule per kind of target:
//!
//! | target | how it is written |
//! |---|---|
//! | `-` | standard output |
//! | a new path | a temporary file in the same folder, renamed into place (whole or nothing) |
//! | an existing regular file | the same, keeping the file's permission bits |
//! | a regular file with several hard links | written in place, so every name sees the new content (not atomic: said in the docs) |
//! | a symbolic link | followed: the file it points to is written by these rules; a dangling link is refused |
//! | a character device or FIFO (`/dev/null`, `/dev/stdout`, a pipe) | written straight to it, never replaced |
//! | a directory, block device or socket | refused |
//!
//! Errors name the target path the user gave, never a temporary file.

use anyhow::{bail, Context};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One destination, classified before anything is written.
#[derive(Debug)]
enum Target {
    /// Standard output.
    Stdout,
    /// Replace (or create) a regular file atomically: the real file to replace, and the mode to
    /// keep when it exists.
    Replace { real: PathBuf, mode: Option<u32> },
    /// Write in place (hard-linked regular file, character device, FIFO).
    InPlace { real: PathBuf },
}

/// Decide how `path` is written, or refuse it.
fn classify(path: &Path) -> anyhow::Result<Target> {
    if path.as_os_str() == "-" {
        return Ok(Target::Stdout);
    }
    let shown = path.display();
    let link = fs::symlink_metadata(path);
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if link.is_ok() {
                bail!("cannot write {shown}: it is a symbolic link to a missing file");
            }
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if !parent.is_dir() {
                bail!(
                    "cannot write {shown}: folder {} does not exist",
                    parent.display()
                );
            }
            return Ok(Target::Replace {
                real: path.to_path_buf(),
                mode: None,
            });
        }
        Err(e) => bail!("cannot write {shown}: {e}"),
    };
    let is_link = link.map(|m| m.file_type().is_symlink()).unwrap_or(false);
    let file_type = meta.file_type();
    if file_type.is_file() {
        let real = if is_link {
            fs::canonicalize(path).with_context(|| format!("cannot write {shown}"))?
        } else {
            path.to_path_buf()
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if meta.nlink() > 1 {
                return Ok(Target::InPlace { real });
            }
            Ok(Target::Replace {
                real,
                mode: Some(meta.mode() & 0o7777),
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Target::Replace { real, mode: None })
        }
    } else if file_type.is_dir() {
        bail!("cannot write {shown}: it is a folder")
    } else if is_stream(&meta) {
        Ok(Target::InPlace {
            real: path.to_path_buf(),
        })
    } else {
        bail!("cannot write {shown}: not a regular file, character device or FIFO")
    }
}

#[cfg(unix)]
fn is_stream(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    t.is_char_device() || t.is_fifo()
}

#[cfg(not(unix))]
fn is_stream(_meta: &fs::Metadata) -> bool {
    false
}

/// A file prepared but not yet in place.
struct Staged {
    shown: PathBuf,
    target: Target,
    bytes: Vec<u8>,
    temp: Option<tempfile::NamedTempFile>,
}

/// The files one command writes, committed together (see the module docs).
#[derive(Default)]
pub struct Outputs {
    staged: Vec<Staged>,
}

impl Outputs {
    /// No files yet.
    pub fn new() -> Self {
        Outputs::default()
    }

    /// Check that `path` can be written, before any work is done (so a bad `--out` fails at
    /// once, not after a long search).
    pub fn check(path: &Path) -> anyhow::Result<()> {
        classify(path).map(|_| ())
    }

    /// Add `bytes` for `path`. Regular files are written to a temporary file now; nothing
    /// replaces a target until [`Outputs::commit`].
    pub fn add(&mut self, path: &Path, bytes: impl Into<Vec<u8>>) -> anyhow::Result<()> {
        let shown = path.to_path_buf();
        let target = classify(path)?;
        let bytes = bytes.into();
        let temp = match &target {
            Target::Replace { real, .. } => {
                let dir = match real.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                let mut tmp = tempfile::Builder::new()
                    .prefix(".modelopt-")
                    .tempfile_in(&dir)
                    .with_context(|| format!("cannot write {}", shown.display()))?;
                tmp.write_all(&bytes)
                    .and_then(|()| tmp.flush())
                    .with_context(|| format!("cannot write {}", shown.display()))?;
                Some(tmp)
            }
            _ => None,
        };
        self.staged.push(Staged {
            shown,
            target,
            bytes,
            temp,
        });
        Ok(())
    }

    /// Put every file in place: streams first (a failing device leaves no regular file
    /// behind), then the renames.
    pub fn commit(self) -> anyhow::Result<()> {
        let (streams, files): (Vec<Staged>, Vec<Staged>) = self
            .staged
            .into_iter()
            .partition(|s| !matches!(s.target, Target::Replace { .. }));
        for s in &streams {
            let written = match &s.target {
                Target::Stdout => {
                    let mut out = std::io::stdout().lock();
                    out.write_all(&s.bytes).and_then(|()| out.flush())
                }
                Target::InPlace { real } => fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(real)
                    .and_then(|mut f| f.write_all(&s.bytes).and_then(|()| f.flush())),
                Target::Replace { .. } => Ok(()),
            };
            match written {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                other => other.with_context(|| format!("cannot write {}", s.shown.display()))?,
            }
        }
        for s in files {
            let (Target::Replace { real, mode }, Some(temp)) = (s.target, s.temp) else {
                continue;
            };
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = mode.unwrap_or(0o644);
                fs::set_permissions(temp.path(), fs::Permissions::from_mode(mode))
                    .with_context(|| format!("cannot write {}", s.shown.display()))?;
            }
            #[cfg(not(unix))]
            let _ = mode;
            temp.persist(&real)
                .map_err(|e| e.error)
                .with_context(|| format!("cannot write {}", s.shown.display()))?;
        }
        Ok(())
    }
}

/// Write one file by the rules of the module docs.
pub fn write_file(path: &Path, bytes: impl Into<Vec<u8>>) -> anyhow::Result<()> {
    let mut outputs = Outputs::new();
    outputs.add(path, bytes)?;
    outputs.commit()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn new_file_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        write_file(&p, "hello").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "hello");
        // No temporary file is left in the folder.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn existing_mode_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("private.txt");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        write_file(&p, "new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn symlink_is_followed_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_file(&link, "new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    }

    #[test]
    fn dangling_symlink_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(dir.path().join("missing"), &link).unwrap();
        let err = write_file(&link, "x").unwrap_err().to_string();
        assert!(err.contains("symbolic link to a missing file"), "{err}");
    }

    #[test]
    fn hard_link_keeps_both_names_in_step() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let b = dir.path().join("b.txt");
        fs::write(&a, "old").unwrap();
        fs::hard_link(&a, &b).unwrap();
        write_file(&a, "new").unwrap();
        assert_eq!(fs::read_to_string(&b).unwrap(), "new");
    }

    #[test]
    fn character_device_is_written_not_replaced() {
        write_file(Path::new("/dev/null"), "discarded").unwrap();
        assert!(!fs::metadata("/dev/null").unwrap().file_type().is_file());
    }

    #[test]
    fn full_device_reports_its_own_name() {
        if !Path::new("/dev/full").exists() {
            return;
        }
        let err = format!("{:#}", write_file(Path::new("/dev/full"), "x").unwrap_err());
        assert!(err.starts_with("cannot write /dev/full"), "{err}");
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata("/dev/full")
            .unwrap()
            .file_type()
            .is_char_device());
    }

    #[test]
    fn folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_file(dir.path(), "x").unwrap_err().to_string();
        assert!(err.contains("it is a folder"), "{err}");
    }

    #[test]
    fn one_failing_output_leaves_none_behind() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("ok.svg");
        let mut outputs = Outputs::new();
        outputs.add(&good, "<svg/>").unwrap();
        let bad = outputs.add(Path::new("/nonexistent/x.csv"), "a,b");
        assert!(bad.is_err());
        drop(outputs);
        assert!(!good.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
