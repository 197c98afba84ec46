//! Front end: reads a C file with libclang and builds the program model.
//!
//! `#pragma omplc` loop chains and `#pragma scop` regions are found in the
//! file's text (clang drops unknown pragmas from its AST), tied to the
//! statements clang parsed after them, and turned into [`Region`]s.
//!
//! Files: [`clang`] (the only unsafe code: libclang wrapper), [`pragma`]
//! (pragma scanner and parser), [`ast`] (queries over clang's AST and the raw
//! tokens), [`depth`] (nesting bound), [`params`] (integer types of
//! variables), [`cexpr`] (C expressions to model expressions), [`loops`]
//! (`for` headers as constraints), [`cxx`] (what C++ rejects, for the
//! CUDA target), [`body`] (body templates and access
//! analysis), [`storage`] (how accessed variables are declared: what may
//! alias), [`chain`] (loop chains), [`scop`]
//! (`#pragma scop` regions), [`temporaries`] and [`liveness`] (temporaries
//! declared and proved), [`thread_state`] (thread-local variables and
//! errno, which keep loops serial), [`function`] (one walk of each function
//! that holds regions, shared by its regions).

pub mod ast;
pub mod body;
pub mod cexpr;
pub mod chain;
pub mod clang;
pub mod cxx;
pub mod depth;
pub mod final_values;
pub mod function;
pub mod liveness;
pub mod loops;
pub mod macro_ops;
pub mod params;
pub mod pragma;
pub mod reduction;
pub mod scalars;
pub mod scop;
pub mod statement_locals;
pub mod storage;
pub mod temporaries;
pub mod thread_state;

use std::collections::BTreeSet;
use std::path::Path;

use crate::diag::{Diagnostic, Error, Location, Result, Severity, SourceFile, Span};
use crate::files::Input;
use crate::model::program::{Program, Region, Temporary};
use ast::Unit;
use clang::{DiagLevel, DiagPlace, Index, ParseError, TranslationUnit};
use pragma::{PragmaKind, PragmaLine};

/// A directory that exists only for clang (unsaved files), searched last.
const VIRTUAL_INCLUDE: &str = "/flextile-virtual-include";

/// Declarations of the OpenMP runtime, for programs that include `omp.h`
/// where clang has none (Debian's is gcc's, which clang cannot parse). The
/// front end only parses: declarations are enough.
const OMP_H: &str = "\
#ifndef FLEXTILE_VIRTUAL_OMP_H
#define FLEXTILE_VIRTUAL_OMP_H
typedef struct { void *p[2]; } omp_lock_t;
typedef struct { void *p[4]; } omp_nest_lock_t;
typedef enum omp_sched_t { omp_sched_static = 1, omp_sched_dynamic = 2, omp_sched_guided = 3, omp_sched_auto = 4 } omp_sched_t;
extern void omp_set_num_threads(int);
extern int omp_get_num_threads(void);
extern int omp_get_max_threads(void);
extern int omp_get_thread_num(void);
extern int omp_get_num_procs(void);
extern int omp_in_parallel(void);
extern int omp_in_final(void);
extern void omp_set_dynamic(int);
extern int omp_get_dynamic(void);
extern void omp_set_nested(int);
extern int omp_get_nested(void);
extern void omp_set_schedule(omp_sched_t, int);
extern void omp_get_schedule(omp_sched_t *, int *);
extern int omp_get_thread_limit(void);
extern void omp_set_max_active_levels(int);
extern int omp_get_max_active_levels(void);
extern int omp_get_level(void);
extern int omp_get_ancestor_thread_num(int);
extern int omp_get_team_size(int);
extern int omp_get_active_level(void);
extern void omp_init_lock(omp_lock_t *);
extern void omp_destroy_lock(omp_lock_t *);
extern void omp_set_lock(omp_lock_t *);
extern void omp_unset_lock(omp_lock_t *);
extern int omp_test_lock(omp_lock_t *);
extern void omp_init_nest_lock(omp_nest_lock_t *);
extern void omp_destroy_nest_lock(omp_nest_lock_t *);
extern void omp_set_nest_lock(omp_nest_lock_t *);
extern void omp_unset_nest_lock(omp_nest_lock_t *);
extern int omp_test_nest_lock(omp_nest_lock_t *);
extern double omp_get_wtime(void);
extern double omp_get_wtick(void);
#endif
";

/// The in-memory files clang sees in [`VIRTUAL_INCLUDE`].
fn virtual_files() -> Vec<(String, Vec<u8>)> {
    vec![(
        format!("{VIRTUAL_INCLUDE}/omp.h"),
        OMP_H.as_bytes().to_vec(),
    )]
}

