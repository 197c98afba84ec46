//! The model's grouping of overlapped tiles (`--grouping dp`): the DP of
//! Jangda & Bondhugula, TOPLAS'20 (Algorithms 1 and 5, `dp_grouping.rs`) over the pipeline graph,
//! each candidate group costed by the target's model: the CPU's
//! (`cost.rs`, Jangda & Bondhugula, TOPLAS'20 Algorithm 2) or, for CUDA, the GPU's
//! (`gpu_cost.rs`, Jangda & Guha, PACT'20, §6), which also chooses the group's scheme and
//! thread block.

use super::{cached_graph, greedy_groups, in_words, shared_graph, Analyses, Chosen, Ctx};
use crate::diag::{Error, Result};
use crate::transform::cost::{cost, geometry, naive, Costed, Geometry, Level, Rows};
use crate::transform::dp_grouping::{dp_grouping, Found, Method};
use crate::transform::gpu_cost::{self, GpuCosted, GpuSpec};
use crate::transform::overlap::{GroupingStrategy, OverlapSpec, WHOLE};
use crate::transform::pipeline::PipelineGraph;
use log::info;
use std::collections::HashMap;

/// The model's grouping (`--grouping dp`): the DP of Jangda & Bondhugula, TOPLAS'20 (Algorithms 1
/// and 5) over the pipeline graph, each candidate costed by Algorithm 2 with
/// its own tile sizes (`cost.rs`); the groups it chooses are then analysed
/// exactly, and a group the analysis refuses (the cost reads the geometry
/// from the pipeline graph, not every limit of tiling) is ruled out and the
/// DP runs again.
pub(super) fn dp_groups(
    ctx: &Ctx,
    spec: &OverlapSpec,
    imperfect: &[Option<String>],
    analyses: &mut Analyses,
    graph: &mut Option<Option<PipelineGraph>>,
) -> Result<Chosen> {
    let (region, units) = (ctx.region, ctx.units);
    let graph = shared_graph(graph, ctx, spec)?;
    let label = |u: usize| region.stages[units[u][0]].label.clone();
    let mut prices = Prices {
        ctx,
        spec,
        imperfect,
        graph,
        costs: HashMap::new(),
        refused: HashMap::new(),
    };
    let mut found = None;
    for _ in 0..8 {
        let mut by_cost = |g: &[usize]| match prices.price(g) {
            Ok(c) => Some(c.cost()),
            // A stage alone is always a group (tiled alone or not at all).
            Err(_) if g.len() == 1 => Some(0.0),
            Err(_) => None,
        };
        let Some(f) = dp_grouping(graph, &mut by_cost, DP_LIMIT, DP_STEP, ORDERED_LIMIT) else {
            break;
        };
        // Every group of several stages must pass the exact analysis.
        let mut again = false;
        for g in f.groups.iter().filter(|g| g.len() > 1) {
            let sizes = prices.price(g).map(|c| c.sizes().to_vec()).map_err(|why| {
                Error::internal(format!("dp grouping: a chosen group has no cost: {why}"))
            })?;
            if let Err(why) = analyses.get(ctx, &spec.with_sizes(&sizes), g) {
                info!(
                    "dp grouping: {} .. {} cannot be tiled together: {}",
                    label(g[0]),
                    label(g[g.len() - 1]),
                    why.text
                );
                prices.refused.insert(g.clone(), why.text);
                again = true;
            }
        }
        found = Some(f);
        if !again {
            break;
        }
        found = None;
    }
    let Some(found) = found else {
        // No grouping passed: every nest alone.
        info!("dp grouping: no grouping found; every nest is its own group");
        let mut chosen = greedy_groups(
            ctx,
            &spec.with_grouping(GroupingStrategy::None),
            imperfect,
            analyses,
            &mut None,
        );
        chosen.head.push("the DP grouping found no grouping the exact analysis accepts: every nest is its own group".into());
        return Ok(chosen);
    };
    let head = heading(&found, spec, units.len(), graph, prices.refused.len());
    let mut groups = Vec::new();
    let mut about = HashMap::new();
    // A nest alone is tiled alone only where that beats its original loops
    // (the naive parallel schedule, the cost of doing nothing: no
    // producer-consumer locality to gain, only parallelism when its
    // outermost loop has too few iterations for the cores). A nest that
    // cannot be tiled at all is reported as before.
    let mut keep: HashMap<usize, String> = HashMap::new();
    for g in found
        .groups
        .iter()
        .filter(|g| g.len() == 1 && imperfect[g[0]].is_none())
    {
        // (The GPU's: a nest alone is tiled, as without the model.)
        let Ok(Priced::Cpu(tiled)) = prices.price(g) else {
            continue;
        };
        if analyses
            .get(ctx, &spec.with_sizes(&to_spec_sizes(&tiled.sizes)), g)
            .is_err()
        {
            continue;
        }
        let Ok(geo) = geometry(graph, region, g) else {
            continue;
        };
        let plain = naive(&geo, &spec.model.machine, &spec.model.weights);
        if plain.cost <= tiled.cost {
            keep.insert(
                g[0],
                format!(
                    "alone, its original loops cost no more than tiles ({:.3e} <= {:.3e}: {} parallel task(s), {:.0}% of the cores idle in the last wave)",
                    plain.cost, tiled.cost, plain.tiles, 100.0 * plain.idle
                ),
            );
        }
    }
    let mut inner = HashMap::new();
    let mut gpu = HashMap::new();
    for g in graph.order_groups(found.groups) {
        let (sizes, text) = match prices.price(&g) {
            Ok(Priced::Cpu(c)) => {
                if let Some(l1) = &c.inner {
                    inner.insert(g[0], to_spec_sizes(l1));
                }
                (to_spec_sizes(&c.sizes), describe_cost(&c))
            }
            Ok(Priced::Gpu(c)) => {
                let text = spec
                    .model
                    .gpu
                    .map_or_else(String::new, |gs| format!("GPU cost {}", c.describe(gs.gpu)));
                let sizes = to_spec_sizes(&c.sizes);
                if let Ok(geo) = geometry(graph, region, &g) {
                    gpu.insert(g[0], (c, geo));
                }
                (sizes, text)
            }
            Err(why) => (spec.sizes.clone(), format!("not costed: {why}")),
        };
        if g.len() > 1 {
            about.insert(g[0], text);
        }
        groups.push((g, sizes));
    }
    Ok(Chosen {
        groups,
        starts: HashMap::new(),
        head,
        about,
        keep,
        inner,
        gpu,
    })
}

