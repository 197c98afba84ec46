//! DP grouping (Jangda & Bondhugula, TOPLAS'20, §3, Algorithm 1) and its
//! bounded incremental form (§6, Algorithm 5).
//!
//! `F(G)` is the least cost of the pre-fused groups `G` together with every
//! stage reachable from them, where the groups of `G` may only grow by
//! their successors: either some group `H` of `G` takes one of its direct
//! successors `s` (Case I, valid when `H + s` stays convex: no path leaves
//! it and comes back), or `G` is final and the recursion starts again from
//! every partition of `G`'s successors (Case II). `F` is memoised on `G`.
//!
//! A successor joins a group (Case I) or the next partition (Case II) only
//! once all its predecessors are assigned (in `G` or finalised): then the
//! stages not assigned yet are exactly the descendants of `G`, which makes
//! `F` a function of `G` and assigns no stage twice. Without this rule the
//! recurrence reaches a stage again by another path on DAGs such as Harris
//! corner detection's (a successor of a later group that an earlier group
//! took).
//! A linear chain of `n` stages has `n(n+1)/2` such states and all its
//! `2^(n-1)` groupings are costed in effect.
//!
//! The bounded form keeps groups to at most `limit` vertices, then
//! coalesces the groups found into vertices and groups those again, with a
//! limit of `step`, until a group could span the whole graph (Algorithm 5).

use std::collections::{BTreeSet, HashMap};

/// The graph the DP walks: units and their direct successors.
pub trait Dag {
    /// Number of units.
    fn len(&self) -> usize;
    /// No units.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The direct successors of unit `u`.
    fn successors(&self, u: usize) -> Vec<usize>;
    /// Whether the sorted units `group` form a convex set: no path leaves
    /// the set and comes back into it.
    fn convex(&self, group: &[usize]) -> bool;
}

/// A grouping (groups of vertex indices) with its cost.
type Costed = (f64, Vec<Vec<usize>>);

/// Most states of one DP run; past it the search over the DAG gives up
/// (the DP over the textual order decides). Every run that completes on
/// the benchmarks takes under 1,000 states (harris: 890); those that do
/// not (camera-pipeline, pyramid-blend, local-laplacian) ran past 50,000
/// too, and their states cost most of the model's compile time.
const STATE_BUDGET: usize = 5_000;

/// Partitions of more successors than this are not all enumerated: they are
/// taken apart (every successor its own group) or all together.
const MAX_PARTITIONED: usize = 5;

/// The grouping found, and how much was searched.
#[derive(Clone, Debug)]
pub struct Found {
    /// Groups of units, each sorted, covering every unit once.
    pub groups: Vec<Vec<usize>>,
    /// Total cost.
    pub cost: f64,
    /// DP states costed, over all runs.
    pub states: usize,
    /// How it was found.
    pub method: Method,
}

/// One bounded DP run over `vertices` (sets of units).
struct Run<'a, 'c> {
    graph: &'a dyn Dag,
    cost: &'c mut dyn FnMut(&[usize]) -> Option<f64>,
    vertices: Vec<Vec<usize>>,
    succ: Vec<Vec<usize>>,
    limit: usize,
    pred: Vec<Vec<usize>>,
    memo: HashMap<Vec<Vec<usize>>, Option<Costed>>,
    /// Whether a set of vertices may form a group, as found.
    valid: HashMap<Vec<usize>, bool>,
    exhausted: bool,
}

impl Run<'_, '_> {
    /// The units of a group of vertices, sorted.
    fn units(&self, h: &[usize]) -> Vec<usize> {
        let mut u: Vec<usize> = h.iter().flat_map(|v| self.vertices[*v].clone()).collect();
        u.sort_unstable();
        u
    }

