//! Time-iterated scops under overlapped tiling (Zhao & Cohen's time
//! tiling through [`crate::transform::time_blocks`]): the driver's lowering
//! of full blocks of time steps, each a loop chain tiled with overlap, and of
//! the remaining steps with the original schedule.

use super::{
    compile_region_as_asked, guard_note, ignored_sizes, lower, macro_values_note, max_depth,
    record_mdg, shadow_parts, stage_lines, with_int_bound, Given, Options, Place, Shared, Target,
    DEFAULT_TILE_SIZE, DEFAULT_TIME_STEPS, DEFAULT_TIME_STEPS_3D,
};
use crate::backend::tree::Helper;
use crate::backend::TimeBlockParts;
use crate::diag::{Diagnostic, Error, Result};
use crate::model::isl_ext::new_context;
use crate::model::polyhedral;
use crate::model::program::{CmpOp, Region};
use crate::transform::overlap::GroupingStrategy;
use crate::transform::time_blocks::running_time_blocks;
use crate::transform::time_choice::{self, Decision};
use log::info;
use std::collections::BTreeSet;

/// Overlapped tiling of a time-iterated scop
/// ([`crate::transform::time_blocks`]): full blocks of time steps, each a
/// loop chain tiled with overlap, then the remaining steps with the original
/// schedule. The time loop's tile size is the number of steps per block
/// ([`DEFAULT_TIME_STEPS`] or [`DEFAULT_TIME_STEPS_3D`] when `--tile-sizes`
/// gives it none). Without `--tile-sizes` under `--grouping dp`, the cost
/// model chooses the depth and sizes, or the original loops
/// ([`time_choice`]).
pub(super) fn compile_time_blocked(
    opts: &Options,
    shared: &Shared,
    region: &Region,
    helpers: &mut BTreeSet<Helper>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<String> {
    let Shared {
        program,
        names,
        templates,
        naming,
        ..
    } = *shared;
    let (steps, space_sizes, from_model) =
        match time_block_sizes(opts, shared, region, helpers, warnings)? {
            Sizes::Original(code) => return Ok(code),
            Sizes::Blocks {
                steps,
                space_sizes,
                from_model,
            } => (steps, space_sizes, from_model),
        };
    let tb = running_time_blocks(region, names, steps, &naming.helper, opts.assume.as_deref())?;
    // Before any block is lowered (and its --report printed): a shadow that
    // cannot be sized makes overlapped tiling inapplicable.
    let ctx = new_context();
    let model = polyhedral::build(&ctx, region, names, opts.assume.as_deref())?;
    let shadows = shadow_parts(&model, names, &tb.shadows, region)?;
    info!(
        "time blocks: {steps} steps per block, {} stages in a block",
        tb.blocks.stages.len()
    );
    let block_opts = block_options(opts, region, &space_sizes, from_model)?;
    let indent = format!("{}    ", region.indent);
    // CUDA: the last step's copies live on the device only.
    let cuda = opts.target == Target::Cuda;
    let given = Given {
        names: &tb.names,
        ..Given::of(shared)
    };
    let blocks = lower(
        &block_opts,
        given,
        &tb.blocks,
        &Place {
            indent: indent.clone(),
            shadows: if cuda { &tb.shadows[..] } else { &[] },
            part: "b",
        },
        None,
        helpers,
        warnings,
    )?;
    let rest_opts = Options {
        overlap: None,
        tile: false,
        ..opts.clone()
    };
    let remainder = lower(
        &rest_opts,
        given,
        &tb.remainder,
        &Place {
            indent: indent.clone(),
            shadows: &[],
            part: "r",
        },
        None,
        helpers,
        warnings,
    )?;
    shared.kernels.borrow_mut().insert(
        region.pragma_span.start,
        format!("{}{}", blocks.kernels, remainder.kernels),
    );
    record_mdg(
        opts,
        shared,
        region,
        None,
        Some("time blocks: the grouping of versions is not modelled".to_string()),
    )?;
    // CUDA: the blocks' device buffers are set up once, around the loop
    // over blocks (the host touches none of their data in between), unless
    // their boxes depend on the block's first step.
    let (blocks_code, around) = match &blocks.parts {
        Some([setup, loops, teardown])
            if !uses_name(setup, &tb.start) && !uses_name(teardown, &tb.start) =>
        {
            (loops.clone(), [outdent(setup), outdent(teardown)])
        }
        _ => (blocks.code.clone(), [String::new(), String::new()]),
    };
    let (line, _) = program.file.line_col(region.pragma_span.start);
    let mut summary = vec![format!(
        "time blocks of {steps} steps, each a chain of {} stages (steps and copies back){}",
        tb.blocks.stages.len(),
        match from_model {
            true => ", depth and tile sizes from the cost model",
            false => "",
        }
    )];
    summary.extend(macro_values_note(region));
    summary.extend(blocks.summary.iter().map(|d| d.render(&tb.blocks)));
    let bound = blocks.int_bound.clone().and(remainder.int_bound.clone());
    let guard = with_int_bound(shared, region, &bound);
    summary.extend(guard_note(guard.as_ref()));
    let full: Vec<String> = tb
        .full
        .iter()
        .map(|c| {
            let op = match c.op {
                CmpOp::Eq => "==",
                op => op.as_str(),
            };
            format!("{} {op} {}", c.lhs, c.rhs)
        })
        .collect();
    templates.time_blocks(&TimeBlockParts {
        input: &program.file.path,
        line,
        stages: stage_lines(region),
        schedule: summary.join(", "),
        indent: &region.indent,
        start: &tb.start,
        counter_type: naming.counter_type(),
        first: &tb.first.to_string(),
        full: &full.join(" && "),
        steps,
        rest: &tb.rest,
        shadows: if cuda { Vec::new() } else { shadows },
        blocks: blocks_code,
        around,
        remainder: remainder.code,
        guard: guard.as_ref(),
    })
}

/// A time-iterated scop's steps per block and space tile sizes.
enum Sizes {
    /// The cost model keeps the original loops: the region's code.
    Original(String),
    /// Steps per block and the space loops' tile sizes; `from_model`: the
    /// cost model chose them.
    Blocks {
        steps: i64,
        space_sizes: Vec<i64>,
        from_model: bool,
    },
}

/// The steps per block and space tile sizes: the cost model's (without
/// `--tile-sizes` under `--grouping dp`, C only), the options', or the
/// defaults; or the region compiled with its original loops where the
/// model keeps them.
fn time_block_sizes(
    opts: &Options,
    shared: &Shared,
    region: &Region,
    helpers: &mut BTreeSet<Helper>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Sizes> {
    let Shared {
        program,
        names,
        naming,
        ..
    } = *shared;
    let depth = max_depth(region);
    let default_steps = if depth >= 4 {
        DEFAULT_TIME_STEPS_3D
    } else {
        DEFAULT_TIME_STEPS
    };
    if let Some(w) = ignored_sizes(opts, depth, region, " (time loop included)") {
        warnings.push(w);
    }
    let mut chosen = None;
    // (The time-block model costs CPU tiles: CUDA's time blocks take the
    // default sizes, the GPU cost model choosing each group's mapping.)
    if opts.model_chooses_sizes() && opts.target == Target::C {
        let choice = time_choice::choose(
            region,
            names,
            opts.assume.as_deref(),
            opts.max_dependence_operations,
            &opts.model_spec(),
            &naming.helper,
        )?;
        let (line, _) = program.file.line_col(region.pragma_span.start);
        if opts.explain {
            println!("{}:{line}: time blocks (cost model)", program.file.path);
            for l in &choice.explained {
                println!("  {l}");
            }
        }
        match choice.decision {
            Decision::Original => {
                let banner = ["the cost model keeps the original loops of the time loop: no time block costs less per step (--explain)".to_string()];
                return compile_region_as_asked(
                    &opts.without_overlap(),
                    shared,
                    region,
                    helpers,
                    warnings,
                    &banner,
                    None,
                )
                .map(Sizes::Original);
            }
            Decision::Blocks(steps, sizes) => chosen = Some((steps, sizes)),
            Decision::Defaults => {}
        }
    }
    let from_model = chosen.is_some();
    let (steps, space_sizes) = match (&opts.tile_sizes, chosen) {
        (_, Some(c)) => c,
        (Some(s), None) if s.len() >= depth && depth >= 1 => {
            (s[s.len() - depth], s[s.len() - depth + 1..].to_vec())
        }
        (Some(s), None) => (default_steps, s.clone()),
        (None, None) => (
            default_steps,
            vec![DEFAULT_TILE_SIZE; depth.saturating_sub(1)],
        ),
    };
    Ok(Sizes::Blocks {
        steps,
        space_sizes,
        from_model,
    })
}

/// The options of a time block's chain: its space loops' sizes and
/// overlapped loops, and the grouping of its steps.
fn block_options(
    opts: &Options,
    region: &Region,
    space_sizes: &[i64],
    from_model: bool,
) -> Result<Options> {
    // Loops are numbered from the time loop (0); in a block, from the first space loop.
    let overlap_dims: Option<Vec<usize>> = opts
        .overlap_dims
        .as_ref()
        .map(|d| d.iter().filter(|d| **d > 0).map(|d| d - 1).collect());
    if overlap_dims.as_ref().is_some_and(Vec::is_empty) {
        return Err(Error::at(
            region.pragma_span,
            "--overlap-dims names only the time loop (0), which overlapped tiling of a time loop always overlaps; name one of its space loops too (1, ...)",
        ));
    }
    // The steps of a block form one group: the cost model does not choose
    // here (time-block depth and sizes are the options' or the defaults).
    // The model costed the block's steps as one group: they are one.
    // CUDA's default sizes (none given, none from the model) are the
    // lowering's own, which shrinks them to fit shared memory.
    let cuda_defaults = opts.target == Target::Cuda && opts.tile_sizes.is_none() && !from_model;
    Ok(Options {
        tile_sizes: (!cuda_defaults).then(|| space_sizes.to_vec()),
        overlap_dims,
        grouping: match opts.grouping {
            GroupingStrategy::Dp if from_model => GroupingStrategy::TimeBlock,
            GroupingStrategy::Dp => GroupingStrategy::Greedy,
            g => g,
        },
        ..opts.clone()
    })
}

/// Whether the C text `text` uses the identifier `name`.
fn uses_name(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(k, _)| {
        let before = text[..k].chars().next_back();
        let after = text[k + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// `text` with one level (two spaces) less indentation.
fn outdent(text: &str) -> String {
    text.lines()
        .map(|l| format!("{}\n", l.strip_prefix("  ").unwrap_or(l)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{outdent, uses_name};

    #[test]
    fn identifiers_are_found_whole() {
        assert!(uses_name("n = ft_t + 1;", "ft_t"));
        assert!(!uses_name("n = ft_t_start + 1;", "ft_t"));
        assert!(!uses_name("n = xft_t;", "ft_t"));
        assert_eq!(outdent("    a\n  b\nc\n"), "  a\nb\nc\n");
    }
}