/// The `--explain` heading of the DP's grouping `found` of the `stages`
/// units of `graph`, `refused` of whose groups the exact analysis refused.
fn heading(
    found: &Found,
    spec: &OverlapSpec,
    stages: usize,
    graph: &PipelineGraph,
    refused: usize,
) -> Vec<String> {
    let given = spec.model.sizes_given.then_some(&spec.sizes[..]);
    let mut head = vec![format!(
        "DP grouping (Jangda & Bondhugula, TOPLAS'20, {}) over {} stages: {} groupings costed, total cost {:.3e}; {}{}",
        match found.method {
            Method::Unbounded => "Algorithm 1".to_string(),
            Method::Bounded(l) => format!("Algorithm 5, groups of {l} stages first"),
            Method::Ordered =>
                "the DP over the nests' order, cheaper than or in place of Algorithm 5".to_string(),
        },
        stages,
        found.states,
        found.cost,
        match &spec.model.gpu {
            Some(g) => g.gpu.describe(),
            None => spec.model.machine.describe(),
        },
        match given {
            Some(s) => format!("; tile sizes given {s:?}"),
            None => String::new(),
        }
    )];
    if !graph.assumed.is_empty() {
        head.push(format!("problem size: {}", graph.assumed));
    }
    if refused > 0 {
        head.push(format!(
            "{refused} group(s) the cost model accepted were refused by the exact analysis and left out"
        ));
    }
    head
}

/// The costs of candidate groups under the target's model, each computed
/// once, and the groups the exact analysis refused.
struct Prices<'a> {
    ctx: &'a Ctx<'a>,
    spec: &'a OverlapSpec,
    /// Why each unit is not a multi-statement stage, if it is not one.
    imperfect: &'a [Option<String>],
    graph: &'a PipelineGraph,
    costs: HashMap<Vec<usize>, std::result::Result<Priced, String>>,
    refused: HashMap<Vec<usize>, String>,
}