/// A parsed input: its program and the files it includes.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The regions to rewrite, and the input's text.
    pub program: Program,
    /// Every file the input includes, directly or not (for `-MD`).
    pub includes: Vec<String>,
}

/// Parses `path` with the user's clang flags (`-I`, `-D`, `-std=`) and returns
/// the regions flextile will rewrite, in source order. Stages are named `S0`,
/// `S1`, ... across the whole file.
/// Temporaries are inferred ([`liveness`]).
pub fn parse_file(path: &Path, clang_args: &[String]) -> Result<Program> {
    Ok(parse_input(&Input::read(path)?, clang_args, &[], true, false)?.program)
}

/// [`parse_file`] on an input already read: clang parses its bytes from
/// memory (the file is not read again). `temporaries`: the data sets of
/// `--temporary`; `infer_temporaries`: prove the others that can be (see
/// [`temporaries::check`]); `cuda`: the output is CUDA (C++), whose
/// regions' bodies get the edits that keep their C meaning ([`cxx::meaning`]).
pub fn parse_input(
    input: &Input,
    clang_args: &[String],
    temporaries: &[String],
    infer_temporaries: bool,
    cuda: bool,
) -> Result<Parsed> {
    let path = input.path.as_path();
    let file = SourceFile::new(path.display().to_string(), input.text.clone());
    let mut macros = Vec::new();
    let (pragmas, mut errors) = pragma::scan_with_macros(&file.text, &mut macros);
    let (pragmas, mut errors) = non_utf8_in_pragmas(input, &file, pragmas, &mut errors);
    if errors.iter().any(|d| d.message.contains(NOT_UTF8)) {
        // The pragma may not have parsed at all: no region is built from it.
        return Err(Error::User(errors));
    }

    let index = Index::new().map_err(Error::internal)?;
    let mut args = clang_arguments(clang_args);
    let is_c = path.extension().is_some_and(|e| e == "c");
    if !is_c && !clang_args.iter().any(|a| a.starts_with("-x")) {
        // Other names (a '.txt', no extension, /dev/stdin) are still C to flextile.
        args.insert(0, "-xc".to_string());
    }
    let mut files = virtual_files();
    files.push((path.to_string_lossy().into_owned(), input.bytes.clone()));
    let tu = match TranslationUnit::parse(&index, path, &args, &files) {
        Ok(tu) => tu,
        Err(e) => return Err(parse_failure(&index, path, clang_args, e)),
    };
    let includes: Vec<String> = tu
        .included_files()
        .into_iter()
        .filter(|f| !f.starts_with(VIRTUAL_INCLUDE))
        .collect();
    let clang_errors = clang_diagnostics(&tu, &file);
    if !clang_errors.is_empty() {
        let mut all = clang_errors;
        all.append(&mut errors);
        return Err(Error::User(all));
    }
    let mut unit = Unit::new(&tu, &file.text);
    unit.strict_aliasing = strict_aliasing(clang_args);
    let skipped = tu.skipped_ranges();
    let pragmas: Vec<PragmaLine> = pragmas
        .into_iter()
        .filter(|p| {
            !skipped
                .iter()
                .any(|s| s.start <= p.span.start && p.span.start < s.end)
        })
        .collect();
    errors.retain(|d| match d.location {
        Location::Span(sp) => !skipped
            .iter()
            .any(|s| s.start <= sp.start && sp.start < s.end),
        _ => true,
    });

    let region_pragmas: Vec<usize> = pragmas.iter().map(|p| p.span.start).collect();
    let mut too_deep = depth::check(&unit, &region_pragmas);
    if !too_deep.is_empty() {
        errors.append(&mut too_deep);
        return Err(Error::User(errors));
    }
    // After the depth check: its walks recurse.
    let meaning = cxx::meaning(&unit, tu.root());
    if cuda {
        // The regions' bodies keep their C meaning in the CUDA output.
        unit.cxx_edits = meaning.rendered();
    }
    let unit = unit;
    let wide_vars = params::wide_variables(&unit, tu.root(), &region_pragmas);
    let mut region_warnings = Vec::new();
    let mut regions = build_regions(
        &unit,
        &pragmas,
        (temporaries, infer_temporaries),
        &mut errors,
        &mut region_warnings,
    );
    for name in temporaries {
        if errors.is_empty()
            && !regions
                .iter()
                .any(|r| r.temporaries.iter().any(|t| &t.name == name))
        {
            errors.push(Diagnostic::error_global(format!(
                "--temporary names '{name}', which no region writes"
            )));
        }
    }
    macros.retain(|m| {
        !skipped
            .iter()
            .any(|s| s.start <= m.line.start && m.line.start < s.end)
    });
    let directives = region_directives(&file.text, &regions, &macros, &mut errors);
    if !errors.is_empty() {
        errors.sort_by_key(|d| match d.location {
            Location::Span(s) => s.start,
            _ => 0,
        });
        return Err(Error::User(errors));
    }
    regions.sort_by_key(|r| r.span.start);
    let mut k = 0;
    for r in &mut regions {
        for s in &mut r.stages {
            s.name = format!("S{k}");
            k += 1;
        }
    }
    let reserved = reserved_names(&tu);
    let mut cxx = cxx::analyse(&unit, tu.root(), &skipped, meaning);
    cxx.region_edits = unit.cxx_edits.clone();
    let mut warnings = header_regions(&includes);
    if pragmas.is_empty() && warnings.is_empty() {
        warnings.push(Diagnostic::warning(
            Span::new(0, 0),
            "this file has no '#pragma scop' and no '#pragma omplc loopchain' (outside code that '#if' leaves out): flextile transforms nothing, and the output is the input",
        ));
    }
    warnings.append(&mut region_warnings);
    Ok(Parsed {
        program: Program {
            file,
            regions,
            wide_vars,
            reserved,
            directives,
            warnings,
            cxx,
        },
        includes,
    })
}

