//! Lowering a long region in parts, each in a thread and an isl context of
//! its own (issue 19: compile times of the deepest pipelines).
//!
//! Overlapped tiling groups only nests of one depth (a group's stages are
//! aligned loop by loop, Zhao & Cohen, TACO'19, §3), so where two consecutive top-level
//! nests of a region differ in depth, no group spans them; classic tiling
//! (`--tile`) tiles each nest on its own. At such cuts the
//! region splits into parts that are lowered on their own, in parallel —
//! model, dependences, grouping, the groups' trees, the validity check and
//! code generation — and the parts' loops run one after the other, as the
//! nests were written. Every dependence goes from a part to itself or to a
//! later part (the parts are in the program's order): the first kind is
//! checked by the part's validity check, the second holds by that order.
//!
//! A part's temporaries are the region's that it writes and no later part
//! touches: what a later part reads is stored. Where a part cannot be
//! lowered on its own as the region would be (an error, an array updated in
//! place that needs a shadow copy), the region is lowered whole instead.

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::{Barrier, Mutex};

use super::lower::Lowered;
use super::*;
use crate::model::program::Stage;
use crate::transform::pipeline::{default_estimates_fit, DEFAULT_ESTIMATES};

/// Regions with fewer stages are lowered whole: a thread and a model of
/// their own would not pay.
const MIN_STAGES: usize = 24;

/// A part holds at least this many stages.
const MIN_PART: usize = 8;

/// At most this many parts (the threads that lower them at once).
const MAX_PARTS: usize = 4;

/// The top-level nodes of each part `region` is lowered in under `opts`
/// (`None`: lowered whole): overlapped or classic tiling on the C target, of a loop
/// chain without schedule items or a scop, and nothing that reports on the
/// region as a whole (`--explain`, `--report`, `--dump-schedule`, `--emit
/// mdg`); cut where the depth of the top-level nests changes, into at most
/// as many parts as there are cores, each of at least [`MIN_PART`] stages,
/// as even in stages as the cuts allow.
pub(super) fn plan(opts: &Options, region: &Region) -> Option<Vec<Range<usize>>> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    plan_for(opts, region, cores)
}

/// [`plan`] on a machine of `cores` cores.
fn plan_for(opts: &Options, region: &Region, cores: usize) -> Option<Vec<Range<usize>>> {
    let chain_without_items = match &region.kind {
        RegionKind::Chain(c) => c.items.is_empty(),
        RegionKind::Scop => true,
    };
    if (opts.overlap.is_none() && !opts.tile)
        || opts.target != Target::C
        || opts.explain
        || opts.report
        || opts.dump_schedule
        || opts.emit_mdg.is_some()
        || opts.grouping == GroupingStrategy::TimeBlock
        || !chain_without_items
        || cores < 2
        || region.stages.len() < MIN_STAGES
    {
        return None;
    }
    // Each top-level node's stages (in order: the region's, as numbered)
    // and their depth, where they share one.
    let mut next = 0;
    let mut nodes: Vec<(usize, Option<usize>)> = Vec::new();
    for n in &region.tree {
        let mut ks = Vec::new();
        polyhedral::stages_under(std::slice::from_ref(n), &mut ks);
        if ks.is_empty() || ks.iter().enumerate().any(|(i, k)| *k != next + i) {
            return None;
        }
        next += ks.len();
        let depths: BTreeSet<usize> = ks
            .iter()
            .map(|k| region.stages[*k].iterators.len())
            .collect();
        let depth = match depths.len() {
            1 => depths.first().copied(),
            _ => None,
        };
        nodes.push((ks.len(), depth));
    }
    if next != region.stages.len() {
        return None;
    }
    // Where the depth changes: the stages before each such cut.
    let mut before = 0;
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for i in 0..nodes.len() {
        if i > 0 && nodes[i - 1].1.is_some() && nodes[i].1.is_some() && nodes[i - 1].1 != nodes[i].1
        {
            cuts.push((i, before));
        }
        before += nodes[i].0;
    }
    let total = before;
    let wanted = cores.min(MAX_PARTS);
    // Greedily, the cut nearest each even share, keeping parts large enough.
    let mut chosen: Vec<(usize, usize)> = Vec::new();
    for p in 1..wanted {
        let share = total * p / wanted;
        let last = chosen.last().map_or(0, |c| c.1);
        let best = cuts
            .iter()
            .filter(|(_, at)| *at >= last + MIN_PART && total - *at >= MIN_PART)
            .min_by_key(|(_, at)| at.abs_diff(share));
        if let Some(c) = best {
            if !chosen.contains(c) {
                chosen.push(*c);
            }
        }
    }
    if chosen.is_empty() {
        return None;
    }
    let mut starts: Vec<usize> = std::iter::once(0)
        .chain(chosen.iter().map(|c| c.0))
        .collect();
    starts.push(region.tree.len());
    Some(starts.windows(2).map(|w| w[0]..w[1]).collect())
}

