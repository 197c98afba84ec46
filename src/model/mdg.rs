//! The modified macro dataflow graph (M²DFG) of a region and its cost model:
//! Davis et al., "Transforming Loop Chains via Macro Dataflow Graphs"
//! (CGO'18), §3.1 (graph components), §3.3 (cost model), §4.2 (fuse: fused
//! statement nodes become one macro node, which reads each value once) and
//! §4.4 (mapping data to memory: a temporary pulled into a fused node needs
//! only the space its reuse requires).
//!
//! Value nodes are the region's data sets (one node per data set, not per
//! version as in the paper's single-assignment graphs), statement nodes its
//! stages; edges go from a value to each statement reading it and from a
//! statement to each value it writes. "After" is the grouping the driver
//! chose ([`Grouping`]: plain data, so that the model does not depend on the
//! transformation passes): each group is one macro node, which reads each
//! value once (read-reduction fusion), reads nothing from memory that it
//! takes from its tile scratchpads (values it computes itself), and a
//! temporary that never leaves the scratchpads is not stored either.
//!
//! Sizes: a value's size is the number of its elements the region accesses,
//! the image of the statement instances under the access relations. When
//! every parameter it depends on has a value (a macro read as a parameter,
//! or an `--assume` equality such as `N = 64`) it is counted exactly
//! (`isl_set_count_val`); otherwise it is the extent of the image's bounding
//! box, a formula over the parameters (`(1 + N) * N`; the isl flextile links
//! has no symbolic counting), an upper bound where the image is not a box.

use crate::diag::{Error, Result};
use crate::model::isl_ext::{isl_err, IslText};
use crate::model::polyhedral::{isl_name, Names, RegionModel};
use crate::model::program::{AccessKind, Region};
use isl_rs::{DimType, Set, Val};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::Direction;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What a value node holds (§3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Read by the region, never written: live-in data (persistent, shaded).
    Input,
    /// Written by the region and not declared temporary: live-out data
    /// (persistent, shaded).
    Persistent,
    /// Declared `temporary(...)` (or `--temporary`): not read after the
    /// region (unshaded).
    Temporary,
}

/// A count of elements or bytes: a constant plus multiples of symbolic
/// sizes, or unknown (with why).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Quantity {
    constant: u128,
    /// Symbolic size -> coefficient.
    terms: BTreeMap<String, u128>,
    /// Why the quantity is unknown (empty: known): what is missing, and of
    /// which data sets.
    unknown: BTreeMap<String, BTreeSet<String>>,
}

impl Quantity {
    /// The constant `n`.
    pub fn exact(n: u128) -> Quantity {
        Quantity {
            constant: n,
            ..Quantity::default()
        }
    }

    /// One symbolic size (an expression over the parameters).
    pub fn symbolic(expr: impl Into<String>) -> Quantity {
        Quantity {
            terms: BTreeMap::from([(expr.into(), 1)]),
            ..Quantity::default()
        }
    }

    /// An unknown quantity: `what` is missing (`element type`) of `data`.
    pub fn unknown(what: &str, data: &str) -> Quantity {
        Quantity {
            unknown: BTreeMap::from([(what.to_string(), BTreeSet::from([data.to_string()]))]),
            ..Quantity::default()
        }
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &Quantity) {
        self.constant += other.constant;
        for (t, k) in &other.terms {
            *self.terms.entry(t.clone()).or_default() += k;
        }
        for (what, data) in &other.unknown {
            self.unknown
                .entry(what.clone())
                .or_default()
                .extend(data.iter().cloned());
        }
    }

    /// This quantity times `k`.
    pub fn times(&self, k: u128) -> Quantity {
        if k == 0 && self.unknown.is_empty() {
            return Quantity::default();
        }
        Quantity {
            constant: self.constant * k,
            terms: self.terms.iter().map(|(t, c)| (t.clone(), c * k)).collect(),
            unknown: self.unknown.clone(),
        }
    }