/// Whether C's strict aliasing rules hold under the clang arguments
/// `args`: the last of `-fstrict-aliasing` and `-fno-strict-aliasing`
/// decides; neither, they hold.
pub fn strict_aliasing(args: &[String]) -> bool {
    args.iter()
        .rev()
        .find_map(|a| match a.as_str() {
            "-fstrict-aliasing" => Some(true),
            "-fno-strict-aliasing" => Some(false),
            _ => None,
        })
        .unwrap_or(true)
}

/// What the error for a pragma byte that is not UTF-8 says.
const NOT_UTF8: &str = "is not UTF-8";

/// Pragmas holding bytes that are not UTF-8 get one located error each (the
/// first such byte), instead of the errors the pragma parser gave their lines.
fn non_utf8_in_pragmas(
    input: &Input,
    file: &SourceFile,
    pragmas: Vec<PragmaLine>,
    errors: &mut Vec<Diagnostic>,
) -> (Vec<PragmaLine>, Vec<Diagnostic>) {
    let escaped = input.escaped_offsets();
    let mut errors = std::mem::take(errors);
    if escaped.is_empty() {
        return (pragmas, errors);
    }
    let mut found = Vec::new();
    let report = |at: usize, found: &mut Vec<usize>| {
        if !found.contains(&at) {
            found.push(at);
        }
    };
    // The physical line around `offset`.
    let line_of = |offset: usize| {
        let (line, _) = file.line_col(offset);
        let start = file.line_start(line).unwrap_or(0);
        let end = file.line_start(line + 1).unwrap_or(file.text.len());
        (start, end)
    };
    let pragmas = pragmas
        .into_iter()
        .filter(|p| {
            match escaped
                .iter()
                .find(|&&e| p.line_start <= e && e < p.line_end)
            {
                Some(&e) => {
                    report(e, &mut found);
                    false
                }
                None => true,
            }
        })
        .collect();
    errors.retain(|d| {
        let Location::Span(sp) = d.location else {
            return true;
        };
        let (start, end) = line_of(sp.start);
        match escaped.iter().find(|&&e| start <= e && e < end) {
            Some(&e) => {
                report(e, &mut found);
                false
            }
            None => true,
        }
    });
    for at in found {
        let byte = input.escaped_at(at).unwrap_or(0);
        errors.push(Diagnostic::error(
            Span::new(at, at + 1),
            format!("byte 0x{byte:02X} in a pragma {NOT_UTF8}: flextile reads its pragmas as UTF-8 text (bytes that are not UTF-8 are kept only outside pragmas)"),
        ));
    }
    (pragmas, errors)
}

/// The error for a file libclang produced no translation unit for: when one
/// of the user's flags alone makes libclang fail (on an empty file), that
/// flag is named.
fn parse_failure(index: &Index, path: &Path, user: &[String], e: ParseError) -> Error {
    let code = match e {
        ParseError::Other(m) => return Error::user(Diagnostic::error_global(m)),
        ParseError::Code(code) => code,
    };
    let probe = "/flextile-probe.c";
    let empty = vec![(probe.to_string(), Vec::new())];
    let bad = user.iter().find(|flag| {
        let mut one = clang_arguments(std::slice::from_ref(*flag));
        one.insert(0, "-xc".to_string());
        TranslationUnit::parse(index, Path::new(probe), &one, &empty).is_err()
    });
    Error::user(Diagnostic::error_global(match bad {
        Some(flag) => format!(
            "clang does not accept the option '{flag}' (libclang error code {code}){}",
            if flag.starts_with("-std=") {
                ": -std names a C standard, such as c99, c11, gnu99 or gnu11"
            } else {
                ""
            }
        ),
        None => format!(
            "libclang could not parse '{}' (error code {code}); the clang flags were: {}",
            path.display(),
            if user.is_empty() {
                "none".to_string()
            } else {
                user.join(" ")
            }
        ),
    }))
}

