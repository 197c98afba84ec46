//! The safety net after the transformation passes: the final schedule tree
//! of a region is checked against the region's dependences once more, and a
//! schedule that fails is refused (an internal error, exit 2) instead of
//! printed. It runs on every compilation, whatever the options.
//!
//! What is checked, on the instances the tree executes (`isl_schedule_get_map`,
//! which is expressed in the expanded domains below expansion nodes: under
//! overlapped tiling a statement instance `S[i]` is executed as `S[T, i]`, once
//! per tile `T` that computes it; copies, loads and stores of tile-local
//! storage are not original statements and are not checked):
//!
//! 1. **coverage**: every instance of the region's domain (under the
//!    `--assume` context) is executed at least once;
//! 2. **order**: every flow, anti and output dependence between two executed
//!    instances is respected by the final (flattened) order, except between
//!    two tiles of one overlapped group (they recompute instead of
//!    communicating, see 3). Tiled, skewed and shifted bands are checked
//!    through this order: a tiled band that was not permutable shows up as
//!    a violated dependence. Two instances that one tile computes share
//!    every dimension above the tile's body (where the group's expansion
//!    keeps the tile coordinates) and are compared in the body; either way
//!    only in the dimensions that do not order their two statements by
//!    themselves (a sequence's positions);
//! 3. **recomputation** (overlapped groups whose loops are all overlapped):
//!    a tile that computes an instance also computes, itself, every instance
//!    of its group that the instance reads through a flow dependence;
//! 4. **parallel loops** (`validity/parallel.rs`): no dependence of 2 is carried by a loop marked
//!    `parallel` or `simd` (at its depth, the loops outside it fixed).
//!
//! Not checked: the time-block decomposition of time-iterated scops (each
//! block's chain and the remaining steps are checked as regions of their
//! own), and, under `--overlap-dims`, what passes from one classically tiled
//! tile to the next through the sliding scratchpads.
//!
//! The check's isl operations share the region's operation budget
//! (`--max-isl-operations`); when they run past it the result is
//! [`Outcome::NotCompleted`] and the region's banner says so.

use crate::diag::{Error, Result};
use crate::model::deps::Dependences;
use crate::model::isl_ext::{isl_err, with_operation_budget};
use crate::model::marks::Mark;
use crate::model::relations::{
    apply_both, apply_range, apply_set, map_list, pad_ranges, set_list, ByStatement,
};
use crate::model::sequence::schedule_map;
use crate::transform::band::{band_statements, mark_of, vector_pairs};
use isl_rs::{DimType, Map, Schedule, ScheduleNode, ScheduleNodeType, Set, UnionMap, UnionSet};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// What the check found, when it did not find the schedule invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every check passed.
    Valid,
    /// The checks ran past the isl operation budget.
    NotCompleted,
}

/// What the check is given about a region.
pub struct Subject<'a> {
    /// The final schedule tree.
    pub schedule: &'a Schedule,
    /// Instances of the region's statements.
    pub domain: &'a UnionSet,
    /// Constraints on the parameters.
    pub context: &'a Set,
    /// The region's dependences (original instances).
    pub deps: &'a Dependences,
    /// A statement's name in diagnostics (`S0` → `nest 1`).
    pub label: &'a dyn Fn(&str) -> String,
    /// Groups of statements that reduce into one scalar with one operator
    /// (`transform::reductions`): a `parallel` loop (not a `simd` one) may
    /// carry the dependences between them.
    pub reductions: &'a [BTreeSet<String>],
}

/// Checks `s.schedule`; an invalid schedule is an [`Error::Internal`] that
/// says which check failed for which statements. `budget` bounds the isl
/// operations (0: no bound).
pub fn check(s: &Subject, budget: u64) -> Result<Outcome> {
    let ctx = s.schedule.get_ctx();
    match with_operation_budget(&ctx, budget, || run(s))? {
        None => Ok(Outcome::NotCompleted),
        Some(Ok(())) => Ok(Outcome::Valid),
        Some(Err(why)) => Err(Error::internal(format!(
            "the final schedule fails the validity check ({why}); the region is refused rather than compiled to a wrong program"
        ))),
    }
}

/// Shorthand for the many isl calls.
pub(super) type R<T> = Result<T>;

