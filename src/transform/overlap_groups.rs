//! Groups of overlapped tiles: which nests of a region are tiled together
//! (Zhao & Cohen §3.6 for nests of several statements; the greedy grouping
//! of PolyMage that the paper follows, §4).
//!
//! The statements of each top-level nest form one stage (`nest_units`).
//! The stages are grouped greedily, in order: a stage joins the current
//! group when the group stays overlappable (equal depth, analysable bodies,
//! constant dependence distances, race-free, within `--overlap-tolerance`;
//! checked by analysing it, see `overlap::analyse_group`, without building
//! its schedule tree; each candidate's analysis is kept, so the chosen
//! groups are built from it);
//! otherwise it starts a new group, and the reason is logged (the greedy
//! strategy and its search for how far a group reaches are in [`greedy`]).
//! A group of one
//! stage is tiled alone when that is race-free, else keeps its original
//! loops (the driver warns with the reason). When no stage can be tiled,
//! overlapped tiling does not apply to the region ([`Error::Inapplicable`]).
//! The model's strategy (`--grouping dp`, the cost models' DP) is in
//! [`dp`].

mod dp;
mod greedy;

use greedy::greedy_groups;

use crate::diag::{Error, Result, Span};
use crate::model::deps::{live_in_reads_with, Dependences, LiveInMemo};
use crate::model::isl_ext::isl_err;
use crate::model::polyhedral::{stages_under, Names, RegionModel, SchedulePart};
use crate::model::program::{OrigNode, Region};
use crate::model::relations::select_by_name;
use crate::transform::cost::Geometry;
use crate::transform::gpu_cost::GpuCosted;
use crate::transform::intra_fusion::reuse_runs;
use crate::transform::multi_level::inner_tiles;
use crate::transform::overlap::memo::AnalysisMemo;
use crate::transform::overlap::{
    analyse_group, stage_universe, Group, GroupAnalysis, OverlapSpec, Shape, WHOLE,
};
use crate::transform::pipeline::must_reach_memory;
use crate::transform::pipeline::PipelineGraph;
use isl_rs::{UnionMap, UnionSet};
use log::info;
use std::collections::{HashMap, HashSet};

/// How the nests of a region are grouped (`--grouping`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupingStrategy {
    /// In order, a nest joins the group before it while the group stays
    /// overlappable (PolyMage's greedy grouping).
    Greedy,
    /// Every nest is its own group.
    None,
    /// The DP grouping of Jangda & Bondhugula, TOPLAS'20 with its cost and tile-size model.
    Dp,
    /// The copies of a time block's body (the stages with a
    /// [`time_step`](crate::model::program::Stage::time_step)) form one
    /// group, every other nest its own: the time-block depth and sizes the
    /// cost model chose for that group ([`crate::transform::time_choice`]).
    /// Not an option: the driver's, for time blocks.
    TimeBlock,
}

impl GroupingStrategy {
    /// The option's value.
    pub fn name(self) -> &'static str {
        match self {
            GroupingStrategy::Greedy => "greedy",
            GroupingStrategy::None => "none",
            GroupingStrategy::Dp => "dp",
            GroupingStrategy::TimeBlock => "time block",
        }
    }
}

/// A region's nests split into groups of overlapped tiles.
pub(crate) struct Groups {
    /// The multi-statement stages: the statements of each nest (`nest_units`).
    pub units: Vec<Vec<usize>>,
    /// Groups of stages (indices into `units`), in order, each with its
    /// analysis when it is tiled (a group of one stage that cannot be tiled
    /// keeps its loops).
    pub groups: Vec<(Vec<usize>, Option<Analysed>)>,
    /// Statements that keep their original loops, each with the reason.
    pub untiled: Vec<(usize, String)>,
    /// The decisions in words (`--explain`): each group, and why each
    /// group ends where it does.
    pub explained: Vec<String>,
}

