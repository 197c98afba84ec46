//! Storage contraction of temporaries outside overlapped tiles: modular
//! buffers (Davis et al. §4.4, "mapping data to memory"; Halide's storage
//! folding), from the lifetimes of the elements in the final schedule.
//!
//! For a temporary `A` (never read after the region, see
//! [`crate::frontend::temporaries`]), every element lives from its first to
//! its last access in the final schedule. Two elements *conflict* when those
//! intervals overlap (touching counts). From the set Δ of differences
//! `y - x` of conflicting pairs, the successive-modulo allocation gives each
//! dimension `d` the modulus `b_d = 1 + max { δ_d : δ ∈ Δ, δ_0..δ_{d-1} = 0 }`
//! (1 when no conflict is left: the dimension is dropped), and maps `x` to
//! `(x_0 mod b_0, x_1 mod b_1, ...)`: two conflicting elements differ at
//! their first differing dimension `d` by less than `b_d`, so they never
//! share a slot. Pointwise producer-consumer fusion gives a scalar, a stencil
//! fused with its producer a few rows (a rolling buffer). A dimension whose
//! modulus depends on the parameters keeps its whole accessed range.
//!
//! The buffer serves one execution of a *scope* at a time: the deepest
//! position in the schedule tree above every access of `A` such that each
//! element lives within one execution of it and no parallel loop lies inside
//! it (each thread then has its own buffer). Conflicts are counted within
//! one execution of the scope. Small constant buffers go on the stack where
//! the scope starts. Others are allocated with `malloc`/`free` (§4.4:
//! "allocated once"): once per region call where no parallel loop runs
//! around the scope (its executions, one after another, reuse the buffer),
//! else once per thread of the nearest parallel loop around it (each thread
//! runs its executions one after another). Allocation sites are marked in
//! the schedule tree ([`Mark::BufferScope`]); buffers allocated at one site
//! share the mark.
//!
//! **Sharing** (§4.4, a table of spaces): heap buffers of one allocation
//! site whose temporaries are never alive at the same time (no element of
//! one lives, in the final schedule, while an element of the other does)
//! take one allocation, the size of the largest ([`Buffer::pool`]). Only
//! buffers of one element type share, so that no access changes the
//! effective type of memory another might still read.
//!
//! A temporary is left in its array (with the reason in `-v`) when some
//! stage accessing it is not analysable, or reads an element the region did
//! not write first, or when no scope exists (a parallel loop runs between
//! its writes and its reads).

use crate::diag::{Error, Result};
use crate::model::deps::Dependences;
use crate::model::isl_ext::isl_err;
use crate::model::marks::Mark;
use crate::model::polyhedral::{isl_name, Names, RegionModel};
use crate::model::program::Region;
use crate::model::relations::pad_ranges;
use crate::model::storage::{Affine, Alloc, Buffer, IndexFn, Placement, StoragePlan, Term};
use crate::transform::band::{insert_mark, mark_of};
use crate::transform::storage::aff_to_affine;
use isl_rs::{
    Aff, DimType, Map, PwAff, Schedule, ScheduleNode, ScheduleNodeType, Set, UnionMap, UnionSet,
};
use log::info;
use std::collections::BTreeMap;

/// The largest buffer (in elements) declared on a thread's stack.
const MAX_STACK_ELEMENTS: i64 = 1 << 16;

/// One temporary's contracted storage, for the region's banner.
#[derive(Clone, Debug)]
pub struct Contraction {
    /// The data set.
    pub data: String,
    /// Its buffer's shape in words: `scalar`, `3 x N`.
    pub shape: String,
}

/// What contraction did to a region's temporaries, for its banner.
#[derive(Clone, Debug, Default)]
pub struct Contracted {
    /// The temporaries contracted, in order.
    pub buffers: Vec<Contraction>,
    /// The temporaries of each shared allocation (two or more each).
    pub shared: Vec<Vec<String>>,
}

