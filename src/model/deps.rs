//! Exact dataflow dependences of a region, computed by isl.
//!
//! Flow dependences are value-based (`isl_union_access_info_compute_flow`
//! with the certain writes as must-sources, so a later write kills an earlier
//! one); anti and output dependences are memory-based, transitively reduced
//! (see [`compute`]). Together they are the constraints every schedule must
//! respect.
//!
//! isl compares every sink with every source of its array, so a loop chain
//! of many nests is analysed one sink nest at a time, against its nearest
//! earlier nests first (see [`by_parts`]): the result is the same relation.
//!
//! Most arrays of an image pipeline need no search at all: one statement
//! writes each of their elements once, in a nest before every nest that
//! reads them (or nothing in the region writes them). Their dependences are
//! read off that writer ([`Direct`]); isl analyses the other arrays.
//!
//! The exact analysis can blow up (a lexicographic maximum over twenty
//! nested loops with a twenty-term subscript). It runs under an isl operation
//! budget; past it the dependences are the memory-based ones, every earlier
//! access to the same element ([`memory_based`]): a superset, so every
//! schedule legal for them is legal, and [`Dependences::exact`] says so to the
//! passes that need value-based flow (overlapped tiling).

use crate::diag::{Error, Result};
use crate::model::isl_ext::{dim_bounded, dim_range};
use crate::model::isl_ext::{isl_err, with_operation_budget};
use crate::model::polyhedral::{RegionModel, SchedulePart};
use crate::model::relations::{grow, map_list, pad_ranges, set_list};
use isl_rs::{Context, DimType, Map, Schedule, Set, UnionAccessInfo, UnionFlow, UnionMap};
use log::info;
use std::cell::RefCell;
use std::collections::HashMap;

/// The dependences of one region, as relations between statement instances.
pub struct Dependences {
    /// Read-after-write (value-based).
    pub flow: UnionMap,
    /// Write-after-read.
    pub anti: UnionMap,
    /// Write-after-write.
    pub output: UnionMap,
    /// Exact: `flow` is value-based, `anti` and `output` are transitively
    /// reduced. Otherwise all three are memory-based supersets.
    pub exact: bool,
    /// The reads no certain write of the region precedes ([`live_in_reads`]),
    /// found by the exact flow analysis on the way; `None` where the
    /// dependences are memory-based or restricted to some statements.
    pub live_in: Option<UnionMap>,
}

impl Dependences {
    /// All dependences together.
    pub fn all(&self) -> Result<UnionMap> {
        let u = self.flow.copy().map_err(isl_err)?;
        let u = u
            .union(self.anti.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
        u.union(self.output.copy().map_err(isl_err)?)
            .map_err(isl_err)
    }

    /// The live-in reads of `model` (whose dependences these are): kept
    /// from the exact analysis, or computed.
    pub fn live_in_reads(&self, model: &RegionModel) -> Result<UnionMap> {
        match &self.live_in {
            Some(l) => l.copy().map_err(isl_err),
            None => live_in_reads(model),
        }
    }
}

/// Computes flow, anti and output dependences under the region's original
/// schedule: exactly within `budget` isl operations (0: no bound), the
/// memory-based supersets past it.
pub fn compute(model: &RegionModel, budget: u64) -> Result<Dependences> {
    let ctx = model.schedule.get_ctx();
    if let Some(deps) = with_operation_budget(&ctx, budget, || exact(model))? {
        return Ok(deps);
    }
    info!("dependences: the exact analysis ran past {budget} isl operations; using memory-based dependences");
    memory_based(model)
}

/// The exact dependences.
///
/// Anti and output dependences are transitively reduced: a write depends on
/// the last certain write of the same element before it (and on the
/// uncertain ones after that), and on the reads since that write; an earlier
/// read or write is ordered before it through that last write. A schedule
/// respects the reduced set exactly when it respects all memory-based
/// dependences (lexicographic order is transitive, and distances add up, so a
/// loop carries a dependence of the full set only where it carries one of the
/// reduced set). The full sets grow with the square of the nests of a chain
/// that keeps writing the same arrays; the reduced ones linearly.
fn exact(model: &RegionModel) -> Result<Dependences> {
    let (flow, live_in) = dataflow(
        model,
        &Accesses {
            sink: &model.reads,
            must: Some(&model.must_writes),
            may: &model.may_writes,
            kill: None,
            kind: Problem::Reads,
        },
    )?;
    let (anti, _) = dataflow(
        model,
        &Accesses {
            sink: &model.may_writes,
            must: None,
            may: &model.reads,
            kill: Some(&model.must_writes),
            kind: Problem::Writes,
        },
    )?;
    let (output, _) = dataflow(
        model,
        &Accesses {
            sink: &model.may_writes,
            must: Some(&model.must_writes),
            may: &model.may_writes,
            kill: None,
            kind: Problem::Writes,
        },
    )?;
    Ok(Dependences {
        flow,
        anti,
        output,
        exact: true,
        live_in: Some(live_in),
    })
}

/// Every pair of accesses to the same element, the first `from` and the
/// second `to`, with the first before the second in the original order:
/// flow (write, read), anti (read, write) and output (write, write). Uncertain
/// writes count as writes; nothing kills.
fn memory_based(model: &RegionModel) -> Result<Dependences> {
    let order = pad_ranges(&crate::model::sequence::schedule_map(&model.schedule)?)?;
    let before = order
        .copy()
        .and_then(|o| o.lex_lt_union_map(order))
        .map_err(isl_err)?;
    let pairs = |from: &UnionMap, to: &UnionMap| -> Result<UnionMap> {
        from.copy()
            .and_then(|f| f.apply_range(to.copy()?.reverse()?))
            .and_then(|p| p.intersect(before.copy()?))
            .map_err(isl_err)
    };
    Ok(Dependences {
        flow: pairs(&model.may_writes, &model.reads)?,
        anti: pairs(&model.reads, &model.may_writes)?,
        output: pairs(&model.may_writes, &model.may_writes)?,
        exact: false,
        live_in: None,
    })
}

/// One dataflow problem: `must`/`may` sources of the `sink` accesses;
/// `kill` accesses end the sources before them without being sources.
struct Accesses<'a> {
    sink: &'a UnionMap,
    must: Option<&'a UnionMap>,
    may: &'a UnionMap,
    kill: Option<&'a UnionMap>,
    kind: Problem,
}