/// The checks; `Ok(Err(why))` when one fails.
fn run(s: &Subject) -> R<std::result::Result<(), String>> {
    let started = std::time::Instant::now();
    let lap = |what: &str| {
        log::debug!(
            "time: validity: {what} at {} ms",
            started.elapsed().as_millis()
        )
    };
    // isl's map is not restricted to the domain (bands are affine over the
    // universe): the executed instances are the expansion of the domain.
    let top = s
        .schedule
        .get_root()
        .and_then(|r| r.child(0))
        .map_err(isl_err)?;
    let executed = expanded(&top, s.schedule.get_domain().map_err(isl_err)?)?
        .coalesce()
        .map_err(isl_err)?;
    let dims = stage_dims(s.domain)?;
    let exec = schedule_map(&originals_only(s.schedule, &dims)?)?
        .intersect_domain(executed.copy().map_err(isl_err)?)
        .map_err(isl_err)?;
    let proj = match projection(&exec, &dims)? {
        Ok(p) => p,
        Err(why) => return Ok(Err(why)),
    };
    let tiles = Tiles::of(s.schedule)?;
    lap("executed instances");

    // 1. Coverage.
    let want = s
        .domain
        .copy()
        .and_then(|d| d.intersect_params(s.context.copy()?))
        .map_err(isl_err)?;
    let done = proj.copy().and_then(|p| p.range()).map_err(isl_err)?;
    let missing = want.subtract(done).map_err(isl_err)?;
    if !missing.is_empty().map_err(isl_err)? {
        return Ok(Err(format!(
            "coverage: some instances of {} are never executed",
            set_names(&missing, s.label)?
        )));
    }

    // 2. Order.
    let flat = pad_ranges(&exec)?;
    let kinds = [
        ("flow", &s.deps.flow),
        ("anti", &s.deps.anti),
        ("output", &s.deps.output),
    ];
    let back = ByStatement::new(&proj.copy().and_then(|p| p.reverse()).map_err(isl_err)?)?;
    let whole = Order::new(map_list(&flat)?, 0)?;
    let bodies = Order::of_bodies(&tiles, &flat)?;
    // A statement all of whose instances run at one outermost position (its
    // child of a sequence at the root, one per group or nest) precedes every
    // statement at a later one: a dependence between two such positions,
    // the earlier first, holds whatever the instances, and is not lifted to
    // the executed instances (on local-laplacian, most pairs).
    let positions = outermost_positions(&flat, &proj)?;
    let originals: HashSet<String> = map_list(&proj)?
        .iter()
        .map(|m| m.get_tuple_name(DimType::In).map(str::to_string))
        .collect::<std::result::Result<_, _>>()
        .map_err(isl_err)?;
    let lift = |dep: &UnionMap| -> R<UnionMap> {
        let l = apply_range(&apply_range(&proj, &ByStatement::new(dep)?)?, &back)?;
        tiles.within_tiles(l)
    };
    let mut lifted: Lifted = Vec::new();
    let mut ahead = Vec::new();
    for (kind, dep) in kinds {
        let (near, later) = split_by_position(dep, &positions)?;
        ahead.push((kind, later));
        let l = lift(&near)?;
        if let Some(whole) = &whole {
            if let Some(pair) = misordered(&l, &tiles, &bodies, whole, s.label)? {
                return Ok(Err(format!(
                    "order: a {kind} dependence{pair} is not respected by the final order"
                )));
            }
        }
        lifted.push((kind, l));
    }

    // The pairs a band whose executed instances `here` run at several
    // outermost positions may carry: the lifted ones and those between the
    // positions (none apart: `None`).
    let widen = |here: &UnionSet| -> R<Option<Lifted>> {
        let mut at: HashSet<Option<i64>> = HashSet::new();
        for set in set_list(here)? {
            let name = set.get_tuple_name().map_err(isl_err)?;
            if originals.contains(name) {
                at.insert(positions.get(name).copied());
            }
        }
        if at.len() < 2 && !at.contains(&None) {
            return Ok(None);
        }
        let mut all = Vec::new();
        for ((kind, near), (_, later)) in lifted.iter().zip(&ahead) {
            let far = lift(later)?;
            all.push((
                *kind,
                near.copy().and_then(|n| n.union(far)).map_err(isl_err)?,
            ));
        }
        Ok(Some(all))
    };

    lap("order");
    // 3. Recomputation inside overlapped tiles.
    if let Some(why) = tiles.check_recomputation(&executed, &proj, &s.deps.flow, s.label)? {
        return Ok(Err(why));
    }

    lap("recomputation");
    // 4. Parallel loops.
    let marks = parallel_marks(s.schedule)?;
    let joined = joined_pairs(&lifted)?;
    for (mark, depths, simd) in marks {
        let band = mark.get_child(0).map_err(isl_err)?;
        if simd && !joins_within(&band, &joined)? {
            continue;
        }
        if !matches!(band.get_type().map_err(isl_err)?, ScheduleNodeType::Band) {
            return Ok(Err(
                "parallel loops: a parallel mark is not above a loop band".to_string(),
            ));
        }
        let reduced =
            |a: &str, b: &str| !simd && s.reductions.iter().any(|g| g.contains(a) && g.contains(b));
        let above = |here: &HashSet<String>, a: &str, b: &str| {
            tiles.above_their_tile(here, a, b) || reduced(a, b)
        };
        if let Some(why) = parallel_violation(&band, &depths, &lifted, &widen, &above, s.label)? {
            return Ok(Err(why));
        }
    }
    lap("parallel loops");
    Ok(Ok(()))
}

