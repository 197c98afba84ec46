//! The pipeline graph of a region (Jangda & Bondhugula, TOPLAS'20, §3): its
//! stages (the top-level nests, `nest_units`) as vertices, the dependences
//! between them (flow, anti, output) as edges, and each flow dependence
//! between two statements with its alignment and distances along every loop
//! (align.rs, Zhao & Cohen §3.7). The grouping strategies read it: the DP
//! (`dp_grouping.rs`) walks its successors and checks reachability, and the
//! cost model (`cost.rs`) reads a group's geometry from it (scales,
//! per-statement overlap, extents under the problem-size estimates) by
//! arithmetic, without building or analysing the group in isl.

use crate::diag::Result;
use crate::model::deps::Dependences;
use crate::model::isl_ext::{dim_bounded, dim_range, isl_err};
use crate::model::polyhedral::{Names, RegionModel};
use crate::model::program::{AccessKind, Region, RegionKind};
use crate::model::relations::set_list;
use crate::transform::align::{edge_alignment, Aligned};
use crate::transform::overlap::memo::AnalysisMemo;
use isl_rs::{DimType, Set};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::BTreeMap;

/// The values tried for the parameters without an estimate (`--estimate`),
/// largest first: the first one under which no loop runs more than
/// [`LARGEST_EXTENT`] iterations is taken (a parameter may be an image's
/// side, or a count of blocks of 512 pixels).
pub const DEFAULT_ESTIMATES: [i64; 8] = [2048, 1024, 256, 64, 16, 4, 2, 1];

/// See [`DEFAULT_ESTIMATES`].
pub const LARGEST_EXTENT: i64 = 8192;

/// A flow dependence between two statements (indices into the region's
/// stages): per loop, its alignment, or `None` where no scaling makes it
/// uniform (the statements cannot be overlapped together).
#[derive(Clone, Debug)]
pub struct Flow {
    /// The producer.
    pub from: usize,
    /// The consumer.
    pub to: usize,
    /// Per loop (`None` also when the depths differ).
    pub align: Vec<Option<Aligned>>,
}

/// What the cost model needs of one statement.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// Its loops.
    pub depth: usize,
    /// Iterations per loop under the estimates (`None`: unbounded).
    pub extents: Vec<Option<i64>>,
    /// Per loop: constants bound it, whatever the parameters (a tile that
    /// large spans it).
    pub fixed: Vec<bool>,
    /// Bytes of one element it writes.
    pub bytes: i64,
    /// The data it writes.
    pub writes: Vec<String>,
    /// The data it reads.
    pub reads: Vec<String>,
    /// Its reads per iteration (at least 1): what one point costs to compute.
    pub ops: i64,
    /// Its body is not analysable: its accesses cannot be redirected to
    /// tile-local storage.
    pub opaque: bool,
    /// The data it writes only under a condition.
    pub conditional: Vec<String>,
}

/// The pipeline graph of one region.
pub struct PipelineGraph {
    /// Vertices are the units (node `u` is unit `u`); an edge where a
    /// dependence (flow, anti or output) leads from one unit to another.
    pub graph: DiGraph<usize, ()>,
    /// The statements of each unit.
    pub units: Vec<Vec<usize>>,
    /// The unit of each statement.
    pub unit_of: Vec<usize>,
    /// Every statement, indexed as the region's stages.
    pub stmts: Vec<Stmt>,
    /// The flow dependences between distinct statements.
    pub flows: Vec<Flow>,
    /// The parameters given a default estimate, in words (empty: none).
    pub assumed: String,
    /// Per statement, its flow dependences (indices into `flows`) as producer.
    pub flows_from: Vec<Vec<usize>>,
    /// Which units reach which (a path of one edge or more).
    reach: Reach,
}

/// Reachability between the nodes of a graph, as bit sets: per node, the
/// nodes it reaches and the nodes that reach it.
#[derive(Clone, Debug)]
struct Reach {
    /// `to[u]`: the nodes reachable from `u`.
    to: Vec<Vec<u64>>,
    /// `from[v]`: the nodes that reach `v`.
    from: Vec<Vec<u64>>,
}