    /// The strict descendants of the vertices `from` (not in `from`).
    fn descendants(&self, from: &BTreeSet<usize>) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<usize> = from.iter().flat_map(|v| self.succ[*v].clone()).collect();
        while let Some(v) = stack.pop() {
            if !from.contains(&v) && seen.insert(v) {
                stack.extend(self.succ[v].iter().copied());
            }
        }
        seen
    }

    /// The cost of a group of vertices (`None`: it cannot be one group).
    fn group_cost(&mut self, h: &[usize]) -> Option<f64> {
        let units = self.units(h);
        (self.cost)(&units)
    }

    /// Whether `h` may form a group: within the limit, convex, finite cost.
    fn valid(&mut self, h: &[usize]) -> bool {
        if let Some(v) = self.valid.get(h) {
            return *v;
        }
        let v = h.len() <= self.limit
            && (h.len() == 1 || self.graph.convex(&self.units(h)))
            && self.group_cost(h).is_some();
        self.valid.insert(h.to_vec(), v);
        v
    }

    /// F(G) (Algorithm 1).
    fn dp(&mut self, g: Vec<Vec<usize>>) -> Option<Costed> {
        if let Some(found) = self.memo.get(&g) {
            return found.clone();
        }
        if self.memo.len() >= STATE_BUDGET {
            self.exhausted = true;
            return None;
        }
        let taken: BTreeSet<usize> = g.iter().flatten().copied().collect();
        // Unassigned: the descendants of G (see the module documentation).
        let pending = self.descendants(&taken);
        let ready = |s: usize| self.pred[s].iter().all(|p| !pending.contains(p));
        let succ_of = |h: &[usize]| -> BTreeSet<usize> {
            h.iter()
                .flat_map(|v| self.succ[*v].iter().copied())
                .filter(|s| !taken.contains(s) && ready(*s))
                .collect()
        };
        let succs: Vec<BTreeSet<usize>> = g.iter().map(|h| succ_of(h)).collect();
        let all: BTreeSet<usize> = succs.iter().flatten().copied().collect();
        let mut base = Some(0.0);
        for h in &g {
            base = match (base, self.group_cost(h)) {
                (Some(b), Some(c)) => Some(b + c),
                _ => None,
            };
        }
        if all.is_empty() {
            let found = base.map(|c| (c, g.clone()));
            self.memo.insert(g, found.clone());
            return found;
        }
        let mut best: Option<Costed> = None;
        let consider = |best: &mut Option<Costed>, found: Option<Costed>| {
            if let Some((c, grouping)) = found {
                if best.as_ref().is_none_or(|(b, _)| c < *b) {
                    *best = Some((c, grouping));
                }
            }
        };
        // Case I: a group takes one of its successors.
        for (i, h) in g.iter().enumerate() {
            for s in &succs[i] {
                let mut merged = h.clone();
                merged.push(*s);
                merged.sort_unstable();
                if !self.valid(&merged) {
                    continue;
                }
                let mut next = g.clone();
                next[i] = merged;
                next.sort();
                let found = self.dp(next);
                consider(&mut best, found);
            }
        }
        // Case II: G is final; the best partition of its successors follows.
        if let Some(base) = base {
            let all: Vec<usize> = all.into_iter().collect();
            let mut best_rest: Option<Costed> = None;
            for mut p in partitions(&all) {
                if !p.iter().all(|h| self.valid(h)) {
                    continue;
                }
                p.sort();
                let found = self.dp(p);
                consider(&mut best_rest, found);
            }
            if let Some((c, rest)) = best_rest {
                let mut grouping = g.clone();
                grouping.extend(rest);
                consider(&mut best, Some((base + c, grouping)));
            }
        }
        self.memo.insert(g, best.clone());
        best
    }
}