/// The top-level nodes `nodes` of `region` as a region of their own: their
/// stages (renumbered from 0), and the region's temporaries that they write
/// and no stage after them (`later`: the data those access) touches; with
/// the region's index of its first stage.
pub(super) fn part_region(
    region: &Region,
    nodes: Range<usize>,
    later: &BTreeSet<String>,
) -> (Region, usize) {
    let mut ks = Vec::new();
    polyhedral::stages_under(&region.tree[nodes.clone()], &mut ks);
    let first = ks.first().copied().unwrap_or(0);
    let stages: Vec<Stage> = ks.iter().map(|k| region.stages[*k].clone()).collect();
    let written: BTreeSet<&str> = stages
        .iter()
        .flat_map(|s| &s.accesses)
        .filter(|a| a.kind == AccessKind::Write)
        .map(|a| a.data.as_str())
        .collect();
    let temporaries = region
        .temporaries
        .iter()
        .filter(|t| written.contains(t.name.as_str()) && !later.contains(&t.name))
        .cloned()
        .collect();
    let mut part = region.with_stages(stages, temporaries);
    part.whole_depth = region.deepest();
    part.tree = region.tree[nodes]
        .iter()
        .map(|n| renumbered(n, first))
        .collect();
    (part, first)
}

/// `node` with its stage indices lowered by `first`.
fn renumbered(node: &OrigNode, first: usize) -> OrigNode {
    match node {
        OrigNode::Stage(k) => OrigNode::Stage(k - first),
        OrigNode::Loop { iter, body, down } => OrigNode::Loop {
            iter: iter.clone(),
            body: body.iter().map(|n| renumbered(n, first)).collect(),
            down: *down,
        },
    }
}

/// Every data set the stages of `stages` access, in any way they are known
/// to (declared, observed in an analysable body, gathered from one that is
/// not).
fn accessed<'a>(stages: impl IntoIterator<Item = &'a Stage>) -> BTreeSet<String> {
    let mut data = BTreeSet::new();
    for s in stages {
        let observed = s.observed.iter().flatten();
        let gathered = s.gathered.iter().flat_map(|g| &g.accesses);
        for a in s.accesses.iter().chain(observed).chain(gathered) {
            data.insert(a.data.clone());
        }
    }
    data
}

/// What one part's lowering gives back.
struct Part {
    lowered: Result<Option<Lowered>>,
    helpers: BTreeSet<Helper>,
    warnings: Vec<Diagnostic>,
}