/// Whether some pair of statements under `band` (a band node) is in
/// `joined`; `true` for any other node, which the caller rejects.
fn joins_within(band: &ScheduleNode, joined: &HashSet<(String, String)>) -> R<bool> {
    if !matches!(band.get_type().map_err(isl_err)?, ScheduleNodeType::Band) {
        return Ok(true);
    }
    let names: Vec<String> = band_statements(band)?.into_iter().map(|(n, _)| n).collect();
    Ok(names.iter().any(|a| {
        names
            .iter()
            .any(|b| joined.contains(&(a.clone(), b.clone())))
    }))
}

/// The parallel and simd marks of `schedule`: the node above the marked
/// band, the marked depths, and whether the mark is simd.
fn parallel_marks(schedule: &Schedule) -> R<Vec<(ScheduleNode, Vec<usize>, bool)>> {
    let root = schedule.get_root().map_err(isl_err)?;
    let mut marks = Vec::new();
    collect(&root, &mut |node| {
        if matches!(node.get_type().map_err(isl_err)?, ScheduleNodeType::Mark) {
            // A request the parallel pass did not turn into a mark (no
            // OpenMP) prints no pragma.
            match mark_of(node)? {
                Some(Mark::Parallel { depths }) => {
                    marks.push((node.copy().map_err(isl_err)?, depths, false))
                }
                // A simd mark may sit above the parallel mark of its band.
                Some(Mark::Simd { depth }) => {
                    let mut below = node.get_child(0).map_err(isl_err)?;
                    while matches!(below.get_type().map_err(isl_err)?, ScheduleNodeType::Mark) {
                        below = below.get_child(0).map_err(isl_err)?;
                    }
                    marks.push((below.parent().map_err(isl_err)?, vec![depth], true));
                }
                _ => {}
            }
        }
        Ok(())
    })?;
    Ok(marks)
}

/// The statement pairs a dependence of `lifted` joins (a simd band with no
/// such pair among its statements carries none).
fn joined_pairs(lifted: &Lifted) -> R<HashSet<(String, String)>> {
    let mut joined: HashSet<(String, String)> = HashSet::new();
    for (_, l) in lifted {
        for m in map_list(l)? {
            joined.insert((
                m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string(),
                m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string(),
            ));
        }
    }
    Ok(joined)
}

/// Check 2 on the lifted dependences `l` of one kind: `Some(" from A to
/// B")` (or `Some("")`) when a pair is not ordered. A pair that one tile of
/// an overlapped group computes runs in the order of the tile's body (the
/// subtree below its expansion node, `bodies`: [`Order::of_bodies`]) and is checked
/// there; the other pairs in the whole flattened schedule `whole`. Either
/// way only the dimensions that do not order the two statements by
/// themselves are compared ([`Order::deciding`]).
fn misordered(
    l: &UnionMap,
    tiles: &Tiles,
    bodies: &[Option<Order>],
    whole: &Order,
    label: &dyn Fn(&str) -> String,
) -> R<Option<String>> {
    let ctx = l.get_ctx();
    // (order, dimensions compared, ties bad) -> the pairs to check so.
    let mut checks: BTreeMap<(Option<usize>, Vec<usize>, bool), UnionMap> = BTreeMap::new();
    for m in map_list(l)? {
        let a = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
        let b = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
        let body = tiles
            .group_of_both(&a, &b)
            .and_then(|g| Some((g, bodies.get(g)?.as_ref()?)));
        let (g, order) = match body {
            Some((g, body)) => (Some(g), body),
            None => (None, whole),
        };
        let Some((dims, ties)) = order.deciding(&a, &b) else {
            continue;
        };
        let key = (g, dims, ties);
        let acc = match checks.remove(&key) {
            Some(acc) => acc,
            None => UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?,
        };
        checks.insert(key, acc.add_map(m).map_err(isl_err)?);
    }
    for ((g, dims, ties), m) in checks {
        let order = match g {
            Some(g) => match bodies.get(g).and_then(Option::as_ref) {
                Some(body) => body,
                None => return Err(Error::internal("validity: a group's body went missing")),
            },
            None => whole,
        };
        // The pairs' statements' schedules in the deciding dimensions only.
        let mut names = BTreeSet::new();
        for p in map_list(&m)? {
            names.insert(p.get_tuple_name(DimType::In).map_err(isl_err)?.to_string());
            names.insert(p.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string());
        }
        let by = order.in_dims(&names, &dims)?;
        let all: Vec<usize> = (0..dims.len()).collect();
        let not_later = not_later(&ctx, dims.len(), &all, ties)?;
        let bad = |m: UnionMap| -> R<bool> {
            let pairs = apply_both(&m, &by)?
                .intersect(not_later.copy().map_err(isl_err)?)
                .map_err(isl_err)?;
            Ok(!pairs.is_empty().map_err(isl_err)?)
        };
        if bad(m.copy().map_err(isl_err)?)? {
            return Ok(Some(first_pair(&m, &bad, label)?));
        }
    }
    Ok(None)
}

