//! The GPU cost model's last word on a group once its tree and storage plan
//! are built (Jangda & Guha, PACT'20, §6 and §5): its scheme and block chosen again with
//! the plan's exact scratchpad bytes, and, where the choice is hybrid
//! tiles, their registers planned (`transform::hybrid`) or, for a group
//! that does not qualify, one tile per warp instead.

use super::OverlapSpec;
use crate::model::polyhedral::Names;
use crate::model::storage::StoragePlan;
use crate::transform::gpu_cost::{choose, GpuCosted, GpuSpec, GpuTiling};
use crate::transform::overlap_groups::Analysed;
use log::info;

/// The GPU cost model's choice for the group `a`, the last group of
/// `storage`: where a tile's scratchpads there take other bytes than the
/// geometry's estimate (buffer sharing, the loads of an array updated in
/// place), scheme and block are chosen again at its tile sizes with them.
pub(super) fn refined(a: &Analysed, exact: Option<u64>, spec: &OverlapSpec) -> Option<GpuCosted> {
    let (c, geo) = a.gpu.as_ref()?;
    match (exact, &spec.model.gpu) {
        (Some(bytes), Some(gs)) if bytes != c.tile_shared => {
            let again = choose(geo, gs, Some(&c.sizes), Some(bytes));
            info!(
                "gpu cost: a tile's scratchpads take {bytes} bytes, estimated {}: {}",
                c.tile_shared,
                match &again {
                    Some(n) => format!("chose again: {}", n.describe(gs.gpu)),
                    None => "no block fits them; the estimate's choice stays".to_string(),
                }
            );
            again.or_else(|| Some(c.clone()))
        }
        _ => Some(c.clone()),
    }
}

/// Where the GPU cost model chose hybrid tiles for the group `a`, plans
/// them in its storage plan `st` (`transform::hybrid`); a group that does
/// not qualify gets the cheapest tile per warp instead, and with
/// `--gpu-tiling hybrid` why (which the driver reports; `auto` only logs it).
pub(super) fn with_registers(
    a: &Analysed,
    names: &Names,
    st: &mut StoragePlan,
    choice: Option<GpuCosted>,
    spec: &OverlapSpec,
) -> (Option<GpuCosted>, Option<String>) {
    let (Some(c), Some(gs)) = (&choice, &spec.model.gpu) else {
        return (choice, None);
    };
    if c.scheme != GpuTiling::Hybrid {
        // The model found no hybrid candidate: why, unless the group has
        // nothing to keep in registers.
        let why = match (gs.scheme, &a.gpu) {
            (Some(GpuTiling::Hybrid), Some((_, geo))) => {
                crate::transform::gpu_cost::hybrid_obstacle(geo, &c.sizes, gs.block.map(|b| b[0]))
            }
            _ => None,
        };
        return (choice, why);
    }
    let tiles = c.reg_tiles as usize;
    match crate::transform::hybrid::plan(&a.region, names, &a.analysis, st, tiles) {
        Ok(true) => {
            info!("hybrid tiles: {tiles} parallelogram tile(s) per statement in registers");
            (choice, None)
        }
        // Nothing to hold: one tile per warp.
        Ok(false) => (
            Some(GpuCosted {
                scheme: GpuTiling::Warp,
                reg_tiles: 0,
                ..c.clone()
            }),
            None,
        ),
        Err(why) => {
            info!("hybrid tiles: the group keeps its scratchpads: {why}");
            let warp = GpuSpec {
                scheme: Some(GpuTiling::Warp),
                ..*gs
            };
            let exact = st.tile_bytes(0, u64::MAX / 4);
            let again = a
                .gpu
                .as_ref()
                .and_then(|(_, geo)| choose(geo, &warp, Some(&c.sizes), exact));
            let again = again.or_else(|| {
                Some(GpuCosted {
                    scheme: GpuTiling::Warp,
                    reg_tiles: 0,
                    ..c.clone()
                })
            });
            match gs.scheme {
                Some(GpuTiling::Hybrid) => (again, Some(why)),
                _ => (again, None),
            }
        }
    }
}
