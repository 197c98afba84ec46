//! Per-thread state in a region's code: objects of which every thread has
//! its own copy, so that a parallel loop would split them between the
//! threads of its team.
//!
//! * A thread-local variable (`_Thread_local`, `__thread`, `thread_local`):
//!   a worker thread that writes it writes its own copy, one that reads it
//!   reads its own (not the values the code around the region sees).
//! * errno, thread-local in the C libraries: where the translation unit
//!   reads it ([`find_state_reads`]: the macro `errno`, which expands to a
//!   call such as `__errno_location ()`, or a library function that prints
//!   it), a call that may set it (a math function: `sqrt(-1.0)` sets EDOM)
//!   must run on the thread that runs the region, in its original order
//!   among the others, so that the last one sets the value the program
//!   reads. Where the program never reads errno, its value is not output.
//! * The floating-point environment (`<fenv.h>`: exception flags, rounding
//!   mode), per thread too: where the program uses it, any arithmetic may
//!   raise the flags it tests, so every stage of every region counts.
//!
//! Each stage whose code touches such an object gets a write and a read of
//! a 0-dimensional data set that stands for it ([`Region::thread_state`]):
//! every two instances that touch the object then depend on each other, so
//! no loop around them runs in parallel and none is reordered (instances
//! that touch different objects may still be: fused, for instance). A use
//! outside every stage's code (a loop header, a condition) counts for every
//! stage of the region. A warning per object says which use keeps which
//! loops serial. What a called function touches is not seen (a loop chain's
//! declared accesses are the declaration's responsibility), but a call
//! counts as setting errno unless its name is one of [`ERRNO_FREE`].

use std::collections::BTreeMap;

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::Unit;
use crate::frontend::clang::{Cursor, CursorKind};
use crate::frontend::final_values::descendants;
use crate::frontend::function::{Functions, Walk};
use crate::model::program::{Access, AccessKind, Region, Storage, StorageKind};

/// The functions the macro `errno` calls for the thread's errno (glibc and
/// musl, the BSDs and macOS, newlib, Solaris, Windows).
pub(crate) const ERRNO_LOCATIONS: &[&str] = &[
    "__errno_location",
    "__error",
    "__errno",
    "___errno",
    "_errno",
];

/// Library functions that read errno without the program naming it
/// (`perror` prints `strerror(errno)`, as BSD's `err` and `warn` do).
const ERRNO_READERS: &[&str] = &["perror", "err", "verr", "warn", "vwarn", "warnc"];

/// Functions that never set errno (C and POSIX define no error for them):
/// those of [`crate::frontend::body::PURE_FUNCTIONS`] that may are the
/// others, and so is any other call.
pub(crate) const ERRNO_FREE: &[&str] = &[
    "fabs",
    "fabsf",
    "fabsl",
    "abs",
    "labs",
    "llabs",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "trunc",
    "truncf",
    "round",
    "roundf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "copysign",
    "copysignf",
    "min",
    "max",
];

/// Functions of `<fenv.h>` (C99, C2x, glibc's extensions).
const FENV_FUNCTIONS: &[&str] = &[
    "feclearexcept",
    "fegetexceptflag",
    "feraiseexcept",
    "fesetexceptflag",
    "fetestexcept",
    "fetestexceptflag",
    "fesetexcept",
    "fegetround",
    "fesetround",
    "fegetenv",
    "fesetenv",
    "feholdexcept",
    "feupdateenv",
    "fegetmode",
    "fesetmode",
    "feenableexcept",
    "fedisableexcept",
    "fegetexcept",
];

/// A use of per-thread state outside the regions: where (`None` outside
/// the main file) and what it is.
#[derive(Clone, Debug)]
pub struct StateRead {
    /// The use, in the main file.
    pub at: Option<Span>,
    /// `errno`, or the function or format that uses the state.
    pub what: String,
}

/// The per-thread state the program reads (see [`find_state_reads`]).
#[derive(Clone, Debug, Default)]
pub struct StateReads {
    /// The first read of errno.
    pub errno: Option<StateRead>,
    /// The first use of the floating-point environment.
    pub fenv: Option<StateRead>,
}

