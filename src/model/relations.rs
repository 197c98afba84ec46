//! Relations between statement instances, indexed by statement.
//!
//! isl's `apply_domain`/`apply_range` on union maps compare every relation of
//! one operand with every relation of the other, so mapping the dependences
//! of a chain of a thousand nests through their schedules takes a million
//! comparisons. [`ByStatement`] looks each statement's relations up by name
//! instead: the same result, in time linear in the relations.

use crate::diag::Result;
use crate::model::isl_ext::isl_err;
use isl_rs::{DimType, Map, Set, Space, UnionMap, UnionSet};
use std::collections::HashMap;

/// The relations of a union map, by the name of their domain tuple (a
/// statement), in isl's order.
pub struct ByStatement {
    maps: HashMap<String, Vec<Map>>,
}

impl ByStatement {
    /// Indexes the relations of `umap`.
    pub fn new(umap: &UnionMap) -> Result<ByStatement> {
        let mut maps: HashMap<String, Vec<Map>> = HashMap::new();
        for m in map_list(umap)? {
            let name = m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string();
            maps.entry(name).or_default().push(m);
        }
        Ok(ByStatement { maps })
    }

    /// `m` composed with the relations of the statement its range names
    /// (isl's `apply_range`, for one relation): one relation per match.
    pub fn apply_range(&self, m: &Map) -> Result<Vec<Map>> {
        let name = m.get_tuple_name(DimType::Out).map_err(isl_err)?;
        let mut out = Vec::new();
        let space = m.get_space().map_err(isl_err)?;
        for f in self.maps.get(name).into_iter().flatten() {
            if tuples_match(&space, DimType::Out, f, DimType::In)? {
                out.push(
                    m.copy()
                        .and_then(|m| m.apply_range(f.copy()?))
                        .map_err(isl_err)?,
                );
            }
        }
        Ok(out)
    }

    /// The part of `m` whose ends have the same image (`{ x -> y in m :
    /// f(x) = f(y) }`, this union map as `f`; isl's intersection of `m` with
    /// `f.apply_range(f.reverse())`), or `None` when no relations of `f`
    /// start at both ends.
    pub fn same_image(&self, m: Map) -> Result<Option<Map>> {
        let from = m.get_tuple_name(DimType::In).map_err(isl_err)?;
        let to = m.get_tuple_name(DimType::Out).map_err(isl_err)?;
        let mut same: Option<Map> = None;
        for f in self.maps.get(from).into_iter().flatten() {
            let f_space = f.get_space().map_err(isl_err)?;
            for g in self.maps.get(to).into_iter().flatten() {
                if !tuples_match(&f_space, DimType::Out, g, DimType::Out)? {
                    continue;
                }
                let fg = f
                    .copy()
                    .and_then(|f| f.apply_range(g.copy()?.reverse()?))
                    .map_err(isl_err)?;
                same = Some(match same {
                    Some(s) => s.union(fg).map_err(isl_err)?,
                    None => fg,
                });
            }
        }
        same.map(|s| m.intersect(s).map_err(isl_err)).transpose()
    }

    /// The relations of the statement `m` starts at, each with `m`'s range
    /// (isl's `flat_range_product`, for one relation).
    pub fn flat_range_product(&self, m: &Map) -> Result<Vec<Map>> {
        let name = m.get_tuple_name(DimType::In).map_err(isl_err)?;
        let space = m.get_space().map_err(isl_err)?;
        let mut out = Vec::new();
        for f in self.maps.get(name).into_iter().flatten() {
            if tuples_match(&space, DimType::In, f, DimType::In)? {
                out.push(
                    m.copy()
                        .and_then(|m| m.flat_range_product(f.copy()?))
                        .map_err(isl_err)?,
                );
            }
        }
        Ok(out)
    }

    /// The image of `set` (isl's `apply`, for one set).
    pub fn apply_set(&self, set: &Set) -> Result<Vec<Set>> {
        let name = set.get_tuple_name().map_err(isl_err)?;
        let space = set.get_space().map_err(isl_err)?;
        let mut out = Vec::new();
        for f in self.maps.get(name).into_iter().flatten() {
            if tuples_match(&space, DimType::Set, f, DimType::In)? {
                out.push(
                    set.copy()
                        .and_then(|s| s.apply(f.copy()?))
                        .map_err(isl_err)?,
                );
            }
        }
        Ok(out)
    }