/// The `#define` and `#undef` lines inside regions, which the output keeps
/// outside the region's generated code: before it (`false`) the lines that
/// come before every use of their macro in the region, after it (`true`)
/// those that come after every use, each group in source order. A line of a
/// macro used in the region both before and after it is an error (located
/// at the use before it): no place keeps the meaning of both.
fn region_directives(
    text: &str,
    regions: &[Region],
    macros: &[pragma::MacroDirective],
    errors: &mut Vec<Diagnostic>,
) -> Vec<(Span, bool)> {
    let mut out = Vec::new();
    for r in regions {
        let inside: Vec<&pragma::MacroDirective> = macros
            .iter()
            .filter(|m| r.span.start <= m.line.start && m.line.end <= r.span.end)
            .collect();
        let mut reported = BTreeSet::new();
        for m in &inside {
            let uses: Vec<usize> = word_uses(text, r.span, &m.name)
                .filter(|&u| !inside.iter().any(|d| d.line.start <= u && u < d.line.end))
                .collect();
            let after = uses.last().is_some_and(|&u| u < m.line.start);
            if let Some(&u) = uses.iter().find(|&&u| u < m.line.start) {
                if uses.iter().any(|&v| v > m.line.start) && reported.insert(&m.name) {
                    errors.push(
                        Diagnostic::error(
                            Span::new(u, u + m.name.len()),
                            format!(
                                "'{}' is used in this region both before and after a \
                                 '#define' or '#undef' of it: flextile cannot keep that line \
                                 at its place among the reordered statements; move it out of \
                                 the region",
                                m.name
                            ),
                        )
                        .with_note(
                            m.line,
                            format!("'{}' is redefined or undefined here", m.name),
                        ),
                    );
                }
            }
            out.push((m.line, after));
        }
    }
    out
}

/// Offsets in `span` of `text` where the word `name` occurs (comments and
/// literals included: more uses only make [`region_directives`] stricter).
fn word_uses<'a>(text: &'a str, span: Span, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    let hay = &text[span.start..span.end];
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    hay.match_indices(name).filter_map(move |(k, _)| {
        let b = hay.as_bytes();
        let before = k.checked_sub(1).map(|j| b[j]);
        let after = b.get(k + name.len()).copied();
        (!before.is_some_and(word) && !after.is_some_and(word)).then_some(span.start + k)
    })
}

/// Every macro name (of any file, `-D` and predefined ones included) and
/// every file-scope name (functions, variables, types, tags, enumerators)
/// of the translation unit: generated names must avoid them.
fn reserved_names(tu: &TranslationUnit<'_>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for c in tu.root().children() {
        if c.kind() == clang::CursorKind::MacroExpansion {
            continue;
        }
        out.insert(c.spelling());
        if c.kind() == clang::CursorKind::Other {
            for k in c.children() {
                if k.kind() == clang::CursorKind::EnumConstantDecl {
                    out.insert(k.spelling());
                }
            }
        }
    }
    out.retain(|n| !n.is_empty());
    out
}

/// A warning for each included file (flextile's virtual ones aside) that
/// holds a loop chain or scop: only the main file is transformed.
fn header_regions(includes: &[String]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for path in includes {
        if path.starts_with(VIRTUAL_INCLUDE) || !seen.insert(path) {
            continue;
        }
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        if !text.contains("omplc") && !text.contains("scop") {
            continue;
        }
        let (pragmas, _) = pragma::scan(&text);
        let Some(p) = pragmas.iter().find(|p| {
            matches!(
                p.kind,
                PragmaKind::Loopchain(..) | PragmaKind::Scop(_) | PragmaKind::Malformed { .. }
            )
        }) else {
            continue;
        };
        let before = &text[..p.span.start];
        let line = before.matches('\n').count() + 1;
        let col = p.span.start - before.rfind('\n').map_or(0, |k| k + 1) + 1;
        let what = if matches!(p.kind, PragmaKind::Scop(_)) {
            "scop"
        } else {
            "loop chain"
        };
        out.push(Diagnostic {
            severity: Severity::Warning,
            location: Location::External {
                path: path.clone(),
                line: u32::try_from(line).unwrap_or(u32::MAX),
                col: u32::try_from(col).unwrap_or(u32::MAX),
                source_line: text[p.line_start..p.line_end]
                    .trim_end_matches('\r')
                    .to_string()
                    .into(),
            },
            message: format!(
                "this {what} is in an included file and is not transformed: flextile \
                 rewrites only the main file (move the region into it)"
            ),
            notes: Vec::new(),
        });
    }
    out
}

