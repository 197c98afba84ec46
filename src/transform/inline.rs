//! Expression inlining (Jangda & Bondhugula, TOPLAS'20, §5.1, Algorithm 3).
//!
//! A producer nest whose body is one assignment `D[i + c] = rhs;` is
//! inlined into its consumers: every read of `D` in a consumer's body
//! becomes `((T)(rhs))`, with the producer's iterators replaced by the
//! consumer's subscripts (minus the offsets), and the producer nest is
//! removed. `T` is `D`'s element type, so the consumer reads exactly the
//! value the store would have kept (C's conversion on assignment is the
//! cast's). Algorithm 3's rules decide which producers go, until none is
//! left:
//! - a point-wise producer (every read at the iteration point itself) is
//!   inlined into all its consumers (line 8), unless its expression calls a
//!   function and a consumer reads it at several points (a call recomputed
//!   per point is not cheap);
//! - a producer with a single consumer that reads it at one point is
//!   inlined into it (line 11);
//! - producers with branches (line 14) are not inlined, nor producers a
//!   consumer reads under a condition (`?:`, `if`): the expression would
//!   move into a branch, where gcc for AVX2 no longer vectorises the
//!   consumer's loop (unsharp-mask's mask).
//!
//! Live-outs are never inlined: `D` must be a temporary of the region, of
//! an arithmetic element type (a typedef flextile cannot see through may
//! name a structure, which C cannot cast to).
//!
//! Inlining moves the producer's reads to the consumer's instances, so it
//! is exact only where they read the same values there. In a loop chain
//! (nests run one after another, each alone at the top level) that holds
//! when: the producer is the only writer of `D` and writes every element
//! its consumers read (no read of `D` is live-in), runs before them and
//! reads no `D` itself; no nest from the producer to its last consumer
//! writes what the producer reads; and every read of `D` is a hole of an
//! analysable consumer body (so its text can be replaced). A nest that
//! fails any of these keeps its loops.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Error, Result};
use crate::model::expr::Expr;
use crate::model::isl_ext::isl_err;
use crate::model::polyhedral::{isl_name, RegionModel};
use crate::model::program::{
    Access, AccessKind, BodyTemplate, OrigNode, Piece, Region, RegionKind, Stage,
};
use crate::model::relations::select_by_name;
use isl_rs::{UnionMap, UnionSet};
use log::info;

/// One producer inlined: its data set, its label, and its consumers' labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Inlined {
    /// The data set no longer stored.
    pub data: String,
    /// The producer nest removed.
    pub producer: String,
    /// The nests that compute its expression instead.
    pub consumers: Vec<String>,
    /// Which rule of Algorithm 3 applied, in words.
    pub why: &'static str,
}

/// The region with its inlinable producers inlined (see the module
/// documentation), and what was inlined; `None` when nothing is.
/// `model` is the region's.
pub fn inline(region: &Region, model: &RegionModel) -> Result<Option<(Region, Vec<Inlined>)>> {
    if !is_plain_chain(region) {
        return Ok(None);
    }
    let live_in_data = partly_unwritten(region, model)?;
    let mut region = region.clone();
    let mut done = Vec::new();
    // Algorithm 3: until no producer is eligible.
    while let Some((p, why)) = (0..region.stages.len())
        .find_map(|p| eligible(&region, p, &live_in_data).map(|why| (p, why)))
    {
        let step = inline_one(&mut region, p, why)?;
        info!(
            "inline: '{}' of {} into {}",
            step.data,
            step.producer,
            step.consumers.join(", ")
        );
        done.push(step);
    }
    Ok((!done.is_empty()).then_some((region, done)))
}

/// The temporaries of `region` some read finds an element of that no
/// certain write of the region writes: part of their values come from
/// before the region. (Where a temporary has one writer, running before
/// its readers, the others' reads find their values in the region.)
/// Inlining keeps this set: an inlined expression reads what its nest read.
fn partly_unwritten(region: &Region, model: &RegionModel) -> Result<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    for t in &region.temporaries {
        let name = isl_name(&t.name);
        let of = |m: &UnionMap| -> Result<UnionSet> {
            select_by_name(m, |_, to| to == name)?
                .range()
                .and_then(|r| r.intersect_params(model.context.copy()?))
                .map_err(isl_err)
        };
        let read = of(&model.reads)?;
        if !read.is_subset(&of(&model.must_writes)?).map_err(isl_err)? {
            out.insert(t.name.clone());
        }
    }
    Ok(out)
}