impl Reach {
    /// Whether `v` is reachable from `u`.
    fn reaches(&self, u: usize, v: usize) -> bool {
        self.to[u][v / 64] >> (v % 64) & 1 == 1
    }

    /// Whether no node outside `group` is reached from the group and
    /// reaches it.
    fn convex(&self, group: &[usize]) -> bool {
        let words = self.to.first().map_or(0, Vec::len);
        let mut inside = vec![0u64; words];
        let mut below = vec![0u64; words];
        let mut above = vec![0u64; words];
        for &u in group {
            inside[u / 64] |= 1 << (u % 64);
            for w in 0..words {
                below[w] |= self.to[u][w];
                above[w] |= self.from[u][w];
            }
        }
        (0..words).all(|w| below[w] & above[w] & !inside[w] == 0)
    }
}

impl PipelineGraph {
    /// The graph of `region`'s `units`, with the extents of its statements
    /// under `estimates` (C parameter names; others take one of
    /// [`DEFAULT_ESTIMATES`]). `memo`: the region's analyses' memo, whose
    /// alignments of flow dependences the graph shares.
    pub(crate) fn build(
        region: &Region,
        names: &Names,
        model: &RegionModel,
        deps: &Dependences,
        units: &[Vec<usize>],
        estimates: &BTreeMap<String, i64>,
        memo: Option<&AnalysisMemo>,
    ) -> Result<PipelineGraph> {
        let n = region.stages.len();
        let (unit_of, mut graph) = unit_nodes(n, units);
        let index_of = |name: &str| region.stages.iter().position(|s| s.name == name);
        let mut flows = Vec::new();
        for (map, flow) in [
            (&deps.flow, true),
            (&deps.anti, false),
            (&deps.output, false),
        ] {
            let list = map.get_map_list().map_err(isl_err)?;
            for i in 0..list.size().map_err(isl_err)? {
                let m = list.get_at(i).map_err(isl_err)?;
                let (Some(a), Some(b)) = (
                    index_of(m.get_tuple_name(DimType::In).map_err(isl_err)?),
                    index_of(m.get_tuple_name(DimType::Out).map_err(isl_err)?),
                ) else {
                    continue;
                };
                let (ua, ub) = (unit_of[a], unit_of[b]);
                if ua != ub {
                    graph.update_edge(NodeIndex::new(ua), NodeIndex::new(ub), ());
                }
                if a != b && flow {
                    let (da, db) = (
                        region.stages[a].iterators.len(),
                        region.stages[b].iterators.len(),
                    );
                    let align = match (da == db, memo) {
                        (true, Some(memo)) => {
                            let (from, to) = (&region.stages[a].name, &region.stages[b].name);
                            memo.aligned(from, to, &m, da)?
                        }
                        (true, None) => edge_alignment(&m, da)?,
                        (false, _) => vec![None; da.max(db)],
                    };
                    flows.push(Flow {
                        from: a,
                        to: b,
                        align,
                    });
                }
            }
        }
        // Extents under the estimates; parameters without one take the
        // largest default that keeps every loop within LARGEST_EXTENT.
        // (Loops whose extent does not depend on them do not count.)
        let estimated = Estimated::new(region, names, model, estimates)?;
        let mut extents = estimated.base.clone();
        let mut default = 1;
        for v in DEFAULT_ESTIMATES {
            if let Some(e) = estimated.fitting(v)? {
                extents = e;
                default = v;
                break;
            }
        }
        let domains = estimated.domains;
        let stmts = (0..n)
            .map(|k| {
                let fixed = fixed_loops(region, &domains[k], k)?;
                Ok(stmt_of(region, k, extents[k].clone(), fixed))
            })
            .collect::<Result<_>>()?;
        let reach = reach_of(&graph);
        let flows_from = flows_from(n, &flows);
        let params: Vec<String> = names
            .params
            .values()
            .filter(|p| !estimates.contains_key(*p))
            .cloned()
            .collect();
        let assumed = match params.is_empty() {
            true => String::new(),
            false => format!(
                "{} taken to be {default} (no --estimate)",
                params.join(", ")
            ),
        };
        Ok(PipelineGraph {
            assumed,
            flows_from,
            graph,
            units: units.to_vec(),
            unit_of,
            stmts,
            flows,
            reach,
        })
    }