/// The outermost position of each original statement whose executed
/// instances (`flat`: executed instance -> flattened schedule; `proj`:
/// executed instance -> original one) all run at one value of the
/// flattened schedule's first dimension.
fn outermost_positions(flat: &UnionMap, proj: &UnionMap) -> R<BTreeMap<String, i64>> {
    let mut first: BTreeMap<String, Option<i64>> = BTreeMap::new();
    for m in map_list(flat)? {
        let name = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
        let fixed = match m.range_tuple_dim().map_err(isl_err)? {
            0 => None,
            _ => {
                let v = m.plain_get_val_if_fixed(DimType::Out, 0).map_err(isl_err)?;
                match v.is_int().map_err(isl_err)? {
                    true => Some(v.get_num_si().map_err(isl_err)?),
                    false => None,
                }
            }
        };
        first
            .entry(name)
            .and_modify(|f| {
                if *f != fixed {
                    *f = None
                }
            })
            .or_insert(fixed);
    }
    // Executed statement -> original one.
    let mut out: BTreeMap<String, Option<i64>> = BTreeMap::new();
    for m in map_list(proj)? {
        let exec = m.get_tuple_name(DimType::In).map_err(isl_err)?;
        let orig = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
        let p = first.get(exec).copied().flatten();
        out.entry(orig)
            .and_modify(|f| {
                if *f != p {
                    *f = None
                }
            })
            .or_insert(p);
    }
    Ok(out.into_iter().filter_map(|(n, p)| Some((n, p?))).collect())
}

/// `dep`'s pairs of statements that are not known to run in order (`.0`),
/// and those from an outermost position to a later one (`.1`).
fn split_by_position(dep: &UnionMap, positions: &BTreeMap<String, i64>) -> R<(UnionMap, UnionMap)> {
    let ctx = dep.get_ctx();
    let mut near = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
    let mut later = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
    for m in map_list(dep)? {
        let src = positions.get(m.get_tuple_name(DimType::In).map_err(isl_err)?);
        let dst = positions.get(m.get_tuple_name(DimType::Out).map_err(isl_err)?);
        match (src, dst) {
            (Some(a), Some(b)) if a < b => later = later.add_map(m).map_err(isl_err)?,
            _ => near = near.add_map(m).map_err(isl_err)?,
        }
    }
    Ok((near, later))
}

/// The instances executed for `dom`, the instances reaching `node`: isl's
/// `dom.apply(node.get_subtree_expansion())`.
pub(super) fn expanded(node: &ScheduleNode, dom: UnionSet) -> R<UnionSet> {
    // Through expansions, the walk always finds them.
    reaching_leaves(node, dom, false, true)?
        .ok_or_else(|| Error::internal("validity: no executed instances below a node"))
}

/// The instances of `dom` (those reaching `node`, a child of a set or a
/// sequence when `in_seq`) that reach a leaf below `node`, expanded by the
/// expansion nodes on the way where `through_expansions`, else `None` when
/// an expansion node lies below it. isl's subtree expansion is the identity
/// restricted by the filters of sets and sequences on the way to each leaf
/// and composed with the expansions there, and this is `dom` mapped
/// through it, in time linear in the tree (isl's restricts the whole
/// expansion at each filter: quadratic in the children of a sequence).
pub(super) fn reaching_leaves(
    node: &ScheduleNode,
    dom: UnionSet,
    in_seq: bool,
    through_expansions: bool,
) -> R<Option<UnionSet>> {
    let dom = match node.get_type().map_err(isl_err)? {
        ScheduleNodeType::Expansion if !through_expansions => return Ok(None),
        // isl's subtree expansion composes the expansion there.
        ScheduleNodeType::Expansion => {
            let expansion = node.expansion_get_expansion().map_err(isl_err)?;
            apply_set(&dom, &ByStatement::new(&expansion)?)?
        }
        ScheduleNodeType::Leaf => return Ok(Some(dom)),
        ScheduleNodeType::Filter if in_seq => node
            .filter_get_filter()
            .and_then(|f| f.intersect(dom))
            .map_err(isl_err)?,
        _ => dom,
    };
    let seq = matches!(
        node.get_type().map_err(isl_err)?,
        ScheduleNodeType::Sequence | ScheduleNodeType::Set
    );
    let mut out = UnionSet::read_from_str(&node.get_ctx(), "{ }").map_err(isl_err)?;
    for i in 0..node.n_children().map_err(isl_err)? {
        let child = node.get_child(i).map_err(isl_err)?;
        let Some(r) = reaching_leaves(
            &child,
            dom.copy().map_err(isl_err)?,
            seq,
            through_expansions,
        )?
        else {
            return Ok(None);
        };
        out = out.union(r).map_err(isl_err)?;
    }
    Ok(Some(out))
}