/// A loop chain whose user gave no schedule, each top-level node a nest of
/// one stage, in textual order: nests run one after another.
fn is_plain_chain(region: &Region) -> bool {
    let RegionKind::Chain(schedule) = &region.kind else {
        return false;
    };
    schedule.items.is_empty()
        && region.tree.len() == region.stages.len()
        && region.tree.iter().enumerate().all(|(k, n)| {
            let mut under = Vec::new();
            crate::model::polyhedral::stages_under(std::slice::from_ref(n), &mut under);
            under == [k]
        })
}

/// The parts of a producer's body `D[w] = rhs;`: its write and the pieces
/// of `rhs`.
struct Assignment<'a> {
    write: &'a Access,
    rhs: Vec<Piece>,
}

/// The single assignment of stage `s`'s body, if that is all it is.
fn assignment(s: &Stage) -> Option<Assignment<'_>> {
    let analysed = s.analysed()?;
    if !s.analysable || s.observed.is_none() {
        return None;
    }
    let writes: Vec<&Access> = analysed
        .iter()
        .filter(|a| a.kind == AccessKind::Write)
        .collect();
    let [write] = writes.as_slice() else {
        return None;
    };
    let mut pieces = s.body.pieces.as_slice();
    if let Some(Piece::Text(t)) = pieces.first() {
        if !t.trim().is_empty() {
            return None;
        }
        pieces = &pieces[1..];
    }
    let (
        Some(Piece::Access {
            access,
            reads_too: false,
            ..
        }),
        Some(Piece::Text(eq)),
    ) = (pieces.first(), pieces.get(1))
    else {
        return None;
    };
    if !std::ptr::eq(&analysed[*access], *write) {
        return None;
    }
    let after_eq = eq.trim_start().strip_prefix('=')?;
    if after_eq.starts_with('=') {
        return None;
    }
    let mut rhs = vec![Piece::Text(after_eq.to_string())];
    rhs.extend(pieces[2..].iter().cloned());
    // The statement ends at its only semicolon.
    let Some(Piece::Text(last)) = rhs.last_mut() else {
        return None;
    };
    let end = last.trim_end().strip_suffix(';')?.to_string();
    *last = end;
    let texts = rhs.iter().filter_map(|p| match p {
        Piece::Text(t) => Some(t.as_str()),
        _ => None,
    });
    let mut all = String::new();
    texts.for_each(|t| all.push_str(t));
    if all.contains([';', '{', '}']) || all.contains("/*") || all.contains("//") {
        return None;
    }
    // Every iterator hole names one of the nest's iterators.
    let iterator = |p: &Piece| !matches!(p, Piece::Iter(k) if *k >= s.iterators.len());
    let holes_ok = rhs.iter().all(|p| match p {
        Piece::Access { text, .. } => text.iter().all(iterator),
        p => iterator(p),
    });
    holes_ok.then_some(Assignment { write, rhs })
}

/// Whether stage `s`'s body is one assignment (as [`assignment`] reads it)
/// whose right-hand side has no branch (`?:`, no access under a
/// condition) and calls no function: a straight-line statement, which
/// `intra_fusion` may put in a loop with another.
pub(crate) fn straight_assignment(s: &Stage) -> bool {
    let Some(a) = assignment(s) else {
        return false;
    };
    let branches = a.rhs.iter().any(|p| match p {
        Piece::Text(t) => t.contains('?'),
        _ => false,
    });
    let conditional = s
        .analysed()
        .unwrap_or_default()
        .iter()
        .any(|x| x.conditional);
    !branches && !conditional && !has_call(&a.rhs)
}