    /// The value, when it is a known constant.
    pub fn as_exact(&self) -> Option<u128> {
        (self.terms.is_empty() && self.unknown.is_empty()).then_some(self.constant)
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if !self.unknown.is_empty() {
            let why: Vec<String> = self
                .unknown
                .iter()
                .map(|(what, data)| {
                    let data: Vec<String> = data.iter().map(|d| format!("'{d}'")).collect();
                    format!("{what} of {}", data.join(", "))
                })
                .collect();
            return write!(f, "unknown ({})", why.join("; "));
        }
        let mut parts: Vec<String> = self
            .terms
            .iter()
            .map(|(t, k)| match (*k, t.contains(' ')) {
                (1, _) => t.clone(),
                (_, true) => format!("{k}*({t})"),
                (_, false) => format!("{k}*{t}"),
            })
            .collect();
        if self.constant != 0 || parts.is_empty() {
            parts.push(self.constant.to_string());
        }
        write!(f, "{}", parts.join(" + "))
    }
}

/// A value node: one data set of the region.
#[derive(Clone, Debug)]
pub struct Value {
    /// The data set (C array, or a loop chain's logical name).
    pub name: String,
    /// Input, persistent or temporary.
    pub kind: ValueKind,
    /// Elements the region accesses (see the module documentation).
    pub elements: Quantity,
    /// Bytes of those elements: unknown where the element type is (a loop
    /// chain's logical data set, a typedef).
    pub bytes: Quantity,
}

/// A node of the graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A value node (index into [`Mdg::values`]).
    Value(usize),
    /// A (macro) statement node: the stages it runs, indices into the
    /// region's stages (one before fusion, the group's after).
    Statement(Vec<usize>),
}

/// An edge: a read (value -> statement) or a write (statement -> value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The access goes to memory; false for a read from the group's tile
    /// scratchpad, and for every access to a temporary that is never stored.
    pub memory: bool,
}

/// One graph (before or after the transformation).
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Value and statement nodes; read and write edges.
    pub graph: DiGraph<Node, Edge>,
}

impl Graph {
    /// The node of value `v`.
    pub fn value_node(&self, v: usize) -> Option<NodeIndex> {
        self.graph
            .node_indices()
            .find(|n| self.graph[*n] == Node::Value(v))
    }

    /// Memory edges of node `n` in direction `dir`.
    fn memory_degree(&self, n: NodeIndex, dir: Direction) -> usize {
        self.graph
            .edges_directed(n, dir)
            .filter(|e| e.weight().memory)
            .count()
    }

    /// S_R (§3.3): the data read, Σ over value nodes of (memory out-degree
    /// × size).
    pub fn s_r(&self, values: &[Value]) -> Quantity {
        let mut total = Quantity::default();
        for n in self.graph.node_indices() {
            if let Node::Value(v) = self.graph[n] {
                let reads = self.memory_degree(n, Direction::Outgoing) as u128;
                total.add(&values[v].elements.times(reads));
            }
        }
        total
    }

    /// S_C (§3.3): the most streams read at once, the largest memory
    /// in-degree of a statement node.
    pub fn s_c(&self) -> usize {
        self.graph
            .node_indices()
            .filter(|n| matches!(self.graph[*n], Node::Statement(_)))
            .map(|n| self.memory_degree(n, Direction::Incoming))
            .max()
            .unwrap_or(0)
    }
}

/// The grouping the driver chose for a region: which stages run fused, and
/// which temporaries never leave their group's tile scratchpads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grouping {
    /// Groups of stage indices, in execution order; together every stage
    /// exactly once.
    pub groups: Vec<Vec<usize>>,
    /// Per group (empty: none anywhere), the data sets its stages read
    /// from the group's tile scratchpads, not from memory: values the group
    /// computes itself (no element loaded from memory first).
    pub scratch_reads: Vec<BTreeSet<String>>,
    /// Data sets whose values never leave a group's scratchpads.
    pub unstored: BTreeSet<String>,
    /// Bytes of one tile's scratchpad of each data set of `unstored` (summed
    /// over the groups holding one; an allocation that holds several data
    /// sets is charged to the first, the others count 0); a missing entry
    /// is unknown.
    pub scratchpad_bytes: BTreeMap<String, u64>,
}

impl Grouping {
    /// Every stage of `n` alone.
    pub fn singletons(n: usize) -> Grouping {
        Grouping {
            groups: (0..n).map(|k| vec![k]).collect(),
            ..Grouping::default()
        }
    }
}

/// The cost figures of one graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Costs {
    /// Data read from memory, in elements (§3.3).
    pub s_r: Quantity,
    /// Most streams read at once (§3.3).
    pub s_c: usize,
    /// Bytes of storage the values take: every value node's bytes; after,
    /// a temporary that never leaves its scratchpads counts one tile's
    /// scratchpad instead (§4.4).
    pub bytes: Quantity,
}

