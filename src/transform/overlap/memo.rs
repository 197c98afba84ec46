//! What the analyses of one region's candidate groups share (§3.2–3.7 run
//! once per candidate: the greedy grouping's gallop and the DP analyse a
//! stage in many candidate groups). A flow dependence's alignment depends
//! on its two stages alone, and a stage's tile map and its region's bounds
//! recur, with the same constraints, in every candidate that holds the stage at the
//! same sizes, shifts and scales: each is found once.

use crate::diag::{Error, Result};
use crate::model::deps::Dependences;
use crate::model::isl_ext::isl_err;
use crate::model::relations::map_list;
use crate::transform::align::{edge_alignment, Aligned, FlowEdge};
use isl_rs::{DimType, Map, UnionSet};
use std::cell::RefCell;
use std::collections::HashMap;

/// A flow dependence's alignment per loop ([`edge_alignment`]).
pub(crate) type LoopAlignments = Vec<Option<Aligned>>;

/// One region's memo, for the analyses of its candidate groups (all of
/// one model and one isl context).
pub(crate) struct AnalysisMemo {
    /// The region's flow dependences between distinct stages:
    /// (producer, consumer, dependence), in isl's order.
    flows: Vec<(String, String, Map)>,
    /// Alignments by (producer, consumer); the message where isl failed.
    aligned: RefCell<HashMap<(String, String), std::result::Result<LoopAlignments, String>>>,
    /// Relations built from text, restricted to a stage's domain, by text.
    maps: RefCell<HashMap<String, Map>>,
}

impl AnalysisMemo {
    /// The memo of the region whose dependences are `deps`.
    pub(crate) fn new(deps: &Dependences) -> Result<AnalysisMemo> {
        let mut flows = Vec::new();
        for m in map_list(&deps.flow)? {
            let from = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
            let to = m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string();
            if from != to {
                flows.push((from, to, m));
            }
        }
        Ok(AnalysisMemo {
            flows,
            aligned: RefCell::new(HashMap::new()),
            maps: RefCell::new(HashMap::new()),
        })
    }

    /// The flow dependences of `stages` (names, in the group's order)
    /// between distinct stages, with their alignments along `depth` loops,
    /// in the region's order.
    pub(crate) fn flow_edges(&self, stages: &[&str], depth: usize) -> Result<Vec<FlowEdge>> {
        let index: HashMap<&str, usize> = stages.iter().enumerate().map(|(k, s)| (*s, k)).collect();
        let mut edges = Vec::new();
        for (from, to, m) in &self.flows {
            let (Some(a), Some(b)) = (index.get(from.as_str()), index.get(to.as_str())) else {
                continue;
            };
            edges.push(FlowEdge {
                from: *a,
                to: *b,
                aligned: self.aligned(from, to, m, depth)?,
            });
        }
        Ok(edges)
    }

    /// The alignment of the dependence `m` of `from` to `to` along `depth`
    /// loops ([`edge_alignment`], found once per pair of stages).
    pub(crate) fn aligned(
        &self,
        from: &str,
        to: &str,
        m: &Map,
        depth: usize,
    ) -> Result<LoopAlignments> {
        let key = (from.to_string(), to.to_string());
        let found = self.aligned.borrow().get(&key).cloned();
        let found = match found {
            Some(found) => found,
            None => {
                let found = edge_alignment(m, depth).map_err(|e| e.first_message());
                self.aligned.borrow_mut().insert(key, found.clone());
                found
            }
        };
        found.map_err(Error::internal)
    }

    /// The relation `build` makes (which `key` names: the same key, the
    /// same relation), restricted to `domain`
    /// where given and then coalesced where `coalesce`: built once per key.
    /// `domain` must be the same for a key every time (a stage's domain in
    /// the region's model).
    pub(crate) fn map_built(
        &self,
        key: &str,
        domain: Option<&UnionSet>,
        coalesce: bool,
        build: impl FnOnce() -> Result<Map>,
    ) -> Result<Map> {
        let key = format!("{}{}{key}", domain.is_some() as u8, coalesce as u8);
        if let Some(m) = self.maps.borrow().get(&key) {
            return m.copy().map_err(isl_err);
        }
        let m = build()?;
        let m = match domain {
            Some(domain) => isl_rs::UnionMap::from_map(m)
                .and_then(|m| m.intersect_domain(domain.copy()?))
                .and_then(Map::from_union_map),
            None => Ok(m),
        };
        let m = match coalesce {
            true => m.and_then(|m| m.coalesce()),
            false => m,
        }
        .map_err(isl_err)?;
        self.maps
            .borrow_mut()
            .insert(key, m.copy().map_err(isl_err)?);
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::isl_ext::new_context;
    use isl_rs::{Context, UnionMap};

    fn memo(ctx: &Context) -> AnalysisMemo {
        let read = |s: &str| UnionMap::read_from_str(ctx, s).unwrap();
        let deps = Dependences {
            // S1 reads S0 at i - 1, S2 reads S1 at 2i (a down-sampling); S0
            // depends on itself (not an edge between stages).
            flow: read(
                "[N] -> { S0[i] -> S1[i + 1] : 0 <= i < N; S1[i] -> S2[j] : i = 2j and 0 <= j < N; S0[i] -> S0[i + 1] : 0 <= i < N }",
            ),
            anti: read("{ }"),
            output: read("{ }"),
            exact: true,
            live_in: None,
        };
        AnalysisMemo::new(&deps).unwrap()
    }

    #[test]
    fn flow_edges_of_a_group_are_those_between_its_stages() {
        let ctx = new_context();
        let m = memo(&ctx);
        let all = m.flow_edges(&["S0", "S1", "S2"], 1).unwrap();
        let mut pairs: Vec<(usize, usize)> = all.iter().map(|e| (e.from, e.to)).collect();
        pairs.sort();
        assert_eq!(pairs, [(0, 1), (1, 2)]);
        let down = all.iter().find(|e| e.from == 1).unwrap();
        let al = down.aligned[0].unwrap();
        // scale_S2 / scale_S1 = p / q = 2 (S2 reads every other point of S1).
        assert_eq!(al.p, 2 * al.q);
        // A group without S0: only S1 -> S2, indexed in the group's order.
        let part = m.flow_edges(&["S2", "S1"], 1).unwrap();
        assert_eq!(part.len(), 1);
        assert_eq!((part[0].from, part[0].to), (1, 0));
        assert_eq!(part[0].aligned, down.aligned);
    }

    #[test]
    fn a_relation_read_twice_is_the_same_and_restricted_to_the_domain() {
        let ctx = new_context();
        let m = memo(&ctx);
        let domain = UnionSet::read_from_str(&ctx, "{ S0[i] : 0 <= i < 4 }").unwrap();
        let text = "{ S0[i] -> [T] : T = floor(i / 2) }";
        let built = std::cell::Cell::new(0);
        let build = || {
            built.set(built.get() + 1);
            Map::read_from_str(&ctx, text).map_err(isl_err)
        };
        let a = m.map_built(text, Some(&domain), true, build).unwrap();
        let b = m.map_built(text, Some(&domain), true, build).unwrap();
        assert!(a.is_equal(&b).unwrap());
        assert_eq!(built.get(), 1);
        let want =
            Map::read_from_str(&ctx, "{ S0[i] -> [T] : 0 <= i < 4 and T = floor(i / 2) }").unwrap();
        assert!(a.is_equal(&want).unwrap());
        // Without the domain: the relation as written, a separate entry.
        let c = m.map_built(text, None, false, build).unwrap();
        assert!(!c.is_equal(&a).unwrap());
        assert_eq!(built.get(), 2);
    }
}