/// `schedule` with a filter below each expansion node that keeps only the
/// instances of the statements of `original` (not the copies, loads and
/// stores of tile-local storage, which the checks leave out): their
/// schedule map is isl's `get_map` without the other half of its work.
fn originals_only(schedule: &Schedule, original: &BTreeMap<String, usize>) -> R<Schedule> {
    fn walk(node: ScheduleNode, original: &BTreeMap<String, usize>) -> R<ScheduleNode> {
        let mut node = node;
        if matches!(
            node.get_type().map_err(isl_err)?,
            ScheduleNodeType::Expansion
        ) {
            let e = node.expansion_get_expansion().map_err(isl_err)?;
            let mut keep: Option<UnionSet> = None;
            let mut others = false;
            for m in map_list(&e)? {
                if !original.contains_key(m.get_tuple_name(DimType::Out).map_err(isl_err)?) {
                    others = true;
                    continue;
                }
                let u = m
                    .get_space()
                    .and_then(|sp| sp.range())
                    .and_then(Set::universe)
                    .and_then(UnionSet::from_set)
                    .map_err(isl_err)?;
                keep = Some(match keep {
                    Some(k) => k.union(u).map_err(isl_err)?,
                    None => u,
                });
            }
            if let (true, Some(keep)) = (others, keep) {
                node = node
                    .child(0)
                    .and_then(|c| c.insert_filter(keep))
                    .and_then(|f| f.parent())
                    .map_err(isl_err)?;
            }
        }
        for i in 0..node.n_children().map_err(isl_err)? {
            node = walk(node.child(i).map_err(isl_err)?, original)?
                .parent()
                .map_err(isl_err)?;
        }
        Ok(node)
    }
    walk(schedule.get_root().map_err(isl_err)?, original)?
        .get_schedule()
        .map_err(isl_err)
}

/// The number of loops of each statement of `domain`.
fn stage_dims(domain: &UnionSet) -> R<BTreeMap<String, usize>> {
    let list = domain.get_set_list().map_err(isl_err)?;
    let mut dims = BTreeMap::new();
    for i in 0..list.size().map_err(isl_err)? {
        let set = list.get_at(i).map_err(isl_err)?;
        let name = set.get_tuple_name().map_err(isl_err)?.to_string();
        dims.insert(name, set.tuple_dim().map_err(isl_err)? as usize);
    }
    Ok(dims)
}

/// Executed instance → original instance: `S[i] -> S[i]`, and
/// `S[T, i] -> S[i]` for an instance computed by tile `T`. Executed
/// instances of other names (copies, loads, stores) are left out.
fn projection(
    exec: &UnionMap,
    dims: &BTreeMap<String, usize>,
) -> R<std::result::Result<UnionMap, String>> {
    let ctx = exec.get_ctx();
    let mut proj = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
    let list = exec.get_map_list().map_err(isl_err)?;
    for i in 0..list.size().map_err(isl_err)? {
        let m = list.get_at(i).map_err(isl_err)?;
        let name = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
        let Some(&n) = dims.get(&name) else {
            continue;
        };
        let have = m.domain_tuple_dim().map_err(isl_err)? as usize;
        if have < n {
            return Ok(Err(format!(
                "coverage: {name} is executed with {have} coordinates for its {n} loops"
            )));
        }
        let t: Vec<String> = (0..have - n).map(|k| format!("t{k}")).collect();
        let i: Vec<String> = (0..n).map(|k| format!("i{k}")).collect();
        let all: Vec<String> = t.iter().chain(&i).cloned().collect();
        let p = UnionMap::read_from_str(
            &ctx,
            &format!(
                "{{ {name}[{}] -> {name}[{}] }}",
                all.join(", "),
                i.join(", ")
            ),
        )
        .and_then(|p| p.intersect_domain(UnionSet::from_set(m.domain()?)?))
        .map_err(isl_err)?;
        proj = proj.union(p).map_err(isl_err)?;
    }
    Ok(Ok(proj))
}

/// `{ [x] -> [y] }` in `n` dimensions where `y` is lexicographically
/// before `x` in the dimensions `dims` (or equal there, where `ties`): a
/// dependence from `x` to such a `y` is not respected.
fn not_later(ctx: &isl_rs::Context, n: usize, dims: &[usize], ties: bool) -> R<UnionMap> {
    let eq =
        |k: usize| -> Vec<String> { dims[..k].iter().map(|d| format!("y{d} = x{d}")).collect() };
    let mut alts: Vec<String> = (0..dims.len())
        .map(|k| {
            let mut c = eq(k);
            c.push(format!("y{} < x{}", dims[k], dims[k]));
            format!("({})", c.join(" and "))
        })
        .collect();
    if ties {
        let all = eq(dims.len());
        alts.push(match all.is_empty() {
            true => "(0 = 0)".to_string(),
            false => format!("({})", all.join(" and ")),
        });
    }
    if alts.is_empty() {
        return UnionMap::read_from_str(ctx, "{ }").map_err(isl_err);
    }
    vector_pairs(ctx, n, &alts.join(" or "))
}