/// `e` as `iterator k + c` of `iterators`, if it is one.
fn translate(e: &Expr, iterators: &[String]) -> Option<(usize, i64)> {
    let mut terms: BTreeMap<String, i64> = BTreeMap::new();
    let mut constant = 0;
    if !linear(e, 1, &mut terms, &mut constant) {
        return None;
    }
    terms.retain(|_, c| *c != 0);
    let terms: Vec<(String, i64)> = terms.into_iter().collect();
    let [(v, 1)] = terms.as_slice() else {
        return None;
    };
    let k = iterators.iter().position(|i| i == v)?;
    Some((k, constant))
}

/// Accumulates `scale * e` into `terms` and `constant`; false when `e` is
/// not linear.
fn linear(e: &Expr, scale: i64, terms: &mut BTreeMap<String, i64>, constant: &mut i64) -> bool {
    match e {
        Expr::Int(v) => {
            *constant += scale * v;
            true
        }
        Expr::Var(v) => {
            *terms.entry(v.clone()).or_insert(0) += scale;
            true
        }
        Expr::Neg(a) => linear(a, -scale, terms, constant),
        Expr::Add(a, b) => linear(a, scale, terms, constant) && linear(b, scale, terms, constant),
        Expr::Sub(a, b) => linear(a, scale, terms, constant) && linear(b, -scale, terms, constant),
        Expr::Mul(a, b) => match (a.constant(), b.constant()) {
            (Some(c), _) => linear(b, scale * c, terms, constant),
            (_, Some(c)) => linear(a, scale * c, terms, constant),
            _ => false,
        },
        _ => false,
    }
}

/// The write index of a producer as a bijection from its iterators: per
/// dimension, the iterator and the offset (`D[x - 2][y]`: `(0, -2), (1, 0)`),
/// each iterator once, all of them.
fn write_translation(p: &Stage, write: &Access) -> Option<Vec<(usize, i64)>> {
    let t: Vec<(usize, i64)> = write
        .index
        .iter()
        .map(|e| translate(e, &p.iterators))
        .collect::<Option<_>>()?;
    let used: BTreeSet<usize> = t.iter().map(|(k, _)| *k).collect();
    (used.len() == t.len() && t.len() == p.iterators.len()).then_some(t)
}

/// Which rule of Algorithm 3 inlines stage `p`, or `None` when it cannot or
/// should not be inlined.
fn eligible(region: &Region, p: usize, live_in_data: &BTreeSet<String>) -> Option<&'static str> {
    let s = &region.stages[p];
    let a = assignment(s)?;
    let data = &a.write.data;
    // A temporary, not live-in anywhere, with an arithmetic element type
    // for the cast (C has no casts to structures).
    if !region.temporaries.iter().any(|t| &t.name == data)
        || live_in_data.contains(data)
        || !region.data_types.get(data).is_some_and(|t| arithmetic(t))
        || region.versions.contains_key(data)
    {
        return None;
    }
    write_translation(s, a.write)?;
    // The producer's declared accesses: its one write, and reads of other
    // data sets, with plain affine subscripts.
    let declared_writes: Vec<&Access> = s
        .accesses
        .iter()
        .filter(|x| x.kind == AccessKind::Write)
        .collect();
    if declared_writes.len() != 1
        || declared_writes[0].data != *data
        || declared_writes[0].index != a.write.index
    {
        return None;
    }
    let plain = |x: &Access| {
        x.index
            .iter()
            .all(|e| e.is_affine() && e.is_plain_c() && !e.has_any())
    };
    let reads: Vec<&Access> = s
        .accesses
        .iter()
        .chain(s.analysed().unwrap_or_default())
        .filter(|x| x.kind == AccessKind::Read)
        .collect();
    if reads
        .iter()
        .any(|x| x.data == *data || !plain(x) || x.index.is_empty())
    {
        return None;
    }
    let read_data: BTreeSet<&str> = reads.iter().map(|x| x.data.as_str()).collect();
    // Every other access to the data set is a read of a later nest, in a
    // hole of its analysable body.
    let mut consumers = Vec::new();
    for (c, st) in region.stages.iter().enumerate() {
        if c == p {
            continue;
        }
        let touches = st
            .accesses
            .iter()
            .chain(st.analysed().unwrap_or_default())
            .any(|x| x.data == *data);
        if !touches {
            continue;
        }
        if c < p || !readable_consumer(st, data, a.write.index.len()) {
            return None;
        }
        consumers.push(c);
    }
    let last = *consumers.last()?;
    // Nothing the producer reads changes before its last consumer has read it.
    if region.stages[p + 1..=last].iter().any(|st| {
        st.accesses
            .iter()
            .chain(st.analysed().unwrap_or_default())
            .any(|x| x.kind == AccessKind::Write && read_data.contains(x.data.as_str()))
    }) {
        return None;
    }
    let pointwise = reads.iter().all(|x| {
        x.index
            .iter()
            .all(|e| translate(e, &s.iterators).is_some_and(|(_, c)| c == 0))
    });
    let points = |c: usize| -> usize {
        let mut seen = Vec::new();
        for x in region.stages[c].accesses.iter().filter(|x| x.data == *data) {
            if !seen.contains(&&x.index) {
                seen.push(&x.index);
            }
        }
        seen.len()
    };
    let calls = has_call(&a.rhs);
    if pointwise && (!calls || consumers.iter().all(|&c| points(c) == 1)) {
        return Some("point-wise");
    }
    if consumers.len() == 1 && points(consumers[0]) == 1 {
        return Some("one consumer, reading it at one point");
    }
    None
}

