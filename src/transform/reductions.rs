//! The dependences the parallel-loop pass may set aside for reductions:
//! those between instances of exact reductions into the same scalar with
//! the same operator (`s += a[i]` on an integer `s`, see
//! `frontend::reduction`). Such instances may run in any order, each thread
//! folding into its own copy that OpenMP's `reduction` clause combines at
//! the loop's end (Doerfert et al., IMPACT 2015, on reduction dependences
//! in Polly). Only the choice of parallel loops sees the relaxed
//! dependences: tiling, fusion and the validity check keep every one.

use crate::diag::Result;
use crate::model::isl_ext::isl_err;
use crate::model::program::{ReductionOp, Region};
use crate::model::relations::set_list;
use isl_rs::{UnionMap, UnionSet};
use std::collections::{BTreeMap, BTreeSet};

/// The statements of each exact reduction of one scalar with one
/// operator, by name.
pub fn groups(region: &Region) -> Vec<BTreeSet<String>> {
    let mut groups: BTreeMap<(&str, ReductionOp), BTreeSet<String>> = BTreeMap::new();
    for s in &region.stages {
        if let Some(r) = s.reduction.as_ref().filter(|r| r.exact) {
            groups
                .entry((r.var.as_str(), r.op))
                .or_default()
                .insert(s.name.clone());
        }
    }
    groups.into_values().collect()
}

/// `deps` without the dependences between the statements of each of
/// `groups` ([`groups`]); `None` where there is none. `domain`: the
/// region's statement instances.
pub fn without_reductions(
    deps: &UnionMap,
    groups: &[BTreeSet<String>],
    domain: &UnionSet,
) -> Result<Option<UnionMap>> {
    if groups.is_empty() {
        return Ok(None);
    }
    let mut out = deps.copy().map_err(isl_err)?;
    let sets = set_list(domain)?;
    for names in groups {
        let mut instances = UnionSet::read_from_str(&domain.get_ctx(), "{ }").map_err(isl_err)?;
        for set in &sets {
            if names.contains(set.get_tuple_name().map_err(isl_err)?) {
                let one = UnionSet::from_set(set.copy().map_err(isl_err)?).map_err(isl_err)?;
                instances = instances.union(one).map_err(isl_err)?;
            }
        }
        let pairs = UnionMap::from_domain_and_range(instances.copy().map_err(isl_err)?, instances)
            .map_err(isl_err)?;
        out = out.subtract(pairs).map_err(isl_err)?;
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::isl_ext::new_context;

    #[test]
    fn only_the_dependences_inside_a_group_are_set_aside() {
        let ctx = new_context();
        let deps = UnionMap::read_from_str(
            &ctx,
            "[n] -> { S0[i] -> S0[i + 1] : 0 <= i < n - 1; S0[i] -> S1[i + 1] : 0 <= i < n - 1; S1[i] -> S2[i] : 0 <= i < n; S2[i] -> S1[i + 1] : 0 <= i < n - 1 }",
        )
        .expect("deps");
        let domain = UnionSet::read_from_str(
            &ctx,
            "[n] -> { S0[i] : 0 <= i < n; S1[i] : 0 <= i < n; S2[i] : 0 <= i < n }",
        )
        .expect("domain");
        assert!(without_reductions(&deps, &[], &domain)
            .expect("isl")
            .is_none());
        let groups = [
            BTreeSet::from(["S0".to_string()]),
            BTreeSet::from(["S1".to_string(), "S2".to_string()]),
        ];
        let kept = without_reductions(&deps, &groups, &domain)
            .expect("isl")
            .expect("relaxed");
        let want = UnionMap::read_from_str(&ctx, "[n] -> { S0[i] -> S1[i + 1] : 0 <= i < n - 1 }")
            .expect("want");
        assert!(kept.is_equal(&want).expect("isl"), "{:?}", kept.to_str());
    }
}