/// The first reads of errno and of the floating-point environment in the
/// functions the translation unit defines outside system headers. errno:
/// a call of an errno location (the macro `errno`), a variable named
/// `errno`, a call of one of [`ERRNO_READERS`], or a string with `%m`
/// (glibc's `printf` prints `strerror(errno)` for it). The environment: a
/// call of one of [`FENV_FUNCTIONS`].
pub fn find_state_reads(root: Cursor<'_>) -> StateReads {
    let mut out = StateReads::default();
    let functions = root.children().into_iter().filter(|c| {
        c.kind() == CursorKind::FunctionDecl && c.is_definition() && !c.is_in_system_header()
    });
    for n in functions.flat_map(descendants) {
        let name = || n.spelling();
        let errno = match n.kind() {
            CursorKind::CallExpr if ERRNO_LOCATIONS.contains(&name().as_str()) => {
                Some("errno".to_string())
            }
            CursorKind::CallExpr if ERRNO_READERS.contains(&name().as_str()) => {
                Some(format!("'{}'", name()))
            }
            CursorKind::CallExpr if FENV_FUNCTIONS.contains(&name().as_str()) => {
                let what = format!("'{}'", name());
                out.fenv.get_or_insert(StateRead { at: n.span(), what });
                None
            }
            CursorKind::DeclRefExpr => n
                .referenced()
                .filter(|d| d.kind() == CursorKind::VarDecl && d.spelling() == "errno")
                .map(|_| "errno".to_string()),
            CursorKind::StringLiteral if name().contains("%m") => {
                Some("a format with %m".to_string())
            }
            _ => None,
        };
        if let Some(what) = errno {
            out.errno.get_or_insert(StateRead { at: n.span(), what });
        }
    }
    out
}

/// What a use of per-thread state touches.
#[derive(Clone, Copy, PartialEq)]
enum Object<'tu> {
    /// The thread-local variable (its declaration).
    ThreadLocal(Cursor<'tu>),
    /// errno.
    Errno,
    /// The floating-point environment.
    FloatEnv,
}

/// The uses of per-thread state in `region`'s bytes of the function
/// `walk`, with what each touches, in order: where `errno_read`, every call
/// but those of [`ERRNO_FREE`] sets errno.
fn uses<'tu>(walk: &Walk<'tu>, region: Span, errno_read: bool) -> Vec<(Object<'tu>, Span, String)> {
    walk.state_uses(region)
        .into_iter()
        .filter(|u| errno_read || !u.if_errno_read)
        .map(|u| match u.thread_local {
            Some(d) => (Object::ThreadLocal(d), u.at, u.what),
            None => (Object::Errno, u.at, u.what),
        })
        .collect()
}

/// A name for the data set of `object` (first used as `what`) that is no
/// variable or data set of the program.
fn data_set_name(unit: &Unit<'_>, region: &Region, object: Object<'_>, what: &str) -> String {
    let taken = |n: &str| {
        unit.declares(n)
            || region
                .stages
                .iter()
                .any(|s| s.accesses.iter().any(|a| a.data == n))
    };
    let base = match object {
        Object::ThreadLocal(_) => format!("ft_thread_local_{what}"),
        Object::Errno => "ft_errno".to_string(),
        Object::FloatEnv => "ft_fenv".to_string(),
    };
    let mut name = base.clone();
    let mut k = 0;
    while taken(&name) {
        k += 1;
        name = format!("{base}{k}");
    }
    name
}