/// `-Wno-null-conversion`, then the user's flags, plus clang's resource
/// directory (unless given), the virtual include directory searched last,
/// and `-Wno-unknown-pragmas` (so that `-Werror` does not reject our
/// pragmas). clang 14's null-conversion check is quadratic in a chain of
/// `&&` or `||` (20 000 operands: 10 s of parsing, 0.1 s without it);
/// flextile drops clang's warnings, and a user's flag after it still
/// turns it back on.
fn clang_arguments(user: &[String]) -> Vec<String> {
    let mut args = vec!["-Wno-null-conversion".to_string()];
    args.extend_from_slice(user);
    let has_resource_dir = user
        .iter()
        .any(|a| a == "-resource-dir" || a.starts_with("-resource-dir="));
    if !has_resource_dir {
        if let Some(dir) = clang::resource_dir() {
            args.push("-resource-dir".to_string());
            args.push(dir.to_string_lossy().into_owned());
        }
    }
    args.push("-idirafter".to_string());
    args.push(VIRTUAL_INCLUDE.to_string());
    args.push("-Wno-unknown-pragmas".to_string());
    args
}

/// clang's errors as diagnostics (warnings and notes are dropped), the
/// first of each line only: what follows an error on its line is most often
/// a consequence of it, and clang reports some errors twice.
fn clang_diagnostics(tu: &TranslationUnit<'_>, file: &SourceFile) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut lines: Vec<(Option<String>, usize)> = Vec::new();
    for d in tu.diagnostics() {
        if d.level == DiagLevel::Minor {
            continue;
        }
        let location = match d.place {
            DiagPlace::Main(sp) => {
                let len = file.text.len();
                let start = sp.start.min(len);
                let end = if sp.end > start {
                    sp.end.min(len)
                } else {
                    token_end(&file.text, start)
                };
                Location::Span(Span::new(start, end))
            }
            DiagPlace::Other { path, line, col } => {
                let source_line = std::fs::read_to_string(&path).ok().and_then(|t| {
                    let k = usize::try_from(line).ok()?.checked_sub(1)?;
                    t.lines().nth(k).map(str::to_string)
                });
                Location::External {
                    path,
                    line,
                    col,
                    source_line,
                }
            }
            DiagPlace::Unknown => Location::None,
        };
        let line = match &location {
            Location::Span(sp) => Some((None, file.line_col(sp.start).0)),
            Location::External { path, line, .. } => {
                Some((Some(path.clone()), usize::try_from(*line).unwrap_or(0)))
            }
            Location::None => None,
        };
        if let Some(line) = line {
            if lines.contains(&line) {
                continue;
            }
            lines.push(line);
        } else if out
            .iter()
            .any(|o: &Diagnostic| o.location == Location::None && o.message == d.message)
        {
            continue;
        }
        out.push(Diagnostic {
            severity: Severity::Error,
            location,
            message: d.message,
            notes: Vec::new(),
        });
    }
    out
}

/// End of the identifier or single character at `start` (for caret ranges).
fn token_end(text: &str, start: usize) -> usize {
    let b = text.as_bytes();
    let mut e = start;
    while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_') {
        e += 1;
    }
    if e == start && start < b.len() {
        e = start + 1;
        while e < b.len() && !text.is_char_boundary(e) {
            e += 1;
        }
    }
    e
}