/// What the sinks of a dataflow problem are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Problem {
    /// Reads, whose sources are writes (flow dependences, live-in reads).
    Reads,
    /// Writes, whose sources are earlier reads or writes (anti, output).
    Writes,
}

/// The arrays of a region whose dataflow needs no search, for one problem.
///
/// An array qualifies when nothing in the region writes it, or when one
/// statement writes it, certainly (its uncertain writes are its certain
/// ones), each element at most once (an injective write), in a part of the
/// top-level sequence before every part that reads it. Every instance of a
/// part runs before the instances of the parts after it, so the source of a
/// read of such an array is the write of the same element, if any: exactly
/// what isl's search would find. A write of it has no earlier access to the
/// same element (no reads before the writer's part; one write per element),
/// so it has no anti or output dependence.
struct Direct {
    /// Per array: its elements to the instances whose writes are the sources
    /// of a sink accessing them (`None`: no source in this problem).
    sources: HashMap<String, Option<UnionMap>>,
}

impl Direct {
    /// The arrays of `model` that qualify (see [`Direct`]): for the flow
    /// problem (reads from writes) and for the anti and output problems
    /// (writes after reads and writes), in that order.
    fn of(model: &RegionModel, part_index: &HashMap<String, usize>) -> Result<(Direct, Direct)> {
        let part = |stmt: &str| part_index.get(stmt).copied();
        let mut writes: HashMap<String, Vec<Map>> = HashMap::new();
        for m in map_list(&model.may_writes)? {
            let array = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
            writes.entry(array).or_default().push(m);
        }
        let mut must: HashMap<String, Vec<Map>> = HashMap::new();
        for m in map_list(&model.must_writes)? {
            let array = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
            must.entry(array).or_default().push(m);
        }
        let mut readers: HashMap<String, Vec<Option<usize>>> = HashMap::new();
        for m in map_list(&model.reads)? {
            let array = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
            let stmt = m.get_tuple_name(DimType::In).map_err(isl_err)?;
            readers.entry(array).or_default().push(part(stmt));
        }
        let (mut flow, mut none) = (HashMap::new(), HashMap::new());
        for array in readers.keys().filter(|a| !writes.contains_key(*a)) {
            flow.insert(array.clone(), None);
        }
        let mut domains: HashMap<String, Set> = HashMap::new();
        for s in set_list(&model.domain)? {
            domains.insert(s.get_tuple_name().map_err(isl_err)?.to_string(), s);
        }
        for (array, w) in writes {
            let ([w], Some([m])) = (&w[..], must.get(&array).map(|v| &v[..])) else {
                continue;
            };
            let stmt = w.get_tuple_name(DimType::In).map_err(isl_err)?;
            let Some(at) = part(stmt) else { continue };
            let later = readers
                .get(&array)
                .into_iter()
                .flatten()
                .all(|r| r.is_some_and(|r| r > at));
            if !later {
                continue;
            }
            let Some(domain) = domains.get(stmt) else {
                continue;
            };
            let restrict = |x: &Map| {
                x.copy()
                    .and_then(|x| x.intersect_domain(domain.copy()?))
                    .map_err(isl_err)
            };
            let (w, m) = (restrict(w)?, restrict(m)?);
            if !w.is_equal(&m).map_err(isl_err)? || !w.is_injective().map_err(isl_err)? {
                continue;
            }
            let back = w.reverse().and_then(UnionMap::from_map).map_err(isl_err)?;
            flow.insert(array.clone(), Some(back));
            none.insert(array, None);
        }
        Ok((Direct { sources: flow }, Direct { sources: none }))
    }

