//! isl operation budgets of a region (dependence analysis, code generation,
//! validity check), and how a region's schedule is made simpler when isl's
//! code generator runs past its budget.

use super::*;

/// The isl operations a region may take in each of code generation and the
/// validity check (0: no limit).
pub(super) fn isl_budget(opts: &Options, region: &Region) -> u64 {
    opts.max_isl_operations
        .saturating_mul(region.stages.len() as u64)
}

/// The isl operations a region's exact dependence analysis may take (0: no limit).
pub(super) fn dependence_budget(opts: &Options, region: &Region) -> u64 {
    opts.max_dependence_operations
        .saturating_mul(region.stages.len() as u64)
}

/// The warning for a region whose exact dependence analysis ran past `budget`.
pub(super) fn inexact_dependences(region: &Region, budget: u64) -> Diagnostic {
    Diagnostic::warning(
        region.pragma_span,
        format!(
            "the exact dependence analysis of this region ran past its budget of {budget} isl operations; it is compiled with memory-based dependences (every earlier access to the same element: a superset of the exact ones, which overlapped tiling cannot use) (--max-dependence-operations raises the budget)"
        ),
    )
}

/// How much simpler than asked a region's schedule is made after isl's code
/// generator ran past its budget.
#[derive(Clone, Debug, Default)]
pub(super) struct Simpler {
    /// Overlapped tiling: at most this many stages per group.
    pub(super) max_group: Option<usize>,
    /// Wavefronts of the loop-chain pragma run as serial loops.
    pub(super) no_wavefront: bool,
    /// Rectangle tiles: every point loop atomic, no isolated guard-free part.
    pub(super) atomic_points: bool,
}

impl Simpler {
    /// The next simplification after `t` ran past the budget, with what it
    /// does in words; `None` when nothing simpler is left.
    pub(super) fn next(&self, t: &Transformed) -> Option<(Simpler, String)> {
        if t.isolate_points && !self.atomic_points {
            return Some((
                Simpler {
                    atomic_points: true,
                    ..self.clone()
                },
                "the fused point loops of its rectangle tiles are now generated atomic, with no guard-free part"
                    .to_string(),
            ));
        }
        if t.storage.is_some() {
            let half = t.largest_group / 2;
            return (half >= 2).then(|| {
                (
                    Simpler {
                        max_group: Some(half),
                        ..self.clone()
                    },
                    format!(
                        "overlapped groups now have at most {half} stages (the largest had {})",
                        t.largest_group
                    ),
                )
            });
        }
        (t.wavefronts && !self.no_wavefront).then(|| {
            (
                Simpler {
                    no_wavefront: true,
                    ..self.clone()
                },
                "its wavefronts run as serial loops".to_string(),
            )
        })
    }

    /// What was tried, for the final diagnostic.
    pub(super) fn tried(&self) -> String {
        match (self.max_group, self.no_wavefront) {
            (Some(g), _) => format!(" even with overlapped groups of at most {g} stages"),
            (None, true) => " even with its wavefronts run as serial loops".to_string(),
            (None, false) => String::new(),
        }
    }
}
