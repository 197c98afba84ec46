//! The sizes of region isl is given.
//!
//! isl's operations on integer sets grow with their dimensions: the
//! lexicographic order of a nest `d` loops deep is a union of `d` pieces of
//! up to `2d` constraints, and every parameter is a dimension of every set
//! of the region, whose bounds isl splits into cases against the others. A
//! region of 50 nests, each bounded by its own parameter, took 26 s (32
//! parameters: 4.4 s; 16: 0.5 s); one of 100 nested loops did not finish
//! in minutes. Like Polly, which gives up on a region that is too complex
//! for its analyses, flextile leaves a region past these limits as
//! written, with a warning, before isl sees it.

use crate::diag::Span;
use crate::model::polyhedral::collect_names;
use crate::model::program::Region;

/// Most parameters (symbols in a region's bounds and subscripts that are
/// not its loop iterators) a region may have.
pub const MAX_PARAMETERS: usize = 32;

/// Most loops a statement of a region may be nested in.
pub const MAX_DEPTH: usize = 32;

/// Why `region` is past a limit, at which statement or pragma: `None`
/// when it is within them.
pub fn beyond(region: &Region) -> Option<(Span, String)> {
    if let Some(s) = region.stages.iter().find(|s| s.iterators.len() > MAX_DEPTH) {
        return Some((
            s.span,
            format!(
                "this statement is nested in {} loops; flextile analyses at most {MAX_DEPTH} (isl's analyses grow too fast with the depth): the region is left as written",
                s.iterators.len()
            ),
        ));
    }
    let params = collect_names(std::slice::from_ref(region)).params;
    if params.len() > MAX_PARAMETERS {
        let first: Vec<&str> = params.values().take(4).map(String::as_str).collect();
        return Some((
            region.pragma_span,
            format!(
                "this region has {} parameters (symbols in its bounds and subscripts that are not its loop iterators: {}, ...); flextile analyses at most {MAX_PARAMETERS} (isl's analyses grow too fast with their number): the region is left as written",
                params.len(),
                first.join(", ")
            ),
        ));
    }
    None
}