/// Every partition of `set` into non-empty groups (each sorted); past
/// [`MAX_PARTITIONED`] elements, only all apart and all together.
fn partitions(set: &[usize]) -> Vec<Vec<Vec<usize>>> {
    if set.len() > MAX_PARTITIONED {
        return vec![set.iter().map(|s| vec![*s]).collect(), vec![set.to_vec()]];
    }
    let mut out: Vec<Vec<Vec<usize>>> = vec![Vec::new()];
    for s in set {
        let mut next = Vec::new();
        for p in &out {
            for i in 0..p.len() {
                let mut q = p.clone();
                q[i].push(*s);
                next.push(q);
            }
            let mut q = p.clone();
            q.push(vec![*s]);
            next.push(q);
        }
        out = next;
    }
    out
}

/// How a grouping was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Algorithm 1 over the whole graph.
    Unbounded,
    /// Algorithm 5: groups of at most this many stages first, coalesced
    /// and grouped again.
    Bounded(usize),
    /// The DP over the stages' textual order (each group a run of
    /// consecutive stages, which is always convex), where the DAG's states
    /// ran past the budget or it found a cheaper grouping.
    Ordered,
}

/// Groups the units of `graph`: `cost` gives the cost of a sorted set of
/// units, `None` when they cannot form one group (it must be finite for
/// every unit alone). Two searches: Algorithm 1 (Algorithm 5, bounded by
/// `initial` and `step`, on graphs of more than `initial` units) within
/// [`STATE_BUDGET`] states per run, and the DP over the textual order with
/// groups of at most `ordered_limit` units; the cheaper grouping wins.
/// `None` when neither covers every unit once.
pub fn dp_grouping(
    graph: &dyn Dag,
    cost: &mut dyn FnMut(&[usize]) -> Option<f64>,
    initial: usize,
    step: usize,
    ordered_limit: usize,
) -> Option<Found> {
    let n = graph.len();
    let mut states = 0;
    let dag = incremental(graph, cost, initial, step, &mut states);
    let ordered = ordered_grouping(n, cost, ordered_limit);
    if dag.is_none() {
        log::info!("dp grouping: past {STATE_BUDGET} states; the textual order's DP decides");
    }
    let best = match (dag, ordered) {
        (Some(d), Some(o)) if o.1 < d.1 => (o.0, o.1, Method::Ordered),
        (Some(d), _) => d,
        (None, Some(o)) => (o.0, o.1, Method::Ordered),
        (None, None) => return None,
    };
    covers(&best.0, n).then_some(Found {
        groups: best.0,
        cost: best.1,
        states,
        method: best.2,
    })
}

/// Algorithm 5 (Algorithm 1 on graphs of at most `initial` units); `None`
/// when a run passes the state budget.
fn incremental(
    graph: &dyn Dag,
    cost: &mut dyn FnMut(&[usize]) -> Option<f64>,
    initial: usize,
    step: usize,
    states: &mut usize,
) -> Option<(Vec<Vec<usize>>, f64, Method)> {
    let n = graph.len();
    let mut vertices: Vec<Vec<usize>> = (0..n).map(|u| vec![u]).collect();
    let (mut limit, method) = match n <= initial {
        true => (n.max(1), Method::Unbounded),
        false => (initial, Method::Bounded(initial)),
    };
    let mut max_size = limit;
    loop {
        let (groups, total) = run(graph, cost, &vertices, limit, states)?;
        vertices = groups
            .iter()
            .map(|h| {
                let mut u: Vec<usize> = h.iter().flat_map(|v| vertices[*v].clone()).collect();
                u.sort_unstable();
                u
            })
            .collect();
        if max_size >= n || vertices.len() == 1 {
            return Some((vertices, total, method));
        }
        limit = step.max(2);
        max_size = max_size.saturating_mul(limit);
    }
}