/// Contracts the temporaries of `region` that overlapped tiles did not
/// take (`skip`): edits `schedule` (buffer scope marks) and `plan` (the
/// buffers and their pools). `deps`: the dependences of `model`.
pub fn contract(
    region: &Region,
    names: &Names,
    model: &RegionModel,
    deps: &Dependences,
    schedule: Schedule,
    plan: &mut StoragePlan,
    skip: &[String],
) -> Result<(Schedule, Contracted)> {
    let mut schedule = schedule;
    let mut done = Contracted::default();
    let live_in = deps.live_in_reads(model)?;
    // One time space for every statement instance of the region (the marks
    // contraction inserts leave the schedule's map as it is), built where a
    // temporary first needs it: isl's map of a whole tree of overlapped
    // tiles takes tens of milliseconds, and most temporaries are either
    // the tiles' or refused before (local-laplacian: 35-45 ms).
    let first = schedule.copy().map_err(isl_err)?;
    let cell: std::cell::OnceCell<UnionMap> = std::cell::OnceCell::new();
    let times = || -> Result<UnionMap> {
        if let Some(t) = cell.get() {
            return t.copy().map_err(isl_err);
        }
        let t = pad_ranges(&crate::model::sequence::schedule_map(&first)?)?;
        let copy = t.copy().map_err(isl_err)?;
        let _ = cell.set(t);
        Ok(copy)
    };
    let subject = Subject {
        region,
        names,
        model,
        times: &times,
        live_in: &live_in,
    };
    let mut lifetimes = BTreeMap::new();
    for t in &region.temporaries {
        if skip.contains(&t.name) {
            continue;
        }
        match plan_one(&subject, &schedule, &t.name, plan)? {
            Ok(Planned {
                schedule: sched,
                buffer,
                shape,
                lifetime,
            }) => {
                info!("contract: '{}' lives in a {shape} buffer", t.name);
                schedule = sched;
                lifetimes.insert(plan.buffers.len(), lifetime);
                plan.buffers.push(buffer);
                done.buffers.push(Contraction {
                    data: t.name.clone(),
                    shape,
                });
            }
            Err(why) => info!("contract: '{}' keeps its array: {why}", t.name),
        }
    }
    done.shared = share_allocations(model, plan, &lifetimes)?;
    Ok((schedule, done))
}

/// The first and last access times of every element of a temporary.
type Lifetime = (Map, Map);

/// Puts the heap buffers among the contracted ones (`lifetimes`, by index
/// in `plan.buffers`) of one allocation site whose temporaries are never
/// alive at once into pools (first fit, in order). Returns the temporaries
/// of each pool.
fn share_allocations(
    model: &RegionModel,
    plan: &mut StoragePlan,
    lifetimes: &BTreeMap<usize, Lifetime>,
) -> Result<Vec<Vec<String>>> {
    let candidates: Vec<usize> = lifetimes
        .keys()
        .copied()
        .filter(|&i| plan.buffers[i].alloc.is_heap())
        .collect();
    if candidates.len() < 2 {
        return Ok(Vec::new());
    }
    let mut next = plan
        .buffers
        .iter()
        .filter(|b| matches!(b.placement, Placement::Scope { .. }))
        .filter_map(|b| b.pool)
        .max()
        .map_or(0, |p| p + 1);
    let mut pools: Vec<Vec<usize>> = Vec::new();
    for &i in &candidates {
        let b = &plan.buffers[i];
        let mut home = None;
        for (k, pool) in pools.iter().enumerate() {
            let other = &plan.buffers[pool[0]];
            if other.placement != b.placement || other.elem_type != b.elem_type {
                continue;
            }
            let mut apart = true;
            for j in pool {
                if overlap(&lifetimes[&i], &lifetimes[j], model)? {
                    apart = false;
                    break;
                }
            }
            if apart {
                home = Some(k);
                break;
            }
        }
        match home {
            Some(k) => pools[k].push(i),
            None => pools.push(vec![i]),
        }
    }
    let mut shared = Vec::new();
    for pool in pools.into_iter().filter(|p| p.len() > 1) {
        let names: Vec<String> = pool
            .iter()
            .map(|&i| plan.buffers[i].data[0].clone())
            .collect();
        info!(
            "contract: {} share one allocation (lifetimes apart)",
            names.join(", ")
        );
        for &i in &pool {
            plan.buffers[i].pool = Some(next);
        }
        next += 1;
        shared.push(names);
    }
    Ok(shared)
}

/// The first and last access times of every element a temporary's
/// `accesses` (`S[i] -> A[x]`, one data set) touch, `A[x] -> [t]` each, in
/// the time space of `times` (the region's padded schedule).
fn lifetime(model: &RegionModel, times: &UnionMap, accesses: &UnionMap) -> Result<Lifetime> {
    let elem_times = accesses
        .copy()
        .and_then(|a| a.reverse())
        .and_then(|a| a.apply_range(times.copy()?))
        .and_then(Map::from_union_map)
        .and_then(|m| m.intersect_params(model.context.copy()?))
        .map_err(isl_err)?;
    let first = elem_times.copy().and_then(Map::lexmin).map_err(isl_err)?;
    let last = elem_times.lexmax().map_err(isl_err)?;
    Ok((first, last))
}