/// A group analysed for overlapped tiling: its statements, the group as a
/// region of its own, and the analysis.
pub(crate) struct Analysed {
    /// The region's statements in the group, in order.
    pub stages: Vec<usize>,
    /// The group as a region of its own.
    pub region: Region,
    /// Its model.
    pub model: RegionModel,
    /// What tiling it needs.
    pub analysis: GroupAnalysis,
    /// The CUDA target: the GPU cost model's choice for the group (who runs
    /// a tile, the thread block), where it could cost the group, and the
    /// geometry it costed (the choice is refined with the group's storage
    /// plan once built).
    pub gpu: Option<(GpuCosted, Geometry)>,
}

/// The analyses of the candidate groups of one region, by their units:
/// each candidate is analysed once, whichever strategy asks.
#[derive(Default)]
struct Analyses {
    done: HashMap<(Vec<usize>, Vec<i64>), std::result::Result<Analysed, Why>>,
}

/// Why stages cannot be overlapped together.
#[derive(Clone, Debug)]
struct Why {
    /// The reason, in words.
    text: String,
    /// The options ask for what the stages cannot do (`--overlap-dims`,
    /// tile sizes): an error when no stage can be tiled, not a property of
    /// the program that makes overlapped tiling inapplicable.
    options: bool,
}

impl Why {
    /// The reason of `e`: the options' fault when it is a user error (an
    /// [`Error::Inapplicable`] or an internal limit is the program's).
    fn of(e: Error) -> Why {
        Why {
            options: matches!(e, Error::User(_)),
            text: e.first_message(),
        }
    }
}

/// The groups a strategy chose, before they are analysed for tiling.
struct Chosen {
    /// Groups of units, in the order they run, each with its tile sizes.
    groups: Vec<(Vec<usize>, Vec<i64>)>,
    /// Why the group starting at a unit does not include the unit before it.
    starts: HashMap<usize, String>,
    /// What the strategy says of the region as a whole (`--explain`).
    head: Vec<String>,
    /// What it says of each group, by its first unit (`--explain`).
    about: HashMap<usize, String>,
    /// Units it leaves in their original loops by choice, with the reason
    /// (no warning: nothing failed).
    keep: HashMap<usize, String>,
    /// The cost model's inner tile sizes (for L1) of the groups it sized
    /// for L2, by their first unit (multi-level tiling, Algorithm 4).
    inner: HashMap<usize, Vec<i64>>,
    /// The GPU cost model's choice for each group it costed, with the
    /// group's geometry, by its first unit (the CUDA target).
    gpu: HashMap<usize, (GpuCosted, Geometry)>,
}