/// Pairs the pragmas with statements and builds every region; problems go
/// to `errors`, what the user should know without refusing to `warnings`.
fn build_regions<'tu>(
    unit: &Unit<'tu>,
    pragmas: &[PragmaLine],
    (cli_temporaries, infer_temporaries): (&[String], bool),
    errors: &mut Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<Region> {
    // One walk per function, shared by its regions.
    let walks = function::Functions::new();
    let with_temporaries =
        |r: Region, declared: &[Temporary], errors: &mut Vec<Diagnostic>| match temporaries::check(
            unit,
            &walks,
            &r,
            declared,
            cli_temporaries,
            infer_temporaries,
        ) {
            Ok(t) => Some(Region {
                temporaries: t,
                ..r
            }),
            Err(mut d) => {
                errors.append(&mut d);
                None
            }
        };
    let mut regions = Vec::new();
    // Bytes claimed by each region (with its opening pragma and whether it is
    // a chain), to find nested regions and stray nest pragmas.
    let mut claimed: Vec<(Span, Span, bool)> = Vec::new();
    // Blocks holding a chain pragma that could not be tied to its statement:
    // their nest pragmas are not reported again.
    let mut quiet: Vec<Span> = Vec::new();

    let scops = pair_scops(pragmas, errors);
    for (s, e) in scops {
        claimed.push((Span::new(s.span.start, e.span.end), s.span, false));
        let declared = match &s.kind {
            PragmaKind::Scop(t) => t.as_slice(),
            _ => &[],
        };
        match scop::build(unit, &walks, s, e, warnings) {
            Ok(Some(r)) => regions.extend(with_temporaries(r, declared, errors)),
            Ok(None) => {}
            Err(mut d) => errors.append(&mut d),
        }
    }

    // Loop chains (a malformed chain pragma claims its statement, unbuilt).
    for p in pragmas {
        let schedule = match &p.kind {
            PragmaKind::Loopchain(s, t) => Some((s, t)),
            PragmaKind::Malformed { nest: Some(false) } => None,
            _ => continue,
        };
        let Some(parent) = unit.statement_containing(p.span.start) else {
            if schedule.is_some() {
                errors.push(Diagnostic::error(
                    p.span,
                    "'#pragma omplc loopchain' must be inside a function body",
                ));
            }
            continue;
        };
        // The statement after the pragma (the one a label before the pragma
        // labels included); one that straddles the pragma is refused.
        let next = match unit.statements_between(parent, p.span.end, usize::MAX) {
            Ok(s) => s.into_iter().next(),
            Err(c) => {
                quiet.extend(parent.span());
                if schedule.is_none() {
                    continue;
                }
                errors.push(
                    Diagnostic::error(
                        p.span,
                        "a statement straddles '#pragma omplc loopchain': the chain must be a whole statement of its block",
                    )
                    .with_note(c.span().unwrap_or(p.span), "this statement starts before the pragma and ends after it"),
                );
                continue;
            }
        };
        let between_ok = |end: usize| {
            !pragmas
                .iter()
                .any(|q| q.span.start > p.span.start && q.span.start < end)
        };
        let compound = match next {
            Some(c) if c.kind() == clang::CursorKind::CompoundStmt => c,
            _ => {
                quiet.extend(parent.span());
                if schedule.is_none() {
                    continue;
                }
                errors.push(Diagnostic::error(
                    p.span,
                    "expected a compound statement '{ ... }' after '#pragma omplc loopchain'",
                ));
                continue;
            }
        };
        let Some(cspan) = compound.span() else {
            continue;
        };
        let Some((schedule, declared)) = schedule else {
            claimed.push((Span::new(p.span.start, cspan.end), p.span, true));
            continue;
        };
        if !between_ok(cspan.start) {
            quiet.extend(parent.span());
            errors.push(Diagnostic::error(
                p.span,
                "expected a compound statement '{ ... }' after '#pragma omplc loopchain'",
            ));
            continue;
        }
        claimed.push((Span::new(p.span.start, cspan.end), p.span, true));
        let nests: Vec<&PragmaLine> = pragmas
            .iter()
            .filter(|q| q.span.start > cspan.start && q.span.start < cspan.end)
            .filter(|q| {
                matches!(
                    q.kind,
                    PragmaKind::For(_)
                        | PragmaKind::Malformed {
                            nest: Some(true) | None
                        }
                )
            })
            .collect();
        match chain::build(unit, &walks, p, schedule, compound, &nests, warnings) {
            Ok(r) => regions.extend(with_temporaries(r, declared, errors)),
            Err(mut d) => errors.append(&mut d),
        }
    }

    check_claims(pragmas, &claimed, &quiet, errors);
    regions
}

/// Pairs each '#pragma scop' with the next '#pragma endscop'; unpaired or
/// nested ones go to `errors`.
fn pair_scops<'p>(
    pragmas: &'p [PragmaLine],
    errors: &mut Vec<Diagnostic>,
) -> Vec<(&'p PragmaLine, &'p PragmaLine)> {
    let mut open: Option<&PragmaLine> = None;
    let mut scops = Vec::new();
    for p in pragmas {
        match (&p.kind, open) {
            (PragmaKind::Scop(_), None) => open = Some(p),
            (PragmaKind::Scop(_), Some(o)) => errors.push(
                Diagnostic::error(p.span, "'#pragma scop' inside another scop")
                    .with_note(o.span, "the enclosing scop starts here"),
            ),
            (PragmaKind::Endscop, Some(o)) => {
                scops.push((o, p));
                open = None;
            }
            (PragmaKind::Endscop, None) => errors.push(Diagnostic::error(
                p.span,
                "'#pragma endscop' without a matching '#pragma scop'",
            )),
            _ => {}
        }
    }
    if let Some(o) = open {
        errors.push(Diagnostic::error(
            o.span,
            "'#pragma scop' without a matching '#pragma endscop'",
        ));
    }
    scops
}