/// Whether some element of one temporary is alive while one of the other
/// is (their first-to-last intervals intersect; touching counts).
fn overlap(a: &Lifetime, b: &Lifetime, model: &RegionModel) -> Result<bool> {
    // A[x] -> B[y] with first(x) <= last(y) and first(y) <= last(x).
    let a_starts = a.0.copy().and_then(|f| f.lex_le_map(b.1.copy()?));
    let b_starts = b.0.copy().and_then(|f| f.lex_le_map(a.1.copy()?));
    let both = a_starts
        .and_then(|m| m.intersect(b_starts?.reverse()?))
        .and_then(|m| m.intersect_params(model.context.copy()?))
        .and_then(|m| m.is_empty())
        .map_err(isl_err)?;
    Ok(!both)
}

/// What every temporary's contraction reads of its region.
struct Subject<'a> {
    region: &'a Region,
    names: &'a Names,
    model: &'a RegionModel,
    /// The region's padded schedule, built on demand.
    times: &'a dyn Fn() -> Result<UnionMap>,
    /// The reads without a source in the region.
    live_in: &'a UnionMap,
}

/// One temporary contracted: the schedule with its scope mark, its buffer,
/// the buffer's shape in words and its elements' lifetimes.
struct Planned {
    schedule: Schedule,
    buffer: Buffer,
    shape: String,
    lifetime: Lifetime,
}

/// The new schedule, buffer, shape and element lifetimes for temporary
/// `data`, or why it keeps its array.
fn plan_one(
    c: &Subject,
    schedule: &Schedule,
    data: &str,
    plan: &StoragePlan,
) -> Result<std::result::Result<Planned, String>> {
    let (region, model) = (c.region, c.model);
    let rank = match rank_of(region, data) {
        Ok(rank) => rank,
        Err(why) => return Ok(Err(why)),
    };
    if region.versions.contains_key(data) || region.versions.values().any(|v| v.array == data) {
        return Ok(Err("it has versions in a time block".to_string()));
    }
    let Some(elem_type) = region.data_types.get(data).cloned() else {
        return Ok(Err("its element type is unknown".to_string()));
    };
    let ctx = schedule.get_ctx();
    let space = UnionSet::read_from_str(
        &ctx,
        &format!("{{ {}[{}] }}", isl_name(data), dims("o", rank)),
    )
    .map_err(isl_err)?;
    let reads_of = |m: &UnionMap| {
        m.copy()
            .and_then(|m| m.intersect_range(space.copy()?))
            .map_err(isl_err)
    };
    if !reads_of(c.live_in)?.is_empty().map_err(isl_err)? {
        return Ok(Err(
            "the region reads elements of it that it did not write first".to_string(),
        ));
    }
    let accesses = reads_of(&model.reads)?
        .union(reads_of(&model.may_writes)?)
        .map_err(isl_err)?;
    if accesses.is_empty().map_err(isl_err)? {
        return Ok(Err(
            "the region never accesses it (its statements run no instance)".to_string(),
        ));
    }
    let instances = accesses.copy().and_then(|a| a.domain()).map_err(isl_err)?;
    // The scope first: where none exists (a parallel loop between the
    // writes and the reads), the lifetimes (lexmin and lexmax over the
    // final schedule, the costly part) are not needed.
    let Some((node, prefix)) = scope_position(schedule, &instances, &accesses)? else {
        return Ok(Err(
            "a parallel loop runs between its writes and its reads (no scope holds an element's lifetime in one thread)".to_string(),
        ));
    };
    let (first, last) = lifetime(model, &(c.times)()?, &accesses)?;
    // Pairs of elements alive at once within one execution of the scope.
    let before = first
        .copy()
        .and_then(|f| f.lex_le_map(last.copy()?))
        .map_err(isl_err)?;
    let same_scope = prefix
        .copy()
        .and_then(|p| p.apply_range(prefix.reverse()?))
        .map_err(isl_err)?;
    let conflicts = before
        .copy()
        .and_then(|b| b.intersect(before.reverse()?))
        .and_then(|b| b.intersect(same_scope))
        .map_err(isl_err)?;
    let deltas = conflicts
        .deltas()
        .and_then(|d| d.subtract(zero(&ctx, data, rank)?))
        .map_err(isl_err)?;
    let accessed = accesses
        .range()
        .and_then(Set::from_union_set)
        .and_then(|s| s.intersect_params(model.context.copy()?))
        .map_err(isl_err)?;
    let (index, extents) = match successive_modulo(deltas, &accessed, rank, c.names)? {
        Ok(found) => found,
        Err(why) => return Ok(Err(why)),
    };
    let shape = shape_text(&index, &extents);
    let (schedule, alloc, scope) = allocation(schedule, node, &extents, plan)?;
    Ok(Ok(Planned {
        schedule,
        buffer: Buffer {
            name: data.to_string(),
            data: vec![data.to_string()],
            elem_type,
            extents,
            index,
            placement: Placement::Scope { scope },
            alloc,
            pool: None,
        },
        shape,
        lifetime: (first, last),
    }))
}