/// Whether `ty` (clang's spelling, without qualifiers) names an arithmetic
/// type C can cast to: the standard integer and floating types, spelled
/// with their keywords or as the `<stdint.h>` and `<stddef.h>` names.
/// Other typedefs may name structures, so they count as not.
fn arithmetic(ty: &str) -> bool {
    const WORDS: &[&str] = &[
        "float", "double", "long", "int", "short", "char", "signed", "unsigned", "_Bool",
    ];
    const NAMES: &[&str] = &[
        "int8_t",
        "int16_t",
        "int32_t",
        "int64_t",
        "uint8_t",
        "uint16_t",
        "uint32_t",
        "uint64_t",
        "size_t",
        "ptrdiff_t",
    ];
    NAMES.contains(&ty.trim())
        || (!ty.trim().is_empty() && ty.split_whitespace().all(|w| WORDS.contains(&w)))
}

/// Whether the text of `rhs` calls a function (an identifier before `(`).
fn has_call(rhs: &[Piece]) -> bool {
    let mut text = String::new();
    for p in rhs {
        match p {
            Piece::Text(t) => text.push_str(t),
            _ => text.push_str(" _ "),
        }
    }
    let b = text.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b'(' && {
            let before = text[..i].trim_end();
            before
                .chars()
                .last()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && !before.ends_with("sizeof")
        }
    })
}

/// Whether `st` only reads `data`, each read in an access hole of its
/// analysable body, with `arity` plain affine subscripts (as the write), and
/// not under a condition
/// (an `if`, `?:`: the expression would move into a branch, which gcc then
/// does not vectorise).
fn readable_consumer(st: &Stage, data: &str, arity: usize) -> bool {
    let Some(analysed) = st.analysed() else {
        return false;
    };
    if st.observed.is_none() || !st.analysable {
        return false;
    }
    let all = st.accesses.iter().chain(analysed);
    let mut ok = true;
    for x in all.filter(|x| x.data == data) {
        ok &= x.kind == AccessKind::Read
            && !x.conditional
            && x.index.len() == arity
            && x.index
                .iter()
                .all(|e| e.is_affine() && e.is_plain_c() && !e.has_any());
    }
    let mut holes = BTreeSet::new();
    for piece in &st.body.pieces {
        if let Piece::Access { access, .. } = piece {
            holes.insert(*access);
        }
    }
    ok && analysed
        .iter()
        .enumerate()
        .all(|(k, x)| x.data != data || holes.contains(&k))
}