/// Splits the nests of `region` into groups (see the module documentation);
/// [`Error::Inapplicable`] when no group can be tiled.
pub(crate) fn form_groups(
    region: &Region,
    names: &Names,
    model: &RegionModel,
    deps: &Dependences,
    spec: &OverlapSpec,
    span: Span,
) -> Result<Groups> {
    // Statements sharing a loop nest (in a scop) form one multi-statement
    // stage (§3.6): they are grouped, shifted and strip-mined together.
    let (units, imperfect): (Vec<Vec<usize>>, Vec<Option<String>>) =
        nest_units(region).into_iter().unzip();
    let mut analyses = Analyses::default();
    // The region's pipeline graph, once built (`None` inside: it could not be).
    let mut graph: Option<Option<PipelineGraph>> = None;
    let live_in = LiveInMemo::default();
    let memo = AnalysisMemo::new(deps)?;
    let ctx = Ctx {
        region,
        names,
        model,
        deps,
        units: &units,
        span,
        live_in: &live_in,
        memo: &memo,
    };
    let Chosen {
        groups,
        starts,
        head,
        about,
        keep,
        inner,
        mut gpu,
    } = match spec.grouping {
        GroupingStrategy::Dp => dp::dp_groups(&ctx, spec, &imperfect, &mut analyses, &mut graph)?,
        GroupingStrategy::Greedy | GroupingStrategy::None => {
            greedy_groups(&ctx, spec, &imperfect, &mut analyses, &mut graph)
        }
        GroupingStrategy::TimeBlock => time_block_groups(&ctx, spec),
    };
    let label = |u: usize| region.stages[units[u][0]].label.clone();
    // A group of one stage is tiled alone (its tile computes just its own
    // part) when that is race-free; otherwise its loops stay as they are.
    let mut tiled = Vec::new();
    let mut untiled: Vec<(usize, Why)> = Vec::new();
    for (g, sizes) in &groups {
        if g.len() == 1 && keep.contains_key(&g[0]) {
            tiled.push(false);
            continue;
        }
        let alone = match g[..] {
            [u] => match &imperfect[u] {
                Some(why) => Err(Why {
                    text: why.clone(),
                    options: false,
                }),
                None => analyses.get(&ctx, &spec.with_sizes(sizes), g).map(|_| ()),
            }
            .map_err(|why| {
                info!("overlap: {} is not tiled: {}", label(u), why.text);
                untiled.extend(units[u].iter().map(|k| (*k, why.clone())));
            })
            .is_ok(),
            _ => true,
        };
        tiled.push(alone);
    }
    if !tiled.contains(&true) && !untiled.is_empty() {
        // Every group is one stage that cannot be tiled: the first reason
        // the options are to blame for (an error), else the first one.
        let (k, why) = untiled
            .iter()
            .find(|(_, w)| w.options)
            .or(untiled.first())
            .ok_or_else(|| Error::internal("overlap: no group and no reason"))?;
        let message = format!(
            "overlapped tiling found no nest it can tile ({}: {}; -v lists every reason)",
            region.stages[*k].label, why.text
        );
        return Err(if why.options {
            Error::at(span, message)
        } else {
            Error::inapplicable_at(span, message)
        });
    }
    let mut analysed = Vec::new();
    let mut explained = head;
    // Rectangle tiles run their stages row by row already.
    let all_deps = match spec.multi_level && spec.shape == Shape::Scalene && !inner.is_empty() {
        true => Some(deps.all()?),
        false => None,
    };
    for ((g, sizes), tile) in groups.into_iter().zip(tiled) {
        let a = match tile {
            true => {
                let mut a = analyses.take(&ctx, &spec.with_sizes(&sizes), &g)?;
                a.gpu = match (g.first().and_then(|u| gpu.remove(u)), &spec.model.gpu) {
                    (Some(c), _) => Some(c),
                    // Grouped without the GPU cost (greedy, time blocks):
                    // it chooses the scheme and block at the group's sizes.
                    (None, Some(gspec)) => {
                        dp::gpu_choice_at(&ctx, spec, gspec, &g, &sizes, &mut graph)
                    }
                    (None, None) => None,
                };
                // Fused point by point already (rectangle tiles without
                // chunks), a run would change nothing.
                if spec.intra_fusion && (spec.shape == Shape::Scalene || spec.point_chunk > 0) {
                    a.analysis.reuse = reuse_runs(&a.region, &a.model, &a.analysis)?;
                }
                let l1 = g.first().and_then(|u| inner.get(u));
                if let (Some(l1), Some(all)) = (l1, &all_deps) {
                    let names: HashSet<&str> =
                        a.region.stages.iter().map(|s| s.name.as_str()).collect();
                    let among =
                        select_by_name(all, |from, to| names.contains(from) && names.contains(to))?;
                    a.analysis.inner = inner_tiles(&a.region, &a.analysis, &among, l1)?;
                }
                Some(a)
            }
            false => None,
        };
        if let Some(why) = g.first().and_then(|u| starts.get(u)) {
            explained.push(format!("{} starts a new group: {why}", label(g[0])));
        }
        let mut line = match g[..] {
            [u] if keep.contains_key(&u) => {
                format!("{}: keeps its original loops: {}", label(u), keep[&u])
            }
            _ => explain_group(region, &units, &g, a.as_ref(), &untiled),
        };
        if let Some(more) = g.first().and_then(|u| about.get(u)) {
            line.push_str(&format!("; {more}"));
        }
        explained.push(line);
        analysed.push((g, a));
    }
    Ok(Groups {
        explained,
        units,
        groups: analysed,
        untiled: untiled.into_iter().map(|(k, w)| (k, w.text)).collect(),
    })
}