    /// The graph of a time block of more steps ([`time_blocks`]' `region`,
    /// with its `units`), from `two`, the graph of the same body's block of
    /// two steps (`two_region`), without isl: a statement's extents are its
    /// copy's in the block of two, and every flow dependence of the block of
    /// two repeats at each step (one within a step at every step, one from a
    /// step to the next between every two steps, one into a copy back from
    /// as many steps before the block's end). Its edges are the flow
    /// dependences only: it serves the cost of the whole block as one group
    /// ([`crate::transform::time_choice`]), not the DP.
    ///
    /// [`time_blocks`]: crate::transform::time_blocks::time_blocks
    pub fn repeat_steps(
        two: &PipelineGraph,
        two_region: &Region,
        region: &Region,
        units: &[Vec<usize>],
    ) -> PipelineGraph {
        let (two_roles, roles) = (step_roles(two_region), step_roles(region));
        let steps = roles
            .iter()
            .filter_map(|r| match r {
                StepRole::Step(s, _) => Some(*s + 1),
                StepRole::Other(_) => None,
            })
            .max()
            .unwrap_or(0);
        let at = |role: StepRole| roles.iter().position(|r| *r == role);
        let two_at = |role: StepRole| two_roles.iter().position(|r| *r == role);
        let n = region.stages.len();
        let stmts = (0..n)
            .map(|k| {
                let copy = match roles[k] {
                    StepRole::Step(s, i) => two_at(StepRole::Step(s.min(1), i)),
                    other => two_at(other),
                };
                let depth = region.stages[k].iterators.len();
                let (extents, fixed) = copy.map_or_else(
                    || (vec![None; depth], vec![false; depth]),
                    |c| (two.stmts[c].extents.clone(), two.stmts[c].fixed.clone()),
                );
                stmt_of(region, k, extents, fixed)
            })
            .collect();
        let mut flows = Vec::new();
        for f in &two.flows {
            let pairs: Vec<(Option<usize>, Option<usize>)> =
                match (two_roles[f.from], two_roles[f.to]) {
                    (StepRole::Step(0, i), StepRole::Step(t, j)) => (0..steps.saturating_sub(t))
                        .map(|s| (at(StepRole::Step(s, i)), at(StepRole::Step(s + t, j))))
                        .collect(),
                    // Within the second step: already repeated from the first.
                    (StepRole::Step(_, _), StepRole::Step(_, _)) => Vec::new(),
                    (StepRole::Step(s, i), to @ StepRole::Other(_)) => {
                        let before_end = 1 - s.min(1);
                        match steps.checked_sub(1 + before_end) {
                            Some(s) => vec![(at(StepRole::Step(s, i)), at(to))],
                            None => Vec::new(),
                        }
                    }
                    (from, to) => vec![(at(from), at(to))],
                };
            for (a, b) in pairs {
                if let (Some(from), Some(to)) = (a, b) {
                    flows.push(Flow {
                        from,
                        to,
                        align: f.align.clone(),
                    });
                }
            }
        }
        let (unit_of, mut graph) = unit_nodes(n, units);
        for f in &flows {
            let (ua, ub) = (unit_of[f.from], unit_of[f.to]);
            if ua != ub {
                graph.update_edge(NodeIndex::new(ua), NodeIndex::new(ub), ());
            }
        }
        PipelineGraph {
            reach: reach_of(&graph),
            flows_from: flows_from(n, &flows),
            graph,
            units: units.to_vec(),
            unit_of,
            stmts,
            flows,
            assumed: two.assumed.clone(),
        }
    }

    /// Whether unit `v` is reachable from unit `u` by one edge or more.
    pub fn reaches(&self, u: usize, v: usize) -> bool {
        self.reach.reaches(u, v)
    }

