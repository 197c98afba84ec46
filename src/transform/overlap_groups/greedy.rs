//! The greedy strategy of [`super`] (PolyMage's greedy grouping, which
//! the overlapped-tiling paper follows, §4): in order, a nest joins the
//! group before it while the group stays overlappable, and how far a
//! group reaches is searched with few exact analyses: a cheap bound
//! ([`scales_align`]), a guess from the pipeline graph
//! ([`looks_overlappable`]), then galloping and bisection ([`reach`]).

use super::{cached_graph, flatten, Analyses, Chosen, Ctx, GroupingStrategy};
use crate::model::program::{Region, Stage};
use crate::transform::cost::geometry;
use crate::transform::overlap::{aligned_sizes, classic_dim, group_scales, OverlapSpec, WHOLE};
use crate::transform::pipeline::PipelineGraph;
use crate::transform::storage::MAX_SCRATCHPAD_ELEMENTS;
use log::info;
use std::collections::HashMap;

/// PolyMage's greedy grouping: in order, a group takes the following nests
/// while it stays overlappable (`--grouping greedy`), or none
/// (`--grouping none`); every group takes the options' tile sizes.
///
/// How far a group reaches is found by galloping ([`reach`]): it tries to
/// take 1, 2, 4, ... more nests until an analysis fails, then bisects
/// between the last success and that failure. A group of `n` nests costs
/// O(log n) analyses instead of one per prefix (local-laplacian: about 830
/// nest analyses). Where overlappability holds for every prefix of an
/// overlappable group (on every benchmark) this is the nest-by-nest greedy
/// grouping; where it does not, the group found is still overlappable.
///
/// Before the full analyses, a cheap one ([`scales_align`]: equal depths,
/// scale factors that align the nests and divide the tile sizes; every
/// full analysis fails where it does) finds how far a group can reach at
/// most, in a gallop of its own. The full search stays within that reach
/// and starts from a guess: a short reach whole, a long one where the
/// pipeline graph's geometry expects the group to end
/// ([`looks_overlappable`]), so that a right guess costs two analyses
/// (local-laplacian's `--scalene --tile-sizes 32,256`: 16 analyses instead
/// of 37, the same groups).
pub(super) fn greedy_groups(
    ctx: &Ctx,
    spec: &OverlapSpec,
    imperfect: &[Option<String>],
    analyses: &mut Analyses,
    graph: &mut Option<Option<PipelineGraph>>,
) -> Chosen {
    let (region, units) = (ctx.region, ctx.units);
    // Groups of units (indices into `units`), formed greedily in order.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let label = |u: usize| region.stages[units[u][0]].label.clone();
    let mut starts: HashMap<usize, String> = HashMap::new();
    let mut u = 0;
    while u < imperfect.len() {
        if imperfect[u].is_some() {
            // Tiled with no other nest, and not at all (below): the reason
            // is given where it keeps its loops.
            if !current.is_empty() {
                groups.push(std::mem::take(&mut current));
            }
            groups.push(vec![u]);
            u += 1;
            continue;
        }
        if current.is_empty() {
            current = vec![u];
            u += 1;
            continue;
        }
        if spec.grouping == GroupingStrategy::None {
            starts.insert(u, "every nest is its own group (--grouping none)".into());
            groups.push(std::mem::replace(&mut current, vec![u]));
            u += 1;
            continue;
        }
        if spec.max_group.is_some_and(|m| current.len() >= m) {
            let why = format!("groups have at most {} stages", current.len());
            info!("overlap: {} starts a new group: {why}", label(u));
            starts.insert(u, why);
            groups.push(std::mem::replace(&mut current, vec![u]));
            u += 1;
            continue;
        }
        // The nests that may join: up to the next imperfect one, within
        // the driver's bound on a group's size.
        let room = spec.max_group.map_or(usize::MAX, |m| m - current.len());
        let last = (u..imperfect.len())
            .take_while(|v| imperfect[*v].is_none())
            .take(room)
            .last()
            .unwrap_or(u);
        let cand = |end: usize| -> Vec<usize> { current.iter().copied().chain(u..end).collect() };
        let mut full = |end: usize| analyses.get(ctx, spec, &cand(end)).map(|_| ());
        // How far the cheap part of the analysis (depths and scales) lets
        // the group reach: the search stays within it. A short reach is
        // tried whole first; a long one from where the pipeline graph's
        // geometry expects the group to end.
        let (cheap, _) = reach(u, last, u, |end| {
            match scales_align(ctx, spec, &cand(end)) {
                true => Ok(()),
                false => Err(()),
            }
        });
        let (joined, failure) = 'found: {
            if cheap > u {
                let guess = match cheap - u < GUESS_FROM {
                    true => cheap,
                    false => cached_graph(graph, ctx, spec).map_or(cheap, |g| {
                        predicted_end(g, region, spec, &current, u, cheap)
                    }),
                };
                let (joined, failure) = reach(u, cheap - 1, guess, &mut full);
                log::debug!(
                    "overlap: {} and {} more nests may join by their scales, guessed {}; {} do",
                    label(current[0]),
                    cheap - u,
                    guess - u,
                    joined - u
                );
                if failure.is_some() || cheap > last {
                    break 'found (joined, failure);
                }
                if let Err(why) = full(cheap + 1) {
                    break 'found (cheap, Some(why));
                }
            }
            // (Where the cheap part said no and the analysis yes.)
            reach(u, last, u, &mut full)
        };
        current.extend(u..joined);
        u = joined;
        if let Some(why) = failure {
            info!("overlap: {} starts a new group: {}", label(u), why.text);
            starts.insert(u, why.text);
            groups.push(std::mem::replace(&mut current, vec![u]));
            u += 1;
        }
    }
    if !current.is_empty() {
        groups.push(current);
    }
    Chosen {
        groups: groups
            .into_iter()
            .map(|g| (g, spec.sizes.clone()))
            .collect(),
        starts,
        head: Vec::new(),
        about: HashMap::new(),
        keep: HashMap::new(),
        inner: HashMap::new(),
        gpu: HashMap::new(),
    }
}