/// The rank at which the region's statements access temporary `data`, or
/// why it keeps its array.
fn rank_of(region: &Region, data: &str) -> std::result::Result<usize, String> {
    let mut rank = None;
    for s in &region.stages {
        if !s.accesses.iter().any(|a| a.data == data) {
            continue;
        }
        let Some(accs) = s.analysed() else {
            return Err(format!("{} is not analysable", s.label));
        };
        for a in accs.iter().filter(|a| a.data == data) {
            if a.index.iter().any(|e| !e.is_affine() || e.has_any()) {
                return Err(format!("{} accesses it at a data-dependent index", s.label));
            }
            if *rank.get_or_insert(a.index.len()) != a.index.len() {
                return Err("it is accessed with different ranks".to_string());
            }
        }
    }
    rank.filter(|r| *r > 0)
        .ok_or_else(|| "it is not an array the region accesses".to_string())
}

/// The least and greatest index of dimension `d` of `accessed`, as affine
/// functions of the parameters where they are.
fn dim_bounds(accessed: &Set, d: usize, names: &Names) -> Result<(Option<Affine>, Option<Affine>)> {
    let lo = accessed
        .copy()
        .and_then(|s| s.dim_min(d as i32))
        .map_err(isl_err)?;
    let hi = accessed
        .copy()
        .and_then(|s| s.dim_max(d as i32))
        .map_err(isl_err)?;
    Ok((affine(lo, names)?, affine(hi, names)?))
}

/// The buffer's index function and extents by successive modulo: per
/// dimension, outermost first, the largest distance in `deltas` between
/// two elements alive at once, plus one, is the modulus where it is a
/// constant, and the accessed range (`accessed`) elsewhere. Why the
/// temporary keeps its array where no dimension shrinks.
fn successive_modulo(
    deltas: Set,
    accessed: &Set,
    rank: usize,
    names: &Names,
) -> Result<std::result::Result<(IndexFn, Vec<Affine>), String>> {
    let mut moduli = Vec::new();
    let mut offsets = Vec::new();
    let mut extents = Vec::new();
    let mut reduced = false;
    let mut rest = deltas;
    for d in 0..rank {
        let m = if rest.is_empty().map_err(isl_err)? {
            Some(1)
        } else {
            constant(
                rest.copy()
                    .and_then(|r| r.dim_max(d as i32))
                    .map_err(isl_err)?,
            )?
            .map(|m| m + 1)
        };
        rest = rest.fix_si(DimType::Set, d as u32, 0).map_err(isl_err)?;
        match m {
            Some(m) => {
                // `%` of C needs non-negative indices.
                let non_negative = accessed
                    .copy()
                    .and_then(|s| s.upper_bound_si(DimType::Set, d as u32, -1))
                    .and_then(|s| s.is_empty())
                    .map_err(isl_err)?;
                if !non_negative {
                    return Ok(Err(format!(
                        "it may be accessed at a negative index in dimension {d}"
                    )));
                }
                let range = match dim_bounds(accessed, d, names)? {
                    (Some(lo), Some(hi)) => extent(&lo, &hi).constant_value(),
                    _ => None,
                };
                reduced |= range.is_none_or(|r| r > m);
                moduli.push(Some(m));
                offsets.push(Affine::constant(0));
                extents.push(Affine::constant(m));
            }
            None => {
                let (Some(lo), Some(hi)) = dim_bounds(accessed, d, names)? else {
                    return Ok(Err(format!(
                        "the range of its dimension {d} has no affine bounds"
                    )));
                };
                extents.push(extent(&lo, &hi));
                moduli.push(None);
                offsets.push(lo);
            }
        }
    }
    if !reduced {
        return Ok(Err(
            "its elements' lifetimes overlap so that nothing smaller than its accessed range would do"
                .to_string(),
        ));
    }
    Ok(Ok((IndexFn { offsets, moduli }, extents)))
}

