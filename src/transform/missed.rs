//! Notes on the loops left serial: for each loop nest that the parallel-loop
//! pass left without any parallel loop, the dependence that keeps its
//! outermost loop serial, the two accesses behind it, and what would remove
//! it. With `-Rmissed`, also each serial loop outside the one that runs in
//! parallel (a time loop). The missed-optimisation remarks of Polly
//! (`-Rpass-missed=polly`) and gcc (`-fopt-info-missed`) are the model.

use crate::diag::{Diagnostic, Result, Severity, Span};
use crate::model::deps::Dependences;
use crate::model::expr::Expr;
use crate::model::isl_ext::isl_err;
use crate::model::marks::Mark;
use crate::model::polyhedral::{access_relation, isl_name, Names};
use crate::model::program::{Access, AccessKind, ReductionOp, Region, Stage};
use crate::model::relations::{map_list, set_list, ByStatement};
use crate::transform::band::{mark_below, mark_of, BandDeps};
use isl_rs::{Context, DimType, Map, Schedule, ScheduleNode, ScheduleNodeType, UnionMap};
use std::collections::BTreeSet;

/// At most this many nests of one region get a note; a last one counts the rest.
const MAX_NOTES: usize = 20;

/// At most this many statement pairs are searched for the dependence a loop carries.
const MAX_PAIRS: usize = 400;

/// What the notes are made from.
pub struct Missed<'a> {
    pub ctx: Context,
    pub region: &'a Region,
    pub names: &'a Names,
    pub deps: &'a Dependences,
    /// The input file's text (for the subscripts the notes quote).
    pub text: &'a str,
    /// `-Rmissed`: also the serial loops outside a parallel one.
    pub every_loop: bool,
}

/// A loop the notes are about: the band whose first member it is.
struct Serial {
    band: ScheduleNode,
    /// An inner loop runs in parallel (the note is `-Rmissed`'s).
    inner_parallel: bool,
}

/// The notes for the loops of `schedule` (parallel marks inserted) that stay
/// serial, in the order the loops run.
pub fn serial_loop_notes(schedule: &Schedule, m: &Missed) -> Result<Vec<Diagnostic>> {
    let mut found = Vec::new();
    let root = schedule.get_root().map_err(isl_err)?;
    collect(&root, m.every_loop, &mut found)?;
    let mut notes = Vec::new();
    let total = found.iter().filter(|s| !s.inner_parallel).count();
    for s in found.iter().take(MAX_NOTES) {
        notes.push(note(s, m)?);
    }
    if found.len() > MAX_NOTES {
        let more = found.len() - MAX_NOTES;
        notes.push(Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::error(
                m.region.pragma_span,
                format!("{more} more loops of this region stay serial ({total} nests have no parallel loop); -v lists the dependences"),
            )
        });
    }
    Ok(notes)
}

/// The serial loops under `node`: the outermost band of each nest without
/// a parallel mark, and (`every_loop`) a band whose first member is serial
/// above a parallel one.
fn collect(node: &ScheduleNode, every_loop: bool, out: &mut Vec<Serial>) -> Result<()> {
    match node.get_type().map_err(isl_err)? {
        ScheduleNodeType::Mark => {
            let mark = mark_of(node)?;
            if matches!(mark, Some(Mark::Parallel { .. }) | Some(Mark::Serial)) {
                // A parallel loop, or loops the user asked to keep serial.
                return Ok(());
            }
        }
        // Overlapped tiles say themselves what they run in parallel.
        ScheduleNodeType::Expansion | ScheduleNodeType::Extension => return Ok(()),
        ScheduleNodeType::Band => {
            let parallel_inside = has_parallel(node)?;
            if !parallel_inside || every_loop {
                out.push(Serial {
                    band: node.copy().map_err(isl_err)?,
                    inner_parallel: parallel_inside,
                });
            }
            if !parallel_inside {
                return Ok(());
            }
        }
        _ => {}
    }
    for k in 0..node.n_children().map_err(isl_err)? {
        collect(&node.get_child(k).map_err(isl_err)?, every_loop, out)?;
    }
    Ok(())
}

/// True when a parallel mark lies at or under `node`.
fn has_parallel(node: &ScheduleNode) -> Result<bool> {
    mark_below(node, &|m| matches!(m, Mark::Parallel { .. }))
}