/// The best grouping of units `0..n` into runs of at most `limit`
/// consecutive units: `best[i]` is the least cost of the first `i` units.
fn ordered_grouping(
    n: usize,
    cost: &mut dyn FnMut(&[usize]) -> Option<f64>,
    limit: usize,
) -> Option<(Vec<Vec<usize>>, f64)> {
    let mut best: Vec<Option<(f64, usize)>> = vec![None; n + 1];
    best[0] = Some((0.0, 0));
    for i in 1..=n {
        for j in (i.saturating_sub(limit.max(1))..i).rev() {
            let Some((before, _)) = best[j] else { continue };
            let run: Vec<usize> = (j..i).collect();
            let Some(c) = cost(&run) else {
                // A longer run through the same stages is not cheaper to
                // check: stop at the first one that cannot be a group.
                break;
            };
            if best[i].is_none_or(|(b, _)| before + c < b) {
                best[i] = Some((before + c, j));
            }
        }
    }
    let (total, _) = best[n]?;
    let mut groups = Vec::new();
    let mut i = n;
    while i > 0 {
        let (_, j) = best[i]?;
        groups.push((j..i).collect());
        i = j;
    }
    groups.reverse();
    Some((groups, total))
}

/// One run over `vertices` with groups of at most `limit` of them: the
/// groups (of vertex indices) and their cost; `None` past the budget.
fn run(
    graph: &dyn Dag,
    cost: &mut dyn FnMut(&[usize]) -> Option<f64>,
    vertices: &[Vec<usize>],
    limit: usize,
    states: &mut usize,
) -> Option<(Vec<Vec<usize>>, f64)> {
    let owner = |u: usize| vertices.iter().position(|v| v.contains(&u));
    let succ: Vec<Vec<usize>> = vertices
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut s: Vec<usize> = v
                .iter()
                .flat_map(|u| graph.successors(*u))
                .filter_map(owner)
                .filter(|w| *w != i)
                .collect();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); vertices.len()];
    for (v, ss) in succ.iter().enumerate() {
        for s in ss {
            pred[*s].push(v);
        }
    }
    let has_pred: BTreeSet<usize> = succ.iter().flatten().copied().collect();
    let sources: Vec<usize> = (0..vertices.len())
        .filter(|v| !has_pred.contains(v))
        .collect();
    let mut r = Run {
        graph,
        cost: &mut *cost,
        vertices: vertices.to_vec(),
        succ,
        pred,
        limit,
        memo: HashMap::new(),
        valid: HashMap::new(),
        exhausted: false,
    };
    // A dummy source before the sources (cost 0), final at once: the best
    // partition of the sources.
    let mut best: Option<Costed> = None;
    for mut p in partitions(&sources) {
        if !p.iter().all(|h| r.valid(h)) {
            continue;
        }
        p.sort();
        if let Some((c, g)) = r.dp(p) {
            if best.as_ref().is_none_or(|(b, _)| c < *b) {
                best = Some((c, g));
            }
        }
    }
    *states += r.memo.len();
    if r.exhausted {
        return None;
    }
    let (c, g) = best?;
    covers(&g, vertices.len()).then_some((g, c))
}