/// The first statement pair of `deps` (one map per pair) for which `bad`
/// holds, as " from A to B" (empty when none is found alone).
pub(super) fn first_pair(
    deps: &UnionMap,
    bad: &dyn Fn(UnionMap) -> R<bool>,
    label: &dyn Fn(&str) -> String,
) -> R<String> {
    let list = deps.get_map_list().map_err(isl_err)?;
    for i in 0..list.size().map_err(isl_err)? {
        let m = list.get_at(i).map_err(isl_err)?;
        let src = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
        let dst = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
        if bad(UnionMap::from_map(m).map_err(isl_err)?)? {
            return Ok(format!(" from {} to {}", label(&src), label(&dst)));
        }
    }
    Ok(String::new())
}

/// The statements of `set`, for a message.
fn set_names(set: &UnionSet, label: &dyn Fn(&str) -> String) -> R<String> {
    let list = set.get_set_list().map_err(isl_err)?;
    let mut names = Vec::new();
    for i in 0..list.size().map_err(isl_err)? {
        let s = list.get_at(i).map_err(isl_err)?;
        let l = label(s.get_tuple_name().map_err(isl_err)?);
        if !names.contains(&l) {
            names.push(l);
        }
    }
    Ok(names.join(", "))
}

/// Calls `f` on every node of the tree below `node`, in pre-order.
fn collect(node: &ScheduleNode, f: &mut dyn FnMut(&ScheduleNode) -> R<()>) -> R<()> {
    f(node)?;
    for i in 0..node.n_children().map_err(isl_err)? {
        collect(&node.get_child(i).map_err(isl_err)?, f)?;
    }
    Ok(())
}

/// The tiles of overlapped tiling: the statements each expansion node
/// (overlapped group) executes once per tile.
struct Tiles {
    /// Executed statement name → (group, number of tile coordinates before
    /// its loops, whether all the group's loops are overlapped).
    groups: BTreeMap<String, (usize, usize, bool)>,
    /// Each group whose expansion keeps the tile coordinates (by group).
    kept: Vec<Option<Kept>>,
}

/// A group whose expansion maps each tile `S_t[T]` to instances `S[T, i]`
/// of the same tile coordinates only ([`keeps_tiles`]).
struct Kept {
    /// The tile statement `S_t`.
    tile: String,
    /// The dimensions of the flattened schedule above the expansion node
    /// ([`dims_above`]).
    above: Option<usize>,
}

/// A flattened schedule (`flat`: executed instance -> `n` dimensions) and,
/// per executed statement, the dimensions at which all its instances run
/// at one value (a child of a sequence, padding).
///
/// The body of an overlapped group is such a schedule: the subtree below
/// the group's expansion node. Every node above the expansion schedules the
/// tile (`S_t[T]`), and where the expansion maps `S_t[T]` to instances
/// `S[T, i]` of the same tile coordinates only, two instances `a[T, x]` and
/// `b[T, y]` of one tile share every schedule dimension above it: their
/// order is the body's, the flattened schedule's dimensions from the
/// expansion node's depth on.
struct Order {
    /// Executed statement → its schedule.
    flat: BTreeMap<String, Map>,
    n: usize,
    fixed: BTreeMap<String, Vec<Option<i64>>>,
}

impl Order {
    /// The order of `flat` (padded), its maps' first `skip` dimensions
    /// dropped.
    fn new(maps: Vec<Map>, skip: usize) -> R<Option<Order>> {
        let Some(first) = maps.first() else {
            return Ok(None);
        };
        let all = first.range_tuple_dim().map_err(isl_err)? as usize;
        if all <= skip {
            return Ok(None);
        }
        let n = all - skip;
        let mut flat = BTreeMap::new();
        let mut fixed = BTreeMap::new();
        for m in maps {
            let m = m
                .project_out(DimType::Out, 0, skip as u32)
                .map_err(isl_err)?;
            let mut at = Vec::with_capacity(n);
            for k in 0..n {
                let v = m
                    .plain_get_val_if_fixed(DimType::Out, k as u32)
                    .map_err(isl_err)?;
                at.push(match v.is_int().map_err(isl_err)? {
                    true => Some(v.get_num_si().map_err(isl_err)?),
                    false => None,
                });
            }
            let name = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
            fixed.insert(name.clone(), at);
            flat.insert(name, m);
        }
        Ok(Some(Order { flat, n, fixed }))
    }

