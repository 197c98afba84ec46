//! A schedule whose root is a long sequence of nests, cut into parts.
//!
//! isl's schedule map (`isl_schedule_get_map`) and its AST generator both
//! combine each child of a sequence with everything that reaches the
//! sequence, and restricting a schedule's domain (`isl_schedule_intersect_
//! domain`, whose gist copies the list of children once per child it
//! changes) is no better: work quadratic in the number of children (a
//! region of 10,000 small nests spent most of its 48 s there). So a long
//! root sequence is cut in isl's own text of the schedule: each part is the
//! schedule's domain restricted to a few dozen children's instances, and
//! those children's subtrees as isl printed them. Each part's map or AST
//! then costs what a short sequence costs, and a child is generated from
//! the same instances as in the whole sequence.
//!
//! Sequences of at most [`LONG_SEQUENCE`] children that hold instances are
//! left whole: there isl's own work is small, and their code is exactly
//! isl's.

use crate::diag::{Error, Result};
use crate::model::isl_ext::{dim_range, isl_err, IslText};
use crate::model::relations::map_list;
use isl_rs::{DimType, Schedule, ScheduleNodeType, UnionMap, UnionSet};

/// Above this many children that hold instances, a root sequence is cut.
pub const LONG_SEQUENCE: usize = 128;

/// The most children of the root sequence in one part.
pub const PART_CHILDREN: usize = 64;

/// One part of a cut root sequence.
pub struct Part {
    /// The schedule restricted to the part's instances; its root's child is
    /// a sequence of the part's children (at least two).
    pub schedule: Schedule,
    /// `schedule` as isl's text (to be read in another isl context).
    pub text: String,
    /// The position in the original root sequence of each child of
    /// `schedule`'s root sequence, in order.
    pub positions: Vec<usize>,
    /// How many statements (isl sets) the part's instances span.
    pub statements: usize,
}

/// The parts of `schedule`'s root sequence, in the sequence's order, or
/// `None` where the root's child is not a sequence of more than
/// [`LONG_SEQUENCE`] children holding instances, or where isl's text of
/// the schedule is not of the form the cut reads (it then is not cut).
pub fn cut_root_sequence(schedule: &Schedule) -> Result<Option<Vec<Part>>> {
    // Every compilation asks: a short sequence is answered without
    // intersecting its children's filters.
    if n_root_children(schedule)? <= LONG_SEQUENCE {
        return Ok(None);
    }
    let Some(held) = held_children(schedule)? else {
        return Ok(None);
    };
    if held.len() <= LONG_SEQUENCE {
        return Ok(None);
    }
    let text = schedule.text()?;
    let Some(children) = sequence_children(&text) else {
        log::debug!("a long root sequence's text is not of the form cut reads");
        return Ok(None);
    };
    if children.len() != n_root_children(schedule)? {
        return Ok(None);
    }
    let ctx = schedule.get_ctx();
    let mut parts = Vec::new();
    let n_parts = held.len().div_ceil(PART_CHILDREN);
    for k in 0..n_parts {
        let ours = &held[k * held.len() / n_parts..(k + 1) * held.len() / n_parts];
        let mut instances = UnionSet::read_from_str(&ctx, "{ }").map_err(isl_err)?;
        let mut texts = Vec::new();
        for (i, here) in ours {
            instances = instances
                .union(here.copy().map_err(isl_err)?)
                .map_err(isl_err)?;
            texts.push(children[*i]);
        }
        let statements = instances.n_set().map_err(isl_err)? as usize;
        let text = format!(
            "{{ domain: \"{}\", child: {{ sequence: [ {} ] }} }}",
            instances.text()?,
            texts.join(", ")
        );
        let part = Schedule::read_from_str(&ctx, &text).map_err(isl_err)?;
        if n_root_children(&part)? != ours.len() {
            return Ok(None);
        }
        parts.push(Part {
            schedule: part,
            text,
            positions: ours.iter().map(|h| h.0).collect(),
            statements,
        });
    }
    log::debug!(
        "a root sequence of {} children holding instances cut into {} parts",
        held.len(),
        parts.len()
    );
    Ok(Some(parts))
}