/// The fewest nests a group's cheap reach must add for the greedy search
/// to guess where the group ends from the pipeline graph (which costs about
/// as much as one analysis of a long group to build).
const GUESS_FROM: usize = 4;

/// The end (exclusive) of the units `u..cheap` that the pipeline graph's
/// geometry expects to join `current`.
fn predicted_end(
    graph: &PipelineGraph,
    region: &Region,
    spec: &OverlapSpec,
    current: &[usize],
    u: usize,
    cheap: usize,
) -> usize {
    let mut end = u;
    while end < cheap {
        let cand: Vec<usize> = current.iter().copied().chain(u..=end).collect();
        if !looks_overlappable(graph, region, spec, &cand) {
            break;
        }
        end += 1;
    }
    end
}

/// Whether the geometry of the units `cand` lets them form a group: the
/// pipeline graph's [`geometry`] accepts them (uniform or sampled
/// dependences, no opaque body or conditional write where tile-local
/// storage is needed), and every scratchpad of a consumed statement, its
/// per-tile region grown by the group's overlap, stays within the size
/// [`plan_storage`](crate::transform::storage::plan_storage) allows. A
/// guess: the exact analysis decides.
fn looks_overlappable(
    graph: &PipelineGraph,
    region: &Region,
    spec: &OverlapSpec,
    cand: &[usize],
) -> bool {
    let Ok(geo) = geometry(graph, region, cand) else {
        return false;
    };
    let sizes = aligned_sizes(&spec.sizes, geo.depth);
    geo.stmts.iter().filter(|s| s.consumed).all(|s| {
        // Its points per tile along each loop (a loop without a tile size
        // whole, which needs constant bounds).
        let points = sizes
            .iter()
            .enumerate()
            .map(|(d, size)| match *size >= WHOLE {
                true => s.extent[d].filter(|_| s.fixed[d]).map(|e| e / s.scale[d]),
                false => Some((size + s.left[d] + s.right[d] + s.scale[d] - 1) / s.scale[d]),
            });
        let mut elements = 1i64;
        for n in points {
            match n {
                Some(n) if n <= MAX_SCRATCHPAD_ELEMENTS => elements = elements.saturating_mul(n),
                _ => return false,
            }
        }
        elements <= MAX_SCRATCHPAD_ELEMENTS
    })
}

/// How many of the units `first..=last` join the current group, by
/// galloping, then bisection (see [`greedy_groups`]), starting from the
/// guess that the units `first..guess` join (`guess == first`: no guess);
/// `with_units(end)` says whether the group with `first..end` joined is
/// overlappable. Returns the first unit that does not join (`last + 1` when
/// all do) and, when it is not `last + 1`, why the group with it is not
/// overlappable. Where overlappability holds for every prefix of the units
/// that join, the guess changes only how many ends are tried: a right one
/// costs two (`guess` joins, `guess + 1` does not).
fn reach<E>(
    first: usize,
    last: usize,
    guess: usize,
    mut with_units: impl FnMut(usize) -> std::result::Result<(), E>,
) -> (usize, Option<E>) {
    // `ok`: an end (exclusive) known to join; `bad`: one known not to, why.
    let mut ok = first;
    let mut bad: Option<(usize, E)> = None;
    let guess = guess.clamp(first, last + 1);
    if guess > first {
        match with_units(guess) {
            Ok(()) => ok = guess,
            Err(why) => bad = Some((guess, why)),
        }
    }
    let mut step = 1;
    match &mut bad {
        // Down from a guess that went too far, until an end joins.
        Some((bad_end, why)) => {
            while let Some(end) = bad_end.checked_sub(step).filter(|e| *e > first) {
                match with_units(end) {
                    Ok(()) => {
                        ok = end;
                        break;
                    }
                    Err(w) => (*bad_end, *why) = (end, w),
                }
                step *= 2;
            }
        }
        // Up, until an end does not join.
        None => {
            while ok <= last {
                let end = (ok + step).min(last + 1);
                match with_units(end) {
                    Ok(()) => ok = end,
                    Err(why) => {
                        bad = Some((end, why));
                        break;
                    }
                }
                step *= 2;
            }
        }
    }
    let Some((mut bad_end, mut why)) = bad else {
        return (ok, None);
    };
    while bad_end - ok > 1 {
        let mid = ok + (bad_end - ok) / 2;
        match with_units(mid) {
            Ok(()) => ok = mid,
            Err(w) => (bad_end, why) = (mid, w),
        }
    }
    (ok, Some(why))
}