/// The macro dataflow graph of a region, before and after its
/// transformation.
#[derive(Clone, Debug)]
pub struct Mdg {
    /// `S0: nest 1 (line 56)` per stage.
    pub stages: Vec<String>,
    /// The value nodes' data, in order of first access.
    pub values: Vec<Value>,
    /// One statement node per stage.
    pub before: Graph,
    /// One macro node per group, and the grouping; `None` where the driver
    /// does not know the grouping (see [`Mdg::after_note`]).
    pub after: Option<(Graph, Grouping)>,
    /// Why there is no "after" graph.
    pub after_note: Option<String>,
}

impl Mdg {
    /// The costs before the transformation.
    pub fn costs_before(&self) -> Costs {
        let mut bytes = Quantity::default();
        for v in &self.values {
            bytes.add(&v.bytes);
        }
        Costs {
            s_r: self.before.s_r(&self.values),
            s_c: self.before.s_c(),
            bytes,
        }
    }

    /// The costs after it, if known.
    pub fn costs_after(&self) -> Option<Costs> {
        let (graph, grouping) = self.after.as_ref()?;
        let mut bytes = Quantity::default();
        for v in &self.values {
            if grouping.unstored.contains(&v.name) {
                bytes.add(&match grouping.scratchpad_bytes.get(&v.name) {
                    Some(b) => Quantity::exact(u128::from(*b)),
                    None => Quantity::unknown("scratchpad size", &v.name),
                });
            } else {
                bytes.add(&v.bytes);
            }
        }
        Some(Costs {
            s_r: graph.s_r(&self.values),
            s_c: graph.s_c(),
            bytes,
        })
    }
}

/// Builds the graph of `region` (`model` is its polyhedral form), and the
/// "after" graph for `grouping` when given (else `after_note` says why not).
pub fn build(
    region: &Region,
    model: &RegionModel,
    names: &Names,
    grouping: Option<&Grouping>,
    after_note: Option<String>,
) -> Result<Mdg> {
    let mut order: Vec<&str> = Vec::new();
    for s in &region.stages {
        for a in &s.accesses {
            if !order.contains(&a.data.as_str()) {
                order.push(&a.data);
            }
        }
    }
    let sizes = element_counts(region, model, names, &order)?;
    let values: Vec<Value> = order
        .iter()
        .map(|d| {
            let written = region.stages.iter().any(|s| {
                s.accesses
                    .iter()
                    .any(|a| a.kind == AccessKind::Write && a.data == *d)
            });
            let kind = if region.temporaries.iter().any(|t| t.name == *d) {
                ValueKind::Temporary
            } else if written {
                ValueKind::Persistent
            } else {
                ValueKind::Input
            };
            let elements = sizes.get(*d).cloned().unwrap_or_default();
            let bytes = match region.data_types.get(*d).and_then(|t| type_bytes(t)) {
                Some(b) => elements.times(u128::from(b)),
                None => Quantity::unknown("element type", d),
            };
            Value {
                name: d.to_string(),
                kind,
                elements,
                bytes,
            }
        })
        .collect();
    let n = region.stages.len();
    let before = graph(region, &values, &Grouping::singletons(n))?;
    let after = match grouping {
        Some(g) => Some((graph(region, &values, g)?, g.clone())),
        None => None,
    };
    Ok(Mdg {
        stages: region
            .stages
            .iter()
            .map(|s| format!("{}: {}", s.name, s.label))
            .collect(),
        values,
        before,
        after,
        after_note,
    })
}