/// The children's texts of the root sequence in isl's text of a schedule,
/// `{ domain: "...", child: { sequence: [ C0, C1, ... ] } }`; `None` where
/// the text is not of that form.
fn sequence_children(text: &str) -> Option<Vec<&str>> {
    let rest = text.strip_prefix("{ domain: \"")?;
    let rest = &rest[rest.find('"')? + 1..];
    let body = rest
        .strip_prefix(", child: { sequence: [ ")?
        .strip_suffix(" ] } }")?;
    let (mut children, mut depth, mut quoted, mut start) = (Vec::new(), 0i64, false, 0);
    for (k, ch) in body.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            '{' | '[' if !quoted => depth += 1,
            '}' | ']' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                children.push(body[start..k].trim());
                start = k + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    children.push(body[start..].trim());
    (depth == 0 && !quoted && children.iter().all(|c| c.starts_with("{ filter: ")))
        .then_some(children)
}

/// The children of `schedule`'s root sequence whose filters hold
/// instances of its domain, with those instances; `None` where the root's
/// child is not a sequence.
pub fn held_children(schedule: &Schedule) -> Result<Option<Vec<(usize, UnionSet)>>> {
    let domain = schedule.get_domain().map_err(isl_err)?;
    let seq = schedule
        .get_root()
        .and_then(|r| r.child(0))
        .map_err(isl_err)?;
    if !matches!(seq.get_type().map_err(isl_err)?, ScheduleNodeType::Sequence) {
        return Ok(None);
    }
    let mut held = Vec::new();
    for i in 0..seq.n_children().map_err(isl_err)? {
        let here = seq
            .get_child(i)
            .and_then(|c| c.filter_get_filter())
            .and_then(|f| f.intersect(domain.copy()?))
            .map_err(isl_err)?;
        if !here.is_empty().map_err(isl_err)? {
            held.push((i as usize, here));
        }
    }
    Ok(Some(held))
}

/// The number of children of the root's sequence (0: no sequence there).
fn n_root_children(schedule: &Schedule) -> Result<usize> {
    let seq = schedule
        .get_root()
        .and_then(|r| r.child(0))
        .map_err(isl_err)?;
    if !matches!(seq.get_type().map_err(isl_err)?, ScheduleNodeType::Sequence) {
        return Ok(0);
    }
    Ok(seq.n_children().map_err(isl_err)? as usize)
}

