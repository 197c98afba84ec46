//! The target-neutral loop tree the back ends print: loops, guards, buffer
//! scopes and statement instances, with structured integer expressions
//! ([`LoopExpr`]) instead of text. `ast.rs` reads isl's AST into it; each
//! target (`c.rs`, later CUDA) maps and prints it. The edits here shape the
//! tree the same way for every target: the storage plan's scopes gathered
//! ([`hoist_tile_storage`]), and parallel and SIMD loops marked.

use crate::diag::{Error, Result};
use crate::model::storage::Placement;
use crate::transform::cost::SHORT_LOOP;
use std::collections::BTreeSet;

/// A statement of the generated code.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// `for (iter = init; cond; iter += inc) { body }`.
    For {
        /// The loop's counter ([`LoopExpr::Counter`]).
        iter: LoopExpr,
        /// Initial value.
        init: LoopExpr,
        /// Loop condition.
        cond: LoopExpr,
        /// Increment.
        inc: LoopExpr,
        /// Loop body.
        body: Vec<Node>,
        /// Its iterations may run in parallel (a parallel mark above it).
        parallel: bool,
        /// It carries no dependence and is worth vectorising (a SIMD mark).
        simd: bool,
        /// It carries no dependence between the instances of one overlapped
        /// tile (a threads mark, CUDA only): its iterations may run on
        /// different threads of the tile's block.
        independent: bool,
    },
    /// `if (cond) { then } else { els }`.
    If {
        /// Condition.
        cond: LoopExpr,
        /// Then branch.
        then: Vec<Node>,
        /// Else branch, if any.
        els: Option<Vec<Node>>,
    },
    /// A scope of the storage plan (an overlapped tile's body, or a buffer
    /// scope): the buffers placed there are declared first.
    Buffers {
        /// Where the buffers are placed.
        at: Placement,
        /// The tile's statements.
        body: Vec<Node>,
    },
    /// One instance of stage `stage` (isl name) with its iterators' values.
    Stmt {
        /// Statement name (`S3`).
        stage: String,
        /// The stage's iterators' values, outermost first.
        args: Vec<LoopExpr>,
    },
}

