//! The files flextile reads and writes: the input, read once (pipes and
//! `/dev/stdin` included) and kept byte for byte; the output, written
//! atomically, through a symlink, into a FIFO or to standard output (`-`),
//! never over the input; and the `-MD` dependency file.

use crate::diag::{Diagnostic, Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bytes that stand for the input's non-UTF-8 bytes in [`Input::text`]:
/// control characters that C source has no use for (no tab, newline,
/// vertical tab, form feed or carriage return, no `0x1a`), one per distinct
/// byte value.
const PLACEHOLDERS: &[u8] = &[
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
    0x16, 0x17, 0x18, 0x19, 0x1c, 0x1d, 0x1e, 0x1f,
];

/// The input file, read once.
#[derive(Clone, Debug)]
pub struct Input {
    /// The path as given on the command line.
    pub path: PathBuf,
    /// The bytes as read (clang parses these).
    pub bytes: Vec<u8>,
    /// The same bytes as text: each byte that is not part of valid UTF-8
    /// replaced by a placeholder control character (one byte for one, so
    /// offsets agree with clang's).
    pub text: String,
    /// `(placeholder, original byte)` for each non-UTF-8 byte value.
    pub escapes: Vec<(u8, u8)>,
}

impl Input {
    /// Reads `path` once.
    pub fn read(path: &Path) -> Result<Input> {
        let bytes = std::fs::read(path).map_err(|e| {
            Error::user(Diagnostic::error_global(format!(
                "cannot read '{}': {e}",
                path.display()
            )))
        })?;
        Input::from_bytes(path, bytes)
    }

    /// The input `path` whose contents are `bytes`.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<Input> {
        let mut text = Vec::with_capacity(bytes.len());
        let mut escapes: Vec<(u8, u8)> = Vec::new();
        for chunk in bytes.utf8_chunks() {
            text.extend_from_slice(chunk.valid().as_bytes());
            for &b in chunk.invalid() {
                let placeholder = match escapes.iter().find(|e| e.1 == b) {
                    Some(e) => e.0,
                    None => {
                        let free = PLACEHOLDERS
                            .iter()
                            .copied()
                            .find(|p| !bytes.contains(p) && !escapes.iter().any(|e| e.0 == *p));
                        let Some(p) = free else {
                            return Err(Error::user(Diagnostic::error_global(format!(
                                "'{}' is not UTF-8 and has too many different non-UTF-8 bytes for flextile to keep them (convert it to UTF-8, e.g. with iconv)",
                                path.display()
                            ))));
                        };
                        escapes.push((p, b));
                        p
                    }
                };
                text.push(placeholder);
            }
        }
        let text = String::from_utf8(text)
            .map_err(|_| Error::internal("the input's non-UTF-8 bytes were not all replaced"))?;
        Ok(Input {
            path: path.to_path_buf(),
            bytes,
            text,
            escapes,
        })
    }

    /// The byte `text` holds a placeholder for at `offset`, if it holds one there.
    pub fn escaped_at(&self, offset: usize) -> Option<u8> {
        let b = *self.text.as_bytes().get(offset)?;
        self.escapes.iter().find(|e| e.0 == b).map(|e| e.1)
    }

    /// Offsets of the placeholders in [`Input::text`].
    pub fn escaped_offsets(&self) -> Vec<usize> {
        if self.escapes.is_empty() {
            return Vec::new();
        }
        self.text
            .bytes()
            .enumerate()
            .filter(|(_, b)| self.escapes.iter().any(|e| e.0 == *b))
            .map(|(i, _)| i)
            .collect()
    }

    /// `output` (text made from [`Input::text`]) with the original bytes put back.
    pub fn restore(&self, output: &str) -> Vec<u8> {
        let mut out = output.as_bytes().to_vec();
        if !self.escapes.is_empty() {
            for b in &mut out {
                if let Some(e) = self.escapes.iter().find(|e| e.0 == *b) {
                    *b = e.1;
                }
            }
        }
        out
    }
}