    /// The direct successors of unit `u`, in order.
    pub fn successors(&self, u: usize) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .graph
            .neighbors(NodeIndex::new(u))
            .map(|n| n.index())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether the units `group` can run as one group: no path leaves it and
    /// comes back (it would need a unit outside it both after and before it).
    pub fn convex(&self, group: &[usize]) -> bool {
        self.reach.convex(group)
    }

    /// The groups `groups` (of units) in an order that respects every
    /// dependence between them (they are convex, so one exists), ties broken
    /// by their first unit (textual order).
    pub fn order_groups(&self, mut groups: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
        for g in &mut groups {
            g.sort_unstable();
        }
        groups.sort();
        let mut out = Vec::new();
        while !groups.is_empty() {
            // The first group that no remaining group must precede.
            let ready = (0..groups.len()).find(|i| {
                !groups.iter().enumerate().any(|(j, h)| {
                    j != *i
                        && h.iter()
                            .any(|a| groups[*i].iter().any(|b| self.reaches(*a, *b)))
                })
            });
            // A cycle cannot happen between convex groups; keep the textual
            // order if it did (the validity check would then refuse it).
            let i = ready.unwrap_or(0);
            out.push(groups.remove(i));
        }
        out
    }
}

/// Whether the values `group` computes of the temporary `data` must still
/// reach memory: a stage outside the group may read them, or a stage reads
/// `data` no later than a stage that writes it (in a loop around both, it
/// reads the values of the previous iteration, or its own). A scop
/// statement whose body is not analysed may read anything.
pub(crate) fn must_reach_memory(region: &Region, group: &[usize], data: &str) -> bool {
    let touches = |k: usize, kind: AccessKind| {
        let s = &region.stages[k];
        s.accesses.iter().any(|a| a.kind == kind && a.data == data)
            || (kind == AccessKind::Read
                && matches!(region.kind, RegionKind::Scop)
                && s.analysed().is_none())
    };
    let n = region.stages.len();
    let last_writer = (0..n).filter(|k| touches(*k, AccessKind::Write)).max();
    (0..n).any(|k| {
        touches(k, AccessKind::Read) && (!group.contains(&k) || last_writer.is_some_and(|w| k <= w))
    })
}

impl crate::transform::dp_grouping::Dag for PipelineGraph {
    fn len(&self) -> usize {
        self.units.len()
    }
    fn successors(&self, u: usize) -> Vec<usize> {
        PipelineGraph::successors(self, u)
    }
    fn convex(&self, group: &[usize]) -> bool {
        PipelineGraph::convex(self, group)
    }
}

/// Where a statement of a time block sits: the `i`-th statement of step
/// `s` of the body, or the `i`-th other statement (a copy back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StepRole {
    Step(usize, usize),
    Other(usize),
}

/// The role of each statement of `region` (a time block: its statements
/// carry their [`time_step`](crate::model::program::Stage::time_step)).
fn step_roles(region: &Region) -> Vec<StepRole> {
    let mut count: BTreeMap<Option<usize>, usize> = BTreeMap::new();
    region
        .stages
        .iter()
        .map(|s| {
            let c = count.entry(s.time_step).or_default();
            *c += 1;
            match s.time_step {
                Some(t) => StepRole::Step(t, *c - 1),
                None => StepRole::Other(*c - 1),
            }
        })
        .collect()
}

/// What the cost model needs of statement `k` of `region`, with its
/// `extents` under the estimates and its `fixed` loops.
fn stmt_of(region: &Region, k: usize, extents: Vec<Option<i64>>, fixed: Vec<bool>) -> Stmt {
    let s = &region.stages[k];
    let data = |kind: AccessKind| -> Vec<String> {
        let mut v: Vec<String> = s
            .accesses
            .iter()
            .filter(|a| a.kind == kind)
            .map(|a| a.data.clone())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let writes = data(AccessKind::Write);
    let bytes = writes
        .first()
        .and_then(|d| region.data_types.get(d))
        .map_or(8, |t| elem_bytes(t));
    Stmt {
        depth: s.iterators.len(),
        extents,
        fixed,
        bytes,
        writes,
        reads: data(AccessKind::Read),
        ops: s
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Read)
            .count()
            .max(1) as i64,
        opaque: !s.analysable,
        conditional: s
            .analysed()
            .unwrap_or_default()
            .iter()
            .filter(|a| a.kind == AccessKind::Write && a.conditional)
            .map(|a| a.data.clone())
            .collect(),
    }
}

