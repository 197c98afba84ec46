//! Per-stage footprints of overlapped tiles (what `--report` prints and
//! what the overlap tolerance and `--explain` read): for each stage, the box
//! a tile computes per loop and how far its faces lie outside the tile
//! (the trapezoid of Zhao & Cohen, TACO'19 eq. 3, measured on the fixed box of the
//! stage's per-tile region).

use crate::diag::Result;
use crate::model::isl_ext::isl_err;
use crate::model::program::Region;
use crate::transform::overlap::WHOLE;
use isl_rs::{DimType, Map};

/// The per-tile footprint of one stage, for `--report`.
#[derive(Clone, Debug)]
pub struct Footprint {
    /// Stage label.
    pub stage: String,
    /// Per dimension: iterations computed per tile, and how far the left and
    /// the right face of the computed box lie outside the tile (negative:
    /// inside it, where the stage's domain is smaller than the tile). `None`
    /// for a loop that is not tiled and whose extent depends on the
    /// parameters (one tile spans all of it).
    pub dims: Vec<Option<(i64, i64, i64)>>,
    /// Tile size per dimension (the loop's extent for a loop that is not
    /// tiled; 0 with `dims` `None`).
    pub tile: Vec<i64>,
}

impl Footprint {
    /// Fraction of a full tile's work that is recomputation: of the box a
    /// tile computes (over the loops with a constant extent per tile), the
    /// part outside the tile.
    pub fn redundancy(&self) -> f64 {
        let computed: f64 = self.dims.iter().flatten().map(|d| d.0 as f64).product();
        let own: f64 = self
            .dims
            .iter()
            .flatten()
            .map(|(n, l, r)| (n - l.max(&0) - r.max(&0)) as f64)
            .product();
        if computed <= 0.0 {
            0.0
        } else {
            ((computed - own) / computed).max(0.0)
        }
    }
}

/// Footprint per stage from the fixed box of its per-tile region.
pub(crate) fn footprints(
    region: &Region,
    regions: &[Map],
    shifts: &[Vec<i64>],
    scales: &[Vec<i64>],
    sizes: &[i64],
) -> Result<Vec<Footprint>> {
    let mut out = Vec::new();
    for (k, r) in regions.iter().enumerate() {
        let per_tile = r.copy().and_then(|m| m.reverse()).map_err(isl_err)?;
        let n = sizes.len() as u32;
        let mut dims = Vec::new();
        let mut tile = Vec::new();
        for d in 0..sizes.len() {
            // The box of this loop alone: a loop that is not tiled may have an
            // extent that depends on the parameters, which the others do not.
            let d32 = d as u32;
            let bx = per_tile
                .copy()
                .and_then(|m| m.project_out(DimType::Out, d32 + 1, n - d32 - 1))
                .and_then(|m| m.project_out(DimType::Out, 0, d32))
                .and_then(|m| m.get_range_simple_fixed_box_hull())
                .map_err(isl_err)?;
            if !bx.is_valid().map_err(isl_err)? {
                dims.push(None);
                tile.push(0);
                continue;
            }
            let extent = bx
                .get_size()
                .and_then(|s| s.get_at(0))
                .and_then(|v| v.get_num_si())
                .map_err(isl_err)?;
            // Offset relative to the tile origin size*T - shift.
            let c = bx
                .get_offset()
                .and_then(|o| o.get_at(0))
                .and_then(|a| a.get_constant_val())
                .and_then(|v| v.get_num_si())
                .map_err(isl_err)?;
            // In the stage's own coordinates: a tile spans size/scale of them.
            let a = scales[k][d];
            let (left, extent_tile) = if sizes[d] >= WHOLE {
                (0, extent)
            } else {
                ((-shifts[k][d]).div_euclid(a) - c, sizes[d] / a)
            };
            let right = extent - extent_tile - left;
            tile.push(extent_tile);
            dims.push(Some((extent, left, right)));
        }
        out.push(Footprint {
            stage: region.stages[k].label.clone(),
            dims,
            tile,
        });
    }
    Ok(out)
}
