//! Tiling as the driver reports it: which schedule items ask for
//! wavefronts (and the same tiling without them, for the code generation
//! budget), and the banner's and warnings' words for the bands tiled.

use super::banner::Done;
use super::Options;
use crate::diag::Diagnostic;
use crate::model::program::{LoopTreatment, Region, TileSpec};
use crate::transform::tile;

/// Whether a loop treatment (or a tiling nested in it) asks for a wavefront.
pub(super) fn has_wavefront(t: &LoopTreatment) -> bool {
    match t {
        LoopTreatment::Wavefront => true,
        LoopTreatment::Tile(spec) => has_wavefront(&spec.outer) || has_wavefront(&spec.inner),
        _ => false,
    }
}

/// `spec` with every wavefront (at any tiling level) run as serial loops.
pub(super) fn without_wavefronts(spec: &TileSpec) -> TileSpec {
    fn treat(t: &LoopTreatment) -> LoopTreatment {
        match t {
            LoopTreatment::Wavefront => LoopTreatment::Serial,
            LoopTreatment::Tile(spec) => LoopTreatment::Tile(Box::new(without_wavefronts(spec))),
            other => other.clone(),
        }
    }
    TileSpec {
        outer: treat(&spec.outer),
        inner: treat(&spec.inner),
        ..spec.clone()
    }
}

/// The banner's words for a tiling with `sizes` and whether it applied only
/// in part: `tiled [32, 32]` when every band got all the sizes, else the
/// sizes each band got and the loops they apply to.
pub(super) fn tiled_summary(
    region: &Region,
    sizes: &[i64],
    bands: &[tile::TiledBand],
) -> (String, bool) {
    if !bands.is_empty() && bands.iter().all(|b| b.sizes == sizes) {
        return (format!("tiled {sizes:?}"), false);
    }
    (format!("tiled {}", tiled_loops(region, bands)), true)
}

/// The warning for `--tile` sizes that `region`'s bands (its banner entry
/// [`Done::Tiled`] in `summary`, from every part where it was lowered in
/// parts) did not all get: outer sizes beyond the deepest band, or sizes
/// applied only in part.
pub(super) fn tiling_warning(
    opts: &Options,
    region: &Region,
    summary: &[Done],
) -> Option<Diagnostic> {
    let (sizes, bands) = summary.iter().find_map(|d| match d {
        Done::Tiled { sizes, bands } => Some((sizes, bands)),
        _ => None,
    })?;
    let (_, partial) = tiled_summary(region, sizes, bands);
    let deepest = bands.iter().map(|b| b.loops).max().unwrap_or(0);
    let message = if opts.tile_sizes.is_some() && !bands.is_empty() && sizes.len() > deepest {
        let ignored = &sizes[..sizes.len() - deepest];
        format!(
            "--tile-sizes {sizes:?}: the sizes {ignored:?} are ignored: the deepest band tiled has {deepest} loop(s), and sizes apply to the innermost loops; tiled: {}",
            tiled_details(region, bands)
        )
    } else if partial && opts.tile_sizes.is_some() {
        format!(
            "--tile-sizes {sizes:?} is applied only in part: {}",
            tiled_details(region, bands)
        )
    } else if partial {
        format!(
            "tiling with sizes {sizes:?} is applied only in part: {}",
            tiled_details(region, bands)
        )
    } else {
        return None;
    };
    Some(Diagnostic::warning(region.pragma_span, message))
}

/// Per band: the sizes applied and the loops (iterator names of the band's
/// first statement) they apply to, or that the band is left untiled.
fn tiled_loops(region: &Region, bands: &[tile::TiledBand]) -> String {
    if bands.is_empty() {
        return "nothing (no loop to tile)".to_string();
    }
    let parts: Vec<String> = bands
        .iter()
        .map(|b| {
            let iters = b
                .stages
                .first()
                .and_then(|n| region.stages.iter().find(|s| &s.name == n))
                .map(|s| s.iterators.as_slice())
                .unwrap_or_default();
            let name = |d: usize| {
                iters
                    .get(d)
                    .map_or_else(|| format!("#{}", d + 1), |i| format!("'{i}'"))
            };
            if b.sizes.is_empty() {
                let loops: Vec<String> = (b.first..b.first + b.loops).map(name).collect();
                format!("loop(s) {} untiled", loops.join(", "))
            } else {
                let loops: Vec<String> = (b.first..b.first + b.sizes.len()).map(name).collect();
                format!("{:?} on loop(s) {}", b.sizes, loops.join(", "))
            }
        })
        .collect();
    parts.join("; ")
}

/// [`tiled_loops`] with the statements of each band, for warnings.
pub(super) fn tiled_details(region: &Region, bands: &[tile::TiledBand]) -> String {
    let parts: Vec<String> = bands
        .iter()
        .map(|b| {
            let labels: Vec<&str> = b
                .stages
                .iter()
                .filter_map(|n| region.stages.iter().find(|s| &s.name == n))
                .map(|s| s.label.as_str())
                .collect();
            format!(
                "{} ({})",
                tiled_loops(region, std::slice::from_ref(b)),
                labels.join(", ")
            )
        })
        .collect();
    parts.join("; ")
}