/// The unit of each of `n` statements, and a graph with one node per unit
/// (node `u` is unit `u`) and no edges yet.
fn unit_nodes(n: usize, units: &[Vec<usize>]) -> (Vec<usize>, DiGraph<usize, ()>) {
    let mut unit_of = vec![0; n];
    for (u, ks) in units.iter().enumerate() {
        for k in ks {
            unit_of[*k] = u;
        }
    }
    let mut graph: DiGraph<usize, ()> = DiGraph::new();
    for u in 0..units.len() {
        graph.add_node(u);
    }
    (unit_of, graph)
}

/// Which nodes of `graph` reach which by one edge or more.
fn reach_of(graph: &DiGraph<usize, ()>) -> Reach {
    let n = graph.node_count();
    let words = n.div_ceil(64);
    let mut to = vec![vec![0u64; words]; n];
    let mut from = vec![vec![0u64; words]; n];
    for u in 0..n {
        let mut stack: Vec<NodeIndex> = graph.neighbors(NodeIndex::new(u)).collect();
        while let Some(v) = stack.pop() {
            let v = v.index();
            if to[u][v / 64] >> (v % 64) & 1 == 0 {
                to[u][v / 64] |= 1 << (v % 64);
                from[v][u / 64] |= 1 << (u % 64);
                stack.extend(graph.neighbors(NodeIndex::new(v)));
            }
        }
    }
    Reach { to, from }
}

/// Per statement (of `n`), the indices of the `flows` it produces.
fn flows_from(n: usize, flows: &[Flow]) -> Vec<Vec<usize>> {
    let mut from = vec![Vec::new(); n];
    for (i, f) in flows.iter().enumerate() {
        from[f.from].push(i);
    }
    from
}

/// Bytes of one element of the C type `ty` (8 when unknown).
fn elem_bytes(ty: &str) -> i64 {
    let t = ty
        .replace("const", "")
        .replace("unsigned", "")
        .replace("signed", "");
    match t.split_whitespace().collect::<Vec<_>>().as_slice() {
        ["char"] | ["int8_t"] | ["uint8_t"] | ["_Bool"] | ["bool"] => 1,
        ["short"] | ["int16_t"] | ["uint16_t"] => 2,
        ["float"] | ["int"] | ["int32_t"] | ["uint32_t"] | [] => 4,
        _ => 8,
    }
}

/// Iterations per loop of statement `k` of `region`, its parameters fixed
/// to their estimates (`None` for a loop whose extent stays unbounded).
/// The loops' extents of a region's statements under its parameters'
/// estimates (see [`PipelineGraph::build`]).
struct Estimated<'a> {
    region: &'a Region,
    names: &'a Names,
    estimates: &'a BTreeMap<String, i64>,
    /// Each statement's domain.
    domains: Vec<Option<Set>>,
    /// The extents with 1 for the parameters without an estimate.
    base: Vec<Vec<Option<i64>>>,
}

impl<'a> Estimated<'a> {
    fn new(
        region: &'a Region,
        names: &'a Names,
        model: &RegionModel,
        estimates: &'a BTreeMap<String, i64>,
    ) -> Result<Estimated<'a>> {
        let domains = stage_domains(region, model)?;
        let mut e = Estimated {
            region,
            names,
            estimates,
            domains,
            base: Vec::new(),
        };
        e.base = e.at(1)?;
        Ok(e)
    }

    /// The extents with `v` for the parameters without an estimate.
    fn at(&self, v: i64) -> Result<Vec<Vec<Option<i64>>>> {
        (0..self.region.stages.len())
            .map(|k| {
                let domain = &self.domains[k];
                estimated_extents(self.region, self.names, domain, k, self.estimates, v)
            })
            .collect()
    }

    /// The extents with `v` for the parameters without an estimate, where
    /// `v` may stand for them: every extent known, those that depend on
    /// them at most [`LARGEST_EXTENT`].
    fn fitting(&self, v: i64) -> Result<Option<Vec<Vec<Option<i64>>>>> {
        let e = self.at(v)?;
        let largest = e
            .iter()
            .flatten()
            .zip(self.base.iter().flatten())
            .filter(|(x, b)| x != b)
            .filter_map(|(x, _)| *x)
            .max()
            .unwrap_or(0);
        let fits = largest <= LARGEST_EXTENT && e.iter().flatten().all(|x| x.is_some());
        Ok(fits.then_some(e))
    }
}