    /// `sink` split into its accesses to the arrays of `self` and the rest.
    fn split(&self, sink: UnionMap) -> Result<(Vec<Map>, UnionMap)> {
        let mut direct = Vec::new();
        let mut rest = UnionMap::read_from_str(&sink.get_ctx(), "{ }").map_err(isl_err)?;
        for m in map_list(&sink)? {
            match self
                .sources
                .contains_key(m.get_tuple_name(DimType::Out).map_err(isl_err)?)
            {
                true => direct.push(m),
                false => rest = rest.add_map(m).map_err(isl_err)?,
            }
        }
        Ok((direct, rest))
    }

    /// The dependences of the `sink` accesses (arrays of `self`) and those
    /// of them without a source.
    fn resolve(&self, sink: Vec<Map>, deps: &mut UnionMap, no_source: &mut UnionMap) -> Result<()> {
        for m in sink {
            let array = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
            let m = UnionMap::from_map(m).map_err(isl_err)?;
            let left = match self.sources.get(&array) {
                Some(Some(back)) => {
                    let d = m
                        .copy()
                        .and_then(|m| m.apply_range(back.copy()?))
                        .and_then(|d| d.reverse())
                        .map_err(isl_err)?;
                    *deps = deps.copy().map_err(isl_err)?.union(d).map_err(isl_err)?;
                    let written = back.copy().and_then(|b| b.domain()).map_err(isl_err)?;
                    m.subtract_range(written).map_err(isl_err)?
                }
                _ => m,
            };
            *no_source = no_source
                .copy()
                .map_err(isl_err)?
                .union(left)
                .map_err(isl_err)?;
        }
        Ok(())
    }
}

/// The sources of one problem that lie in one part of the schedule, and
/// the arrays they access.
struct PartSources {
    must: UnionMap,
    may: UnionMap,
    kill: UnionMap,
    footprint: Footprint,
}

/// Parts of a region from which [`Footprint`]s hold the boxes of the
/// arrays, not only their names: with fewer, every earlier part is
/// searched within a few batches anyway, and the boxes' linear programs
/// would cost more isl operations (counted in the analysis's budget) than
/// they save.
const BOXES_FROM_PARTS: usize = 16;

/// The elements some accesses touch, per array, as a box: the constant
/// bounds of each dimension over all values of the parameters (`None`
/// where a dimension has none; no dimension at all where only the array's
/// name is kept). A part whose box does not meet a sink's
/// touches none of the sink's elements, so it holds no source of them and
/// kills none: leaving it out of the search changes no dependence (a
/// chain of 500 nests, each writing a row the next one reads, searched
/// every earlier nest for the writes' anti and output sources: 37 s).
#[derive(Default)]
struct Footprint {
    boxes: HashMap<String, Vec<Option<(i64, i64)>>>,
}