/// The graph of `region` with one statement node per group of `grouping`.
fn graph(region: &Region, values: &[Value], grouping: &Grouping) -> Result<Graph> {
    let n = region.stages.len();
    let mut seen = vec![false; n];
    for k in grouping.groups.iter().flatten() {
        match seen.get_mut(*k) {
            Some(s) if !*s => *s = true,
            _ => {
                return Err(Error::internal(format!(
                    "macro dataflow graph: the grouping {:?} of {n} stages lists stage {k} twice or out of range",
                    grouping.groups
                )))
            }
        }
    }
    if seen.iter().any(|s| !s) {
        return Err(Error::internal(format!(
            "macro dataflow graph: the grouping {:?} leaves out stages of {n}",
            grouping.groups
        )));
    }
    let mut g = DiGraph::new();
    let value_nodes: Vec<NodeIndex> = (0..values.len())
        .map(|v| g.add_node(Node::Value(v)))
        .collect();
    let index = |d: &str| values.iter().position(|v| v.name == d);
    if !grouping.scratch_reads.is_empty() && grouping.scratch_reads.len() != grouping.groups.len() {
        return Err(Error::internal(
            "macro dataflow graph: scratchpad reads not given per group",
        ));
    }
    let none = BTreeSet::new();
    for (i, group) in grouping.groups.iter().enumerate() {
        let scratch = grouping.scratch_reads.get(i).unwrap_or(&none);
        let s = g.add_node(Node::Statement(group.clone()));
        let (mut reads, mut writes) = (BTreeSet::new(), BTreeSet::new());
        for k in group {
            for a in &region.stages[*k].accesses {
                let Some(v) = index(&a.data) else {
                    return Err(Error::internal(format!(
                        "macro dataflow graph: no value node for '{}'",
                        a.data
                    )));
                };
                match a.kind {
                    AccessKind::Read => reads.insert(v),
                    AccessKind::Write => writes.insert(v),
                };
            }
        }
        for v in reads {
            let name = &values[v].name;
            let memory = !grouping.unstored.contains(name) && !scratch.contains(name);
            g.add_edge(value_nodes[v], s, Edge { memory });
        }
        for v in writes {
            let memory = !grouping.unstored.contains(&values[v].name);
            g.add_edge(s, value_nodes[v], Edge { memory });
        }
    }
    Ok(Graph { graph: g })
}

/// Bytes of one element of the C type `t`, for the standard arithmetic
/// types (`None` for a typedef or a struct).
pub fn type_bytes(t: &str) -> Option<u64> {
    let words: Vec<&str> = t
        .split_whitespace()
        .filter(|w| !matches!(*w, "signed" | "unsigned"))
        .collect();
    Some(match words.as_slice() {
        ["char"] | ["_Bool"] | ["int8_t"] | ["uint8_t"] => 1,
        ["short"] | ["short", "int"] | ["int16_t"] | ["uint16_t"] => 2,
        [] | ["int"] | ["float"] | ["int32_t"] | ["uint32_t"] => 4,
        ["long"]
        | ["long", "int"]
        | ["long", "long"]
        | ["long", "long", "int"]
        | ["double"]
        | ["int64_t"]
        | ["uint64_t"]
        | ["size_t"] => 8,
        ["long", "double"] => 16,
        _ => return None,
    })
}

/// The number of elements of each data set of `order` the region accesses.
fn element_counts(
    region: &Region,
    model: &RegionModel,
    names: &Names,
    order: &[&str],
) -> Result<BTreeMap<String, Quantity>> {
    let ctx = model.context.get_ctx();
    // Parameters with a value: macros read as parameters, `--assume N = 64`.
    let mut fixed: BTreeMap<String, i64> = BTreeMap::new();
    for (isl, c) in &names.params {
        if let Some(v) = region.macro_params.get(c) {
            fixed.insert(isl.clone(), *v);
            continue;
        }
        let pos = model
            .context
            .find_dim_by_name(DimType::Param, isl)
            .map_err(isl_err)?;
        if pos < 0 {
            continue;
        }
        let v = model
            .context
            .plain_get_val_if_fixed(DimType::Param, pos as u32)
            .map_err(isl_err)?;
        if v.is_int().map_err(isl_err)? {
            fixed.insert(isl.clone(), v.get_num_si().map_err(isl_err)?);
        }
    }
    let mut out = BTreeMap::new();
    for (tuple, set) in model.touched_sets()? {
        let Some(data) = order.iter().find(|d| isl_name(d) == tuple) else {
            continue;
        };
        out.insert(data.to_string(), count(&ctx, data, set, &fixed, model)?);
    }
    Ok(out)
}

