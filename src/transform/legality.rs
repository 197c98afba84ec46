//! Legality of a schedule: every dependence must go forward in time.

use crate::diag::{Result, Span};
use crate::model::deps::Dependences;
use crate::model::isl_ext::isl_err;
use crate::model::program::Region;
use crate::model::relations::{apply_both, map_list, ByStatement};
use isl_rs::{DimType, Schedule, UnionMap, UnionSet};

/// A dependence a schedule violates, described for a diagnostic.
pub struct Violation {
    /// The nest that must run first.
    pub source_label: String,
    /// Its pragma.
    pub source_span: Span,
    /// What it does to the data ("writes", "reads").
    pub source_verb: &'static str,
    /// The nest that would run too early.
    pub sink_label: String,
    /// Its pragma.
    pub sink_span: Span,
    /// What it does ("read", "overwrite").
    pub sink_verb: &'static str,
}

/// Checks that all dependences are lexicographically positive under
/// `schedule`. Returns the first violated dependence, if any.
pub fn check_schedule(
    schedule: &Schedule,
    deps: &Dependences,
    region: &Region,
) -> Result<std::result::Result<(), Violation>> {
    let kinds = [
        (&deps.flow, "writes", "read"),
        (&deps.anti, "reads", "overwrite"),
        (&deps.output, "writes", "write"),
    ];
    let smap = crate::model::sequence::schedule_map(schedule)?;
    let smap = ByStatement::new(&smap)?;
    for (umap, source_verb, sink_verb) in kinds {
        if let Err(v) = check_kind(schedule, &smap, umap, region, source_verb, sink_verb)? {
            return Ok(Err(v));
        }
    }
    Ok(Ok(()))
}

/// [`check_schedule`] for one kind of dependences; `smap` is the
/// schedule's map, by statement.
fn check_kind(
    schedule: &Schedule,
    smap: &ByStatement,
    deps: &UnionMap,
    region: &Region,
    source_verb: &'static str,
    sink_verb: &'static str,
) -> Result<std::result::Result<(), Violation>> {
    for m in map_list(deps)? {
        let src = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
        let dst = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
        let dist = apply_both(&UnionMap::from_map(m).map_err(isl_err)?, smap)?
            .deltas()
            .map_err(isl_err)?;
        if dist.is_empty().map_err(isl_err)? {
            continue;
        }
        let dims = dist
            .get_set_list()
            .and_then(|l| l.get_at(0))
            .and_then(|s| s.tuple_dim())
            .map_err(isl_err)? as usize;
        let positive = lex_positive(schedule, dims)?;
        if !dist.is_subset(&positive).map_err(isl_err)? {
            let find = |name: &str| region.stages.iter().find(|s| s.name == name);
            let (Some(a), Some(b)) = (find(&src), find(&dst)) else {
                continue;
            };
            return Ok(Err(Violation {
                source_label: a.label.clone(),
                source_span: a.span,
                source_verb,
                sink_label: b.label.clone(),
                sink_span: b.span,
                sink_verb,
            }));
        }
    }
    Ok(Ok(()))
}

/// `{ [d0, ..., dn-1] : (d0, ..., dn-1) >> 0 }`.
fn lex_positive(schedule: &Schedule, n: usize) -> Result<UnionSet> {
    let vars: Vec<String> = (0..n).map(|i| format!("d{i}")).collect();
    let mut alts = Vec::new();
    for k in 0..n {
        let mut c: Vec<String> = (0..k).map(|i| format!("d{i} = 0")).collect();
        c.push(format!("d{k} > 0"));
        alts.push(format!("({})", c.join(" and ")));
    }
    let cond = if alts.is_empty() {
        "false".to_string()
    } else {
        alts.join(" or ")
    };
    UnionSet::read_from_str(
        &schedule.get_ctx(),
        &format!("{{ [{}] : {} }}", vars.join(", "), cond),
    )
    .map_err(isl_err)
}