/// Whether `a` and `b` name the same file (same device and inode: through
/// symlinks and hard links); false when either does not exist.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Refuses an output that is the input (gcc's "input file is the same as
/// output file"), before anything is compiled.
pub fn check_output(input: &Path, output: &Path) -> Result<()> {
    if output != Path::new("-") && same_file(input, output) {
        return Err(Error::user(Diagnostic::error_global(format!(
            "input file is the same as output file: '{}' would overwrite '{}'",
            output.display(),
            input.display()
        ))));
    }
    Ok(())
}

/// Writes `bytes` to `path`: `-` is standard output; a FIFO or a device is
/// written into; a symlink is written through (its target replaced
/// atomically); anything else is replaced atomically (a temporary file in
/// the same folder, then a rename), so that `path` is never half-written.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    let fail = |e: std::io::Error| {
        Error::user(Diagnostic::error_global(format!(
            "cannot write '{}': {e}",
            path.display()
        )))
    };
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return out.write_all(bytes).and_then(|_| out.flush()).map_err(fail);
    }
    let target = resolve_links(path).map_err(fail)?;
    match std::fs::metadata(&target) {
        Ok(m) if !m.is_file() && !m.is_dir() => std::fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .and_then(|mut f| f.write_all(bytes))
            .map_err(fail),
        _ => write_atomically(&target, bytes).map_err(fail),
    }
}

/// `path` with its symlinks followed (the last component too, even when the
/// link's target does not exist yet).
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) => dir.join(link),
                    None => link,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// and a rename.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.flextile-{}.tmp", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The Make rule of `-MD`: `target` depends on `input` and on every file in
/// `includes`, each of which also gets an empty rule (as gcc's `-MP`), so
/// that deleting a header does not break the build.
pub fn dependency_rule(target: &Path, input: &Path, includes: &[String]) -> String {
    let mut deps = vec![make_escape(&input.to_string_lossy())];
    for h in includes {
        let h = make_escape(h);
        if !deps.contains(&h) {
            deps.push(h);
        }
    }
    let mut s = make_escape(&target.to_string_lossy());
    s.push(':');
    for d in &deps {
        s.push_str(" \\\n  ");
        s.push_str(d);
    }
    s.push('\n');
    for d in &deps[1..] {
        s.push('\n');
        s.push_str(d);
        s.push_str(":\n");
    }
    s
}

/// A path as Make reads it in a rule (spaces, `#` and `$` escaped).
fn make_escape(p: &str) -> String {
    let mut s = String::with_capacity(p.len());
    for c in p.chars() {
        match c {
            ' ' | '\t' => {
                s.push('\\');
                s.push(c);
            }
            '#' => s.push_str("\\#"),
            '$' => s.push_str("$$"),
            c => s.push(c),
        }
    }
    s
}

/// The dependency file `-MD` writes next to `output` without `-MF`: the
/// output's name with its extension replaced by `.d`, as gcc does.
pub fn default_dependency_file(output: &Path) -> PathBuf {
    output.with_extension("d")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_bytes_are_kept() {
        let bytes = b"/* caf\xe9 \xe9\xff */ int x;".to_vec();
        let input = Input::from_bytes(Path::new("a.c"), bytes.clone()).expect("input");
        assert_eq!(input.text.len(), bytes.len());
        assert_eq!(input.escapes.len(), 2);
        assert_eq!(input.escaped_at(6), Some(0xe9));
        assert_eq!(input.escaped_at(7), None);
        assert_eq!(input.escaped_offsets(), vec![6, 8, 9]);
        assert_eq!(input.restore(&input.text), bytes);
    }

    #[test]
    fn atomic_write_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("flextile-aw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let p = dir.join("out.c");
        write_output(&p, b"x").expect("write");
        assert_eq!(std::fs::read(&p).expect("read"), b"x");
        assert_eq!(std::fs::read_dir(&dir).expect("ls").count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn dependency_rule_lists_headers_once() {
        let r = dependency_rule(
            Path::new("out dir/a.flex.c"),
            Path::new("a.c"),
            &[
                "h.h".to_string(),
                "h.h".to_string(),
                "/usr/x$.h".to_string(),
            ],
        );
        assert_eq!(
            r,
            "out\\ dir/a.flex.c: \\\n  a.c \\\n  h.h \\\n  /usr/x$$.h\n\nh.h:\n\n/usr/x$$.h:\n"
        );
    }
}