/// A binary operator of a [`LoopExpr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `&&`
    And,
    /// `||`
    Or,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` where the division is exact or both operands are non-negative.
    Div,
    /// `%` where the left operand is non-negative or the remainder is compared with 0.
    Rem,
    /// `==`
    Eq,
    /// `<=`
    Le,
    /// `<`
    Lt,
    /// `>=`
    Ge,
    /// `>`
    Gt,
}

/// An integer expression of the generated code (loop bounds, guards,
/// statement arguments), as isl's AST builds it.
#[derive(Clone, Debug, PartialEq)]
pub enum LoopExpr {
    /// A literal.
    Int(i64),
    /// A parameter of the region, by its name in the user's code.
    Param(String),
    /// A generated loop counter, by its number (isl's `c<N>`, the schedule depth).
    Counter(u32),
    /// Any other identifier, as isl names it.
    Name(String),
    /// `a op b`.
    Op(BinOp, Box<LoopExpr>, Box<LoopExpr>),
    /// `-a`.
    Neg(Box<LoopExpr>),
    /// The least of the operands (at least two).
    Min(Vec<LoopExpr>),
    /// The greatest of the operands (at least two).
    Max(Vec<LoopExpr>),
    /// `floor(a / d)` for a positive constant `d`.
    FloorDiv(Box<LoopExpr>, Box<LoopExpr>),
    /// `c ? a : b`.
    Select(Box<LoopExpr>, Box<LoopExpr>, Box<LoopExpr>),
}

/// Helper functions the printed expressions call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Helper {
    /// `ft_min(a, b)`
    Min,
    /// `ft_max(a, b)`
    Max,
    /// `ft_floord(n, d)`: floor division by a positive constant.
    Floord,
    /// `ft_min_ll(a, b)`: [`Helper::Min`] on `long long`.
    MinLL,
    /// `ft_max_ll(a, b)`: [`Helper::Max`] on `long long`.
    MaxLL,
    /// `ft_floord_ll(n, d)`: [`Helper::Floord`] on `long long`.
    FloordLL,
    /// CUDA only: `ft_gather(k, n, fault)`, a data-dependent index checked
    /// against its device buffer, and `ft_gathered(fault, where)`, the
    /// host's check of the flag it sets.
    Gather,
}

impl LoopExpr {
    /// Whether this expression reads the counter of schedule depth `d`.
    pub fn reads_counter(&self, d: u32) -> bool {
        match self {
            LoopExpr::Counter(k) => *k == d,
            LoopExpr::Int(_) | LoopExpr::Param(_) | LoopExpr::Name(_) => false,
            LoopExpr::Op(_, a, b) | LoopExpr::FloorDiv(a, b) => {
                a.reads_counter(d) || b.reads_counter(d)
            }
            LoopExpr::Neg(a) => a.reads_counter(d),
            LoopExpr::Min(v) | LoopExpr::Max(v) => v.iter().any(|x| x.reads_counter(d)),
            LoopExpr::Select(c, a, b) => {
                c.reads_counter(d) || a.reads_counter(d) || b.reads_counter(d)
            }
        }
    }

    /// Adds the helpers this expression calls when printed with `long long`
    /// arithmetic (`wide`) or `int` to `out`.
    pub fn helpers(&self, wide: bool, out: &mut BTreeSet<Helper>) {
        match self {
            LoopExpr::Int(_) | LoopExpr::Param(_) | LoopExpr::Counter(_) | LoopExpr::Name(_) => {}
            LoopExpr::Op(_, a, b) => {
                a.helpers(wide, out);
                b.helpers(wide, out);
            }
            LoopExpr::Neg(a) => a.helpers(wide, out),
            LoopExpr::Min(v) | LoopExpr::Max(v) => {
                out.insert(match (matches!(self, LoopExpr::Min(_)), wide) {
                    (true, false) => Helper::Min,
                    (false, false) => Helper::Max,
                    (true, true) => Helper::MinLL,
                    (false, true) => Helper::MaxLL,
                });
                v.iter().for_each(|e| e.helpers(wide, out));
            }
            LoopExpr::FloorDiv(a, d) => {
                out.insert(if wide {
                    Helper::FloordLL
                } else {
                    Helper::Floord
                });
                a.helpers(wide, out);
                d.helpers(wide, out);
            }
            LoopExpr::Select(c, a, b) => {
                c.helpers(wide, out);
                a.helpers(wide, out);
                b.helpers(wide, out);
            }
        }
    }
}

/// Calls `f` on every node of `nodes` and below, parents first.
pub fn visit(nodes: &[Node], f: &mut dyn FnMut(&Node)) {
    for n in nodes {
        f(n);
        match n {
            Node::For { body, .. } | Node::Buffers { body, .. } => visit(body, f),
            Node::If { then, els, .. } => {
                visit(then, f);
                visit(els.as_deref().unwrap_or_default(), f);
            }
            Node::Stmt { .. } => {}
        }
    }
}

/// The counters and parameter names `e` mentions.
pub fn uses(e: &LoopExpr, used: &mut BTreeSet<u32>, names: &mut BTreeSet<String>) {
    match e {
        LoopExpr::Int(_) => {}
        LoopExpr::Counter(c) => {
            used.insert(*c);
        }
        LoopExpr::Param(n) | LoopExpr::Name(n) => {
            names.insert(n.clone());
        }
        LoopExpr::Op(_, a, b) | LoopExpr::FloorDiv(a, b) => {
            uses(a, used, names);
            uses(b, used, names);
        }
        LoopExpr::Neg(a) => uses(a, used, names),
        LoopExpr::Min(v) | LoopExpr::Max(v) => v.iter().for_each(|x| uses(x, used, names)),
        LoopExpr::Select(c, a, b) => {
            uses(c, used, names);
            uses(a, used, names);
            uses(b, used, names);
        }
    }
}

/// The expressions of node `n` itself (a loop's counter and bounds, a
/// guard's condition, a statement's arguments), not those below it.
pub fn own_exprs(n: &Node) -> Vec<&LoopExpr> {
    match n {
        Node::For {
            iter,
            init,
            cond,
            inc,
            ..
        } => vec![iter, init, cond, inc],
        Node::If { cond, .. } => vec![cond],
        Node::Buffers { .. } => Vec::new(),
        Node::Stmt { args, .. } => args.iter().collect(),
    }
}

/// Adds the helpers the expressions of `nodes` call to `out` (see
/// [`LoopExpr::helpers`]).
pub fn helpers(nodes: &[Node], wide: bool, out: &mut BTreeSet<Helper>) {
    visit(nodes, &mut |n| {
        own_exprs(n).into_iter().for_each(|e| e.helpers(wide, out))
    });
}

/// One overlapped tile is one iteration of the innermost tile loop, but isl
/// may split that iteration's body (at the tile's sequence, under guards) into
/// several copies of the storage mark. Each copy would declare its own
/// scratchpads, and a consumer would read a fresh, uninitialised one. This
/// gathers the copies of each mark into one scope (of a loop's body, or of
/// the region when no tile loop is left, as with constant bounds smaller than
/// a tile). Several groups' marks in one body are gathered one by one, each
/// over the run of nodes holding its copies; where the copies of two marks
/// interleave, no scope can hold both and compilation stops with an internal
/// error instead of printing a program whose stages lose their scratchpads.
pub fn hoist_tile_storage(body: Vec<Node>) -> Result<Vec<Node>> {
    let sets: Vec<Vec<Placement>> = body
        .iter()
        .map(|n| {
            let mut v = Vec::new();
            collect_marks(std::slice::from_ref(n), &mut v);
            v.sort();
            v.dedup();
            v
        })
        .collect();
    let mut ranges: Vec<(Placement, usize, usize)> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        for m in set {
            match ranges.iter_mut().find(|r| &r.0 == m) {
                Some(r) => r.2 = i,
                None => ranges.push((*m, i, i)),
            }
        }
    }
    log::debug!("storage marks per node: {sets:?}; runs: {ranges:?}");
    match ranges.len() {
        0 => return Ok(body),
        1 => {
            if matches!(body.as_slice(), [Node::Buffers { .. }]) {
                return Ok(body);
            }
            return Ok(vec![Node::Buffers {
                at: ranges[0].0,
                body: strip_marks(body, ranges[0].0),
            }]);
        }
        _ => {}
    }
    // several marks: the copies of a mark found in several nodes are
    // gathered over the run of nodes holding them (runs of two such marks
    // must not overlap), and the marks inside that run are then gathered
    // within it; the marks of a node that no run covers are gathered inside
    // that node's branches
    let mut owner: Vec<Option<usize>> = vec![None; body.len()];
    for (k, (mark, a, b)) in ranges.iter().enumerate() {
        if a == b && sets[*a].len() > 1 {
            continue;
        }
        for slot in owner.iter_mut().take(b + 1).skip(*a) {
            if slot.is_some() {
                return Err(interleaved(*mark));
            }
            *slot = Some(k);
        }
    }
    let mut out = Vec::new();
    let mut run: Vec<Node> = Vec::new();
    let mut run_owner: Option<usize> = None;
    let flush = |run: &mut Vec<Node>, k: Option<usize>, out: &mut Vec<Node>| -> Result<()> {
        if let Some(k) = k {
            let nodes = std::mem::take(run);
            match nodes.as_slice() {
                [Node::Buffers { at, .. }] if *at == ranges[k].0 => out.extend(nodes),
                _ => out.push(Node::Buffers {
                    at: ranges[k].0,
                    body: hoist_tile_storage(strip_marks(nodes, ranges[k].0))?,
                }),
            }
        }
        Ok(())
    };
    for (i, node) in body.into_iter().enumerate() {
        if owner[i] != run_owner {
            flush(&mut run, run_owner, &mut out)?;
            run_owner = owner[i];
        }
        match owner[i] {
            Some(_) => run.push(node),
            None if sets[i].len() > 1 => out.push(hoist_inside(node)?),
            None => out.push(node),
        }
    }
    flush(&mut run, run_owner, &mut out)?;
    Ok(out)
}

/// Gathers the storage marks inside the branches of a conditional that holds
/// the copies of several marks.
fn hoist_inside(node: Node) -> Result<Node> {
    match node {
        Node::If { cond, then, els } => Ok(Node::If {
            cond,
            then: hoist_tile_storage(then)?,
            els: els.map(hoist_tile_storage).transpose()?,
        }),
        Node::Buffers { at, .. } => Err(interleaved(at)),
        other => Ok(other),
    }
}

fn interleaved(at: Placement) -> Error {
    Error::internal(format!(
        "the generated code splits the buffers of {at:?} into copies that \
         interleave with another group's; refusing to print a program whose stages \
         would lose their scratchpads"
    ))
}

/// Storage marks reachable without entering a loop.
fn collect_marks(nodes: &[Node], out: &mut Vec<Placement>) {
    for n in nodes {
        match n {
            Node::Buffers { at, .. } => out.push(*at),
            Node::If { then, els, .. } => {
                collect_marks(then, out);
                if let Some(e) = els {
                    collect_marks(e, out);
                }
            }
            Node::For { .. } | Node::Stmt { .. } => {}
        }
    }
}

/// Replaces the storage marks of `at` (outside loops) by their contents;
/// other marks, and what they hold, stay.
fn strip_marks(nodes: Vec<Node>, at: Placement) -> Vec<Node> {
    let mut out = Vec::new();
    for n in nodes {
        match n {
            Node::Buffers { at: a, body } if a == at => out.extend(strip_marks(body, at)),
            Node::If { cond, then, els } => out.push(Node::If {
                cond,
                then: strip_marks(then, at),
                els: els.map(|e| strip_marks(e, at)),
            }),
            other => out.push(other),
        }
    }
    out
}

/// Marks the outermost loops of `node` whose counter is one of `depths` (the
/// marked band's parallel members' schedule depths, outermost first) as
/// parallel. The first loop under the mark is the band's outermost generated
/// loop (isl generates none for a member that runs once); no loop inside it
/// is marked.
pub fn set_parallel(node: &mut Node, depths: &[usize]) {
    match node {
        Node::For { parallel, iter, .. } => {
            if depths.iter().any(|d| is_counter(iter, *d)) {
                *parallel = true;
            }
        }
        Node::If { then, els, .. } => {
            then.iter_mut().for_each(|n| set_parallel(n, depths));
            if let Some(e) = els {
                e.iter_mut().for_each(|n| set_parallel(n, depths));
            }
        }
        Node::Stmt { .. } | Node::Buffers { .. } => {}
    }
}

/// Sets `simd` on every loop of the counter of schedule depth `depth` in
/// `node` (isl may split the member's loop into several).
pub fn set_simd(node: &mut Node, depth: usize) {
    match node {
        Node::For {
            simd, iter, body, ..
        } => match is_counter(iter, depth) {
            true => *simd = true,
            false => body.iter_mut().for_each(|n| set_simd(n, depth)),
        },
        Node::If { then, els, .. } => {
            then.iter_mut().for_each(|n| set_simd(n, depth));
            if let Some(e) = els {
                e.iter_mut().for_each(|n| set_simd(n, depth));
            }
        }
        Node::Buffers { body, .. } => body.iter_mut().for_each(|n| set_simd(n, depth)),
        Node::Stmt { .. } => {}
    }
}

/// Sets `independent` on every loop of `node` whose counter is one of the
/// schedule depths `depths` (isl may split a member's loop into several).
pub fn set_independent(node: &mut Node, depths: &[usize]) {
    match node {
        Node::For {
            independent,
            iter,
            body,
            ..
        } => {
            if depths.iter().any(|d| is_counter(iter, *d)) {
                *independent = true;
            }
            body.iter_mut().for_each(|n| set_independent(n, depths));
        }
        Node::If { then, els, .. } => {
            then.iter_mut().for_each(|n| set_independent(n, depths));
            if let Some(e) = els {
                e.iter_mut().for_each(|n| set_independent(n, depths));
            }
        }
        Node::Buffers { body, .. } => body.iter_mut().for_each(|n| set_independent(n, depths)),
        Node::Stmt { .. } => {}
    }
}

/// Whether `n` is a parallel loop of fewer than [`SHORT_LOOP`] iterations, a
/// constant number, whose body is one loop independent of it: a loop that
/// carries no dependence either, not a SIMD loop, with bounds that do not
/// read the outer counter. The two run as one parallel loop over both
/// (OpenMP's `collapse(2)`), so that a short loop of channels does not leave
/// cores idle.
pub fn short_parallel_over_independent(n: &Node) -> bool {
    let Node::For {
        iter: LoopExpr::Counter(d),
        init,
        cond,
        inc,
        body,
        parallel: true,
        ..
    } = n
    else {
        return false;
    };
    let short = constant_trip_count(*d, init, cond, inc).is_some_and(|t| t < SHORT_LOOP);
    let inner_ok = match body.as_slice() {
        [Node::For {
            iter: LoopExpr::Counter(_),
            init: inner_init,
            cond: inner_cond,
            inc: LoopExpr::Int(1),
            independent: true,
            simd: false,
            parallel: false,
            ..
        }] => !inner_init.reads_counter(*d) && !inner_cond.reads_counter(*d),
        _ => false,
    };
    short && inner_ok
}

/// The iterations of `for (c<d> = init; cond; c<d> += inc)` where `init` is
/// a literal, `cond` compares the counter with a literal and `inc` is 1.
fn constant_trip_count(d: u32, init: &LoopExpr, cond: &LoopExpr, inc: &LoopExpr) -> Option<i64> {
    let (LoopExpr::Int(from), LoopExpr::Int(1)) = (init, inc) else {
        return None;
    };
    let LoopExpr::Op(op, c, bound) = cond else {
        return None;
    };
    let (LoopExpr::Counter(k), LoopExpr::Int(to)) = (c.as_ref(), bound.as_ref()) else {
        return None;
    };
    if *k != d {
        return None;
    }
    let last = match op {
        BinOp::Le => *to,
        BinOp::Lt => to - 1,
        _ => return None,
    };
    Some((last - from + 1).max(0))
}

/// Whether `n` or a node below it satisfies `pred`.
pub fn any_node(n: &Node, pred: &dyn Fn(&Node) -> bool) -> bool {
    pred(n)
        || match n {
            Node::For { body, .. } | Node::Buffers { body, .. } => {
                body.iter().any(|k| any_node(k, pred))
            }
            Node::If { then, els, .. } => then
                .iter()
                .chain(els.iter().flatten())
                .any(|k| any_node(k, pred)),
            Node::Stmt { .. } => false,
        }
}

/// Adds the overlapped groups whose tile scopes `nodes` hold to `out`, each
/// once, in order of appearance.
pub fn tile_groups(nodes: &[Node], out: &mut Vec<usize>) {
    for n in nodes {
        match n {
            Node::Buffers {
                at: Placement::Tile { group },
                body,
            } => {
                if !out.contains(group) {
                    out.push(*group);
                }
                tile_groups(body, out);
            }
            Node::For { body, .. } | Node::Buffers { body, .. } => tile_groups(body, out),
            Node::If { then, els, .. } => {
                tile_groups(then, out);
                tile_groups(els.as_deref().unwrap_or_default(), out);
            }
            Node::Stmt { .. } => {}
        }
    }
}

/// Whether `e` is the counter of schedule depth `depth`.
fn is_counter(e: &LoopExpr, depth: usize) -> bool {
    matches!(e, LoopExpr::Counter(n) if *n as usize == depth)
}

/// `for (c<depth> = 0; c<depth> < N; c<depth>++) body`, with no marks (tests).
#[cfg(test)]
pub(crate) fn test_loop(depth: u32, body: Vec<Node>) -> Node {
    Node::For {
        iter: LoopExpr::Counter(depth),
        init: LoopExpr::Int(0),
        cond: LoopExpr::Op(
            BinOp::Lt,
            Box::new(LoopExpr::Counter(depth)),
            Box::new(LoopExpr::Param("N".into())),
        ),
        inc: LoopExpr::Int(1),
        body,
        parallel: false,
        simd: false,
        independent: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(group: usize, stage: &str) -> Node {
        Node::Buffers {
            at: Placement::Tile { group },
            body: vec![Node::Stmt {
                stage: stage.into(),
                args: vec![],
            }],
        }
    }

    fn marks_of(nodes: &[Node]) -> Vec<(Placement, usize)> {
        nodes
            .iter()
            .filter_map(|n| match n {
                Node::Buffers { at, body } => Some((*at, body.len())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn copies_of_two_groups_are_gathered_per_group() {
        let body = vec![Node::If {
            cond: LoopExpr::Name("c".into()),
            then: vec![copy(0, "S0"), copy(0, "S1"), copy(1, "S2")],
            els: None,
        }];
        let out = hoist_tile_storage(body).unwrap();
        let [Node::If { then, .. }] = out.as_slice() else {
            panic!("{out:?}")
        };
        let tile = |group| Placement::Tile { group };
        assert_eq!(marks_of(then), vec![(tile(0), 2), (tile(1), 1)]);
    }

    #[test]
    fn interleaved_copies_are_an_internal_error() {
        let body = vec![copy(0, "S0"), copy(1, "S1"), copy(0, "S2")];
        assert!(hoist_tile_storage(body).is_err());
    }

    /// Seed 2028, program 202800063 (--tile): a mark confined to one branch
    /// of a conditional whose other branch, and the next node, hold copies
    /// of a second mark. The second is gathered over both nodes, the first
    /// inside it.
    #[test]
    fn a_mark_inside_another_marks_run_is_gathered_within_it() {
        let branch = Node::If {
            cond: LoopExpr::Name("c".into()),
            then: vec![copy(0, "S0")],
            els: Some(vec![copy(1, "S1")]),
        };
        let out = hoist_tile_storage(vec![branch, copy(1, "S2")]).unwrap();
        let tile = |group| Placement::Tile { group };
        assert_eq!(marks_of(&out), vec![(tile(1), 1)]);
        let [Node::Buffers { body, .. }] = out.as_slice() else {
            panic!("{out:?}")
        };
        // the one mark left is gathered over the whole run (its scope may
        // hold more than its copies)
        assert_eq!(marks_of(body), vec![(tile(0), 2)]);
        let [Node::Buffers { body, .. }] = body.as_slice() else {
            panic!("{body:?}")
        };
        assert!(matches!(
            body.as_slice(),
            [Node::If { .. }, Node::Stmt { .. }]
        ));
    }

    fn for_loop(depth: u32, body: Vec<Node>) -> Node {
        test_loop(depth, body)
    }

    /// A parallel mark marks the outermost matching loop only; a SIMD mark
    /// every loop of its counter.
    #[test]
    fn marks_set_the_loops_of_their_counters() {
        let mut n = for_loop(1, vec![for_loop(2, vec![]), for_loop(2, vec![])]);
        set_parallel(&mut n, &[1, 2]);
        set_simd(&mut n, 2);
        let Node::For { parallel, body, .. } = &n else {
            panic!()
        };
        assert!(*parallel);
        for inner in body {
            assert!(matches!(
                inner,
                Node::For {
                    parallel: false,
                    simd: true,
                    independent: false,
                    ..
                }
            ));
        }
    }

    #[test]
    fn helpers_follow_the_width() {
        let e = LoopExpr::Min(vec![
            LoopExpr::FloorDiv(Box::new(LoopExpr::Counter(0)), Box::new(LoopExpr::Int(32))),
            LoopExpr::Param("N".into()),
        ]);
        let mut narrow = BTreeSet::new();
        e.helpers(false, &mut narrow);
        assert_eq!(narrow, BTreeSet::from([Helper::Min, Helper::Floord]));
        let mut wide = BTreeSet::new();
        e.helpers(true, &mut wide);
        assert_eq!(wide, BTreeSet::from([Helper::MinLL, Helper::FloordLL]));
    }

    /// A parallel loop of 3 channels over an independent loop of rows runs
    /// as one parallel loop over both; not where the channels are many or
    /// not a constant number, nor over a SIMD loop, a loop that carries a
    /// dependence, or one whose bounds read the channel.
    #[test]
    fn a_short_parallel_loop_over_an_independent_one_collapses() {
        let nest = |channels: LoopExpr, inner: Node| {
            let mut outer = test_loop(0, vec![inner]);
            if let Node::For { cond, parallel, .. } = &mut outer {
                *cond = LoopExpr::Op(
                    BinOp::Le,
                    Box::new(LoopExpr::Counter(0)),
                    Box::new(channels),
                );
                *parallel = true;
            }
            outer
        };
        let rows = |independent: bool, simd: bool| {
            let mut l = test_loop(1, vec![]);
            if let Node::For {
                independent: i,
                simd: s,
                ..
            } = &mut l
            {
                (*i, *s) = (independent, simd);
            }
            l
        };
        let three = LoopExpr::Int(2);
        assert!(short_parallel_over_independent(&nest(
            three.clone(),
            rows(true, false)
        )));
        assert!(short_parallel_over_independent(&nest(
            LoopExpr::Int(SHORT_LOOP - 2),
            rows(true, false)
        )));
        assert!(!short_parallel_over_independent(&nest(
            LoopExpr::Int(SHORT_LOOP - 1),
            rows(true, false)
        )));
        assert!(!short_parallel_over_independent(&nest(
            LoopExpr::Param("C".into()),
            rows(true, false)
        )));
        assert!(!short_parallel_over_independent(&nest(
            three.clone(),
            rows(false, false)
        )));
        assert!(!short_parallel_over_independent(&nest(
            three.clone(),
            rows(true, true)
        )));
        let mut reads_channel = rows(true, false);
        if let Node::For { init, .. } = &mut reads_channel {
            *init = LoopExpr::Counter(0);
        }
        assert!(!short_parallel_over_independent(&nest(
            three.clone(),
            reads_channel
        )));
        // Two loops in the body: not perfectly nested.
        let mut two = nest(three, rows(true, false));
        if let Node::For { body, .. } = &mut two {
            body.push(rows(true, false));
        }
        assert!(!short_parallel_over_independent(&two));
    }
}
