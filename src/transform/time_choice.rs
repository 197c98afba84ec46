//! The cost model's choice for a time-iterated stencil (Jangda & Bondhugula, TOPLAS'20, §4, the
//! cost of Algorithm 2, applied to the time blocks of Zhao & Cohen §3.7):
//! how many time steps a block holds and the size of its tiles in space, or
//! no time blocks at all (the cost of doing nothing is a candidate: the
//! original loops, each space sweep a parallel loop).
//!
//! Each candidate depth `h` is the real block chain ([`time_blocks`]: `h`
//! copies of the body, then the copies back of the shadows), costed as one
//! group by [`cost`], which sizes its tiles for L1 or L2. Only the block of
//! two steps is analysed in isl: the graphs of the others repeat its
//! dependences ([`PipelineGraph::repeat_steps`]). The original loops are
//! costed by [`naive`], one sweep per nest of the body. Costs are compared
//! per time step (a block's cost over `h`).

use crate::diag::Result;
use crate::model::deps;
use crate::model::isl_ext::new_context;
use crate::model::polyhedral::{self, Names};
use crate::model::program::Region;
use crate::transform::cost::{cost, geometry, naive, Costed};
use crate::transform::overlap::ModelSpec;
use crate::transform::overlap_groups::nest_units;
use crate::transform::pipeline::PipelineGraph;
use crate::transform::time_blocks::{idle_block, running_time_blocks, time_blocks};
use log::info;

/// The time-block depths the model tries.
pub const CANDIDATE_STEPS: [i64; 4] = [2, 4, 8, 16];

/// Time blocks are chosen only where their cost per step is below this
/// fraction of the original loops'. The cost counts bytes and reads, not
/// the code of a block's tiles (bounds, scratchpad indexing, the loads of
/// boundary faces, the copies back), which the measurements show matters:
/// predicted / measured time of the model's blocks against the original
/// loops, 2 threads, bench sizes (2 cores, 2026-11-26): heat-1d 0.61 / 0.54,
/// heat-2d 0.73 / 1.04, jacobi-2d 0.73 / 0.97, heat-3d 0.92 / 1.86.
pub const BLOCK_MARGIN: f64 = 0.7;

/// What the model decided for a time-iterated scop.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Time blocks of this many steps, with these tile sizes of the space
    /// loops (outermost first).
    Blocks(i64, Vec<i64>),
    /// No time block costs less than [`BLOCK_MARGIN`] of the original loops.
    Original,
    /// Nothing could be costed: the default depth and sizes.
    Defaults,
}

/// What the model chose for a time-iterated scop, and why.
#[derive(Clone, Debug)]
pub struct TimeChoice {
    /// The decision.
    pub decision: Decision,
    /// Each candidate with its cost, in words (`--explain`).
    pub explained: Vec<String>,
}

/// The cost of one of `region`'s time blocks of `steps` steps, with its
/// tile sizes, from the block of two steps (`two`, with its graph); `Err`
/// says why the block cannot be one group, or why it never runs
/// ([`idle_block`]: a time loop of fewer steps).
fn blocked(
    region: &Region,
    names: &Names,
    (assume, model): (Option<&str>, &ModelSpec),
    prefix: &str,
    two: (&Region, &PipelineGraph),
    steps: i64,
) -> Result<std::result::Result<Costed, String>> {
    let tb = time_blocks(region, names, steps, prefix)?;
    if let Some(why) = idle_block(&tb, assume)? {
        return Ok(Err(why));
    }
    let units: Vec<Vec<usize>> = nest_units(&tb.blocks).into_iter().map(|(u, _)| u).collect();
    let graph = PipelineGraph::repeat_steps(two.1, two.0, &tb.blocks, &units);
    let all: Vec<usize> = (0..graph.units.len()).collect();
    Ok(geometry(&graph, &tb.blocks, &all)
        .map(|geo| cost(&geo, &model.machine, &model.weights, None)))
}

/// The block chain of `steps` steps and its pipeline graph (`None` when
/// its dependences are not exact); errors are [`running_time_blocks`]'s.
fn chain_graph(
    region: &Region,
    names: &Names,
    assume: Option<&str>,
    budget: u64,
    model: &ModelSpec,
    prefix: &str,
    steps: i64,
) -> Result<(Region, Option<PipelineGraph>)> {
    let tb = running_time_blocks(region, names, steps, prefix, assume)?;
    let ctx = new_context();
    let m = polyhedral::build(&ctx, &tb.blocks, &tb.names, assume)?;
    let d = deps::compute(&m, budget.saturating_mul(tb.blocks.stages.len() as u64))?;
    if !d.exact {
        return Ok((tb.blocks, None));
    }
    let units: Vec<Vec<usize>> = nest_units(&tb.blocks).into_iter().map(|(u, _)| u).collect();
    // The block's first step is the time loop's first step (with the
    // default estimates of the other parameters a full block then exists).
    let mut estimates = model.estimates.clone();
    estimates.insert(tb.start.clone(), 1);
    let graph = PipelineGraph::build(&tb.blocks, &tb.names, &m, &d, &units, &estimates, None)?;
    Ok((tb.blocks, Some(graph)))
}