/// What every analysis of a candidate group reads.
struct Ctx<'a> {
    region: &'a Region,
    names: &'a Names,
    model: &'a RegionModel,
    deps: &'a Dependences,
    /// The multi-statement stages (`nest_units`).
    units: &'a [Vec<usize>],
    span: Span,
    /// The candidates' live-in reads, part by part.
    live_in: &'a LiveInMemo,
    /// What the analyses of the region's candidates share.
    memo: &'a AnalysisMemo,
}

/// The region's pipeline graph, built into `cache` the first time: the one
/// graph every strategy and the GPU cost read. An error where it cannot be
/// built (the first call returns the reason; `cache` then holds `None`).
fn shared_graph<'g>(
    cache: &'g mut Option<Option<PipelineGraph>>,
    ctx: &Ctx,
    spec: &OverlapSpec,
) -> Result<&'g PipelineGraph> {
    if cache.is_none() {
        let started = std::time::Instant::now();
        let built = PipelineGraph::build(
            ctx.region,
            ctx.names,
            ctx.model,
            ctx.deps,
            ctx.units,
            &spec.model.estimates,
            Some(ctx.memo),
        );
        log::debug!("time: pipeline graph {} ms", started.elapsed().as_millis());
        match built {
            Ok(graph) => *cache = Some(Some(graph)),
            Err(e) => {
                *cache = Some(None);
                return Err(e);
            }
        }
    }
    cache
        .as_ref()
        .and_then(Option::as_ref)
        .ok_or_else(|| Error::inapplicable_at(ctx.span, "the region has no pipeline graph"))
}

/// [`shared_graph`] for a strategy that can do without it: `None` where it
/// cannot be built (why is logged, once).
fn cached_graph<'g>(
    cache: &'g mut Option<Option<PipelineGraph>>,
    ctx: &Ctx,
    spec: &OverlapSpec,
) -> Option<&'g PipelineGraph> {
    let first = cache.is_none();
    match shared_graph(cache, ctx, spec) {
        Ok(graph) => Some(graph),
        Err(e) => {
            if first {
                info!("no pipeline graph: {}", e.first_message());
            }
            None
        }
    }
}

/// The steps of a time block in one group (in order), every other nest
/// alone after them ([`GroupingStrategy::TimeBlock`]); every group takes the
/// spec's sizes. A group the exact analysis refuses is an error.
fn time_block_groups(ctx: &Ctx, spec: &OverlapSpec) -> Chosen {
    let is_step = |u: &usize| {
        ctx.units[*u]
            .iter()
            .all(|k| ctx.region.stages[*k].time_step.is_some())
    };
    let (steps, others): (Vec<usize>, Vec<usize>) = (0..ctx.units.len()).partition(is_step);
    let groups = std::iter::once(steps)
        .filter(|g| !g.is_empty())
        .chain(others.into_iter().map(|u| vec![u]))
        .map(|g| (g, spec.sizes.clone()))
        .collect();
    Chosen {
        groups,
        starts: HashMap::new(),
        head: vec![
            "the steps of the time block form one group (the cost model's time block)".into(),
        ],
        about: HashMap::new(),
        keep: HashMap::new(),
        inner: HashMap::new(),
        gpu: HashMap::new(),
    }
}