/// A buffer's shape in words: `scalar`, `3 x N`.
fn shape_text(index: &IndexFn, extents: &[Affine]) -> String {
    if index.moduli.iter().all(|m| *m == Some(1)) {
        return "scalar".to_string();
    }
    extents
        .iter()
        .zip(&index.moduli)
        .filter(|(_, m)| **m != Some(1))
        .map(|(e, _)| text(e))
        .collect::<Vec<_>>()
        .join(" x ")
}

/// How a buffer of `extents` whose scope is `node` is allocated, and the
/// schedule with the mark of its scope.
///
/// A heap buffer is allocated once per region call where no parallel loop
/// runs around its scope: the scope's executions run one after another
/// and each starts afresh (no element lives across two), so they can reuse
/// one allocation. Inside a parallel loop, once per thread of the nearest
/// one: a thread runs its executions one after another too.
fn allocation(
    schedule: &Schedule,
    node: ScheduleNode,
    extents: &[Affine],
    plan: &StoragePlan,
) -> Result<(Schedule, Alloc, usize)> {
    let constant_size = extents
        .iter()
        .try_fold(1i64, |n, e| n.checked_mul(e.constant_value()?));
    let parallel = nearest_parallel_mark(&node)?;
    let alloc = match (constant_size, &parallel) {
        (Some(n), _) if n <= MAX_STACK_ELEMENTS => Alloc::Stack,
        (_, None) => Alloc::Heap,
        (_, Some(_)) => Alloc::PerThread,
    };
    let node = match (alloc, parallel) {
        (Alloc::Heap, _) => schedule
            .get_root()
            .and_then(|r| r.child(0))
            .map_err(isl_err)?,
        (Alloc::PerThread, Some(mark)) => mark,
        _ => node,
    };
    // Heap buffers allocated at one site share its mark.
    Ok(match site_scope(&node, alloc, plan)? {
        Some(scope) => (schedule.copy().map_err(isl_err)?, alloc, scope),
        None => {
            let scope = plan.scopes();
            let edited = insert_mark(node, &Mark::BufferScope { scope })?
                .get_schedule()
                .map_err(isl_err)?;
            (edited, alloc, scope)
        }
    })
}

/// An affine function of the parameters as text: `N - 2`.
fn text(e: &Affine) -> String {
    let mut s = String::new();
    for (t, k) in &e.terms {
        let name = match t {
            Term::Param(p) => p.clone(),
            Term::Tile(d) | Term::Index(d) => format!("x{d}"),
        };
        let (sign, mag) = if *k < 0 { ("-", -k) } else { ("+", *k) };
        let term = if mag == 1 {
            name
        } else {
            format!("{mag}*{name}")
        };
        s = match (s.is_empty(), sign) {
            (true, "-") => format!("-{term}"),
            (true, _) => term,
            (false, _) => format!("{s} {sign} {term}"),
        };
    }
    match (s.is_empty(), e.constant) {
        (true, c) => c.to_string(),
        (false, 0) => s,
        (false, c) if c < 0 => format!("{s} - {}", -c),
        (false, c) => format!("{s} + {c}"),
    }
}

/// `hi - lo + 1`.
fn extent(lo: &Affine, hi: &Affine) -> Affine {
    let mut e = Affine::constant(hi.constant - lo.constant + 1);
    for (t, k) in &hi.terms {
        e = e.plus(*k, t.clone());
    }
    for (t, k) in &lo.terms {
        match e.terms.iter_mut().find(|(u, _)| u == t) {
            Some((_, c)) => *c -= k,
            None => e = e.plus(-k, t.clone()),
        }
    }
    e.terms.retain(|(_, k)| *k != 0);
    e
}

