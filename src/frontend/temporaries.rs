//! Temporaries declared by the user (`temporary(...)` on a region's pragma,
//! `--temporary`): data sets whose values the program does not read after
//! the region (the macro-dataflow paper's temporary values, §3 and §4.4), so
//! the generated code need not store them.
//!
//! A declaration is checked against what libclang shows of the enclosing
//! function: the region must write the data set, and an element read of it
//! (`x[...]` that is not the target of a plain `=`) after the region, or in
//! a loop around the region, disproves it: an error that points at the read
//! (and so does an attribute of its declaration that may use it, as
//! `cleanup(f)` does: see [`Unit::escaping_attribute`]).
//! Reads flextile cannot see (through another pointer, in a callee, after
//! the function returns) are the declaration's responsibility, as
//! `restrict` is. The data sets the region writes that are not declared
//! are temporary too where [`liveness`] proves them so.

use std::collections::BTreeSet;

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::Unit;
use crate::frontend::function::Functions;
use crate::frontend::liveness;
use crate::model::program::{AccessKind, Region, Temporary};
use log::info;

/// The temporaries of `region` among `declared` (its pragma's clause) and
/// `cli` (`--temporary`, which names data sets of any region: those this
/// region does not write are not its own), then, when `infer`, the other
/// data sets it writes that [`liveness::prove`] proves temporary. Errors: a
/// pragma name the region does not write, and a read after the region of a
/// declared one.
pub fn check<'tu>(
    unit: &Unit<'tu>,
    walks: &Functions<'tu>,
    region: &Region,
    declared: &[Temporary],
    cli: &[String],
    infer: bool,
) -> Result<Vec<Temporary>, Vec<Diagnostic>> {
    let written: BTreeSet<&str> = region
        .stages
        .iter()
        .flat_map(|s| &s.accesses)
        .filter(|a| a.kind == AccessKind::Write)
        .map(|a| a.data.as_str())
        .filter(|d| !region.thread_state.iter().any(|t| t == d))
        .collect();
    let mut errors = Vec::new();
    let mut temps: Vec<Temporary> = Vec::new();
    for t in declared {
        if written.contains(t.name.as_str()) {
            temps.push(t.clone());
        } else if let Some(span) = t.span {
            errors.push(Diagnostic::error(
                span,
                format!(
                    "'{}' is declared temporary, but the region does not write it",
                    t.name
                ),
            ));
        }
    }
    for name in cli {
        if written.contains(name.as_str()) && !temps.iter().any(|t| &t.name == name) {
            temps.push(Temporary {
                name: name.clone(),
                span: None,
                proved: false,
            });
        }
    }
    if let Some(walk) = walks.walk(unit, region.span) {
        let function = &walk.liveness;
        let around = walk.loops_around(region.span);
        let reads = walk.reads_after(unit, &around, region.span);
        // In a loop, the next iteration runs the region again: a statement
        // of it that reads the data set may read values this iteration wrote
        // (where the writes depend on the loop), so they must reach memory.
        let read_again: BTreeSet<&str> = match around.is_empty() {
            true => BTreeSet::new(),
            false => region
                .stages
                .iter()
                .flat_map(|s| &s.accesses)
                .filter(|a| a.kind == AccessKind::Read)
                .map(|a| a.data.as_str())
                .collect(),
        };
        let again = "the region runs in a loop and reads it";
        let named: BTreeSet<String> = temps.iter().map(|t| t.name.clone()).collect();
        temps.retain(|t| {
            let keep = !read_again.contains(t.name.as_str());
            if !keep {
                info!("'{}' is not treated as temporary: {again}", t.name);
            }
            keep
        });
        let line = unit.line_of(region.pragma_span.start);
        for name in &written {
            if !infer || named.contains(*name) {
                continue;
            }
            let proof = match read_again.contains(name) {
                true => Err(again.to_string()),
                false => liveness::prove(unit, &walk, region.span, name, &reads),
            };
            match proof {
                Ok(owner) => {
                    info!("region at line {line}: '{name}' is proved temporary ({owner})");
                    temps.push(Temporary {
                        name: name.to_string(),
                        span: None,
                        proved: true,
                    });
                }
                Err(why) => info!("region at line {line}: '{name}' is live-out: {why}"),
            }
        }
        for t in temps.iter().filter(|t| !t.proved) {
            let attribute = function
                .declaration(&t.name)
                .and_then(|d| unit.escaping_attribute(d));
            if let Some((at, text)) = attribute {
                errors.push(declared_but(
                    t,
                    at.or(t.span).unwrap_or(region.pragma_span),
                    &format!("its declaration's attribute '{text}' may use it after the region"),
                ));
            }
            if let Some((_, at)) = reads.iter().find(|(n, _)| *n == t.name) {
                errors.push(declared_but(
                    t,
                    *at,
                    "the program reads it after the region here",
                ));
            }
        }
    }
    if errors.is_empty() {
        Ok(temps)
    } else {
        Err(errors)
    }
}

/// The error for the temporary `t`, declared by the user, that `why` (at
/// `at`) disproves.
fn declared_but(t: &Temporary, at: Span, why: &str) -> Diagnostic {
    let how = match t.span {
        Some(_) => "declared temporary",
        None => "named by --temporary",
    };
    let d = Diagnostic::error(at, format!("'{}' is {how}, but {why}", t.name));
    match t.span {
        Some(span) => d.with_note(span, "declared temporary here"),
        None => d,
    }
}