/// One line of `--explain` for the group `g` (units) with its analysis
/// when tiled: its nests, and how much of its work tiles recompute.
fn explain_group(
    region: &Region,
    units: &[Vec<usize>],
    g: &[usize],
    a: Option<&Analysed>,
    untiled: &[(usize, Why)],
) -> String {
    let label = |u: usize| region.stages[units[u][0]].label.clone();
    let (first, last) = (g[0], g[g.len() - 1]);
    let nests = match g.len() {
        1 => label(first),
        n => format!("{} .. {} ({n} nests)", label(first), label(last)),
    };
    let Some(a) = a else {
        let why = untiled
            .iter()
            .find(|(k, _)| units[first].contains(k))
            .map_or_else(String::new, |(_, w)| format!(": {}", w.text));
        return format!("{nests}: keeps its original loops{why}");
    };
    let most = a
        .analysis
        .footprints
        .iter()
        .map(|f| (f.redundancy(), &f.stage))
        .max_by(|x, y| x.0.total_cmp(&y.0));
    let recompute = match most {
        Some((r, stage)) if r > 0.0 => format!(
            "; tiles recompute at most {:.1}% of a stage's work ({stage})",
            100.0 * r
        ),
        _ => "; no recomputation".to_string(),
    };
    let fused: Vec<String> = a
        .analysis
        .reuse
        .iter()
        .filter(|run| run.len() > 1)
        .map(|run| {
            let labels: Vec<&str> = run
                .iter()
                .map(|k| a.region.stages[*k].label.as_str())
                .collect();
            labels.join(" + ")
        })
        .collect();
    let fused = match fused.is_empty() {
        true => String::new(),
        false => format!(
            "; fuses the point loops of {} inside a tile (common inputs: register reuse)",
            fused.join(", ")
        ),
    };
    let inner = match &a.analysis.inner {
        Some(t) => format!(
            "; inside a tile, inner tiles {} for L1 run one after another, every stage in each (multi-level tiling)",
            in_words(&t.sizes)
        ),
        None => String::new(),
    };
    format!(
        "{nests}: tiled {}{recompute}{fused}{inner}",
        in_words(&a.analysis.sizes)
    )
}

/// Tile sizes in words: `32 x 256`, `all` for a loop one tile spans.
fn in_words(sizes: &[i64]) -> String {
    let words: Vec<String> = sizes
        .iter()
        .map(|s| match *s >= WHOLE {
            true => "all".to_string(),
            false => s.to_string(),
        })
        .collect();
    words.join(" x ")
}

/// A stage that shares its top-level loop nest with another, if any.
pub(crate) fn shared_nest(tree: &[OrigNode]) -> Option<usize> {
    tree.iter().find_map(|n| {
        let mut ks = Vec::new();
        stages_under(std::slice::from_ref(n), &mut ks);
        (ks.len() > 1).then(|| ks[1])
    })
}

/// The multi-statement stages of a region (§3.6, Fig. 15): the statements
/// of each top-level loop nest, in textual order (a chain's nests hold one
/// statement each). Statements sharing a nest are shifted, strip-mined and
/// grouped together, as if they formed one macro statement, and keep their
/// order inside their common point loops; so they must all sit in the
/// nest's innermost loop (a perfect nest). A nest where they do not comes
/// with the reason it cannot be tiled.
pub(crate) fn nest_units(region: &Region) -> Vec<(Vec<usize>, Option<String>)> {
    if region.tree.is_empty() {
        return (0..region.stages.len()).map(|k| (vec![k], None)).collect();
    }
    let mut units = Vec::new();
    for node in &region.tree {
        let mut ks = Vec::new();
        stages_under(std::slice::from_ref(node), &mut ks);
        let mut body = std::slice::from_ref(node);
        let mut loops = 0;
        while let [OrigNode::Loop { body: b, .. }] = body {
            loops += 1;
            body = b;
        }
        // The first statement that is not directly in the innermost loop.
        let stray = body.iter().find_map(|n| match n {
            OrigNode::Stage(k) if region.stages[*k].iterators.len() == loops => None,
            _ => {
                let mut under = Vec::new();
                stages_under(std::slice::from_ref(n), &mut under);
                under.first().copied()
            }
        });
        let why = stray.filter(|_| ks.len() > 1).map(|k| {
            format!(
                "its nest is not a multi-statement stage: overlapped tiling needs the statements that share a loop nest to sit together in its innermost loop, and {} sits in a loop of its own",
                region.stages[k].label
            )
        });
        if !ks.is_empty() {
            units.push((ks, why));
        }
    }
    units
}