/// Inlines the eligible producer `p` into its consumers and removes it.
fn inline_one(region: &mut Region, p: usize, why: &'static str) -> Result<Inlined> {
    let producer = region.stages[p].clone();
    let lost = || Error::internal("inline: an eligible producer is no longer one");
    let a = assignment(&producer).ok_or_else(lost)?;
    let data = a.write.data.clone();
    let elem = region.data_types.get(&data).cloned().ok_or_else(lost)?;
    let map = write_translation(&producer, a.write).ok_or_else(lost)?;
    let producer_reads: Vec<Access> = producer
        .accesses
        .iter()
        .filter(|x| x.kind == AccessKind::Read)
        .cloned()
        .collect();
    let mut consumers = Vec::new();
    for c in (p + 1)..region.stages.len() {
        let st = &region.stages[c];
        if !st.accesses.iter().any(|x| x.data == data) {
            continue;
        }
        consumers.push(st.label.clone());
        let new = inline_into(st, &producer, &a, &map, &producer_reads, &elem).ok_or_else(lost)?;
        region.stages[c] = new;
    }
    // The producer's nest goes, and the tree's stage numbers after it
    // move down.
    region.stages.remove(p);
    region.tree.remove(p);
    renumber(&mut region.tree, p);
    region.temporaries.retain(|t| t.name != data);
    Ok(Inlined {
        data,
        producer: producer.label,
        consumers,
        why,
    })
}

/// Stage numbers above `removed` in `nodes` move down by one.
fn renumber(nodes: &mut [OrigNode], removed: usize) {
    for n in nodes {
        match n {
            OrigNode::Stage(k) if *k > removed => *k -= 1,
            OrigNode::Stage(_) => {}
            OrigNode::Loop { body, .. } => renumber(body, removed),
        }
    }
}

/// Consumer `st` with every read of the producer's data set replaced by the
/// producer's expression at that point (`None`: a body is not analysed).
fn inline_into(
    st: &Stage,
    producer: &Stage,
    a: &Assignment,
    map: &[(usize, i64)],
    producer_reads: &[Access],
    elem: &str,
) -> Option<Stage> {
    let data = &a.write.data;
    // The producer's iterators at a read `D[e]` of the consumer: iterator
    // `map[d].0` is `e[d] - map[d].1`.
    let at = |index: &[Expr]| -> Option<Vec<Expr>> {
        let mut its = vec![Expr::Int(0); producer.iterators.len()];
        for (d, (k, c)) in map.iter().enumerate() {
            let e = index.get(d)?.clone();
            *its.get_mut(*k)? = match c {
                0 => e,
                c => Expr::difference(e, Expr::Int(*c)),
            };
        }
        Some(its)
    };
    let compose = |x: &Access, its: &[Expr], conditional: bool| Access {
        index: x
            .index
            .iter()
            .map(|e| substitute_all(e, &producer.iterators, its))
            .collect(),
        conditional: x.conditional || conditional,
        ..x.clone()
    };
    // Declared accesses: the reads of the data set become the producer's
    // reads at each point read.
    let mut accesses: Vec<Access> = Vec::new();
    for x in &st.accesses {
        if &x.data != data {
            accesses.push(x.clone());
            continue;
        }
        let its = at(&x.index)?;
        accesses.extend(producer_reads.iter().map(|r| compose(r, &its, false)));
    }
    // Observed accesses and the body: each hole reading the data set becomes
    // the producer's expression, whose holes are new observed accesses.
    let (observed, p_observed) = (st.observed.as_ref()?, producer.observed.as_ref()?);
    let mut new_observed: Vec<Access> = Vec::new();
    let mut renumbered: BTreeMap<usize, usize> = BTreeMap::new();
    for (k, x) in observed.iter().enumerate() {
        if &x.data != data {
            renumbered.insert(k, new_observed.len());
            new_observed.push(x.clone());
        }
    }
    let mut pieces = Vec::new();
    for piece in &st.body.pieces {
        let Piece::Access {
            access,
            reads_too,
            text,
            gather,
        } = piece
        else {
            pieces.push(piece.clone());
            continue;
        };
        if gather.is_some() {
            // Gathers are only in bodies that are not analysable.
            return None;
        }
        let x = observed.get(*access)?;
        if &x.data != data {
            pieces.push(Piece::Access {
                access: *renumbered.get(access)?,
                reads_too: *reads_too,
                text: text.clone(),
                gather: None,
            });
            continue;
        }
        let its = at(&x.index)?;
        let its_pieces: Vec<Vec<Piece>> =
            its.iter().map(|e| expr_pieces(e, &st.iterators)).collect();
        pieces.push(Piece::Text(format!("(({elem})(")));
        for rp in &a.rhs {
            match rp {
                Piece::Text(t) => pieces.push(Piece::Text(t.clone())),
                Piece::Iter(k) => pieces.extend(its_pieces[*k].iter().cloned()),
                Piece::Access {
                    gather: Some(_), ..
                } => return None,
                Piece::Access {
                    access: pk,
                    reads_too,
                    text,
                    gather: None,
                } => {
                    let r = p_observed.get(*pk)?;
                    let n = new_observed.len();
                    new_observed.push(compose(r, &its, x.conditional));
                    pieces.push(Piece::Access {
                        access: n,
                        reads_too: *reads_too,
                        text: text
                            .iter()
                            .flat_map(|t| match t {
                                Piece::Iter(k) => its_pieces[*k].clone(),
                                other => vec![other.clone()],
                            })
                            .collect(),
                        gather: None,
                    });
                }
            }
        }
        pieces.push(Piece::Text("))".to_string()));
    }
    // Merge adjacent texts, as the front end leaves them.
    let mut merged: Vec<Piece> = Vec::new();
    for piece in pieces {
        match (merged.last_mut(), piece) {
            (Some(Piece::Text(a)), Piece::Text(b)) => a.push_str(&b),
            (_, p) => merged.push(p),
        }
    }
    Some(Stage {
        accesses,
        observed: Some(new_observed),
        gathered: None,
        body: BodyTemplate { pieces: merged },
        ..st.clone()
    })
}