/// `schedule.get_map()`, the same relation on the instances of the
/// schedule's domain, in `O(n log n)` for a long root sequence: each
/// part's map, its first dimension (the position in the part's sequence)
/// set back to the position in the original sequence, and every range
/// padded with zeros to the longest, as isl pads them.
pub fn schedule_map(schedule: &Schedule) -> Result<UnionMap> {
    let Some(parts) = cut_root_sequence(schedule)? else {
        return schedule.get_map().map_err(isl_err);
    };
    let mut pieces = Vec::new();
    for part in &parts {
        for m in map_list(&part.schedule.get_map().map_err(isl_err)?)? {
            let range = m.copy().and_then(|m| m.range()).map_err(isl_err)?;
            let Some((lo, hi)) = dim_range(&range, 0)? else {
                return Err(Error::internal(
                    "a part of a long sequence has no bounded position",
                ));
            };
            for j in lo..=hi {
                let at = usize::try_from(j)
                    .ok()
                    .and_then(|j| part.positions.get(j))
                    .ok_or_else(|| Error::internal("a sequence position outside its part"))?;
                let piece = m
                    .copy()
                    .and_then(|m| m.fix_si(DimType::Out, 0, j as i32))
                    .and_then(|m| m.insert_dims(DimType::Out, 0, 1))
                    .and_then(|m| m.fix_si(DimType::Out, 0, *at as i32))
                    .and_then(|m| m.project_out(DimType::Out, 1, 1))
                    .map_err(isl_err)?;
                if !piece.is_empty().map_err(isl_err)? {
                    pieces.push(piece);
                }
            }
        }
    }
    let mut longest = 0;
    for m in &pieces {
        longest = longest.max(m.range_tuple_dim().map_err(isl_err)? as usize);
    }
    let mut out = UnionMap::read_from_str(&schedule.get_ctx(), "{ }").map_err(isl_err)?;
    for m in pieces {
        let d = m.range_tuple_dim().map_err(isl_err)? as usize;
        let mut m = m
            .add_dims(DimType::Out, (longest - d) as u32)
            .map_err(isl_err)?;
        for k in d..longest {
            m = m.fix_si(DimType::Out, k as u32, 0).map_err(isl_err)?;
        }
        out = out
            .union(UnionMap::from_map(m).map_err(isl_err)?)
            .map_err(isl_err)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::isl_ext::new_context;

    /// A schedule of `n` nests, one per statement, nest `k` empty where
    /// `k % 7 == 3`, the others writing `Sk[i]` for `0 <= i < N - k % 3`.
    fn sequence_of(ctx: &isl_rs::Context, n: usize) -> Schedule {
        let domain: Vec<String> = (0..n)
            .map(|k| match k % 7 {
                3 => format!("S{k}[i] : 0 <= i < 0"),
                _ => format!("S{k}[i] : 0 <= i < N - {}", k % 3),
            })
            .collect();
        let filters: Vec<String> = (0..n)
            .map(|k| match k % 5 {
                // Some nests with a band, some a leaf under the filter.
                0 => format!("{{ filter: \"{{ S{k}[i] }}\" }}"),
                _ => format!(
                    "{{ filter: \"{{ S{k}[i] }}\", child: {{ schedule: \"[N] -> [{{ S{k}[i] -> [(i)] }}]\" }} }}"
                ),
            })
            .collect();
        let text = format!(
            "{{ domain: \"[N] -> {{ {} }}\", child: {{ sequence: [ {} ] }} }}",
            domain.join("; "),
            filters.join(", ")
        );
        Schedule::read_from_str(ctx, &text).expect("schedule")
    }

    #[test]
    fn a_long_sequence_is_cut_into_short_parts_in_order() {
        let ctx = new_context();
        let s = sequence_of(&ctx, 600);
        let parts = cut_root_sequence(&s).expect("isl").expect("cut");
        let positions: Vec<usize> = parts.iter().flat_map(|p| p.positions.clone()).collect();
        let held: Vec<usize> = (0..600).filter(|k| k % 7 != 3).collect();
        assert_eq!(positions, held);
        assert!(parts
            .iter()
            .all(|p| (2..=PART_CHILDREN).contains(&p.positions.len())));
        assert_eq!(
            parts.iter().map(|p| p.statements).sum::<usize>(),
            held.len()
        );
    }

    #[test]
    fn a_short_sequence_is_not_cut() {
        let ctx = new_context();
        let s = sequence_of(&ctx, 100);
        assert!(cut_root_sequence(&s).expect("isl").is_none());
    }

    #[test]
    fn the_map_of_a_cut_sequence_is_isls_map() {
        let ctx = new_context();
        let s = sequence_of(&ctx, 600);
        let ours = schedule_map(&s).expect("isl");
        let isls = s.get_map().expect("isl");
        let domain = s.get_domain().expect("isl");
        let on = |m: &UnionMap| {
            m.copy()
                .unwrap()
                .intersect_domain(domain.copy().unwrap())
                .unwrap()
        };
        assert!(on(&ours).is_equal(&on(&isls)).expect("isl"));
    }
}