/// The statements of the units `group` (indices into `units`), in order, and
/// the units renumbered into positions in that list.
pub(crate) fn flatten(units: &[Vec<usize>], group: &[usize]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut stages = Vec::new();
    let mut sub = Vec::new();
    for u in group {
        sub.push((stages.len()..stages.len() + units[*u].len()).collect());
        stages.extend(&units[*u]);
    }
    (stages, sub)
}

/// The stages `group` of `region` as a region of their own, with the model and
/// dependences restricted to them.
pub(crate) fn restrict(
    region: &Region,
    model: &RegionModel,
    deps: &Dependences,
    group: &[usize],
) -> Result<(Region, RegionModel, Dependences)> {
    let ctx = model.schedule.get_ctx();
    let mut universe = UnionSet::read_from_str(&ctx, "{ }").map_err(isl_err)?;
    for k in group {
        universe = universe
            .union(stage_universe(&ctx, region, *k)?)
            .map_err(isl_err)?;
    }
    // The relations of the group's statements (of their instances: a
    // model's relations are restricted to its domain).
    let in_group: HashSet<&str> = group
        .iter()
        .map(|k| region.stages[*k].name.as_str())
        .collect();
    let dom = |m: &UnionMap| select_by_name(m, |from, _| in_group.contains(from));
    let both = |m: &UnionMap| {
        select_by_name(m, |from, to| {
            in_group.contains(from) && in_group.contains(to)
        })
    };
    let sub_model = RegionModel {
        domain: model
            .domain
            .copy()
            .and_then(|d| d.intersect(universe.copy()?))
            .map_err(isl_err)?,
        reads: dom(&model.reads)?,
        must_writes: dom(&model.must_writes)?,
        may_writes: dom(&model.may_writes)?,
        schedule: model
            .schedule
            .copy()
            .and_then(|s| s.intersect_domain(universe.copy()?))
            .map_err(isl_err)?,
        parts: restrict_parts(&model.parts, &universe, &in_group)?,
        context: model.context.copy().map_err(isl_err)?,
    };
    let sub_deps = Dependences {
        flow: both(&deps.flow)?,
        anti: both(&deps.anti)?,
        output: both(&deps.output)?,
        exact: deps.exact,
        live_in: None,
    };
    let sub = region.with_stages(
        group.iter().map(|k| region.stages[*k].clone()).collect(),
        region
            .temporaries
            .iter()
            .filter(|t| !must_reach_memory(region, group, &t.name))
            .cloned()
            .collect(),
    );
    Ok((sub, sub_model, sub_deps))
}

/// The parts of a region's schedule that hold statements of the group
/// (`in_group`, whose universe is `universe`), restricted to them (so that
/// the group's dataflow runs a few parts at a time, as the region's).
fn restrict_parts(
    parts: &[SchedulePart],
    universe: &UnionSet,
    in_group: &HashSet<&str>,
) -> Result<Vec<SchedulePart>> {
    let mut out = Vec::new();
    for p in parts {
        let kept: Vec<&str> = p.key.split(',').filter(|s| in_group.contains(s)).collect();
        if kept.is_empty() {
            continue;
        }
        let cut = |s: &UnionSet| {
            s.copy()
                .and_then(|s| s.intersect(universe.copy()?))
                .map_err(isl_err)
        };
        out.push(SchedulePart {
            domain: cut(&p.domain)?,
            universe: cut(&p.universe)?,
            yaml: p.yaml.clone(),
            key: kept.join(","),
        });
    }
    Ok(out)
}