/// A dependence the loop carries: its kind, and the two accesses where
/// they are found.
struct Carried<'r> {
    kind: AccessPair,
    source: &'r Stage,
    target: &'r Stage,
    accesses: Option<(&'r Access, &'r Access)>,
}

/// The kinds of dependence, with the roles of their two accesses.
#[derive(Clone, Copy)]
enum AccessPair {
    Flow,
    Output,
    Anti,
}

impl AccessPair {
    fn words(self) -> &'static str {
        match self {
            AccessPair::Flow => "read-after-write",
            AccessPair::Output => "write-after-write",
            AccessPair::Anti => "write-after-read",
        }
    }

    fn roles(self) -> (AccessKind, AccessKind) {
        match self {
            AccessPair::Flow => (AccessKind::Write, AccessKind::Read),
            AccessPair::Output => (AccessKind::Write, AccessKind::Write),
            AccessPair::Anti => (AccessKind::Read, AccessKind::Write),
        }
    }
}

/// At most this many causes (data sets, or statement pairs) are named per loop.
const MAX_CAUSES: usize = 3;

/// The note for the serial loop `s`.
fn note(s: &Serial, m: &Missed) -> Result<Diagnostic> {
    let stages = band_stages(&s.band, m.region)?;
    let first = stages.first().copied();
    let (name, at) = match first.and_then(|st| loop_of(&s.band, st, m).transpose()) {
        Some(found) => found?,
        None => (
            "the outermost loop".to_string(),
            first.map_or(m.region.pragma_span, |st| st.span),
        ),
    };
    let causes = carried(&s.band, &stages, m)?;
    let inner = if s.inner_parallel {
        " (an inner loop runs in parallel)"
    } else {
        ""
    };
    let what = match causes.as_slice() {
        [] => "flextile found no dependence it carries, but no loop of the nest could be marked"
            .to_string(),
        [c] => format!("it carries a {} dependence{}", c.kind.words(), c.on(m)),
        _ => {
            let each: Vec<String> = causes
                .iter()
                .map(|c| format!("{}{}", c.kind.words(), c.on(m)))
                .collect();
            format!("it carries dependences: {}", each.join("; "))
        }
    };
    let mut d = Diagnostic::error(at, format!("{name} stays serial{inner}: {what}"));
    d.severity = Severity::Note;
    for c in &causes {
        d = c.explain(d, m);
    }
    Ok(d)
}

impl Carried<'_> {
    /// ` on 'A'`, or nothing where no access pair was found.
    fn on(&self, m: &Missed) -> String {
        match self.accesses {
            None => String::new(),
            Some((a, _)) if m.region.thread_state.contains(&a.data) => {
                format!(" on per-thread state (at '{}')", quote(m.text, a.span))
            }
            Some((a, _)) => format!(" on '{}'", a.data),
        }
    }

    /// `d` with notes at the two accesses and what would remove the dependence.
    fn explain(&self, mut d: Diagnostic, m: &Missed) -> Diagnostic {
        let Some((a, b)) = self.accesses else {
            d = d.with_note(
                self.source.span,
                format!("from {} in one iteration", self.source.label),
            );
            return d.with_note(
                self.target.span,
                format!("to {} in a later one", self.target.label),
            );
        };
        let (ra, rb) = self.kind.roles();
        let same = std::ptr::eq(a, b);
        let again = if same {
            ", and again in a later one"
        } else {
            ""
        };
        d = d.with_note(
            a.span,
            format!("{} '{}' in one iteration{again}", role(ra), shown(a, m)),
        );
        if !same {
            d = d.with_note(
                b.span,
                format!("{} '{}' in a later iteration", role(rb), shown(b, m)),
            );
        }
        match advice(a, b, m) {
            Some((span, why)) => d.with_note(span, why),
            None => d,
        }
    }
}

fn role(k: AccessKind) -> &'static str {
    match k {
        AccessKind::Read => "the read",
        AccessKind::Write => "the write",
    }
}

/// The text at `span`, white space collapsed.
fn quote(text: &str, span: Span) -> String {
    let end = span.end.min(text.len());
    let start = span.start.min(end);
    let t = text.get(start..end).unwrap_or("");
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    match t.char_indices().nth(QUOTED) {
        Some((cut, _)) => format!("{}...", &t[..cut]),
        None => t,
    }
}