/// Whether the units `cand` pass the cheap part of their analysis: nests
/// of one depth whose scale factors align them at `spec`'s sizes
/// ([`group_scales`]) and, under partial overlapped tiling, leave the
/// classically tiled loop unscaled in every stage another unit of the
/// group reads (its data gets a scratchpad). Where they do not, their full
/// analysis fails too (but for a case the cheap part does not see, which
/// [`greedy_groups`] finds when the full analysis says yes).
fn scales_align(ctx: &Ctx, spec: &OverlapSpec, cand: &[usize]) -> bool {
    let (stages, sub_units) = flatten(ctx.units, cand);
    let stages: Vec<&Stage> = stages.iter().map(|k| &ctx.region.stages[*k]).collect();
    let Some(depth) = stages.first().map(|s| s.iterators.len()) else {
        return false;
    };
    if stages.iter().any(|s| s.iterators.len() != depth) {
        return false;
    }
    let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
    let Ok(edges) = ctx.memo.flow_edges(&names, depth) else {
        return false;
    };
    let sizes = aligned_sizes(&spec.sizes, depth);
    let Ok(scales) = group_scales(&stages, &edges, &sub_units, &sizes, ctx.span) else {
        return false;
    };
    // Partial overlapped tiling: a scaled stage's scratchpad moves by a
    // fraction of a tile along the classically tiled loop, which its
    // sliding window cannot follow (the storage plan refuses it). A stage
    // no other unit reads needs none.
    let unit_of = |k: usize| sub_units.iter().position(|u| u.contains(&k));
    let read_by_another = |k: usize| {
        edges
            .iter()
            .any(|e| e.from == k && unit_of(e.to) != unit_of(k))
    };
    match classic_dim(spec.overlap_dims.as_deref(), depth, &sizes, ctx.span) {
        Ok(Some(c)) => (0..scales.len()).all(|k| scales[k][c] == 1 || !read_by_another(k)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::reach;

    /// The reach of a group whose analyses succeed exactly while it holds
    /// fewer than `limit` units after `first`, searched from `guess`, and
    /// the ends it analysed.
    fn gallop(
        first: usize,
        last: usize,
        limit: usize,
        guess: usize,
    ) -> ((usize, Option<usize>), Vec<usize>) {
        let mut tried = Vec::new();
        let found = reach(first, last, guess, |end| {
            tried.push(end);
            if end - first <= limit {
                Ok(())
            } else {
                Err(end - 1)
            }
        });
        (found, tried)
    }

    #[test]
    fn reach_finds_the_first_unit_that_cannot_join() {
        for first in [0, 3] {
            for len in 1..40 {
                let last = first + len - 1;
                for limit in 0..=len {
                    for guess in first..=last + 1 {
                        let ((end, why), tried) = gallop(first, last, limit, guess);
                        let at = format!("first {first} len {len} limit {limit} guess {guess}");
                        assert_eq!(end, first + limit, "{at}");
                        // The reason is the failing unit's own.
                        assert_eq!(why, (limit < len).then_some(first + limit), "{at}");
                        // Logarithmically many analyses, none repeated.
                        let bound = 2 * (usize::BITS - len.leading_zeros()) as usize + 2;
                        assert!(tried.len() <= bound, "{at}: {tried:?} over {bound}");
                        let mut sorted = tried.clone();
                        sorted.sort();
                        sorted.dedup();
                        assert_eq!(sorted.len(), tried.len(), "{at}: {tried:?}");
                    }
                    // Without a guess: the gallop from the first unit.
                    let (_, tried) = gallop(first, last, limit, first);
                    assert_eq!(tried.first(), Some(&(first + 1)));
                }
            }
        }
    }

    #[test]
    fn a_right_guess_costs_two_analyses() {
        for (limit, guess) in [(4, 7), (1, 4), (9, 12)] {
            let ((end, _), tried) = gallop(3, 20, limit, guess);
            assert_eq!(end, guess);
            assert_eq!(tried, vec![guess, guess + 1]);
        }
        // A guess of the whole reach that holds: one.
        assert_eq!(gallop(3, 20, 18, 21).1, vec![21]);
    }

    #[test]
    fn reach_of_a_lone_unit() {
        assert_eq!(reach(5, 5, 5, |_| Ok::<(), ()>(())), (6, None));
        assert_eq!(reach(5, 5, 5, |_| Err("no")), (5, Some("no")));
        assert_eq!(reach(5, 5, 6, |_| Err("no")), (5, Some("no")));
    }
}