impl Analyses {
    /// The analysis of the units `cand` at `spec`'s sizes, or why they
    /// cannot be overlapped together.
    fn get(
        &mut self,
        ctx: &Ctx,
        spec: &OverlapSpec,
        cand: &[usize],
    ) -> std::result::Result<&Analysed, Why> {
        let key = (cand.to_vec(), spec.sizes.clone());
        if !self.done.contains_key(&key) {
            let a = analyse(ctx, spec, cand);
            self.done.insert(key.clone(), a);
        }
        match self.done.get(&key) {
            Some(Ok(a)) => Ok(a),
            Some(Err(why)) => Err(why.clone()),
            None => Err(Why::of(Error::internal(
                "overlap: an analysis went missing",
            ))),
        }
    }

    /// The analysis of the tiled group `group`, taken out of the table.
    fn take(&mut self, ctx: &Ctx, spec: &OverlapSpec, group: &[usize]) -> Result<Analysed> {
        let found = match self.done.remove(&(group.to_vec(), spec.sizes.clone())) {
            Some(found) => found,
            None => analyse(ctx, spec, group),
        };
        found.map_err(|why| {
            Error::internal(format!(
                "overlap: a group chosen for tiling cannot be tiled: {}",
                why.text
            ))
        })
    }
}

/// Analyses the stages `cand` as one group; the reason when they cannot be
/// overlapped together.
fn analyse(ctx: &Ctx, spec: &OverlapSpec, cand: &[usize]) -> std::result::Result<Analysed, Why> {
    let Ctx {
        region,
        names,
        model,
        deps,
        units,
        span,
        live_in,
        memo,
    } = *ctx;
    let (stages, sub_units) = flatten(units, cand);
    let started = std::time::Instant::now();
    let depth = region.stages[stages[0]].iterators.len();
    if let Some(k) = stages
        .iter()
        .find(|k| region.stages[**k].iterators.len() != depth)
    {
        return Err(Why {
            text: format!(
                "its depth differs from the group's ({} loops)",
                depth.max(region.stages[*k].iterators.len())
            ),
            options: false,
        });
    }
    let (sub, sub_model, sub_deps) = restrict(region, model, deps, &stages).map_err(Why::of)?;
    let ctx = model.schedule.get_ctx();
    // Bound isl's work: a group whose relations explode is split instead.
    ctx.set_max_operations(20_000_000);
    let result = (|| -> Result<GroupAnalysis> {
        let live_in = live_in_reads_with(&sub_model, live_in)?;
        let group = Group {
            region: &sub,
            names,
            model: &sub_model,
            deps: &sub_deps,
            live_in: &live_in,
            units: &sub_units,
            span,
            memo,
        };
        let analysis = analyse_group(&group, spec)?;
        if let Some(tolerance) = spec.overlap_tolerance {
            // PolyMage's greedy grouping: the overlap (redundant computation
            // per loop, a fraction of the tile size) stays within the tolerance.
            for f in &analysis.footprints {
                for (d, (dim, tile)) in f.dims.iter().zip(&f.tile).enumerate() {
                    let Some((_, left, right)) = dim else {
                        continue;
                    };
                    let overlap = (left + right) as f64 / *tile as f64;
                    if overlap > tolerance {
                        return Err(Error::at(span, format!(
                            "{} would overlap by {overlap:.2} of a tile along loop {d}, over the tolerance {tolerance}",
                            f.stage
                        )));
                    }
                }
            }
        }
        Ok(analysis)
    })();
    ctx.set_max_operations(0);
    ctx.reset_operations();
    ctx.reset_error();
    log::debug!(
        "time: analysing {} stages from {} {} ms ({})",
        stages.len(),
        region.stages[stages[0]].label,
        started.elapsed().as_millis(),
        if result.is_ok() {
            "overlappable"
        } else {
            "not overlappable"
        }
    );
    result.map_err(Why::of).map(|analysis| Analysed {
        stages,
        region: sub,
        model: sub_model,
        analysis,
        gpu: None,
    })
}