/// `region` (after expression inlining) lowered in the parts [`plan`] cuts
/// it into, each in a thread of its own, and merged: `None` where it is not
/// cut, or where a part cannot be lowered on its own (the region is then
/// lowered whole). The parts' helpers and warnings (each once) join
/// `helpers` and `warnings` only when every part was lowered.
pub(super) fn lower_in_parts(
    opts: &Options,
    shared: &Shared,
    region: &Region,
    helpers: &mut BTreeSet<Helper>,
    warnings: &mut Vec<Diagnostic>,
) -> Option<Lowered> {
    let cuts = plan(opts, region)?;
    info!(
        "the region is lowered in {} parts, in parallel (cut where the depth of its nests changes)",
        cuts.len()
    );
    // Each part, with the region's index of its first stage.
    let regions: Vec<(Region, usize)> = cuts
        .iter()
        .enumerate()
        .map(|(i, nodes)| {
            let mut later = Vec::new();
            polyhedral::stages_under(&region.tree[nodes.end..], &mut later);
            let later = accessed(later.iter().map(|k| &region.stages[*k]));
            let part = part_region(region, nodes.clone(), &later);
            info!("part {}: {} stages", i + 1, part.0.stages.len());
            part
        })
        .collect();
    let given = Given::of(shared);
    // The DP's cost model takes one value for the parameters without an
    // estimate, the first that suits every stage of the region: the parts
    // agree on it.
    let agreement = (opts.grouping == GroupingStrategy::Dp).then(|| Agreement::new(regions.len()));
    let agreement = agreement.as_ref();
    let parts: Vec<Part> = std::thread::scope(|scope| {
        let workers: Vec<_> = regions
            .iter()
            .map(|(part, _)| {
                scope.spawn(move || {
                    let mut helpers = BTreeSet::new();
                    let mut warnings = Vec::new();
                    let lowered =
                        lower_part(opts, given, part, &mut helpers, &mut warnings, agreement);
                    Part {
                        lowered,
                        helpers,
                        warnings,
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| Part {
                    lowered: Err(Error::internal("a part's thread panicked")),
                    helpers: BTreeSet::new(),
                    warnings: Vec::new(),
                })
            })
            .collect()
    });
    // Every part lowered, or the region is lowered whole.
    let mut done = Vec::new();
    for (p, (_, first)) in parts.into_iter().zip(&regions) {
        match p.lowered {
            Ok(Some(l)) => done.push((l, p.helpers, p.warnings, *first)),
            Ok(None) => {
                info!("a part updates an array in place: the region is lowered whole");
                return None;
            }
            Err(e) => {
                info!(
                    "a part cannot be lowered on its own ({}): the region is lowered whole",
                    e.first_message()
                );
                return None;
            }
        }
    }
    let mut summaries = Vec::new();
    let mut grouping = Grouping::default();
    let mut scratch_reads = Vec::new();
    let mut code = String::new();
    let mut int_bound = int_range::Bound::Fits;
    for (l, part_helpers, part_warnings, first) in done {
        int_bound = int_bound.and(l.int_bound.clone());
        helpers.extend(part_helpers);
        for w in part_warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        code.push_str(&l.code);
        summaries.push(l.summary);
        let n = l.grouping.groups.len();
        grouping.groups.extend(
            l.grouping
                .groups
                .into_iter()
                .map(|g| g.into_iter().map(|k| k + first).collect()),
        );
        match l.grouping.scratch_reads.len() {
            0 => scratch_reads.extend((0..n).map(|_| BTreeSet::new())),
            _ => scratch_reads.extend(l.grouping.scratch_reads),
        }
        grouping.unstored.extend(l.grouping.unstored);
        for (d, b) in l.grouping.scratchpad_bytes {
            *grouping.scratchpad_bytes.entry(d).or_default() += b;
        }
    }
    if scratch_reads.iter().any(|r| !r.is_empty()) {
        grouping.scratch_reads = scratch_reads;
    }
    Some(Lowered {
        code,
        kernels: String::new(),
        parts: None,
        summary: banner::merge(summaries),
        grouping,
        int_bound,
    })
}

/// One part lowered on its own; `None` where, under overlapped tiling, it
/// updates an array in place (its shadow copy is the region's concern). With an `agreement`, the
/// parameters without an estimate take the value the parts agree on.
fn lower_part(
    opts: &Options,
    given: Given,
    part: &Region,
    helpers: &mut BTreeSet<Helper>,
    warnings: &mut Vec<Diagnostic>,
    agreement: Option<&Agreement>,
) -> Result<Option<Lowered>> {
    // A part that panics before it says what it allows still says
    // "anything" (as its guard is dropped): the others do not wait forever.
    let Given { names, naming, .. } = given;
    let mut pending = Pending(agreement);
    let built = Built::new(opts, part, names, None);
    let estimated;
    let mut opts = opts;
    if let Some(agreement) = pending.0.take() {
        // Every part says what it allows, even one that failed (anything).
        let fits = built
            .as_ref()
            .ok()
            .and_then(|b| default_estimates_fit(part, names, &b.model, &opts.estimates).ok());
        let value = agreement.agree(fits);
        let mut with = opts.clone();
        for p in names.params.values() {
            with.estimates.entry(p.clone()).or_insert(value);
        }
        estimated = with;
        opts = &estimated;
    }
    let built = built?;
    // Overlapped tiling renames arrays updated in place (classic tiling
    // keeps them).
    if opts.overlap.is_some()
        && built.deps.exact
        && rename_inplace(part, &built.model, &built.deps, &naming.helper)?.is_some()
    {
        return Ok(None);
    }
    lower(
        opts,
        given,
        part,
        &Place::inside(part),
        Some(built),
        helpers,
        warnings,
    )
    .map(Some)
}

/// A part's turn in an [`Agreement`], taken when the part says what it
/// allows; dropped before (a panic), it says "anything".
struct Pending<'a>(Option<&'a Agreement>);

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if let Some(agreement) = self.0.take() {
            agreement.agree(None);
        }
    }
}