/// The code of the access `a`, or its data set's name where the code is not
/// the user's; a loop chain's declared tuple, `(i, j)`, gets its data set's
/// name in front.
fn shown(a: &Access, m: &Missed) -> String {
    match quote(m.text, a.span) {
        q if q.is_empty() => a.data.clone(),
        q if q.starts_with('(') => format!("{} {q}", a.data),
        q => q,
    }
}

/// The most characters of code a note quotes.
const QUOTED: usize = 40;

/// What would remove the dependence between the accesses `a` and `b`.
fn advice(a: &Access, b: &Access, m: &Missed) -> Option<(Span, String)> {
    if a.index.is_empty() {
        let name = &a.data;
        if m.region.thread_state.contains(name) {
            return Some((a.span, "this touches per-thread state (a thread-local object, errno or the floating-point environment that the program reads): its uses keep their thread and their order".to_string()));
        }
        let inexact = m
            .region
            .stages
            .iter()
            .filter_map(|s| s.reduction.as_ref())
            .find(|r| &r.var == name && !r.exact);
        if let Some(r) = inexact {
            let what = match r.op {
                ReductionOp::Sum => "sum",
                ReductionOp::Product => "product",
                ReductionOp::Min => "minimum",
                ReductionOp::Max => "maximum",
                _ => "reduction",
            };
            return Some((
                a.span,
                format!("'{name}' is a floating-point {what}: running its iterations in parallel would reassociate it and change the result's bits, so they keep their order (integer reductions run in parallel)"),
            ));
        }
        if let Some(why) = m.region.shared_scalars.get(name) {
            return Some((
                a.span,
                format!("'{name}' is not private to an iteration: {why}"),
            ));
        }
        return Some((
            a.span,
            format!("the scalar '{name}' is shared by all iterations; a value it carries from one iteration to the next (an accumulation) keeps their order"),
        ));
    }
    let any = |x: &Access| x.index.contains(&Expr::Any);
    let x = [a, b].into_iter().find(|x| any(x))?;
    let linear = x.index.len() == 1 && quote(m.text, x.span).contains('*');
    let hint = match linear {
        true => format!(
            ": a linearised subscript with a run-time width; indexing '{}' as a 2-D array (a pointer to rows, 'float (*{})[W]') makes it affine",
            x.data, x.data
        ),
        false => String::new(),
    };
    Some((
        x.span,
        format!(
            "this subscript is not affine in the loop variables, so flextile assumes it may touch any element of '{}'{hint}",
            x.data
        ),
    ))
}

/// The stages under `band`, in the region's order.
fn band_stages<'r>(band: &ScheduleNode, region: &'r Region) -> Result<Vec<&'r Stage>> {
    let dom = band.get_domain().map_err(isl_err)?;
    let mut names = BTreeSet::new();
    for set in set_list(&dom)? {
        names.insert(set.get_tuple_name().map_err(isl_err)?.to_string());
    }
    Ok(region
        .stages
        .iter()
        .filter(|s| names.contains(&s.name))
        .collect())
}

/// The loop of `stage` that the first member of `band` runs: the first of
/// the stage's loops whose iterator alone fixes that member's value (the
/// loop itself, its mirror for a loop that counts down, or its tile loop).
/// Its name and its `for`.
fn loop_of(band: &ScheduleNode, stage: &Stage, m: &Missed) -> Result<Option<(String, Span)>> {
    let partial = band
        .band_get_partial_schedule_union_map()
        .map_err(isl_err)?;
    let n = band.band_n_member().map_err(isl_err)? as usize;
    let its: Vec<String> = stage.iterators.iter().map(|i| isl_name(i)).collect();
    let xs: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
    let params = m.names.params_prefix();
    let first_member = format!("{params}{{ [{}] -> [x0] }}", xs.join(", "));
    let first_member = UnionMap::read_from_str(&m.ctx, &first_member).map_err(isl_err)?;
    let own = ByStatement::new(&partial)?;
    let dom = band.get_domain().map_err(isl_err)?;
    let mut mine = UnionMap::read_from_str(&m.ctx, "{ }").map_err(isl_err)?;
    for set in set_list(&dom)? {
        if set.get_tuple_name().map_err(isl_err)? == stage.name {
            let part = own.intersect_domain(&stage.name, &set)?;
            mine = mine.union(part).map_err(isl_err)?;
        }
    }
    if mine.is_empty().map_err(isl_err)? {
        return Ok(None);
    }
    let value = mine.apply_range(first_member).map_err(isl_err)?;
    for (k, (span, it)) in stage.loop_spans.iter().zip(&its).enumerate() {
        let text = format!("{params}{{ {}[{}] -> [{it}] }}", stage.name, its.join(", "));
        let iterator = UnionMap::read_from_str(&m.ctx, &text).map_err(isl_err)?;
        let by_iterator = iterator
            .reverse()
            .and_then(|r| r.apply_range(value.copy()?))
            .map_err(isl_err)?;
        if by_iterator.is_single_valued().map_err(isl_err)? {
            return Ok(Some((format!("loop '{}'", stage.iterators[k]), *span)));
        }
    }
    Ok(None)
}