/// Nested regions and stray nest pragmas: `claimed` holds each region's
/// bytes, its opening pragma and whether it is a chain; nest pragmas in the
/// blocks of `quiet` were reported with their chain.
fn check_claims(
    pragmas: &[PragmaLine],
    claimed: &[(Span, Span, bool)],
    quiet: &[Span],
    errors: &mut Vec<Diagnostic>,
) {
    for (i, (a, ap, _)) in claimed.iter().enumerate() {
        for (b, bp, _) in claimed.iter().skip(i + 1) {
            if a.start < b.end && b.start < a.end {
                let (inner, outer) = if ap.start > bp.start {
                    (ap, bp)
                } else {
                    (bp, ap)
                };
                errors.push(
                    Diagnostic::error(
                        *inner,
                        "regions cannot be nested: this one is inside another scop or loop chain",
                    )
                    .with_note(*outer, "the enclosing region starts here"),
                );
            }
        }
    }
    for p in pragmas {
        if matches!(p.kind, PragmaKind::For(_)) {
            let in_chain = claimed.iter().any(|(s, _, is_chain)| {
                *is_chain && s.start < p.span.start && p.span.start < s.end
            });
            let excused = quiet
                .iter()
                .any(|s| s.start < p.span.start && p.span.start < s.end);
            if !in_chain && !excused {
                errors.push(Diagnostic::error(
                    p.span,
                    "'#pragma omplc for' outside a loop chain",
                ));
            }
        }
    }
}

/// Helpers for the front end's tests: parse C text through a temporary file.
#[cfg(test)]
pub(crate) mod testutil {
    use super::*;
    use crate::model::expr::Expr;
    use crate::model::program::{Access, AccessKind, Constraint, OrigNode, Piece, Stage};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Writes `src` to a fresh temporary `.c` file and runs [`parse_file`] on it.
    pub fn parse_str(src: &str) -> Result<Program> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("flextile-fe-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("input.c");
        std::fs::write(&path, src).expect("temp file");
        let r = parse_file(&path, &[]);
        std::fs::remove_dir_all(&dir).ok();
        r
    }