/// `e` with `vars[k]` replaced by `by[k]`, all at once.
fn substitute_all(e: &Expr, vars: &[String], by: &[Expr]) -> Expr {
    match e {
        Expr::Var(v) => match vars.iter().position(|x| x == v) {
            Some(k) => by[k].clone(),
            None => e.clone(),
        },
        Expr::Int(_) | Expr::Any => e.clone(),
        Expr::Neg(a) => Expr::Neg(Box::new(substitute_all(a, vars, by))),
        Expr::Add(a, b) => Expr::sum(substitute_all(a, vars, by), substitute_all(b, vars, by)),
        Expr::Sub(a, b) => {
            Expr::difference(substitute_all(a, vars, by), substitute_all(b, vars, by))
        }
        Expr::Mul(a, b) => Expr::product(substitute_all(a, vars, by), substitute_all(b, vars, by)),
        Expr::Div(a, b) => Expr::Div(
            Box::new(substitute_all(a, vars, by)),
            Box::new(substitute_all(b, vars, by)),
        ),
        Expr::Mod(a, b) => Expr::Mod(
            Box::new(substitute_all(a, vars, by)),
            Box::new(substitute_all(b, vars, by)),
        ),
        Expr::Min(xs) => Expr::Min(xs.iter().map(|x| substitute_all(x, vars, by)).collect()),
        Expr::Max(xs) => Expr::Max(xs.iter().map(|x| substitute_all(x, vars, by)).collect()),
    }
}

/// A plain C expression as template pieces, parenthesised: the iterators
/// of `iterators` become holes, other names stay text.
fn expr_pieces(e: &Expr, iterators: &[String]) -> Vec<Piece> {
    fn go(e: &Expr, iterators: &[String], out: &mut Vec<Piece>) {
        let text = |out: &mut Vec<Piece>, t: &str| out.push(Piece::Text(t.to_string()));
        match e {
            Expr::Int(v) if *v < 0 => text(out, &format!("({v})")),
            Expr::Int(v) => text(out, &v.to_string()),
            Expr::Var(v) => match iterators.iter().position(|i| i == v) {
                Some(k) => out.push(Piece::Iter(k)),
                None => text(out, v),
            },
            Expr::Neg(a) => {
                text(out, "-(");
                go(a, iterators, out);
                text(out, ")");
            }
            Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) => {
                let op = match e {
                    Expr::Add(..) => " + ",
                    Expr::Sub(..) => " - ",
                    _ => " * ",
                };
                text(out, "(");
                go(a, iterators, out);
                text(out, op);
                go(b, iterators, out);
                text(out, ")");
            }
            // Not plain C: never an inlined subscript (checked before).
            other => text(out, &format!("({other})")),
        }
    }
    let mut out = Vec::new();
    go(e, iterators, &mut out);
    out
}