/// The value the parts of a region agree on for the parameters without an
/// estimate (see [`default_estimates_fit`]): the first of
/// [`DEFAULT_ESTIMATES`] that every part allows, 1 where none is.
pub(super) struct Agreement {
    allowed: Mutex<Vec<bool>>,
    all_said: Barrier,
}

impl Agreement {
    /// An agreement among `parts` parts.
    pub(super) fn new(parts: usize) -> Agreement {
        Agreement {
            allowed: Mutex::new(vec![true; DEFAULT_ESTIMATES.len()]),
            all_said: Barrier::new(parts),
        }
    }

    /// What one part allows (`None`: anything), once per part; waits for
    /// every part, and gives the value agreed on.
    pub(super) fn agree(&self, fits: Option<Vec<bool>>) -> i64 {
        if let Some(fits) = fits {
            let mut allowed = self.allowed.lock().unwrap_or_else(|e| e.into_inner());
            for (a, f) in allowed.iter_mut().zip(fits) {
                *a &= f;
            }
        }
        self.all_said.wait();
        let allowed = self.allowed.lock().unwrap_or_else(|e| e.into_inner());
        DEFAULT_ESTIMATES
            .iter()
            .zip(allowed.iter())
            .find(|(_, ok)| **ok)
            .map_or(1, |(v, _)| *v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::testutil::parse_str;

    /// A scop of `two` two-dimensional nests (A1.., the last writes OUT),
    /// then `one` one-dimensional ones (B1.., the first reads A{read}, the
    /// last writes O1); A and B are the function's own arrays.
    fn scop(two: usize, one: usize, read: usize) -> Region {
        let mut src = String::from(
            "void f(int H, int W, double IN[H][W], double OUT[H][W], double O1[H])\n{\n",
        );
        for k in 1..two {
            src.push_str(&format!("  double A{k}[H][W];\n"));
        }
        for k in 1..one {
            src.push_str(&format!("  double B{k}[H];\n"));
        }
        src.push_str("  int i, j;\n#pragma scop\n");
        let a = |k: usize| match k {
            0 => "IN".to_string(),
            k if k == two => "OUT".to_string(),
            k => format!("A{k}"),
        };
        let b = |k: usize| match k {
            k if k == one => "O1".to_string(),
            k => format!("B{k}"),
        };
        for k in 1..=two {
            src.push_str(&format!(
                "  for (i = 1; i < H - 1; i++)\n    for (j = 1; j < W - 1; j++)\n      {}[i][j] = {}[i][j - 1] + {}[i][j + 1];\n",
                a(k),
                a(k - 1),
                a(k - 1)
            ));
        }
        src.push_str(&format!(
            "  for (i = 1; i < H - 1; i++)\n    {}[i] = {}[i][1] + OUT[i][1];\n",
            b(1),
            a(read)
        ));
        for k in 2..=one {
            src.push_str(&format!(
                "  for (i = 2; i < H - 1; i++)\n    {}[i] = {}[i] + {}[i - 1];\n",
                b(k),
                b(k - 1),
                b(k - 1)
            ));
        }
        src.push_str("#pragma endscop\n}\n");
        let mut program = parse_str(&src).expect("parses");
        assert_eq!(program.regions.len(), 1);
        program.regions.remove(0)
    }

    fn opts() -> Options {
        Options {
            overlap: Some(Shape::Rectangle),
            tile_sizes: Some(vec![8, 16]),
            grouping: GroupingStrategy::Greedy,
            ..super::super::pipeline_tests::opts()
        }
    }

    /// The cut is where the depth changes, under overlapped or classic
    /// tiling; nothing is cut on one core, without tiling, for CUDA, under
    /// --explain, or in a region too small.
    #[test]
    fn a_region_is_cut_where_its_depth_changes() {
        let r = scop(12, 14, 5);
        assert_eq!(plan_for(&opts(), &r, 2), Some(vec![0..12, 12..26]));
        assert_eq!(plan_for(&opts(), &r, 1), None);
        let classic = Options {
            overlap: None,
            tile: true,
            ..opts()
        };
        assert_eq!(plan_for(&classic, &r, 2), Some(vec![0..12, 12..26]));
        let untiled = Options {
            tile: false,
            ..classic
        };
        assert_eq!(plan_for(&untiled, &r, 2), None);
        let cuda = Options {
            target: Target::Cuda,
            ..opts()
        };
        assert_eq!(plan_for(&cuda, &r, 2), None);
        let explain = Options {
            explain: true,
            ..opts()
        };
        assert_eq!(plan_for(&explain, &r, 2), None);
        // A part of fewer than MIN_PART stages is not cut off.
        assert_eq!(plan_for(&opts(), &scop(4, 22, 2), 2), None);
        assert_eq!(plan_for(&opts(), &scop(6, 6, 2), 2), None);
    }

    /// The first part: its own stages from 0, the region's depth, and the
    /// region's temporaries it writes but for the one the second part
    /// reads.
    #[test]
    fn a_part_stores_what_a_later_part_reads() {
        let r = scop(12, 14, 5);
        let names =
            |ts: &[Temporary]| -> Vec<String> { ts.iter().map(|t| t.name.clone()).collect() };
        assert!(names(&r.temporaries).contains(&"A5".to_string()));
        let mut later = Vec::new();
        polyhedral::stages_under(&r.tree[12..], &mut later);
        let later = accessed(later.iter().map(|k| &r.stages[*k]));
        let (first, _) = part_region(&r, 0..12, &later);
        assert_eq!(first.stages.len(), 12);
        assert_eq!(first.whole_depth, Some(2));
        let t = names(&first.temporaries);
        assert!(!t.contains(&"A5".to_string()), "{t:?}");
        assert!(
            t.contains(&"A4".to_string()) && t.contains(&"A6".to_string()),
            "{t:?}"
        );
        assert!(t.iter().all(|n| n.starts_with('A')), "{t:?}");
        let (second, _) = part_region(&r, 12..26, &BTreeSet::new());
        assert_eq!(second.stages[0].name, r.stages[12].name);
        let mut ks = Vec::new();
        polyhedral::stages_under(&second.tree, &mut ks);
        assert_eq!(ks, (0..14).collect::<Vec<_>>());
        assert!(names(&second.temporaries)
            .iter()
            .all(|n| n.starts_with('B')));
    }

    /// Two parts agree on the first value both allow, or on 1.
    #[test]
    fn parts_agree_on_the_first_value_every_part_allows() {
        let n = DEFAULT_ESTIMATES.len();
        let agree = |a: Vec<bool>, b: Option<Vec<bool>>| {
            let agreement = Agreement::new(2);
            let agreement = &agreement;
            std::thread::scope(|s| {
                let other = s.spawn(move || agreement.agree(b));
                let mine = agreement.agree(Some(a));
                (mine, other.join().expect("joins"))
            })
        };
        let upto = |k: usize| (0..n).map(|i| i >= k).collect::<Vec<bool>>();
        let v = |k: usize| DEFAULT_ESTIMATES[k];
        assert_eq!(agree(upto(1), Some(upto(3))), (v(3), v(3)));
        assert_eq!(agree(upto(2), None), (v(2), v(2)));
        assert_eq!(agree(vec![false; n], Some(upto(0))), (1, 1));
    }

    /// A part that panics before it agrees does not leave the others
    /// waiting: its turn says "anything" as it unwinds.
    #[test]
    fn a_part_that_panics_does_not_block_the_agreement() {
        let agreement = Agreement::new(2);
        let agreement = &agreement;
        let value = std::thread::scope(|s| {
            let failing = s.spawn(move || {
                let _turn = Pending(Some(agreement));
                panic!("a part fails before it agrees");
            });
            let allowed = (0..DEFAULT_ESTIMATES.len()).map(|i| i >= 1).collect();
            let value = agreement.agree(Some(allowed));
            assert!(failing.join().is_err());
            value
        });
        assert_eq!(value, DEFAULT_ESTIMATES[1]);
    }
}