impl Footprint {
    /// Adds the elements `m` accesses: their arrays' names, and with
    /// `bounds` their boxes.
    fn add(&mut self, m: &UnionMap, bounds: bool) -> Result<()> {
        let range = m.copy().and_then(|m| m.range()).map_err(isl_err)?;
        for set in crate::model::relations::set_list(&range)? {
            let name = set.get_tuple_name().map_err(isl_err)?.to_string();
            let n = match bounds {
                true => set.dim(DimType::Set).map_err(isl_err)? as usize,
                false => 0,
            };
            let mut bounds = Vec::with_capacity(n);
            for d in 0..n {
                // Two rational LPs rule out most unbounded dimensions
                // before isl's parametric minimum and maximum.
                bounds.push(match dim_bounded(&set, d)? {
                    true => dim_range(&set, d)?,
                    false => None,
                });
            }
            match self.boxes.get_mut(&name) {
                None => {
                    self.boxes.insert(name, bounds);
                }
                Some(have) => {
                    for (h, b) in have.iter_mut().zip(bounds) {
                        *h = match (*h, b) {
                            (Some((l0, h0)), Some((l1, h1))) => Some((l0.min(l1), h0.max(h1))),
                            _ => None,
                        };
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether some array's boxes in `self` and `other` overlap.
    fn may_meet(&self, other: &Footprint) -> bool {
        self.boxes.iter().any(|(name, a)| {
            other.boxes.get(name).is_some_and(|b| {
                a.len() != b.len()
                    || a.iter().zip(b).all(|(x, y)| match (x, y) {
                        (Some((l0, h0)), Some((l1, h1))) => l0 <= h1 && l1 <= h0,
                        _ => true,
                    })
            })
        })
    }
}

/// The live-in reads of the parts already analysed, kept for the analyses
/// of many candidate groups of one region (in one isl context): per sink
/// part and the parts before it, the reads of the sink part without a
/// certain source among them. Groups that grow by appending parts analyse
/// only the new part's reads.
#[derive(Default)]
pub struct LiveInMemo {
    found: RefCell<HashMap<(String, Vec<String>), UnionMap>>,
}

/// The dependences of `acc` (isl's may-dependences: certain and possible
/// ones together), and the sink accesses without a certain source (isl's
/// may-no-source relation).
fn dataflow(model: &RegionModel, acc: &Accesses) -> Result<(UnionMap, UnionMap)> {
    if model.parts.len() < 2 {
        let ctx = model.schedule.get_ctx();
        let flow = isl_flow(
            &model.schedule,
            acc.sink.copy().map_err(isl_err)?,
            or_empty(&ctx, acc.must)?,
            acc.may.copy().map_err(isl_err)?,
            or_empty(&ctx, acc.kill)?,
        )?;
        return Ok((
            flow.get_may_dependence().map_err(isl_err)?,
            flow.get_may_no_source().map_err(isl_err)?,
        ));
    }
    by_parts(model, acc, None)
}

/// A copy of `m`, or the empty relation.
fn or_empty(ctx: &Context, m: Option<&UnionMap>) -> Result<UnionMap> {
    match m {
        Some(m) => m.copy().map_err(isl_err),
        None => UnionMap::read_from_str(ctx, "{ }").map_err(isl_err),
    }
}

/// [`dataflow`] over a top-level sequence, one sink part at a time.
///
/// The instances of a part all run after those of the parts before it, so
/// the source of a sink access in part `p` is its last source in `p` itself
/// or, where there is none, the last one in the nearest earlier part that
/// accesses the element. isl finds them in that order: per sink, the
/// sources that share loops with it, then the earlier parts from the latest
/// back, each taking the sink accesses not yet settled by a certain source
/// (or a kill). Here the same search runs in batches: `p` and its nearest
/// earlier part that accesses the sink's arrays first, then, for the sink
/// accesses left without a certain source (isl's "no source" relations),
/// the next earlier parts, twice as many each time. Parts that access none
/// of the arrays cannot be sources and are skipped. The union of the
/// batches' dependences is the relation isl computes on the whole region;
/// the number of comparisons grows with the parts that actually reach the
/// sink, not with all parts before it. The sink accesses left without a
/// certain source after the last batch are isl's may-no-source relation.
///
/// With a `memo` (live-in reads), a sink part's no-source relation is
/// looked up there first, and no dependences are returned (empty).
fn by_parts(
    model: &RegionModel,
    acc: &Accesses,
    memo: Option<&LiveInMemo>,
) -> Result<(UnionMap, UnionMap)> {
    let ctx = model.schedule.get_ctx();
    let mut part_index = HashMap::new();
    for (p, part) in model.parts.iter().enumerate() {
        let list = part.universe.get_set_list().map_err(isl_err)?;
        for i in 0..list.size().map_err(isl_err)? {
            let set = list.get_at(i).map_err(isl_err)?;
            part_index.insert(set.get_tuple_name().map_err(isl_err)?.to_string(), p);
        }
    }
    let (reads_direct, writes_direct) = Direct::of(model, &part_index)?;
    let direct = match acc.kind {
        Problem::Reads => reads_direct,
        Problem::Writes => writes_direct,
    };
    let by_part = |m: Option<&UnionMap>| split(&ctx, m, &part_index, model.parts.len());
    let sinks = by_part(Some(acc.sink))?;
    let (must, may, kill) = (
        by_part(acc.must)?,
        by_part(Some(acc.may))?,
        by_part(acc.kill)?,
    );
    let bounds = model.parts.len() >= BOXES_FROM_PARTS;
    let mut sources = Vec::with_capacity(model.parts.len());
    for ((must, may), kill) in must.into_iter().zip(may).zip(kill) {
        let mut footprint = Footprint::default();
        for m in [&must, &may, &kill] {
            footprint.add(m, bounds)?;
        }
        sources.push(PartSources {
            must,
            may,
            kill,
            footprint,
        });
    }
    let mut deps = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
    let mut no_source = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
    for (p, sink) in sinks.into_iter().enumerate() {
        let key = memo.map(|_| {
            let before = model.parts[..p].iter().map(|q| q.key.clone()).collect();
            (model.parts[p].key.clone(), before)
        });
        if let (Some(memo), Some(key)) = (memo, &key) {
            if let Some(found) = memo.found.borrow().get(key) {
                no_source = grow(no_source, found.copy().map_err(isl_err)?)?;
                continue;
            }
        }
        let (direct_sink, mut sink) = direct.split(sink)?;
        let mut direct_deps = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
        let mut direct_left = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
        direct.resolve(direct_sink, &mut direct_deps, &mut direct_left)?;
        if memo.is_none() {
            deps = grow(deps, direct_deps)?;
        }
        // Parts at `next` and before are not searched yet.
        let mut next = Some(p);
        let mut batch_len = 2;
        while !sink.is_empty().map_err(isl_err)? {
            let mut wanted = Footprint::default();
            wanted.add(&sink, bounds)?;
            let mut batch = Vec::new();
            while batch.len() < batch_len {
                let Some(q) = next else { break };
                next = q.checked_sub(1);
                if sources[q].footprint.may_meet(&wanted) {
                    batch.push(q);
                }
            }
            if batch.is_empty() {
                break;
            }
            let flow = batch_flow(model, &sources, &batch, p, sink)?;
            if memo.is_none() {
                deps = grow(deps, flow.get_may_dependence().map_err(isl_err)?)?;
            }
            sink = flow
                .get_must_no_source()
                .map_err(isl_err)?
                .union(flow.get_may_no_source().map_err(isl_err)?)
                .map_err(isl_err)?;
            batch_len *= 2;
        }
        let sink = grow(sink, direct_left)?;
        if let (Some(memo), Some(key)) = (memo, key) {
            memo.found
                .borrow_mut()
                .insert(key, sink.copy().map_err(isl_err)?);
        }
        no_source = grow(no_source, sink)?;
    }
    Ok((deps, no_source))
}

/// isl's dataflow for the `sink` accesses of part `p` from the sources of
/// the parts in `batch` (latest first), under the schedule of those parts.
fn batch_flow(
    model: &RegionModel,
    sources: &[PartSources],
    batch: &[usize],
    p: usize,
    sink: UnionMap,
) -> Result<UnionFlow> {
    let ctx = model.schedule.get_ctx();
    let empty = || UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err);
    let (mut must, mut may, mut kill) = (empty()?, empty()?, empty()?);
    for &q in batch {
        let s = &sources[q];
        must = must
            .union(s.must.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
        may = may.union(s.may.copy().map_err(isl_err)?).map_err(isl_err)?;
        kill = kill
            .union(s.kill.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
    }
    let mut order: Vec<usize> = batch.to_vec();
    if !order.contains(&p) {
        order.push(p);
    }
    order.sort_unstable();
    let parts: Vec<&SchedulePart> = order.iter().map(|&q| &model.parts[q]).collect();
    let schedule = SchedulePart::schedule(&ctx, &parts)?;
    isl_flow(&schedule, sink, must, may, kill)
}

/// `m` (none: empty) split by the part its relations' statements belong to
/// (`part_index`: statement name → part), in one pass.
fn split(
    ctx: &Context,
    m: Option<&UnionMap>,
    part_index: &HashMap<String, usize>,
    parts: usize,
) -> Result<Vec<UnionMap>> {
    let mut out: Vec<Option<UnionMap>> = (0..parts).map(|_| None).collect();
    if let Some(m) = m {
        let list = m.get_map_list().map_err(isl_err)?;
        for i in 0..list.size().map_err(isl_err)? {
            let map = list.get_at(i).map_err(isl_err)?;
            let name = map.get_tuple_name(DimType::In).map_err(isl_err)?;
            let p = *part_index.get(name).ok_or_else(|| {
                Error::internal(format!(
                    "dependences: statement '{name}' is in no part of the schedule"
                ))
            })?;
            out[p] = Some(
                match out[p].take() {
                    Some(u) => u.add_map(map),
                    None => UnionMap::from_map(map),
                }
                .map_err(isl_err)?,
            );
        }
    }
    out.into_iter()
        .map(|u| match u {
            Some(u) => Ok(u),
            None => UnionMap::read_from_str(ctx, "{ }").map_err(isl_err),
        })
        .collect()
}

/// isl's dataflow analysis from `must`/`may` sources to `sink` accesses
/// under `schedule`; `kill` accesses end the sources before them without
/// being sources (an empty relation: none).
fn isl_flow(
    schedule: &Schedule,
    sink: UnionMap,
    must: UnionMap,
    may: UnionMap,
    kill: UnionMap,
) -> Result<UnionFlow> {
    UnionAccessInfo::from_sink(sink)
        .and_then(|i| i.set_must_source(must))
        .and_then(|i| i.set_may_source(may))
        .and_then(|i| i.set_kill(kill))
        .and_then(|i| i.set_schedule(schedule.copy()?))
        .and_then(|i| i.compute_flow())
        .map_err(isl_err)
}

/// The reads of `model` that no write of the region precedes (they read
/// values from before the region), as isl's dataflow analysis finds them in
/// the original order: `S[i] -> A[x]`. The flow analysis of [`exact`]
/// (without its dependences), a few parts at a time like it.
pub fn live_in_reads(model: &RegionModel) -> Result<UnionMap> {
    let (_, no_source) = dataflow(model, &live_in_problem(model))?;
    Ok(no_source)
}

/// [`live_in_reads`], with the parts found in `memo` taken from it (and
/// those analysed added to it).
pub fn live_in_reads_with(model: &RegionModel, memo: &LiveInMemo) -> Result<UnionMap> {
    if model.parts.len() < 2 {
        return live_in_reads(model);
    }
    let (_, no_source) = by_parts(model, &live_in_problem(model), Some(memo))?;
    Ok(no_source)
}

/// The dataflow problem of the live-in reads: the reads and their sources.
fn live_in_problem(model: &RegionModel) -> Accesses<'_> {
    Accesses {
        sink: &model.reads,
        must: Some(&model.must_writes),
        may: &model.may_writes,
        kill: None,
        kind: Problem::Reads,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::isl_ext::new_context;
    use isl_rs::{Set, UnionSet};

    /// One statement of a test chain: its domain condition on `i`, reads,
    /// certain writes and uncertain writes (`B[o]`: any element), as isl
    /// tuples over `i`.
    struct Stmt {
        cond: String,
        reads: Vec<String>,
        must: Vec<String>,
        may: Vec<String>,
    }

    /// A loop chain: each inner vector is one top-level nest (`for i`)
    /// holding its statements in order.
    fn model(ctx: &Context, nests: &[Vec<Stmt>]) -> RegionModel {
        let set = |s: &str| UnionSet::read_from_str(ctx, s).unwrap();
        let map = |s: &str| UnionMap::read_from_str(ctx, s).unwrap();
        let (mut domain, mut reads, mut must, mut may) =
            (set("{ }"), map("{ }"), map("{ }"), map("{ }"));
        let mut parts = Vec::new();
        let mut k = 0;
        for nest in nests {
            let mut pdom = set("{ }");
            let mut universe = set("{ }");
            let mut names = Vec::new();
            for st in nest {
                let name = format!("S{k}");
                k += 1;
                let d = set(&format!(
                    "[N] -> {{ {name}[i] : 0 <= i < N and {} }}",
                    st.cond
                ));
                pdom = pdom.union(d.copy().unwrap()).unwrap();
                universe = universe.union(set(&format!("{{ {name}[i] }}"))).unwrap();
                domain = domain.union(d).unwrap();
                let acc = |a: &str| {
                    map(&format!(
                        "[N] -> {{ {name}[i] -> {a} : 0 <= i < N and {} }}",
                        st.cond
                    ))
                };
                for a in &st.reads {
                    reads = reads.union(acc(a)).unwrap();
                }
                for a in &st.must {
                    must = must.union(acc(a)).unwrap();
                    may = may.union(acc(a)).unwrap();
                }
                for a in &st.may {
                    may = may.union(acc(a)).unwrap();
                }
                names.push(name);
            }
            let band: Vec<String> = names.iter().map(|n| format!("{n}[i] -> [(i)]")).collect();
            let filter = format!(
                "{{ {} }}",
                names
                    .iter()
                    .map(|n| format!("{n}[i]"))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            let inner = if names.len() > 1 {
                let items: Vec<String> = names
                    .iter()
                    .map(|n| format!("{{ filter: \"{{ {n}[i] }}\" }}"))
                    .collect();
                format!(", child: {{ sequence: [ {} ] }}", items.join(", "))
            } else {
                String::new()
            };
            let yaml = format!(
                "{{ filter: \"{filter}\", child: {{ schedule: \"[N] -> [{{ {} }}]\"{inner} }} }}",
                band.join("; ")
            );
            parts.push(SchedulePart {
                domain: pdom,
                universe,
                yaml,
                key: names.join(","),
            });
        }
        let refs: Vec<&SchedulePart> = parts.iter().collect();
        let schedule = SchedulePart::schedule(ctx, &refs).unwrap();
        RegionModel {
            domain,
            reads,
            must_writes: must,
            may_writes: may,
            schedule,
            parts,
            context: Set::read_from_str(ctx, "[N] -> { : }").unwrap(),
        }
    }

    /// The dependences and live-in reads computed part by part (with and
    /// without a memo, whose second use finds every part) equal isl's on the
    /// whole region.
    fn check_same(nests: Vec<Vec<Stmt>>) {
        let ctx = new_context();
        let mut m = model(&ctx, &nests);
        let by_parts = compute(&m, 0).unwrap();
        let memo = LiveInMemo::default();
        let memo_first = live_in_reads_with(&m, &memo).unwrap();
        let memo_again = live_in_reads_with(&m, &memo).unwrap();
        let live_in = by_parts.live_in.as_ref().unwrap();
        m.parts.clear();
        let whole = compute(&m, 0).unwrap();
        let whole_live_in = whole.live_in.as_ref().unwrap();
        for (kind, a, b) in [
            ("flow", &by_parts.flow, &whole.flow),
            ("anti", &by_parts.anti, &whole.anti),
            ("output", &by_parts.output, &whole.output),
            ("live-in", live_in, whole_live_in),
            ("live-in (memo)", &memo_first, whole_live_in),
            ("live-in (memo, again)", &memo_again, whole_live_in),
        ] {
            assert!(
                a.is_equal(b).unwrap(),
                "{kind}:\nby parts {}\nwhole    {}",
                a.to_str().unwrap(),
                b.to_str().unwrap()
            );
        }
    }

    /// Past its budget the analysis gives the memory-based dependences: a
    /// superset of the exact ones, flagged inexact, which also keeps the
    /// pairs a later write kills (the first write of `B` reaches no read).
    #[test]
    fn past_the_budget_dependences_are_memory_based() {
        let ctx = new_context();
        let m = model(
            &ctx,
            &[
                vec![st("true", &[], &["B[i]"], &[])],
                vec![st("true", &["A[i]"], &["B[i]"], &[])],
                vec![st("true", &["B[i]"], &["A[i + 1]"], &[])],
                vec![st("true", &[], &[], &["B[o]"])],
            ],
        );
        let exact = compute(&m, 0).unwrap();
        let over = compute(&m, 1).unwrap();
        assert!(exact.exact && !over.exact);
        for (kind, a, b) in [
            ("flow", &exact.flow, &over.flow),
            ("anti", &exact.anti, &over.anti),
            ("output", &exact.output, &over.output),
        ] {
            assert!(
                a.is_subset(b).unwrap(),
                "{kind}: exact {} not within memory-based {}",
                a.to_str().unwrap(),
                b.to_str().unwrap()
            );
        }
        let killed = |d: &UnionMap| {
            let first_to_read = UnionMap::read_from_str(&ctx, "{ S0[i] -> S2[i] }").unwrap();
            !d.copy()
                .unwrap()
                .intersect(first_to_read)
                .unwrap()
                .is_empty()
                .unwrap()
        };
        assert!(!killed(&exact.flow) && killed(&over.flow));
    }

    fn st(cond: &str, reads: &[&str], must: &[&str], may: &[&str]) -> Stmt {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect();
        Stmt {
            cond: cond.to_string(),
            reads: v(reads),
            must: v(must),
            may: v(may),
        }
    }

    #[test]
    fn partial_writes_uncertain_writes_and_shared_nests() {
        check_same(vec![
            vec![st("true", &[], &["B[i]"], &[])],
            vec![st("i < 5", &["A[i]"], &["B[i]"], &[])],
            vec![st("true", &["B[i]", "B[i + 1]"], &["C[i]"], &[])],
            vec![st("true", &[], &[], &["B[o]"])],
            vec![st("true", &["B[i]", "C[i - 1]"], &["A[i]"], &[])],
            vec![
                st("i >= 2", &["A[i - 2]"], &["A[i]"], &[]),
                st("true", &["A[i]", "B[i]"], &["B[i]"], &[]),
            ],
            vec![st("true", &["D[i]"], &["D[i + 1]"], &[])],
            vec![st(
                "true",
                &["A[i]", "B[i]", "C[i]", "D[i]"],
                &["E[i]"],
                &[],
            )],
        ]);
    }

    /// Arrays read off their single writer ([`Direct`]) next to arrays isl
    /// searches: an input, a writer over part of the domain, a write that is
    /// not injective, a reader in the writer's nest, a reader before the
    /// writer, and the same array written twice.
    #[test]
    fn single_writers_match_the_search() {
        check_same(vec![
            vec![st("true", &["In[i]", "In[i + 1]"], &["A[i]"], &[])],
            vec![st("i < 5", &["A[i]"], &["B[i]"], &[])],
            vec![st(
                "true",
                &["A[i - 1]", "B[i]", "B[i + 2]"],
                &["C[0]"],
                &[],
            )],
            vec![st("true", &["C[0]", "D[i]"], &["E[i]"], &[])],
            vec![
                st("true", &["In[i]"], &["F[i]"], &[]),
                st("true", &["F[i]", "E[i]"], &["G[i + 1]"], &[]),
            ],
            vec![st("true", &["G[i]", "A[i + 1]"], &["D[i]"], &[])],
            vec![st("true", &["E[i]"], &["H[i]"], &[])],
            vec![st("true", &["H[i - 1]"], &["H[i]"], &[])],
            vec![st("true", &["H[i]", "C[0]", "G[i]"], &["K[2 * i]"], &[])],
        ]);
    }

    /// Random chains over three arrays: reads at offsets, writes over part
    /// of the domain, uncertain writes, several statements per nest.
    #[test]
    fn random_chains_match_the_whole_region() {
        let mut seed: u64 = 17;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..12 {
            let mut nests = Vec::new();
            for _ in 0..(3 + next(8)) {
                let mut nest = Vec::new();
                for _ in 0..(1 + next(2)) {
                    let arr = |k: u64| ["A", "B", "C"][k as usize];
                    let mut reads: Vec<String> = (0..next(3))
                        .map(|_| format!("{}[i + {}]", arr(next(3)), next(3) as i64 - 1))
                        .collect();
                    if !nests.is_empty() && next(2) == 0 {
                        let from = next(nests.len() as u64);
                        reads.push(format!("W{from}[i + {}]", next(3) as i64 - 1));
                    }
                    let (must, may) = match next(5) {
                        0 => (vec![], vec![format!("{}[o]", arr(next(3)))]),
                        // A fresh array, written once per element, which
                        // the nests after it may read (B3 by nest 3, ...).
                        1 => (vec![format!("W{}[i]", nests.len())], vec![]),
                        _ => (vec![format!("{}[i + {}]", arr(next(3)), next(2))], vec![]),
                    };
                    let cond = match next(3) {
                        0 => "i < 5".to_string(),
                        1 => format!("i >= {}", next(4)),
                        _ => "true".to_string(),
                    };
                    nest.push(Stmt {
                        cond,
                        reads,
                        must,
                        may,
                    });
                }
                nests.push(nest);
            }
            check_same(nests);
        }
    }
}