/// Gives each stage of `region` whose code touches per-thread state a
/// write and a read of the data set that stands for each object it touches
/// (see the module comment), and a warning per object to `warnings`.
/// `bodies[k]`: the bytes of stage `k`'s code (its statement, or its nest
/// with its loops).
pub fn serialize<'tu>(
    unit: &Unit<'tu>,
    walks: &Functions<'tu>,
    region: &mut Region,
    bodies: &[Span],
    warnings: &mut Vec<Diagnostic>,
) {
    let Some(walk) = walks.walk(unit, region.span) else {
        return;
    };
    let reads = unit.state_reads();
    let mut found = uses(&walk, region.span, reads.errno.is_some());
    if reads.fenv.is_some() {
        found.extend(bodies.iter().map(|b| (Object::FloatEnv, *b, String::new())));
        if bodies.len() != region.stages.len() {
            found.push((Object::FloatEnv, region.pragma_span, String::new()));
        }
    }
    let n = region.stages.len();
    let mut objects: Vec<Object<'_>> = Vec::new();
    for (o, _, _) in &found {
        if !objects.contains(o) {
            objects.push(*o);
        }
    }
    for o in objects {
        let mine: Vec<&(Object<'_>, Span, String)> =
            found.iter().filter(|(x, _, _)| *x == o).collect();
        let Some((_, at, what)) = mine.first() else {
            continue;
        };
        // The first use in each stage that touches the object.
        let mut stages: BTreeMap<usize, Span> = BTreeMap::new();
        for (_, at, _) in &mine {
            let inside = |b: &Span| b.start <= at.start && at.end <= b.end;
            match bodies.iter().position(inside) {
                Some(k) if bodies.len() == n => {
                    stages.entry(k).or_insert(*at);
                }
                _ => (0..n).for_each(|k| {
                    stages.entry(k).or_insert(*at);
                }),
            }
        }
        let name = data_set_name(unit, region, o, what);
        for (&k, &span) in &stages {
            for kind in [AccessKind::Write, AccessKind::Read] {
                region.stages[k].accesses.push(Access {
                    kind,
                    data: name.clone(),
                    index: Vec::new(),
                    span,
                    conditional: false,
                });
            }
        }
        let labels: Vec<&str> = stages
            .keys()
            .map(|&k| region.stages[k].label.as_str())
            .collect();
        warnings.push(warning(unit, o, *at, what, &labels, reads));
        let storage = Storage {
            kind: StorageKind::Private,
            levels: 0,
            element: None,
        };
        region.storage.insert(name.clone(), Some(storage));
        region.thread_state.push(name);
    }
}

/// The warning for the first use `at` (of `what`: the variable, or the
/// call) of `object`, which keeps the loops of the stages `labels` serial;
/// `reads`: where the program reads the state.
fn warning(
    unit: &Unit<'_>,
    object: Object<'_>,
    at: Span,
    what: &str,
    labels: &[&str],
    reads: &StateReads,
) -> Diagnostic {
    let stages = match labels {
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
        [] => "the region".to_string(),
    };
    let serial = format!(
        "flextile keeps the loops of {stages} serial (on the thread that runs the region) \
         and in their order"
    );
    // Where the program reads the state, and how, for a note.
    let noted = |d: Diagnostic, read: Option<&StateRead>, via: &str| match read {
        Some(StateRead { at: Some(r), .. }) => {
            d.with_note(*r, format!("the program uses {via} here"))
        }
        _ => d,
    };
    let through = |read: Option<&StateRead>| match read.map(|r| r.what.as_str()) {
        Some("errno") | None => String::new(),
        Some(w) => format!(" (through {w})"),
    };
    match object {
        Object::ThreadLocal(decl) => {
            let d = Diagnostic::warning(
                at,
                format!(
                    "'{what}' is thread-local: every thread has its own copy, and the worker \
                     threads of a parallel loop would use theirs instead of the one the code \
                     around the region uses; {serial}"
                ),
            );
            match decl.location() {
                Some(l) => {
                    let end = unit.token_at_or_after(l).map_or(l + 1, |t| t.span.end);
                    d.with_note(
                        Span::new(l, end),
                        format!("'{what}' is declared thread-local here"),
                    )
                }
                None => d,
            }
        }
        Object::Errno if what == "errno" => Diagnostic::warning(
            at,
            format!(
                "the code uses errno, which is thread-local: a worker thread of a parallel loop \
                 would use its own; {serial}"
            ),
        ),
        Object::Errno => {
            let through = through(reads.errno.as_ref());
            let d = Diagnostic::warning(
                at,
                format!(
                    "'{what}' may set errno, which the program reads{through}: errno is \
                     thread-local, so a call on a worker thread of a parallel loop would set \
                     that thread's; {serial}"
                ),
            );
            noted(d, reads.errno.as_ref(), &format!("errno{through}"))
        }
        Object::FloatEnv => {
            let through = through(reads.fenv.as_ref());
            let d = Diagnostic::warning(
                at,
                format!(
                    "the program uses the floating-point environment{through}, which is \
                     thread-local: the arithmetic of a worker thread of a parallel loop would \
                     raise that thread's exception flags and round by its rounding mode; {serial}"
                ),
            );
            noted(d, reads.fenv.as_ref(), "the floating-point environment")
        }
    }
}

#[cfg(test)]
mod tests;