/// Per value of [`DEFAULT_ESTIMATES`], whether it may stand for the
/// parameters without an estimate in `region` (see
/// [`PipelineGraph::build`], which takes the first that may). The parts of
/// a region lowered on their own agree on the first value every part
/// allows, the one the region's graph would take.
pub fn default_estimates_fit(
    region: &Region,
    names: &Names,
    model: &RegionModel,
    estimates: &BTreeMap<String, i64>,
) -> Result<Vec<bool>> {
    let estimated = Estimated::new(region, names, model, estimates)?;
    DEFAULT_ESTIMATES
        .iter()
        .map(|v| Ok(estimated.fitting(*v)?.is_some()))
        .collect()
}

fn estimated_extents(
    region: &Region,
    names: &Names,
    domain: &Option<Set>,
    k: usize,
    estimates: &BTreeMap<String, i64>,
    default: i64,
) -> Result<Vec<Option<i64>>> {
    let depth = region.stages[k].iterators.len();
    let Some(mut set) = domain
        .as_ref()
        .map(|s| s.copy())
        .transpose()
        .map_err(isl_err)?
    else {
        return Ok(vec![None; depth]);
    };
    let n_params = set.dim(DimType::Param).map_err(isl_err)?;
    for i in 0..n_params.max(0) as u32 {
        let isl = set
            .get_dim_name(DimType::Param, i)
            .map_err(isl_err)?
            .to_string();
        let c = names.c_param(&isl).unwrap_or(&isl);
        let v = estimates.get(c).copied().unwrap_or(default);
        set = set
            .fix_si(
                DimType::Param,
                i,
                v.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            )
            .map_err(isl_err)?;
    }
    if set.is_empty().map_err(isl_err)? {
        return Ok(vec![None; depth]);
    }
    (0..depth)
        .map(|d| Ok(dim_range(&set, d)?.map(|(lo, hi)| hi - lo + 1)))
        .collect()
}

/// Per loop of statement `k`: whether its extent is a constant, the same
/// under every value of the parameters.
fn fixed_loops(region: &Region, domain: &Option<Set>, k: usize) -> Result<Vec<bool>> {
    let depth = region.stages[k].iterators.len();
    let Some(set) = domain else {
        return Ok(vec![false; depth]);
    };
    if set.is_empty().map_err(isl_err)? {
        return Ok(vec![false; depth]);
    }
    (0..depth).map(|d| dim_bounded(set, d)).collect()
}

/// The domain of each statement of `region` (`None` where `model` has none).
fn stage_domains(region: &Region, model: &RegionModel) -> Result<Vec<Option<Set>>> {
    let mut by_name = std::collections::HashMap::new();
    for s in set_list(&model.domain)? {
        let name = s.get_tuple_name().map_err(isl_err)?.to_string();
        let dims = s.tuple_dim().map_err(isl_err)? as usize;
        by_name.insert((name, dims), s);
    }
    Ok(region
        .stages
        .iter()
        .map(|s| by_name.remove(&(s.name.clone(), s.iterators.len())))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_sizes() {
        assert_eq!(elem_bytes("float"), 4);
        assert_eq!(elem_bytes("const double"), 8);
        assert_eq!(elem_bytes("unsigned char"), 1);
        assert_eq!(elem_bytes("int"), 4);
        assert_eq!(elem_bytes("uint16_t"), 2);
        assert_eq!(elem_bytes("long"), 8);
    }
}