    /// The schedules of the statements `names` in the dimensions `dims`
    /// only (in that order, `dims` ascending).
    fn in_dims(&self, names: &BTreeSet<String>, dims: &[usize]) -> R<ByStatement> {
        let mut out: Option<UnionMap> = None;
        for name in names {
            let Some(m) = self.flat.get(name) else {
                continue;
            };
            let mut m = m.copy().map_err(isl_err)?;
            for k in (0..self.n).rev() {
                if !dims.contains(&k) {
                    m = m.project_out(DimType::Out, k as u32, 1).map_err(isl_err)?;
                }
            }
            out = Some(
                match out {
                    Some(u) => u.add_map(m),
                    None => UnionMap::from_map(m),
                }
                .map_err(isl_err)?,
            );
        }
        match out {
            Some(u) => ByStatement::new(&u),
            None => Err(Error::internal(
                "validity: a dependence names no executed statement",
            )),
        }
    }

    /// The bodies of the groups whose expansion (`Tiles::kept`) keeps
    /// the tile coordinates, from the whole flattened schedule `flat`.
    fn of_bodies(tiles: &Tiles, flat: &UnionMap) -> R<Vec<Option<Order>>> {
        let mut maps: Vec<Vec<Map>> = tiles.kept.iter().map(|_| Vec::new()).collect();
        for m in map_list(flat)? {
            let name = m.get_tuple_name(DimType::In).map_err(isl_err)?;
            if let Some((g, _, _)) = tiles.groups.get(name) {
                if let Some(list) = maps.get_mut(*g) {
                    list.push(m);
                }
            }
        }
        maps.into_iter()
            .zip(&tiles.kept)
            .map(|(list, k)| match k.as_ref().and_then(|k| k.above) {
                Some(p) => Order::new(list, p),
                None => Ok(None),
            })
            .collect()
    }

    /// How a pair from statement `a` to statement `b` is ordered: `None`
    /// when a dimension at which both are fixed puts `a` first and every
    /// dimension before it holds both at one value; else the dimensions
    /// that decide (those before the first at which both are fixed at
    /// different values, but where both are fixed at one) and whether a
    /// pair equal in them is misordered (no such dimension, or it puts `b`
    /// first).
    fn deciding(&self, a: &str, b: &str) -> Option<(Vec<usize>, bool)> {
        let none = Vec::new();
        let fa = self.fixed.get(a).unwrap_or(&none);
        let fb = self.fixed.get(b).unwrap_or(&none);
        let mut dims = Vec::new();
        for k in 0..self.n {
            match (fa.get(k).copied().flatten(), fb.get(k).copied().flatten()) {
                (Some(x), Some(y)) if x == y => {}
                (Some(x), Some(y)) if x < y && dims.is_empty() => return None,
                (Some(x), Some(y)) => return Some((dims, x > y)),
                _ => dims.push(k),
            }
        }
        Some((dims, true))
    }
}

/// The number of dimensions of `isl_schedule_get_map`'s schedule above
/// `node`: one per band member and one per sequence of several children
/// (the child's position); `None` below a set of several children (whose
/// dimension depends on an isl option).
fn dims_above(node: &ScheduleNode) -> R<Option<usize>> {
    let mut n = 0;
    let mut at = node.copy().map_err(isl_err)?;
    while at.has_parent().map_err(isl_err)? {
        at = at.parent().map_err(isl_err)?;
        let several = at.n_children().map_err(isl_err)? > 1;
        n += match at.get_type().map_err(isl_err)? {
            ScheduleNodeType::Band => at.band_n_member().map_err(isl_err)? as usize,
            ScheduleNodeType::Sequence if several => 1,
            ScheduleNodeType::Set if several => return Ok(None),
            _ => 0,
        };
    }
    Ok(Some(n))
}

/// Whether the expansion `e` maps each tile `S_t[T]` (one tile statement)
/// to instances `S[T, i]` of the same tile coordinates only.
fn keeps_tiles(e: &UnionMap) -> R<bool> {
    let mut tile: Option<String> = None;
    for m in map_list(e)? {
        let t = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
        if tile.get_or_insert_with(|| t.clone()) != &t {
            return Ok(false);
        }
        let nt = m.domain_tuple_dim().map_err(isl_err)? as usize;
        if (m.range_tuple_dim().map_err(isl_err)? as usize) < nt {
            return Ok(false);
        }
        let mut same = m.get_space().and_then(Map::universe).map_err(isl_err)?;
        for k in 0..nt as i32 {
            same = same
                .equate(DimType::In, k, DimType::Out, k)
                .map_err(isl_err)?;
        }
        if !m.is_subset(&same).map_err(isl_err)? {
            return Ok(false);
        }
    }
    Ok(true)
}