/// The dependences (flow, then output, then anti) that the first member of
/// `band` carries, and the accesses behind each: one per data set (or pair
/// of statements), at most [`MAX_CAUSES`].
fn carried<'r>(
    band: &ScheduleNode,
    stages: &[&'r Stage],
    m: &'r Missed,
) -> Result<Vec<Carried<'r>>> {
    let by_name = |n: &str| stages.iter().copied().find(|s| s.name == n);
    let mut searched = 0;
    let mut found: Vec<Carried<'r>> = Vec::new();
    let mut seen = BTreeSet::new();
    for (kind, rel) in [
        (AccessPair::Flow, &m.deps.flow),
        (AccessPair::Output, &m.deps.output),
        (AccessPair::Anti, &m.deps.anti),
    ] {
        for dep in map_list(rel)? {
            let from = dep.get_tuple_name(DimType::In).map_err(isl_err)?;
            let to = dep.get_tuple_name(DimType::Out).map_err(isl_err)?;
            let (Some(source), Some(target)) = (by_name(from), by_name(to)) else {
                continue;
            };
            searched += 1;
            if searched > MAX_PAIRS || found.len() >= MAX_CAUSES {
                return Ok(found);
            }
            if !carries(band, dep.copy().map_err(isl_err)?)? {
                continue;
            }
            let accesses = culprit(band, &dep, kind, source, target, &seen, m)?;
            if accesses.is_none()
                && culprit(band, &dep, kind, source, target, &BTreeSet::new(), m)?.is_some()
            {
                // On a data set already named.
                continue;
            }
            let key = match accesses {
                Some((a, _)) => a.data.clone(),
                None => format!("{from}->{to}"),
            };
            if seen.insert(key) {
                found.push(Carried {
                    kind,
                    source,
                    target,
                    accesses,
                });
            }
        }
    }
    Ok(found)
}

/// True when the first member of `band` carries a pair of `dep`.
fn carries(band: &ScheduleNode, dep: Map) -> Result<bool> {
    let u = UnionMap::from_map(dep).map_err(isl_err)?;
    Ok(!BandDeps::indexed(band, &ByStatement::new(&u)?)?.member_is_parallel(0)?)
}

/// The accesses of `source` and `target` (with the roles of `kind`) to one
/// element that make a pair of `dep` the first member of `band` carries,
/// on a data set not in `seen`.
fn culprit<'r>(
    band: &ScheduleNode,
    dep: &Map,
    kind: AccessPair,
    source: &'r Stage,
    target: &'r Stage,
    seen: &BTreeSet<String>,
    m: &Missed,
) -> Result<Option<(&'r Access, &'r Access)>> {
    let (ra, rb) = kind.roles();
    let fresh = |a: &&Access| a.kind == ra && !seen.contains(&a.data);
    for a in source.accesses.iter().filter(fresh) {
        for b in target
            .accesses
            .iter()
            .filter(|b| b.kind == rb && b.data == a.data)
        {
            let to_a = access_relation(&m.ctx, source, m.names, a)?;
            let to_b = access_relation(&m.ctx, target, m.names, b)?;
            let same = to_a
                .apply_range(to_b.reverse().map_err(isl_err)?)
                .and_then(|s| s.intersect(UnionMap::from_map(dep.copy()?)?))
                .map_err(isl_err)?;
            for pair in map_list(&same)? {
                if carries(band, pair)? {
                    return Ok(Some((a, b)));
                }
            }
        }
    }
    Ok(None)
}