    /// The relations of statement `name` with their domains intersected
    /// with `set` (isl's `intersect_domain` with `set`, which keeps only
    /// that statement's relations).
    pub fn intersect_domain(&self, name: &str, set: &Set) -> Result<UnionMap> {
        let space = set.get_space().map_err(isl_err)?;
        let mut out = UnionMap::read_from_str(&set.get_ctx(), "{ }").map_err(isl_err)?;
        for f in self.maps.get(name).into_iter().flatten() {
            if tuples_match(&space, DimType::Set, f, DimType::In)? {
                let m = f
                    .copy()
                    .and_then(|f| f.intersect_domain(set.copy()?))
                    .map_err(isl_err)?;
                out = out.add_map(m).map_err(isl_err)?;
            }
        }
        Ok(out)
    }

    /// `m` with both ends mapped through the relations of their statements:
    /// `{ f(x) -> g(y) : x -> y in m }` (isl's `apply_domain` and
    /// `apply_range` with this union map, for one relation).
    pub fn apply_both(&self, m: &Map) -> Result<Vec<Map>> {
        let rev = m.copy().and_then(|m| m.reverse()).map_err(isl_err)?;
        let mut out = Vec::new();
        for r in self.apply_range(&rev)? {
            let back = r.reverse().map_err(isl_err)?;
            out.extend(self.apply_range(&back)?);
        }
        Ok(out)
    }
}

/// Whether tuple `a_type` of `a` is tuple `f_type` of `f` (name and
/// dimensions; the parameters do not matter, as in isl's union operations,
/// which align them).
fn tuples_match(a: &Space, a_type: DimType, f: &Map, f_type: DimType) -> Result<bool> {
    let f = f.get_space().map_err(isl_err)?;
    a.tuple_is_equal(a_type, &f, f_type).map_err(isl_err)
}

/// The relations of `umap` whose domain and range tuple names `keep`
/// accepts: isl's intersection with universe domains and ranges of those
/// names, without its work on each relation.
pub fn select_by_name(umap: &UnionMap, keep: impl Fn(&str, &str) -> bool) -> Result<UnionMap> {
    let mut out = UnionMap::read_from_str(&umap.get_ctx(), "{ }").map_err(isl_err)?;
    for m in map_list(umap)? {
        let from = m.get_tuple_name(DimType::In).map_err(isl_err)?;
        let to = m.get_tuple_name(DimType::Out).map_err(isl_err)?;
        if keep(from, to) {
            out = out.add_map(m).map_err(isl_err)?;
        }
    }
    Ok(out)
}

/// `acc ∪ add`, for an `acc` that grows by many small `add`s. isl aligns
/// the parameters of both operands of a union to each other's: an `add`
/// with fewer parameters (an empty `{ }` has none) would rebuild all of
/// `acc` each time (quadratic in a region of 4 000 nests). `add` is aligned
/// to `acc` first, so `acc` is rebuilt only for a parameter it lacks.
pub fn grow(acc: UnionMap, add: UnionMap) -> Result<UnionMap> {
    let add = add
        .align_params(acc.get_space().map_err(isl_err)?)
        .map_err(isl_err)?;
    acc.union(add).map_err(isl_err)
}

/// The relations of `umap`, in isl's order.
pub fn map_list(umap: &UnionMap) -> Result<Vec<Map>> {
    let list = umap.get_map_list().map_err(isl_err)?;
    let n = list.size().map_err(isl_err)?;
    (0..n).map(|i| list.get_at(i).map_err(isl_err)).collect()
}

/// The sets of `uset`, in isl's order.
pub fn set_list(uset: &UnionSet) -> Result<Vec<Set>> {
    let list = uset.get_set_list().map_err(isl_err)?;
    let n = list.size().map_err(isl_err)?;
    (0..n).map(|i| list.get_at(i).map_err(isl_err)).collect()
}

/// `a.apply_range(b)` (isl's, for union maps), in linear time.
pub fn apply_range(a: &UnionMap, b: &ByStatement) -> Result<UnionMap> {
    let mut out = UnionMap::read_from_str(&a.get_ctx(), "{ }").map_err(isl_err)?;
    for m in map_list(a)? {
        for r in b.apply_range(&m)? {
            out = out.add_map(r).map_err(isl_err)?;
        }
    }
    Ok(out)
}

/// `a.flat_range_product(b)` (isl's, for union maps), in linear time.
pub fn flat_range_product(a: &UnionMap, b: &ByStatement) -> Result<UnionMap> {
    let mut out = UnionMap::read_from_str(&a.get_ctx(), "{ }").map_err(isl_err)?;
    for m in map_list(a)? {
        for r in b.flat_range_product(&m)? {
            out = out.add_map(r).map_err(isl_err)?;
        }
    }
    Ok(out)
}