/// Whether `groups` holds every index below `n` exactly once.
fn covers(groups: &[Vec<usize>], n: usize) -> bool {
    let mut seen = vec![false; n];
    for v in groups.iter().flatten() {
        if *v >= n || seen[*v] {
            return false;
        }
        seen[*v] = true;
    }
    seen.into_iter().all(|s| s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_bell_numbers() {
        assert_eq!(partitions(&[]).len(), 1);
        assert_eq!(partitions(&[1]).len(), 1);
        assert_eq!(partitions(&[1, 2, 3]).len(), 5);
        assert_eq!(partitions(&[1, 2, 3, 4, 5]).len(), 52);
        assert_eq!(partitions(&[1, 2, 3, 4, 5, 6]).len(), 2);
    }

    /// A DAG given by its edges.
    struct Edges(usize, Vec<(usize, usize)>);

    impl Dag for Edges {
        fn len(&self) -> usize {
            self.0
        }
        fn successors(&self, u: usize) -> Vec<usize> {
            self.1.iter().filter(|e| e.0 == u).map(|e| e.1).collect()
        }
        fn convex(&self, group: &[usize]) -> bool {
            let reach = |a: usize, b: usize| {
                let mut stack = vec![a];
                let mut seen = vec![false; self.0];
                while let Some(v) = stack.pop() {
                    for w in self.successors(v) {
                        if w == b {
                            return true;
                        }
                        if !seen[w] {
                            seen[w] = true;
                            stack.push(w);
                        }
                    }
                }
                false
            };
            (0..self.0).filter(|w| !group.contains(w)).all(|w| {
                !(group.iter().any(|u| reach(*u, w)) && group.iter().any(|u| reach(w, *u)))
            })
        }
    }

    /// A cost that favours some groupings: contiguous runs of a chain, each
    /// costing a pseudo-random amount.
    fn chain_cost(units: &[usize]) -> Option<f64> {
        let h = units
            .iter()
            .fold(17u64, |h, u| h.wrapping_mul(31).wrapping_add(*u as u64 + 1));
        Some((h % 97) as f64 + 10.0)
    }

    #[test]
    fn a_chain_gets_its_best_grouping() {
        // Brute force over the 2^(n-1) groupings of a chain of n stages.
        let n = 9;
        let chain = Edges(n, (0..n - 1).map(|i| (i, i + 1)).collect());
        let mut best = f64::MAX;
        for cuts in 0..(1u32 << (n - 1)) {
            let mut total = 0.0;
            let mut start = 0;
            for i in 0..n {
                if i == n - 1 || cuts & (1 << i) != 0 {
                    let g: Vec<usize> = (start..=i).collect();
                    total += chain_cost(&g).unwrap();
                    start = i + 1;
                }
            }
            best = best.min(total);
        }
        let found = dp_grouping(&chain, &mut chain_cost, 16, 2, 1).unwrap();
        assert_eq!(found.cost, best);
        assert_eq!(found.method, Method::Unbounded);
        // n(n+1)/2 states of one group, plus the final ones.
        assert!(found.states <= n * (n + 1));
        // Bounded: groups of at most 3 stages, then coalesced.
        let (_, bounded, method) = incremental(&chain, &mut chain_cost, 3, 2, &mut 0).unwrap();
        assert!(bounded >= best);
        assert_eq!(method, Method::Bounded(3));
        // The DP over the order finds the best grouping of a chain too.
        let (_, ordered) = ordered_grouping(n, &mut chain_cost, n).unwrap();
        assert_eq!(ordered, best);
    }

    #[test]
    fn groups_never_close_a_cycle() {
        // 0 -> 1 -> 2 and 0 -> 2: {0, 2} without 1 is not convex.
        let dag = Edges(3, vec![(0, 1), (1, 2), (0, 2)]);
        let mut cost = |u: &[usize]| -> Option<f64> {
            match u {
                [0, 2] => Some(0.0),
                [_] => Some(10.0),
                _ => Some(25.0),
            }
        };
        let found = dp_grouping(&dag, &mut cost, 8, 2, 1).unwrap();
        assert!(!found.groups.contains(&vec![0, 2]));
        assert_eq!(found.cost, 25.0);
    }

    #[test]
    fn infinite_costs_keep_stages_apart() {
        let chain = Edges(3, vec![(0, 1), (1, 2)]);
        let mut cost = |u: &[usize]| -> Option<f64> {
            match u.len() {
                1 => Some(5.0),
                _ if u.contains(&0) => None,
                _ => Some(1.0),
            }
        };
        let found = dp_grouping(&chain, &mut cost, 8, 2, 1).unwrap();
        assert_eq!(found.groups, vec![vec![0], vec![1, 2]]);
    }

    #[test]
    fn covering() {
        assert!(covers(&[vec![0, 2], vec![1]], 3));
        assert!(!covers(&[vec![0, 2], vec![2, 1]], 3));
        assert!(!covers(&[vec![0]], 2));
    }
}
