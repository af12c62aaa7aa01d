//! Reading a user's text file safely: only regular files, at most a size limit, UTF-8 checked
//! with the line and byte of the first bad byte.
//!
//! A `.cla` program and a `--tree @file` are paths a user types. A FIFO would block the read
//! forever and a character device (`/dev/zero`) would never end, so anything but a regular file
//! is refused before it is opened for reading (like the machine loader, `modelopt_model::machine`).
//! The file is opened non-blocking as well, so a regular file swapped for a FIFO between the
//! check and the open still cannot block, and its type is checked again on the open handle.

use crate::error::{one_line, InputError};
use std::io::Read;
use std::path::Path;

/// The largest tree file (`--tree @FILE`): 16 MiB. A tree of the largest bundled machine is a
/// few hundred bytes; the limit leaves room for machines of millions of threads.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// The largest `.cla` program: 1 MiB. The bundled programs are under 2 KB; the parser holds a
/// line's characters and tokens (up to ~40 bytes per input byte), so the limit also bounds its
/// memory.
pub const MAX_PROGRAM_BYTES: u64 = 1024 * 1024;

fn kind(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "FIFO";
        }
        if file_type.is_socket() {
            return "socket";
        }
        if file_type.is_char_device() {
            return "character device";
        }
        if file_type.is_block_device() {
            return "block device";
        }
    }
    if file_type.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

/// Read `path` as UTF-8 text of at most `limit` bytes. Symbolic links are followed; the file
/// they lead to must be regular.
///
/// Errors: [`InputError::Io`] (missing, no permission), [`InputError::NotRegular`] (FIFO,
/// directory, device, socket: never read), [`InputError::TooLarge`], [`InputError::Utf8`]
/// (with the 1-based line and byte column and the file offset of the first invalid byte).
pub fn read_text(path: &Path, limit: u64) -> Result<String, InputError> {
    let shown = one_line(&path.display().to_string());
    let io = |e: std::io::Error| InputError::Io {
        path: shown.clone(),
        message: e.to_string(),
    };
    let not_regular = |t: std::fs::FileType| InputError::NotRegular {
        path: shown.clone(),
        kind: kind(t),
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let too_large = || InputError::TooLarge {
        path: shown.clone(),
        limit,
    };
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One byte more than the limit tells a file that grew since the check.
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    decode(&shown, bytes)
}

/// `bytes` as UTF-8, or the position of the first invalid byte.
pub fn decode(path: &str, bytes: Vec<u8>) -> Result<String, InputError> {
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        InputError::Utf8 {
            path: path.to_string(),
            line,
            column: offset - line_start + 1,
            offset,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_names_line_column_and_offset() {
        // "ab\ncd" is 5 bytes; the bad byte 0xFF is at offset 5: line 2 (one newline before),
        // byte 3 of that line ('c' = 1, 'd' = 2).
        let e = decode("x.cla", b"ab\ncd\xFFe".to_vec()).unwrap_err();
        assert_eq!(
            e,
            InputError::Utf8 {
                path: "x.cla".into(),
                line: 2,
                column: 3,
                offset: 5
            }
        );
        assert_eq!(
            e.to_string(),
            "x.cla:2:3: invalid UTF-8 at byte offset 5 of the file (the column counts bytes)"
        );
    }

    #[test]
    fn directories_and_large_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_text(dir.path(), 100).unwrap_err();
        assert!(
            matches!(
                e,
                InputError::NotRegular {
                    kind: "directory",
                    ..
                }
            ),
            "{e}"
        );
        let big = dir.path().join("big.cla");
        std::fs::write(&big, "x".repeat(101)).unwrap();
        let e = read_text(&big, 100).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: larger than the limit of 100 bytes", big.display())
        );
        std::fs::write(&big, "x".repeat(100)).unwrap();
        assert_eq!(read_text(&big, 100).unwrap().len(), 100);
    }
}