/// `set.apply(f)` (isl's, for union sets), in linear time.
pub fn apply_set(set: &UnionSet, f: &ByStatement) -> Result<UnionSet> {
    let mut out = UnionSet::read_from_str(&set.get_ctx(), "{ }").map_err(isl_err)?;
    let list = set.get_set_list().map_err(isl_err)?;
    for i in 0..list.size().map_err(isl_err)? {
        let s = list.get_at(i).map_err(isl_err)?;
        for r in f.apply_set(&s)? {
            out = out.add_set(r).map_err(isl_err)?;
        }
    }
    Ok(out)
}

/// `deps` with both ends mapped through `f` (isl's
/// `deps.apply_domain(f).apply_range(f)`), in linear time.
pub fn apply_both(deps: &UnionMap, f: &ByStatement) -> Result<UnionMap> {
    let mut out = UnionMap::read_from_str(&deps.get_ctx(), "{ }").map_err(isl_err)?;
    for m in map_list(deps)? {
        for r in f.apply_both(&m)? {
            out = out.add_map(r).map_err(isl_err)?;
        }
    }
    Ok(out)
}

/// A schedule map `exec` with every range padded with zeros to the longest
/// one, so that all instances are ordered in one space (isl's schedule maps
/// give statements at different depths ranges of different dimensions; a
/// sequence position always separates them before the padding).
pub fn pad_ranges(exec: &UnionMap) -> Result<UnionMap> {
    let list = exec.get_map_list().map_err(isl_err)?;
    let n = list.size().map_err(isl_err)?;
    let mut maps: Vec<Map> = Vec::new();
    for i in 0..n {
        maps.push(list.get_at(i).map_err(isl_err)?);
    }
    let mut longest = 0;
    for m in &maps {
        longest = longest.max(m.range_tuple_dim().map_err(isl_err)? as usize);
    }
    let ctx = exec.get_ctx();
    let mut out = UnionMap::read_from_str(&ctx, "{ }").map_err(isl_err)?;
    for m in maps {
        let d = m.range_tuple_dim().map_err(isl_err)? as usize;
        let mut m = m
            .reset_tuple_id(DimType::Out)
            .and_then(|m| m.add_dims(DimType::Out, (longest - d) as u32))
            .map_err(isl_err)?;
        for k in d..longest {
            m = m.fix_si(DimType::Out, k as u32, 0).map_err(isl_err)?;
        }
        out = out.add_map(m).map_err(isl_err)?;
    }
    Ok(out)
}

/// One affine constraint of [`constrained`]: `sum(coefficient * dimension)
/// + constant` is zero (`eq`) or non-negative.
#[derive(Debug)]
pub struct Row {
    /// An equality, else an inequality (`>= 0`).
    pub eq: bool,
    /// (kind of dimension, its position, coefficient).
    pub terms: Vec<(DimType, usize, i64)>,
    /// The constant term.
    pub constant: i64,
}