impl Tiles {
    /// Reads the expansion nodes of `schedule`.
    fn of(schedule: &Schedule) -> R<Tiles> {
        let root = schedule.get_root().map_err(isl_err)?;
        let mut groups = BTreeMap::new();
        let mut kept = Vec::new();
        let mut g = 0;
        collect(&root, &mut |node| {
            if !matches!(
                node.get_type().map_err(isl_err)?,
                ScheduleNodeType::Expansion
            ) {
                return Ok(());
            }
            // Under --overlap-dims, a classically tiled band lies right above
            // the expansion; its tiles pass values on through sliding copies.
            let classic = matches!(
                node.copy()
                    .and_then(|n| n.parent())
                    .and_then(|p| p.get_type())
                    .map_err(isl_err)?,
                ScheduleNodeType::Band
            );
            let e = node.expansion_get_expansion().map_err(isl_err)?;
            let maps = map_list(&e)?;
            for m in &maps {
                let name = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
                let nt = m.domain_tuple_dim().map_err(isl_err)? as usize;
                groups.insert(name, (g, nt, !classic));
            }
            kept.push(match (keeps_tiles(&e)?, maps.first()) {
                (true, Some(m)) => Some(Kept {
                    tile: m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string(),
                    above: dims_above(node)?,
                }),
                _ => None,
            });
            g += 1;
            Ok(())
        })?;
        Ok(Tiles { groups, kept })
    }

    /// The group that computes both `a` and `b` (executed statements),
    /// with as many tile coordinates for each.
    fn group_of_both(&self, a: &str, b: &str) -> Option<usize> {
        let (ga, ta, _) = self.groups.get(a)?;
        let (gb, tb, _) = self.groups.get(b)?;
        (ga == gb && ta == tb).then_some(*ga)
    }

    /// Whether a band whose instances are those of `here` cannot carry a
    /// dependence from `a` to `b` (executed statements) between the
    /// instances that one tile computes: the band lies above the expansion
    /// node of their group (its instances include the group's tile
    /// statement), which keeps the tile coordinates, so that each of its
    /// loops is a function of the tile.
    fn above_their_tile(&self, here: &HashSet<String>, a: &str, b: &str) -> bool {
        self.group_of_both(a, b)
            .and_then(|g| self.kept.get(g)?.as_ref())
            .is_some_and(|k| here.contains(&k.tile))
    }

    /// The tile coordinates of two statements executed in one group, and
    /// whether all the group's loops are overlapped; `None` otherwise.
    fn same_group(&self, a: &str, b: &str) -> Option<(usize, bool)> {
        self.group_of_both(a, b)?;
        let (_, nt, all) = self.groups.get(a)?;
        Some((*nt, *all))
    }

    /// `deps` (between executed instances) without the pairs computed by
    /// different tiles of one group.
    fn within_tiles(&self, deps: UnionMap) -> R<UnionMap> {
        if self.groups.is_empty() {
            return Ok(deps);
        }
        let ctx = deps.get_ctx();
        let mut out = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
        for mut m in map_list(&deps)? {
            let a = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
            let b = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
            if let Some((nt, _)) = self.same_group(&a, &b) {
                m = same_tile(m, nt)?;
            }
            out = out.add_map(m).map_err(isl_err)?;
        }
        Ok(out)
    }

    /// Check 3: a tile computes itself what its instances read from its
    /// group. `Some(why)` when it does not.
    fn check_recomputation(
        &self,
        exec: &UnionSet,
        proj: &UnionMap,
        flow: &UnionMap,
        label: &dyn Fn(&str) -> String,
    ) -> R<Option<String>> {
        if self.groups.is_empty() {
            return Ok(None);
        }
        // Executed consumer → the original instances it reads from.
        let reads = apply_range(
            proj,
            &ByStatement::new(&flow.copy().and_then(|f| f.reverse()).map_err(isl_err)?)?,
        )?;
        let list = reads.get_map_list().map_err(isl_err)?;
        for i in 0..list.size().map_err(isl_err)? {
            let m = list.get_at(i).map_err(isl_err)?;
            let y = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
            let x = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
            let Some((nt, true)) = self.same_group(&y, &x) else {
                continue;
            };
            // The source instances in the consumer's own tile: `x[T, i]`
            // for `y[T, j] -> x[i]`.
            let need = m
                .insert_dims(DimType::Out, 0, nt as u32)
                .and_then(|m| m.set_tuple_name(DimType::Out, &x))
                .map_err(isl_err)?;
            let need = same_tile(need, nt)?
                .range()
                .and_then(UnionSet::from_set)
                .map_err(isl_err)?;
            if !need.is_subset(exec).map_err(isl_err)? {
                return Ok(Some(format!(
                    "recomputation: a tile computing {} does not compute the values of {} it reads",
                    label(&y),
                    label(&x)
                )));
            }
        }
        Ok(None)
    }
}

/// The pairs of `m` (`{ a[T, x] -> b[T', y] }`) whose first `nt`
/// coordinates are equal: one intersection with those equalities (isl's
/// equate simplifies the whole relation once per coordinate).
fn same_tile(m: Map, nt: usize) -> R<Map> {
    let mut eq = m.get_space().and_then(Map::universe).map_err(isl_err)?;
    for k in 0..nt as i32 {
        eq = eq
            .equate(DimType::In, k, DimType::Out, k)
            .map_err(isl_err)?;
    }
    m.intersect(eq).map_err(isl_err)
}

mod parallel;
use parallel::{parallel_violation, Lifted};
#[cfg(test)]
mod tests;