impl Prices<'_> {
    /// The cost of group `g` (units), or why it cannot be one.
    fn price(&mut self, g: &[usize]) -> std::result::Result<Priced, String> {
        if let Some(why) = self.refused.get(g) {
            return Err(why.clone());
        }
        let (spec, graph, region) = (self.spec, self.graph, self.ctx.region);
        let label = |u: usize| region.stages[self.ctx.units[u][0]].label.clone();
        let imperfect = self.imperfect;
        let given = spec.model.sizes_given.then_some(&spec.sizes[..]);
        self.costs
            .entry(g.to_vec())
            .or_insert_with(|| {
                if g.len() > 1 {
                    if let Some(u) = g.iter().find(|u| imperfect[**u].is_some()) {
                        return Err(format!("{} is not a multi-statement stage", label(*u)));
                    }
                    if spec.max_group.is_some_and(|m| g.len() > m) {
                        return Err(format!("groups have at most {} stages", g.len() - 1));
                    }
                }
                let geo = geometry(graph, region, g)?;
                match &spec.model.gpu {
                    None => Ok(Priced::Cpu(cost(
                        &geo,
                        &spec.model.machine,
                        &spec.model.weights,
                        given,
                    ))),
                    Some(gspec) => gpu_cost::choose(&geo, gspec, given, None)
                        .map(Priced::Gpu)
                        .ok_or_else(|| {
                            "no tile and thread block fit the GPU's shared memory".to_string()
                        }),
                }
            })
            .clone()
    }
}

/// A group's cost under the target's model.
#[derive(Clone)]
enum Priced {
    /// The CPU's (Jangda & Bondhugula, TOPLAS'20, [`cost`]).
    Cpu(Costed),
    /// The GPU's (Jangda & Guha, PACT'20, §6, [`gpu_cost`]).
    Gpu(GpuCosted),
}

impl Priced {
    /// The estimate (lower is better; the DP sums it over groups).
    fn cost(&self) -> f64 {
        match self {
            Priced::Cpu(c) => c.cost,
            Priced::Gpu(c) => c.cost,
        }
    }

    /// The tile sizes it costed (scaled, per loop).
    fn sizes(&self) -> &[i64] {
        match self {
            Priced::Cpu(c) => &c.sizes,
            Priced::Gpu(c) => &c.sizes,
        }
    }
}

/// The GPU cost model's choice of scheme and thread block for the group
/// `g` (units) at its tile sizes `sizes`, for groups another strategy
/// formed; `None` where it cannot cost the group (the back end's defaults
/// then apply). `graph` caches the region's pipeline graph (`None` inside:
/// it could not be built).
pub(super) fn gpu_choice_at(
    ctx: &Ctx,
    spec: &OverlapSpec,
    gspec: &GpuSpec,
    g: &[usize],
    sizes: &[i64],
    graph: &mut Option<Option<PipelineGraph>>,
) -> Option<(GpuCosted, Geometry)> {
    let graph = cached_graph(graph, ctx, spec)?;
    let geo = geometry(graph, ctx.region, g)
        .map_err(|why| info!("gpu cost: the group cannot be costed: {why}"))
        .ok()?;
    let depth = geo.depth;
    let sizes = &sizes[sizes.len().saturating_sub(depth)..];
    gpu_cost::choose(&geo, gspec, Some(sizes), None).map(|c| (c, geo))
}

/// The DP's first group limit (stages) and the factor of its later runs
/// (Algorithm 5): pipelines of up to `DP_LIMIT` stages get the unbounded DP.
const DP_LIMIT: usize = 8;
const DP_STEP: usize = 2;
/// The most stages of a group the DP over the textual order considers.
const ORDERED_LIMIT: usize = 64;

/// The cost model's sizes as tile sizes: a size covering a whole loop of
/// unknown extent stays a tile of its loop (`WHOLE`).
fn to_spec_sizes(sizes: &[i64]) -> Vec<i64> {
    sizes.iter().map(|s| (*s).min(WHOLE)).collect()
}

/// A group's cost terms in words (`--explain`).
fn describe_cost(c: &Costed) -> String {
    format!(
        "cost {:.3e}: tiles {} sized for {}{}; per tile {:.0} bytes to and from memory in {:.0} streams, {:.0} reads ({:.1}% recomputing {:.1}% of the points); {} tiles ({:.0}% of the cores idle in the last wave); extent spread {:.2}",
        c.cost,
        in_words(&c.sizes),
        match c.level {
            Level::L1 => "L1",
            Level::L2 => "L2 (L1 tiles would recompute more than they compute)",
            Level::Given => "the given sizes",
            Level::Naive => "the original loops",
        },
        match c.rows {
            Rows::NoReuse => ", rows whole (no stage of the group reads another's values: cut rows would buy no reuse)",
            Rows::Streams => ", rows whole (fewer memory streams than rows cut at the innermost tile size, for more overlap)",
            Rows::Cut => "",
        },
        c.bytes,
        c.streams,
        c.ops,
        100.0 * c.recomputed_ops / c.ops.max(1.0),
        100.0 * c.overlap / c.computed.max(1.0),
        c.tiles,
        100.0 * c.idle,
        c.dim_diff
    )
}