/// `--explain`'s account of what was inlined in the region at `path:line`.
pub fn explain(path: &str, line: usize, done: &[Inlined]) -> String {
    let mut out = format!(
        "{path}:{line}: expression inlining (Jangda & Bondhugula, TOPLAS'20, Algorithm 3)\n"
    );
    for d in done {
        out.push_str(&format!(
            "  '{}' of {} into {}: {}\n",
            d.data,
            d.producer,
            d.consumers.join(", "),
            d.why
        ));
    }
    out
}

/// The banner's words for what was inlined.
pub fn summary(done: &[Inlined]) -> String {
    let items: Vec<String> = done
        .iter()
        .map(|d| format!("'{}' ({})", d.data, d.producer))
        .collect();
    format!(
        "inlined {} into their consumers (expression inlining)",
        items.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;

    fn v(s: &str) -> Expr {
        Expr::Var(s.into())
    }

    fn its() -> Vec<String> {
        vec!["y".into(), "x".into()]
    }

    #[test]
    fn translations_are_one_iterator_plus_a_constant() {
        let e = Expr::difference(Expr::sum(v("x"), Expr::Int(3)), Expr::Int(1));
        assert_eq!(translate(&e, &its()), Some((1, 2)));
        assert_eq!(translate(&v("y"), &its()), Some((0, 0)));
        let twice = Expr::product(Expr::Int(2), v("x"));
        assert_eq!(translate(&twice, &its()), None);
        assert_eq!(translate(&Expr::sum(v("x"), v("y")), &its()), None);
        assert_eq!(translate(&Expr::sum(v("N"), Expr::Int(1)), &its()), None);
        // x - x + y is y.
        let cancels = Expr::sum(Expr::difference(v("x"), v("x")), v("y"));
        assert_eq!(translate(&cancels, &its()), Some((0, 0)));
    }

    #[test]
    fn only_arithmetic_types_are_cast_to() {
        for t in [
            "float",
            "unsigned char",
            "long long",
            "long double",
            "uint16_t",
            "_Bool",
        ] {
            assert!(arithmetic(t), "{t}");
        }
        for t in ["struct pt", "pixel_t", "float *", ""] {
            assert!(!arithmetic(t), "{t}");
        }
    }

    #[test]
    fn calls_are_names_before_parentheses() {
        let text = |t: &str| vec![Piece::Text(t.into())];
        assert!(has_call(&text(" sqrtf(a) + 1")));
        assert!(!has_call(&text(" (a + b) * 2")));
        assert!(!has_call(&text(" sizeof(float) * 2")));
        let hole = Piece::Access {
            access: 0,
            reads_too: false,
            text: vec![],
            gather: None,
        };
        assert!(!has_call(&[
            Piece::Text(" 2 * (".into()),
            hole,
            Piece::Text(")".into())
        ]));
    }

    #[test]
    fn subscripts_become_pieces_with_iterator_holes() {
        let e = Expr::difference(Expr::sum(v("x"), Expr::Int(-1)), v("N"));
        let mut s = String::new();
        for p in expr_pieces(&e, &its()) {
            match p {
                Piece::Text(t) => s.push_str(&t),
                Piece::Iter(k) => s.push_str(&format!("<{k}>")),
                Piece::Access { .. } => s.push_str("<access>"),
            }
        }
        assert_eq!(s, "((<1> + (-1)) - N)");
    }

    /// The access hole `k` of `name[y][x<tail>]`.
    fn hole(k: usize, name: &str, tail: &str) -> Piece {
        Piece::Access {
            access: k,
            reads_too: false,
            gather: None,
            text: vec![
                Piece::Text(format!("{name}[")),
                Piece::Iter(0),
                Piece::Text("][".into()),
                Piece::Iter(1),
                Piece::Text(format!("{tail}]")),
            ],
        }
    }

    /// `D[y][x + 1] = IN[y][x] * 2.0f;`, its pieces as the front end makes them.
    fn producer() -> Stage {
        let access = |kind, data: &str, index: Vec<Expr>| Access {
            kind,
            data: data.into(),
            index,
            span: Span::default(),
            conditional: false,
        };
        let write = access(
            AccessKind::Write,
            "D",
            vec![v("y"), Expr::sum(v("x"), Expr::Int(1))],
        );
        let read = access(AccessKind::Read, "IN", vec![v("y"), v("x")]);
        Stage {
            name: "S0".into(),
            label: "nest 1".into(),
            span: Span::default(),
            iterators: its(),
            iterator_types: Vec::new(),
            domain: vec![],
            accesses: vec![write.clone(), read.clone()],
            body: BodyTemplate {
                pieces: vec![
                    Piece::Text("\n    ".into()),
                    hole(0, "D", " + 1"),
                    Piece::Text(" = ".into()),
                    hole(1, "IN", ""),
                    Piece::Text(" * 2.0f;".into()),
                ],
            },
            analysable: true,
            observed: Some(vec![write, read]),
            gathered: None,
            time_step: None,
            loop_bounds: None,
            loop_spans: Vec::new(),
            reduction: None,
        }
    }

    #[test]
    fn an_assignment_gives_its_right_hand_side() {
        let p = producer();
        let a = assignment(&p).expect("an assignment");
        assert_eq!(a.write.data, "D");
        assert_eq!(a.rhs.len(), 3);
        assert_eq!(a.rhs[0], Piece::Text(" ".into()));
        assert_eq!(a.rhs[2], Piece::Text(" * 2.0f".into()));
        assert_eq!(write_translation(&p, a.write), Some(vec![(0, 0), (1, 1)]));
        // A compound body, a second statement, a comparison: not one.
        for body in ["{ ", " == "] {
            let mut q = producer();
            q.body.pieces[2] = Piece::Text(body.into());
            assert!(assignment(&q).is_none(), "{body}");
        }
        let mut q = producer();
        q.body.pieces[4] = Piece::Text(" * 2.0f; t = 1;".into());
        assert!(assignment(&q).is_none());
    }

    #[test]
    fn a_consumer_reads_the_expression_at_its_point_through_a_cast() {
        let p = producer();
        let a = assignment(&p).expect("an assignment");
        let map = write_translation(&p, a.write).expect("a translation");
        let mut c = producer();
        c.name = "S1".into();
        // OUT[y][x] = D[y][x] + 1;
        let read = Access {
            kind: AccessKind::Read,
            data: "D".into(),
            index: vec![v("y"), v("x")],
            span: Span::default(),
            conditional: false,
        };
        let write = Access {
            data: "OUT".into(),
            index: vec![v("y"), v("x")],
            ..p.accesses[0].clone()
        };
        c.accesses = vec![write.clone(), read.clone()];
        c.observed = Some(vec![write, read]);
        c.body.pieces = vec![
            Piece::Text("\n    ".into()),
            hole(0, "OUT", ""),
            Piece::Text(" = ".into()),
            hole(1, "D", ""),
            Piece::Text(" + 1;".into()),
        ];
        let reads: Vec<Access> = p.accesses[1..].to_vec();
        let out = inline_into(&c, &p, &a, &map, &reads, "float").expect("inlined");
        let text = out.body.instantiate(&["r".into(), "s".into()]);
        assert_eq!(
            text,
            "\n    OUT[r][s] = ((float)( IN[r][(s - 1)] * 2.0f)) + 1;"
        );
        // The read of D became the producer's read, at x - 1.
        let want = vec![v("y"), Expr::difference(v("x"), Expr::Int(1))];
        assert!(out.accesses.iter().all(|x| x.data != "D"));
        assert!(out
            .accesses
            .iter()
            .any(|x| x.data == "IN" && x.index == want));
        let observed = out.observed.expect("observed");
        assert!(observed.iter().any(|x| x.data == "IN" && x.index == want));
    }
}