/// Chooses the time blocks of a time-iterated `region` (a scop whose nests
/// all sit in one time loop): the depth of [`CANDIDATE_STEPS`] and tile
/// sizes of least cost per step, or the original loops unless that cost is
/// below [`BLOCK_MARGIN`] of theirs; a depth whose blocks never run (a time
/// loop of fewer steps) is not a candidate. `budget` bounds the dependence
/// analysis (isl operations per statement of the block chain); `prefix` is
/// the prefix of generated names. Errors are [`running_time_blocks`]'s for
/// blocks of two steps (time blocks do not apply).
pub fn choose(
    region: &Region,
    names: &Names,
    assume: Option<&str>,
    budget: u64,
    model: &ModelSpec,
    prefix: &str,
) -> Result<TimeChoice> {
    // The original loops: one time step is one sweep of each nest of the
    // body, each costed alone (the first step's statements of the block of
    // two, not the copies back).
    let (two, graph) = chain_graph(region, names, assume, budget, model, prefix, 2)?;
    let mut explained = Vec::new();
    let mut plain = 0.0;
    if let Some(graph) = &graph {
        for (u, ks) in graph.units.iter().enumerate() {
            if ks.iter().any(|k| two.stages[*k].time_step != Some(0)) {
                continue;
            }
            match geometry(graph, &two, &[u]) {
                Ok(geo) => plain += naive(&geo, &model.machine, &model.weights).cost,
                Err(why) => {
                    explained.push(format!("the original loops cannot be costed ({why}): time blocks of the default depth"));
                    plain = f64::INFINITY;
                }
            }
        }
        if !graph.assumed.is_empty() {
            explained.push(format!("problem size: {}", graph.assumed));
        }
    } else {
        plain = f64::INFINITY;
    }
    if plain.is_finite() {
        explained.push(format!(
            "the original loops (no time blocks): cost {plain:.3e} per time step"
        ));
    }
    let mut best: Option<(f64, i64, Costed)> = None;
    for steps in CANDIDATE_STEPS {
        let Some(graph) = &graph else { break };
        match blocked(region, names, (assume, model), prefix, (&two, graph), steps)? {
            Ok(c) => {
                let per_step = c.cost / steps as f64;
                explained.push(format!(
                    "blocks of {steps} steps: cost {per_step:.3e} per time step, tiles {:?} sized for {:?} ({:.1}% of the points recomputed, {} tiles per block)",
                    c.sizes,
                    c.level,
                    100.0 * c.overlap / c.computed.max(1.0),
                    c.tiles
                ));
                if best.as_ref().is_none_or(|(b, _, _)| per_step < *b) {
                    best = Some((per_step, steps, c));
                }
            }
            Err(why) => explained.push(format!("blocks of {steps} steps: not costed ({why})")),
        }
    }
    let decision = match best {
        Some((per_step, steps, c)) if per_step < BLOCK_MARGIN * plain => {
            explained.push(format!(
                "chosen: blocks of {steps} steps, tiles {:?} ({:.2} of the original loops' cost, below {BLOCK_MARGIN})",
                c.sizes,
                per_step / plain
            ));
            Decision::Blocks(steps, c.sizes)
        }
        Some((per_step, _, _)) => {
            explained.push(format!("chosen: the original loops (the cheapest time block costs {:.2} of them per step, not below {BLOCK_MARGIN})", per_step / plain));
            Decision::Original
        }
        None if plain.is_finite() => {
            explained.push("chosen: the original loops (no time block could be costed)".into());
            Decision::Original
        }
        None => {
            explained.push(
                "chosen: time blocks of the default depth and sizes (nothing could be costed)"
                    .into(),
            );
            Decision::Defaults
        }
    };
    info!("time blocks: {}", explained.join("; "));
    Ok(TimeChoice {
        decision,
        explained,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Error;
    use crate::frontend::parse_file;
    use crate::model::polyhedral::collect_names;
    use crate::transform::cost::{Machine, CALIBRATED};

    const HEAT_2D: &str = "void heat(int n, int tsteps, double A[n][n], double B[n][n]) {
#pragma scop
  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        B[i][j] = 0.125 * (A[i + 1][j] - 2.0 * A[i][j] + A[i - 1][j]) + A[i][j - 1] + A[i][j + 1];
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        A[i][j] = 0.125 * (B[i + 1][j] - 2.0 * B[i][j] + B[i - 1][j]) + B[i][j - 1] + B[i][j + 1];
  }
#pragma endscop
}
";

    fn spec() -> ModelSpec {
        ModelSpec {
            machine: Machine {
                l1: 32 * 1024,
                l2: 1024 * 1024,
                cores: 4,
                innermost: 256,
            },
            weights: CALIBRATED,
            estimates: [("n".to_string(), 1000), ("tsteps".to_string(), 100)].into(),
            sizes_given: false,
            gpu: None,
        }
    }

    /// A 1-D Jacobi step with a copy back, in a time loop of `steps` steps.
    fn jacobi_1d(steps: &str) -> String {
        format!(
            "void jacobi(int n, int tsteps, double *A, double *B) {{
#pragma scop
  for (int t = 0; t < {steps}; t++) {{
    for (int i = 1; i < n - 1; i++)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
    for (int i = 1; i < n - 1; i++)
      A[i] = B[i];
  }}
#pragma endscop
}}
"
        )
    }

    fn parse(name: &str, text: &str) -> Region {
        let dir = std::env::temp_dir().join(format!(
            "flextile-time-choice-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.c"));
        std::fs::write(&path, text).unwrap();
        let program = parse_file(&path, &[]).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        program.regions.into_iter().next().unwrap()
    }

    fn heat() -> Region {
        parse("heat", HEAT_2D)
    }

    /// The graph of a longer block repeated from the block of two steps has
    /// the dependences and extents of the block built and analysed in isl,
    /// and so the same cost.
    #[test]
    fn repeated_steps_match_the_analysed_block() {
        let region = heat();
        let names = collect_names(std::slice::from_ref(&region));
        let m = spec();
        let (two, two_graph) = chain_graph(&region, &names, None, 1 << 30, &m, "ft_", 2).unwrap();
        let two_graph = two_graph.unwrap();
        for steps in [3, 4, 8] {
            let (real, real_graph) =
                chain_graph(&region, &names, None, 1 << 30, &m, "ft_", steps).unwrap();
            let real_graph = real_graph.unwrap();
            let repeated = PipelineGraph::repeat_steps(&two_graph, &two, &real, &real_graph.units);
            let flows = |g: &PipelineGraph| {
                let mut f: Vec<String> = g
                    .flows
                    .iter()
                    .map(|f| format!("{} {} {:?}", f.from, f.to, f.align))
                    .collect();
                f.sort();
                f
            };
            assert_eq!(flows(&repeated), flows(&real_graph), "{steps} steps");
            let extents = |g: &PipelineGraph| -> Vec<_> {
                g.stmts.iter().map(|s| s.extents.clone()).collect()
            };
            assert_eq!(extents(&repeated), extents(&real_graph));
            let all: Vec<usize> = (0..real_graph.units.len()).collect();
            let cost_of = |g: &PipelineGraph| {
                let geo = geometry(g, &real, &all).unwrap();
                cost(&geo, &m.machine, &m.weights, None).cost
            };
            assert_eq!(cost_of(&repeated), cost_of(&real_graph));
        }
    }

    /// The choice is data: blocks of some depth with sizes, or the original
    /// loops, and every candidate is explained.
    #[test]
    fn every_candidate_is_explained() {
        let region = heat();
        let names = collect_names(std::slice::from_ref(&region));
        let choice = choose(&region, &names, None, 1 << 20, &spec(), "ft_").unwrap();
        for steps in CANDIDATE_STEPS {
            assert!(
                choice
                    .explained
                    .iter()
                    .any(|l| l.starts_with(&format!("blocks of {steps} steps: cost"))),
                "{:?}",
                choice.explained
            );
        }
        assert!(choice.explained.iter().any(|l| l.starts_with("chosen: ")));
        assert_ne!(choice.decision, Decision::Defaults);
    }

    /// A time loop of five steps: blocks of 8 and 16 steps never run and
    /// are no candidates (the model chose 16, whose empty block overlapped
    /// tiling could not tile); the chosen depth fits.
    #[test]
    fn blocks_longer_than_the_time_loop_are_not_candidates() {
        let region = parse("short", &jacobi_1d("5"));
        let names = collect_names(std::slice::from_ref(&region));
        let choice = choose(&region, &names, None, 1 << 20, &spec(), "ft_").unwrap();
        for steps in [8, 16] {
            let line =
                format!("blocks of {steps} steps: not costed (no block of {steps} time steps runs");
            assert!(
                choice.explained.iter().any(|l| l.starts_with(&line)),
                "{:?}",
                choice.explained
            );
        }
        assert!(
            matches!(choice.decision, Decision::Blocks(s, _) if s <= 4),
            "{:?}",
            choice.decision
        );
    }

    /// A time loop of one step, or one that --assume keeps under two steps:
    /// no block runs, and time blocks do not apply.
    #[test]
    fn a_time_loop_without_a_block_is_inapplicable() {
        for (steps, assume) in [("1", None), ("tsteps", Some("tsteps <= 1"))] {
            let region = parse("one", &jacobi_1d(steps));
            let names = collect_names(std::slice::from_ref(&region));
            let err = choose(&region, &names, assume, 1 << 20, &spec(), "ft_").unwrap_err();
            assert!(matches!(err, Error::Inapplicable(_)), "{err:?}");
            assert!(
                err.first_message()
                    .contains("no block of 2 time steps runs: the time loop runs fewer steps"),
                "{}",
                err.first_message()
            );
        }
        let region = parse("param", &jacobi_1d("tsteps"));
        let names = collect_names(std::slice::from_ref(&region));
        assert!(choose(&region, &names, None, 1 << 20, &spec(), "ft_").is_ok());
    }
}