/// The relation of the map space `space` whose points satisfy `rows`: what
/// isl would read from the text of those constraints, built without its
/// parser (which dominated the relations the overlap analyses build per
/// stage and candidate group).
pub fn constrained(space: &Space, rows: &[Row]) -> Result<Map> {
    let ls = isl_rs::LocalSpace::from_space(space.copy().map_err(isl_err)?).map_err(isl_err)?;
    let mut bmap = isl_rs::BasicMap::universe(space.copy().map_err(isl_err)?).map_err(isl_err)?;
    let small = |v: i64| {
        i32::try_from(v).map_err(|_| {
            crate::diag::Error::internal(format!(
                "a coefficient {v} does not fit isl's small integers"
            ))
        })
    };
    for row in rows {
        let ls = ls.copy().map_err(isl_err)?;
        let mut c = match row.eq {
            true => isl_rs::Constraint::alloc_equality(ls),
            false => isl_rs::Constraint::alloc_inequality(ls),
        }
        .map_err(isl_err)?;
        for (kind, pos, v) in &row.terms {
            c = c
                .set_coefficient_si(*kind, *pos as i32, small(*v)?)
                .map_err(isl_err)?;
        }
        c = c.set_constant_si(small(row.constant)?).map_err(isl_err)?;
        bmap = bmap.add_constraint(c).map_err(isl_err)?;
    }
    Map::from_basic_map(bmap).map_err(isl_err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::isl_ext::new_context;

    /// Each helper equals isl's union operation, also where the operands'
    /// parameters differ and a statement has relations to several spaces.
    #[test]
    fn helpers_equal_isl_union_operations() {
        let ctx = new_context();
        let map = |s: &str| UnionMap::read_from_str(&ctx, s).unwrap();
        let deps =
            map("[N] -> { S[i] -> T[i + 1] : 0 <= i < N; T[j] -> T[j + 2] : j < N; U[j] -> S[j] }");
        let f = map(
            "[M] -> { T[k] -> [k, M]; T[k] -> V[k, k]; S[i] -> [i, 0]; U[j] -> [j, 1] : j > M }",
        );
        let by = ByStatement::new(&f).unwrap();
        let isl_range = deps.copy().unwrap().apply_range(f.copy().unwrap()).unwrap();
        assert!(apply_range(&deps, &by)
            .unwrap()
            .is_equal(&isl_range)
            .unwrap());
        let isl_both = deps
            .copy()
            .unwrap()
            .apply_domain(f.copy().unwrap())
            .unwrap()
            .apply_range(f.copy().unwrap())
            .unwrap();
        assert!(apply_both(&deps, &by).unwrap().is_equal(&isl_both).unwrap());
        let g = map("{ S[i] -> [7]; T[k] -> [k]; U[j] -> [2 * j] }");
        let isl_product = deps
            .copy()
            .unwrap()
            .flat_range_product(g.copy().unwrap())
            .unwrap();
        let product = flat_range_product(&deps, &ByStatement::new(&g).unwrap()).unwrap();
        assert!(product.is_equal(&isl_product).unwrap());
        let dom = deps.copy().unwrap().domain().unwrap();
        let isl_image = dom.copy().unwrap().apply(f.copy().unwrap()).unwrap();
        assert!(apply_set(&dom, &by).unwrap().is_equal(&isl_image).unwrap());
        let same = f
            .copy()
            .unwrap()
            .apply_range(f.copy().unwrap().reverse().unwrap())
            .unwrap();
        let isl_same = deps.copy().unwrap().intersect(same).unwrap();
        let mut ours = UnionMap::read_from_str(&ctx, "{ }").unwrap();
        for m in map_list(&deps).unwrap() {
            if let Some(m) = by.same_image(m).unwrap() {
                ours = ours.add_map(m).unwrap();
            }
        }
        assert!(ours.is_equal(&isl_same).unwrap());
        // One statement's relations over part of its domain.
        let part = Set::read_from_str(&ctx, "[N] -> { T[k] : k >= N }").unwrap();
        let isl_part = f
            .copy()
            .unwrap()
            .intersect_domain(UnionSet::from_set(part.copy().unwrap()).unwrap())
            .unwrap();
        assert!(by
            .intersect_domain("T", &part)
            .unwrap()
            .is_equal(&isl_part)
            .unwrap());
        // Selection by name is intersection with universes.
        let universe = UnionSet::read_from_str(&ctx, "{ S[i]; T[j] }").unwrap();
        let isl_selected = deps
            .copy()
            .unwrap()
            .intersect_domain(universe.copy().unwrap())
            .unwrap()
            .intersect_range(universe)
            .unwrap();
        let selected = select_by_name(&deps, |a, b| a != "U" && b != "U").unwrap();
        assert!(selected.is_equal(&isl_selected).unwrap());
    }

    /// A relation built from constraints is the one isl reads from their
    /// text, printed alike (names and constraints).
    #[test]
    fn constrained_relation_is_the_parsed_one() {
        let ctx = new_context();
        let text = "[N] -> { S[i0, i1] -> [T0, T1] : T0 = 0 and 0 <= 2i1 - 8T1 + 1 <= 7 }";
        let space = Space::alloc(&ctx, 1, 2, 2)
            .and_then(|s| s.set_dim_name(DimType::Param, 0, "N"))
            .and_then(|s| s.set_tuple_name(DimType::In, "S"))
            .and_then(|s| s.set_dim_name(DimType::In, 0, "i0"))
            .and_then(|s| s.set_dim_name(DimType::In, 1, "i1"))
            .and_then(|s| s.set_dim_name(DimType::Out, 0, "T0"))
            .and_then(|s| s.set_dim_name(DimType::Out, 1, "T1"))
            .unwrap();
        let (i, o) = (DimType::In, DimType::Out);
        let rows = [
            Row {
                eq: true,
                terms: vec![(o, 0, 1)],
                constant: 0,
            },
            Row {
                eq: false,
                terms: vec![(i, 1, 2), (o, 1, -8)],
                constant: 1,
            },
            Row {
                eq: false,
                terms: vec![(i, 1, -2), (o, 1, 8)],
                constant: 6,
            },
        ];
        let built = constrained(&space, &rows).unwrap();
        let parsed = Map::read_from_str(&ctx, text).unwrap();
        assert!(built.is_equal(&parsed).unwrap());
        assert_eq!(built.to_str().unwrap(), parsed.to_str().unwrap());
        let too_big = [Row {
            eq: true,
            terms: vec![(o, 0, 1 << 40)],
            constant: 0,
        }];
        assert!(constrained(&space, &too_big).is_err());
    }
}
