//! Exact dataflow dependences of a region, computed by isl.
//!
//! Flow dependences are value-based (`isl_union_access_info_compute_flow`
//! with the certain writes as must-sources, so a later write kills an earlier
//! one); anti and output dependences are memory-based, transitively reduced
//! (see [`compute`]). Together they are the constraints every schedule must
//! respect.

use crate::diag::Result;
use crate::model::isl_ext::isl_err;
use crate::model::polyhedral::RegionModel;
use isl_rs::{UnionAccessInfo, UnionMap};

/// The dependences of one region, as relations between statement instances.
pub struct Dependences {
    /// Read-after-write (value-based).
    pub flow: UnionMap,
    /// Write-after-read.
    pub anti: UnionMap,
    /// Write-after-write.
    pub output: UnionMap,
}

impl Dependences {
    /// All dependences together.
    pub fn all(&self) -> Result<UnionMap> {
        let u = self.flow.copy().map_err(isl_err)?;
        let u = u
            .union(self.anti.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
        u.union(self.output.copy().map_err(isl_err)?)
            .map_err(isl_err)
    }
}

/// Computes flow, anti and output dependences under the region's original schedule.
///
/// Anti and output dependences are transitively reduced: a write depends on
/// the last certain write of the same element before it (and on the
/// uncertain ones after that), and on the reads since that write; an earlier
/// read or write is ordered before it through that last write. A schedule
/// respects the reduced set exactly when it respects all memory-based
/// dependences (lexicographic order is transitive, and distances add up, so a
/// loop carries a dependence of the full set only where it carries one of the
/// reduced set). The full sets grow with the square of the nests of a chain
/// that keeps writing the same arrays; the reduced ones linearly.
pub fn compute(model: &RegionModel) -> Result<Dependences> {
    let flow = dataflow(
        model,
        &model.reads,
        Some(&model.must_writes),
        &model.may_writes,
        None,
    )?;
    let anti = dataflow(
        model,
        &model.may_writes,
        None,
        &model.reads,
        Some(&model.must_writes),
    )?;
    let output = dataflow(
        model,
        &model.may_writes,
        Some(&model.must_writes),
        &model.may_writes,
        None,
    )?;
    Ok(Dependences { flow, anti, output })
}

/// isl dataflow analysis from `must`/`may` sources to `sink` accesses;
/// `kill` accesses end the sources before them without being sources.
fn dataflow(
    model: &RegionModel,
    sink: &UnionMap,
    must: Option<&UnionMap>,
    may: &UnionMap,
    kill: Option<&UnionMap>,
) -> Result<UnionMap> {
    let mut info = UnionAccessInfo::from_sink(sink.copy().map_err(isl_err)?).map_err(isl_err)?;
    if let Some(must) = must {
        info = info
            .set_must_source(must.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
    }
    info = info
        .set_may_source(may.copy().map_err(isl_err)?)
        .map_err(isl_err)?;
    if let Some(kill) = kill {
        info = info
            .set_kill(kill.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
    }
    info = info
        .set_schedule(model.schedule.copy().map_err(isl_err)?)
        .map_err(isl_err)?;
    let flow = info.compute_flow().map_err(isl_err)?;
    flow.get_may_dependence().map_err(isl_err)
}