    /// Parses `src` with libclang and runs `f` on its [`Unit`].
    pub fn with_unit<R>(src: &str, f: impl FnOnce(&Unit<'_>) -> R) -> R {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let path = std::env::temp_dir().join(format!("flextile-unit-{}-{n}.c", std::process::id()));
        std::fs::write(&path, src).expect("temp file");
        let index = Index::new().expect("index");
        let tu = TranslationUnit::parse(&index, &path, &clang_arguments(&[]), &virtual_files())
            .expect("parse");
        std::fs::remove_file(&path).ok();
        let unit = Unit::new(&tu, src);
        f(&unit)
    }

    /// Every cursor of `kind` inside the unit's function bodies, in preorder.
    pub fn find_all<'tu>(unit: &Unit<'tu>, kind: clang::CursorKind) -> Vec<clang::Cursor<'tu>> {
        fn walk<'tu>(
            c: clang::Cursor<'tu>,
            kind: clang::CursorKind,
            out: &mut Vec<clang::Cursor<'tu>>,
        ) {
            if c.kind() == kind {
                out.push(c);
            }
            for k in c.children() {
                walk(k, kind, out);
            }
        }
        let mut out = Vec::new();
        for f in &unit.functions {
            walk(*f, kind, &mut out);
        }
        out
    }

    /// Parses `src` and expects success.
    pub fn ok(src: &str) -> Program {
        match parse_str(src) {
            Ok(p) => p,
            Err(Error::User(d) | Error::Inapplicable(d)) => panic!("unexpected errors: {d:#?}"),
            Err(Error::Internal(m)) => panic!("internal error: {m}"),
        }
    }

    /// Parses `src` and expects user errors: (message, text under the span) of each.
    pub fn errors(src: &str) -> Vec<(String, String)> {
        match parse_str(src) {
            Ok(p) => panic!("expected errors, got {} region(s)", p.regions.len()),
            Err(Error::Internal(m)) => panic!("internal error: {m}"),
            Err(Error::Inapplicable(d)) => panic!("not a front-end error: {d:#?}"),
            Err(Error::User(ds)) => ds
                .into_iter()
                .map(|d| {
                    let text = match d.location {
                        Location::Span(s) => {
                            src.get(s.start..s.end).unwrap_or("<bad span>").to_string()
                        }
                        _ => String::new(),
                    };
                    (d.message, text)
                })
                .collect(),
        }
    }

    /// `R A[(i - 1)]`, `W s[]`.
    pub fn access(a: &Access) -> String {
        let k = if a.kind == AccessKind::Read { "R" } else { "W" };
        let idx: Vec<String> = a.index.iter().map(Expr::to_string).collect();
        format!("{k} {}[{}]", a.data, idx.join("]["))
    }

    /// Every access of a list, as [`access`] writes them.
    pub fn accesses(v: &[Access]) -> Vec<String> {
        v.iter().map(access).collect()
    }

    /// `i >= 1` for each constraint.
    pub fn domain(s: &Stage) -> Vec<String> {
        s.domain
            .iter()
            .map(|c: &Constraint| format!("{} {} {}", c.lhs, c.op.as_str(), c.rhs))
            .collect()
    }

    /// The template with iterator `k` shown as `<k>` (access holes as their text).
    pub fn template(s: &Stage) -> String {
        show_pieces(&s.body.pieces, false)
    }

    /// The template with iterator `k` shown as `<k>` and access holes as
    /// `«k:text»` (`k` the index into the analysed accesses).
    pub fn holes(s: &Stage) -> String {
        show_pieces(&s.body.pieces, true)
    }

    /// Pieces as [`template`] (`marks` false) or [`holes`] (true) show them.
    pub fn show_pieces(pieces: &[Piece], marks: bool) -> String {
        pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Iter(k) => format!("<{k}>"),
                Piece::Access { access, text, .. } if marks => {
                    format!("«{access}:{}»", show_pieces(text, marks))
                }
                Piece::Access { text, .. } => show_pieces(text, marks),
            })
            .collect()
    }

    /// The loop tree as `i(j(S0) S1)`.
    pub fn tree(nodes: &[OrigNode]) -> String {
        nodes
            .iter()
            .map(|n| match n {
                OrigNode::Loop { iter, body, down } => {
                    let arrow = if *down { "-" } else { "" };
                    format!("{arrow}{iter}({})", tree(body))
                }
                OrigNode::Stage(k) => format!("#{k}"),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;

    #[test]
    fn clang_errors_are_forwarded_and_warnings_dropped() {
        let src = "#pragma something unknown\nint f(int n) {\n  int unused;\n  return n + ;\n}\n";
        let errs = errors(src);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].0, "expected expression");
        assert_eq!(errs[0].1, ";");
        let p = ok("#pragma something unknown\n#include <stdio.h>\n#include <math.h>\n#include <stdlib.h>\nint f(int n) { int unused; return n; }\n");
        assert!(p.regions.is_empty());
        let p = ok("#include <omp.h>\nint f(void) { return omp_get_max_threads(); }\n");
        assert!(p.regions.is_empty());
    }

    #[test]
    fn header_errors_point_into_the_header() {
        let dir = std::env::temp_dir().join(format!("flextile-fe-hdr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("bad.h"), "int g(void)\nint h;\n").unwrap();
        let path = dir.join("main.c");
        std::fs::write(&path, "#include \"bad.h\"\nint f(void) { return 0; }\n").unwrap();
        let r = parse_file(
            &path,
            &["-I".to_string(), dir.to_string_lossy().into_owned()],
        );
        std::fs::remove_dir_all(&dir).ok();
        let Err(Error::User(ds)) = r else {
            panic!("expected an error")
        };
        let Location::External {
            path,
            line,
            source_line,
            ..
        } = &ds[0].location
        else {
            panic!("{ds:?}")
        };
        assert!(path.ends_with("bad.h"));
        assert_eq!(*line, 1);
        assert_eq!(source_line.as_deref(), Some("int g(void)"));
    }

    #[test]
    fn user_defines_reach_clang_and_disabled_code_is_ignored() {
        let src = "#if 0\n#pragma scop\n#endif\n#ifndef N\n#error N needed\n#endif\nint a[N];\n";
        let errs = errors(src);
        assert!(errs[0].0.contains("N needed"));
        let dir = std::env::temp_dir().join(format!("flextile-fe-def-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("main.c");
        std::fs::write(&path, src).unwrap();
        let r = parse_file(&path, &["-DN=4".to_string(), "-std=c99".to_string()]);
        std::fs::remove_dir_all(&dir).ok();
        assert!(r.expect("parses with -DN=4").regions.is_empty());
    }

    #[test]
    fn missing_file_is_a_user_error() {
        let r = parse_file(Path::new("/nonexistent/flextile/x.c"), &[]);
        assert!(matches!(r, Err(Error::User(d)) if d[0].message.starts_with("cannot read")));
    }
}