/// The elements of `set` (of data set `data`): exact when the parameters it depends on are all in
/// `fixed`, else its bounding box's extent over the parameters.
fn count(
    ctx: &isl_rs::Context,
    data: &str,
    set: Set,
    fixed: &BTreeMap<String, i64>,
    model: &RegionModel,
) -> Result<Quantity> {
    let mut set = set;
    let n_param = set.n_param().map_err(isl_err)?;
    for pos in (0..n_param).rev() {
        let name = set
            .get_dim_name(DimType::Param, pos as u32)
            .map_err(isl_err)?
            .to_string();
        if let Some(v) = fixed.get(&name) {
            let v = Val::int_from_si(ctx, *v).map_err(isl_err)?;
            set = set
                .fix_val(DimType::Param, pos as u32, v)
                .and_then(|s| s.project_out(DimType::Param, pos as u32, 1))
                .map_err(isl_err)?;
        }
    }
    let set = set.drop_unused_params().map_err(isl_err)?;
    if set.is_empty().map_err(isl_err)? {
        return Ok(Quantity::exact(0));
    }
    if !set.is_bounded().map_err(isl_err)? && set.n_param().map_err(isl_err)? == 0 {
        return Ok(Quantity::unknown("bounded subscripts", data));
    }
    if set.n_param().map_err(isl_err)? == 0 {
        let n = set.count_val().map_err(isl_err)?;
        if !n.is_int().map_err(isl_err)? {
            return Ok(Quantity::unknown("isl count", data));
        }
        let n = n.get_num_si().map_err(isl_err)?;
        return Ok(Quantity::exact(u128::try_from(n).unwrap_or(0)));
    }
    let mut extents = Vec::new();
    for d in 0..set.n_dim().map_err(isl_err)? {
        if !set
            .dim_is_bounded(DimType::Set, d as u32)
            .map_err(isl_err)?
        {
            return Ok(Quantity::unknown("bounded subscripts", data));
        }
        let lo = set.copy().and_then(|s| s.dim_min(d)).map_err(isl_err)?;
        let ext = set
            .copy()
            .and_then(|s| s.dim_max(d))
            .and_then(|hi| hi.sub(lo))
            .and_then(|e| e.add_constant_val(Val::one(ctx)?))
            .and_then(|e| e.gist_params(model.context.copy()?))
            .map_err(isl_err)?;
        extents.push(extent_text(&ext.text()?));
    }
    Ok(match extents.as_slice() {
        [] => Quantity::exact(1),
        [one] => Quantity::symbolic(one.clone()),
        _ => Quantity::symbolic(
            extents
                .iter()
                .map(|e| {
                    if e.contains(' ') {
                        format!("({e})")
                    } else {
                        e.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" * "),
        ),
    })
}

/// The expression of a one-piece affine function's text (`[N] -> { [(1 +
/// N)] }` gives `1 + N`); the whole text for several pieces.
fn extent_text(text: &str) -> String {
    let body = text.split_once("{ ").map_or(text, |(_, b)| b);
    match (body.strip_prefix("[("), body.find(")]")) {
        (Some(_), Some(end)) if !body.contains(';') => body[2..end].to_string(),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::isl_ext::new_context;
    use crate::model::polyhedral::{build as build_model, collect_names};

    /// `A -> S0 -> T -> S1 -> B`, with `S1` reading `T[i]` and `T[i+1]` and
    /// `A` again: T temporary, N = 100 (a macro read as a parameter).
    fn chain() -> Region {
        let src = "\
#define N 100
void f(double *A, double *T, double *B) {
#pragma omplc loopchain schedule(fuse()) temporary(T)
{
#pragma omplc for domain(0:N) with (i) write T{(i)}, read A{(i)}
  for (int i = 0; i <= N; i++) T[i] = A[i];
#pragma omplc for domain(0:N-1) with (i) write B{(i)}, read T{(i),(i+1)}, read A{(i)}
  for (int i = 0; i <= N - 1; i++) B[i] = T[i] + T[i+1] + A[i];
}
}
";
        crate::frontend::testutil::ok(src).regions[0].clone()
    }

    fn mdg(grouping: Option<&Grouping>) -> Mdg {
        let region = chain();
        let names = collect_names(std::slice::from_ref(&region));
        let ctx = new_context();
        let model = build_model(&ctx, &region, &names, None).expect("model");
        build(&region, &model, &names, grouping, None).expect("mdg")
    }

    #[test]
    fn two_stage_chain_before() {
        let m = mdg(None);
        let names: Vec<(&str, ValueKind)> =
            m.values.iter().map(|v| (v.name.as_str(), v.kind)).collect();
        assert_eq!(
            names,
            [
                ("T", ValueKind::Temporary),
                ("A", ValueKind::Input),
                ("B", ValueKind::Persistent)
            ]
        );
        // Sizes: T[0..100] 101, A[0..100] 101, B[0..99] 100; 8 bytes each.
        let elems: Vec<Option<u128>> = m.values.iter().map(|v| v.elements.as_exact()).collect();
        assert_eq!(elems, [Some(101), Some(101), Some(100)]);
        // 3 values + 2 statements; reads A->S0, T->S1, A->S1; writes S0->T, S1->B.
        assert_eq!(m.before.graph.node_count(), 5);
        assert_eq!(m.before.graph.edge_count(), 5);
        let c = m.costs_before();
        // S_R = A: 2 readers x 101 + T: 1 x 101 + B: 0 = 303.
        assert_eq!(c.s_r.as_exact(), Some(303));
        // S_C: S1 reads T and A.
        assert_eq!(c.s_c, 2);
        assert_eq!(c.bytes.as_exact(), Some(8 * (101 + 101 + 100)));
        assert!(m.costs_after().is_none());
    }

    #[test]
    fn two_stage_chain_fused_with_scratchpad() {
        let g = Grouping {
            groups: vec![vec![0, 1]],
            scratch_reads: vec![BTreeSet::from(["T".to_string()])],
            unstored: BTreeSet::from(["T".to_string()]),
            scratchpad_bytes: BTreeMap::from([("T".to_string(), 33 * 8)]),
        };
        let m = mdg(Some(&g));
        let (after, _) = m.after.as_ref().expect("after");
        // 3 values + 1 macro node; edges A->M, T->M (scratchpad), M->T, M->B.
        assert_eq!(after.graph.node_count(), 4);
        assert_eq!(after.graph.edge_count(), 4);
        let c = m.costs_after().expect("costs");
        // The macro node reads A once; T never reaches memory.
        assert_eq!(c.s_r.as_exact(), Some(101));
        assert_eq!(c.s_c, 1);
        assert_eq!(c.bytes.as_exact(), Some(8 * (101 + 100) + 33 * 8));
    }

    #[test]
    fn fused_without_scratchpad_still_reads_the_temporary() {
        let g = Grouping {
            groups: vec![vec![0, 1]],
            ..Grouping::default()
        };
        let c = mdg(Some(&g)).costs_after().expect("costs");
        assert_eq!(c.s_r.as_exact(), Some(202));
        assert_eq!(c.s_c, 2);
    }

    #[test]
    fn scratchpad_reads_do_not_reach_memory() {
        // T stored (not unstored) but read by S1 from the group's scratchpad.
        let g = Grouping {
            groups: vec![vec![0, 1]],
            scratch_reads: vec![BTreeSet::from(["T".to_string()])],
            ..Grouping::default()
        };
        let c = mdg(Some(&g)).costs_after().expect("costs");
        assert_eq!(c.s_r.as_exact(), Some(101));
        assert_eq!(c.s_c, 1);
        assert_eq!(c.bytes.as_exact(), Some(8 * (101 + 101 + 100)));
    }

    #[test]
    fn a_grouping_that_loses_a_stage_is_refused() {
        let region = chain();
        let names = collect_names(std::slice::from_ref(&region));
        let ctx = new_context();
        let model = build_model(&ctx, &region, &names, None).expect("model");
        let g = Grouping {
            groups: vec![vec![0]],
            ..Grouping::default()
        };
        assert!(build(&region, &model, &names, Some(&g), None).is_err());
    }

    #[test]
    fn symbolic_sizes_are_box_extents() {
        let mut region = chain();
        region.macro_params.clear();
        let names = collect_names(std::slice::from_ref(&region));
        let ctx = new_context();
        let model = build_model(&ctx, &region, &names, None).expect("model");
        let m = build(&region, &model, &names, None, None).expect("mdg");
        assert_eq!(m.values[0].elements.to_string(), "1 + N");
        assert_eq!(m.values[2].elements.to_string(), "N");
        assert_eq!(m.costs_before().s_r.to_string(), "3*(1 + N)");
    }

    #[test]
    fn quantities_print_and_add() {
        let mut q = Quantity::symbolic("N * N").times(2);
        q.add(&Quantity::exact(5));
        assert_eq!(q.to_string(), "2*(N * N) + 5");
        q.add(&Quantity::unknown("element type", "X"));
        q.add(&Quantity::unknown("element type", "B"));
        assert_eq!(q.to_string(), "unknown (element type of 'B', 'X')");
        assert_eq!(type_bytes("unsigned short"), Some(2));
        assert_eq!(type_bytes("real_t"), None);
    }
}