/// `x0, x1, ...`
fn dims(v: &str, n: usize) -> String {
    (0..n)
        .map(|d| format!("{v}{d}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The zero vector of data set `data` (rank `n`).
fn zero(
    ctx: &isl_rs::Context,
    data: &str,
    n: usize,
) -> std::result::Result<Set, isl_rs::LibISLError> {
    Set::read_from_str(
        ctx,
        &format!("{{ {}[{}] }}", isl_name(data), vec!["0"; n].join(", ")),
    )
}

/// The value of a piecewise function that is one constant, if it is.
fn constant(pa: PwAff) -> Result<Option<i64>> {
    if pa.n_piece().map_err(isl_err)? != 1 || !pa.is_cst().map_err(isl_err)? {
        return Ok(None);
    }
    let v = pa.max_val().map_err(isl_err)?;
    if !v.is_int().map_err(isl_err)? {
        return Ok(None);
    }
    Ok(Some(v.get_num_si().map_err(isl_err)?))
}

/// A piecewise function of the parameters with a single integral affine
/// piece, as an [`Affine`] over [`Term::Param`].
fn affine(pa: PwAff, names: &Names) -> Result<Option<Affine>> {
    if pa.n_piece().map_err(isl_err)? != 1 {
        return Ok(None);
    }
    // Its one piece, defined where the parameters allow it.
    let aff: Aff = pa
        .copy()
        .and_then(|p| p.domain())
        .and_then(|d| pa.gist(d))
        .and_then(|p| p.as_aff())
        .map_err(isl_err)?;
    let int = |v: isl_rs::Val| v.get_num_si().map_err(isl_err);
    if int(aff.get_denominator_val().map_err(isl_err)?)? != 1
        || aff.dim(DimType::Div).map_err(isl_err)? > 0
    {
        return Ok(None);
    }
    aff_to_affine(&aff, names).map(Some)
}

/// Where the buffer scope of the accesses `accesses` (by `instances`) goes:
/// the node to mark and the scope's prefix schedule per element
/// (`A[x] -> [p]`, single-valued); `None` when no position works.
fn scope_position(
    schedule: &Schedule,
    instances: &UnionSet,
    accesses: &UnionMap,
) -> Result<Option<(ScheduleNode, Map)>> {
    // Down from the root to the deepest node above every instance.
    let mut path = vec![schedule.get_root().map_err(isl_err)?];
    loop {
        let node = path
            .last()
            .ok_or_else(|| Error::internal("contract: empty path"))?;
        let n = node.n_children().map_err(isl_err)?;
        let mut next = None;
        for i in 0..n {
            let c = node.get_child(i).map_err(isl_err)?;
            // A filter's domain is its parent's: what reaches its child is filtered.
            let dom = match c.get_type().map_err(isl_err)? {
                ScheduleNodeType::Filter => c.get_child(0).and_then(|f| f.get_domain()),
                _ => c.get_domain(),
            }
            .map_err(isl_err)?;
            if instances.is_subset(&dom).map_err(isl_err)? {
                next = Some(c);
                break;
            }
        }
        match next {
            Some(c) if !matches!(c.get_type().map_err(isl_err)?, ScheduleNodeType::Leaf) => {
                path.push(c)
            }
            _ => break,
        }
    }
    // Candidates, deepest first: above each node of the path, and between
    // the members of each band on it.
    for node in path.iter().skip(1).rev() {
        let mut candidates = Vec::new();
        if matches!(node.get_type().map_err(isl_err)?, ScheduleNodeType::Band) {
            let n = node.band_n_member().map_err(isl_err)?;
            for m in (1..n).rev() {
                let split = node
                    .copy()
                    .and_then(|b| b.band_split(m))
                    .and_then(|b| b.child(0))
                    .map_err(isl_err)?;
                candidates.push(split);
            }
        }
        // Nothing goes between a sequence and its filters: below a filter instead.
        candidates.push(match node.get_type().map_err(isl_err)? {
            ScheduleNodeType::Filter => node.get_child(0).map_err(isl_err)?,
            _ => node.copy().map_err(isl_err)?,
        });
        for c in candidates {
            let prefix = element_prefix(&c, accesses)?;
            if !prefix.is_single_valued().map_err(isl_err)? {
                continue;
            }
            if parallel_inside(&c, instances)? {
                return Ok(None);
            }
            return Ok(Some((c, prefix)));
        }
    }
    Ok(None)
}

/// `A[x] -> [p]`: the prefix schedule at `node` of the instances accessing each element.
fn element_prefix(node: &ScheduleNode, accesses: &UnionMap) -> Result<Map> {
    let prefix = node.get_prefix_schedule_union_map().map_err(isl_err)?;
    let prefix = pad_ranges(&prefix)?;
    accesses
        .copy()
        .and_then(|a| a.reverse())
        .and_then(|a| a.apply_range(prefix))
        .and_then(Map::from_union_map)
        .map_err(isl_err)
}

/// Whether a parallel loop over some of `instances` lies at or below `node`
/// (a parallel mark below it, or one above whose band members reach it).
fn parallel_inside(node: &ScheduleNode, instances: &UnionSet) -> Result<bool> {
    let depth = node.get_schedule_depth().map_err(isl_err)? as usize;
    // Marks above: a parallel band split by this position.
    if parallel_marks_above(node)?
        .iter()
        .any(|depths| depths.iter().any(|d| *d >= depth))
    {
        return Ok(true);
    }
    below(node, instances)
}

/// The nearest parallel mark above `node`, if any.
fn nearest_parallel_mark(node: &ScheduleNode) -> Result<Option<ScheduleNode>> {
    let mut up = node.copy().map_err(isl_err)?;
    while up.has_parent().map_err(isl_err)? {
        up = up.parent().map_err(isl_err)?;
        if matches!(up.get_type().map_err(isl_err)?, ScheduleNodeType::Mark)
            && matches!(mark_of(&up)?, Some(Mark::Parallel { .. }))
        {
            return Ok(Some(up));
        }
    }
    Ok(None)
}

/// The buffer scope already marked right above allocation site `node` for
/// heap buffers allocated as `alloc`, if any: the region's first node
/// (any scope there runs once per call) or a parallel loop's threads.
fn site_scope(node: &ScheduleNode, alloc: Alloc, plan: &StoragePlan) -> Result<Option<usize>> {
    let above = match alloc {
        Alloc::Stack => return Ok(None),
        Alloc::Heap => node.copy(),
        Alloc::PerThread if node.has_parent().map_err(isl_err)? => {
            node.copy().and_then(|n| n.parent())
        }
        Alloc::PerThread => return Ok(None),
    }
    .map_err(isl_err)?;
    if !matches!(above.get_type().map_err(isl_err)?, ScheduleNodeType::Mark) {
        return Ok(None);
    }
    let Some(Mark::BufferScope { scope }) = mark_of(&above)? else {
        return Ok(None);
    };
    let at = Placement::Scope { scope };
    // A team's scope holds per-thread buffers only; the region's, none.
    let per_thread = alloc == Alloc::PerThread;
    let fits = plan
        .buffers_at(at)
        .all(|b| (b.alloc == Alloc::PerThread) == per_thread);
    Ok(fits.then_some(scope))
}

/// The depths of the parallel marks above `node`, nearest first.
fn parallel_marks_above(node: &ScheduleNode) -> Result<Vec<Vec<usize>>> {
    let mut out = Vec::new();
    let mut up = node.copy().map_err(isl_err)?;
    while up.has_parent().map_err(isl_err)? {
        up = up.parent().map_err(isl_err)?;
        if matches!(up.get_type().map_err(isl_err)?, ScheduleNodeType::Mark) {
            if let Some(Mark::Parallel { depths }) = mark_of(&up)? {
                out.push(depths);
            }
        }
    }
    Ok(out)
}

/// Whether a parallel mark over some of `instances` lies at or below `node`.
fn below(node: &ScheduleNode, instances: &UnionSet) -> Result<bool> {
    let dom = node.get_domain().map_err(isl_err)?;
    if dom
        .intersect(instances.copy().map_err(isl_err)?)
        .and_then(|d| d.is_empty())
        .map_err(isl_err)?
    {
        return Ok(false);
    }
    if matches!(node.get_type().map_err(isl_err)?, ScheduleNodeType::Mark)
        && matches!(mark_of(node)?, Some(Mark::Parallel { .. }))
    {
        return Ok(true);
    }
    for i in 0..node.n_children().map_err(isl_err)? {
        if below(&node.get_child(i).map_err(isl_err)?, instances)? {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extent_of_affine_bounds() {
        let lo = Affine::constant(1);
        let hi = Affine::constant(-2).plus(1, Term::Param("N".into()));
        let e = extent(&lo, &hi);
        assert_eq!(e, Affine::constant(-2).plus(1, Term::Param("N".into())));
        assert_eq!(extent(&lo, &Affine::constant(4)), Affine::constant(4));
    }
}
