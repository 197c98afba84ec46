//! What a region's banner says the passes did, as data: the passes record
//! [`Done`] entries, the driver prints them, and the entries of a region
//! lowered in parts ([`super::parts`]) merge into the ones the region
//! lowered whole would have.

use super::grouping::never_stored_line;
use super::lower::model_sizes;
use super::tiling::tiled_summary;
use crate::model::program::Region;
use crate::transform::tile::TiledBand;

/// One entry of a region's banner.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Done {
    /// Overlapped tiling: `head`, then, where the cost model chose them,
    /// each tiled group's sizes (in the order the groups run).
    Overlap {
        head: String,
        groups: Option<Vec<Vec<i64>>>,
    },
    /// Intra-tile fusion for register reuse: stages in fused point loops.
    IntraFusion { stages: usize, loops: usize },
    /// Multi-level tiling: groups with inner tiles for L1.
    MultiLevel { groups: usize },
    /// Temporaries that never reach memory (the region's temporaries by
    /// these names).
    NeverStored(Vec<String>),
    /// Temporaries contracted (`data to shape`), and the sets of them that
    /// share one allocation.
    Contracted {
        buffers: Vec<String>,
        shared: Vec<Vec<String>>,
    },
    /// Classic tiling (`--tile`) with `sizes`: what it did to each band
    /// (in the order the bands run).
    Tiled {
        sizes: Vec<i64>,
        bands: Vec<TiledBand>,
    },
    /// What the other passes did (the chain's schedule items, tiling, the
    /// simplifications of the code generation budget), said the same way
    /// wherever it applies.
    Text(String),
    /// Which loops run in parallel ("OpenMP").
    Parallel(String),
    /// What the checks could not do in full (dependences past their
    /// budget, a validity check not completed).
    Check(String),
}

impl Done {
    /// The entry as the banner prints it (`region`: whose temporaries the
    /// names of [`Done::NeverStored`] are).
    pub(super) fn render(&self, region: &Region) -> String {
        match self {
            Done::Overlap { head, groups: None } => head.clone(),
            Done::Overlap {
                head,
                groups: Some(g),
            } => format!("{head}{}", model_sizes(g)),
            Done::IntraFusion { stages, loops } => format!(
                "intra-tile fusion for register reuse ({stages} stages in {loops} point loop(s))"
            ),
            Done::MultiLevel { groups } => {
                format!("multi-level tiling (inner tiles for L1 in {groups} group(s))")
            }
            Done::NeverStored(names) => never_stored_line(region, names),
            Done::Contracted { buffers, shared } => {
                let shared: String = shared
                    .iter()
                    .map(|p| format!("; {} share one allocation", p.join(" and ")))
                    .collect();
                format!("temporaries contracted: {}{shared}", buffers.join(", "))
            }
            Done::Tiled { sizes, bands } => tiled_summary(region, sizes, bands).0,
            Done::Text(t) | Done::Parallel(t) | Done::Check(t) => t.clone(),
        }
    }

    /// Where the entry goes in a banner merged from parts: the order in
    /// which the passes record them.
    fn rank(&self) -> u8 {
        match self {
            Done::Overlap { .. } => 0,
            Done::IntraFusion { .. } => 1,
            Done::MultiLevel { .. } => 2,
            Done::Tiled { .. } | Done::Text(_) => 3,
            Done::NeverStored(_) => 4,
            Done::Parallel(_) => 5,
            Done::Contracted { .. } => 6,
            Done::Check(_) => 7,
        }
    }

    /// `other`, an entry of a later part, folded into this one where they
    /// are of one kind; gives it back where not.
    fn absorb(&mut self, other: Done) -> Option<Done> {
        match (self, other) {
            (
                Done::Overlap {
                    head,
                    groups: Some(g),
                },
                Done::Overlap {
                    head: h,
                    groups: Some(more),
                },
            ) if *head == h => g.extend(more),
            (
                Done::Overlap { head, groups: None },
                Done::Overlap {
                    head: h,
                    groups: None,
                },
            ) if *head == h => {}
            (
                Done::IntraFusion { stages, loops },
                Done::IntraFusion {
                    stages: s,
                    loops: l,
                },
            ) => {
                *stages += s;
                *loops += l;
            }
            (Done::MultiLevel { groups }, Done::MultiLevel { groups: g }) => *groups += g,
            (Done::NeverStored(names), Done::NeverStored(more)) => names.extend(more),
            (Done::Tiled { sizes, bands }, Done::Tiled { sizes: s, bands: b }) if *sizes == s => {
                bands.extend(b)
            }
            (
                Done::Contracted { buffers, shared },
                Done::Contracted {
                    buffers: b,
                    shared: s,
                },
            ) => {
                buffers.extend(b);
                shared.extend(s);
            }
            (Done::Text(t), Done::Text(u))
            | (Done::Parallel(t), Done::Parallel(u))
            | (Done::Check(t), Done::Check(u))
                if *t == u => {}
            (_, other) => return Some(other),
        }
        None
    }
}

/// The banner entries of a region lowered in parts, from each part's in
/// the order the parts run: entries of one kind become one (their groups,
/// counts and names in the parts' order), ordered as the passes record
/// them.
pub(super) fn merge(parts: Vec<Vec<Done>>) -> Vec<Done> {
    let mut all: Vec<Done> = parts.into_iter().flatten().collect();
    // Stable: within a rank, the parts' order.
    all.sort_by_key(Done::rank);
    let mut merged: Vec<Done> = Vec::new();
    'entries: for mut d in all {
        for m in merged.iter_mut() {
            match m.absorb(d) {
                None => continue 'entries,
                Some(back) => d = back,
            }
        }
        merged.push(d);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlap(groups: &[&[i64]]) -> Done {
        Done::Overlap {
            head: "overlapped tiling (Rectangle trapezoids), groups and tile sizes from the cost model: ".into(),
            groups: Some(groups.iter().map(|g| g.to_vec()).collect()),
        }
    }

    /// Two parts' banners: one entry per kind, the groups and names in the
    /// parts' order, a kind only one part has where the passes put it.
    #[test]
    fn parts_merge_into_one_banner() {
        let first = vec![
            overlap(&[&[8, 256]]),
            Done::NeverStored(vec!["a".into()]),
            Done::Parallel("OpenMP".into()),
        ];
        let second = vec![
            overlap(&[&[8, 256], &[32, 64]]),
            Done::IntraFusion {
                stages: 3,
                loops: 1,
            },
            Done::NeverStored(vec!["b".into()]),
            Done::Parallel("OpenMP".into()),
            Done::Check("validity check not completed (isl operation budget)".into()),
            Done::Text("groups of at most 4 stages".into()),
        ];
        assert_eq!(
            merge(vec![first, second]),
            vec![
                overlap(&[&[8, 256], &[8, 256], &[32, 64]]),
                Done::IntraFusion {
                    stages: 3,
                    loops: 1
                },
                Done::Text("groups of at most 4 stages".into()),
                Done::NeverStored(vec!["a".into(), "b".into()]),
                Done::Parallel("OpenMP".into()),
                Done::Check("validity check not completed (isl operation budget)".into()),
            ]
        );
    }

    /// Classic tiling's bands join in the parts' order where the sizes are
    /// the region's.
    #[test]
    fn tiled_bands_of_parts_join() {
        let band = |stage: &str, sizes: &[i64]| TiledBand {
            stages: vec![stage.into()],
            first: 0,
            loops: 2,
            sizes: sizes.to_vec(),
        };
        let tiled = |bands: Vec<TiledBand>| Done::Tiled {
            sizes: vec![4, 8],
            bands,
        };
        let parallel = Done::Parallel("OpenMP".into());
        let merged = merge(vec![
            vec![tiled(vec![band("S0", &[4, 8])]), parallel.clone()],
            vec![
                tiled(vec![band("S1", &[8]), band("S2", &[])]),
                parallel.clone(),
            ],
        ]);
        assert_eq!(
            merged,
            vec![
                tiled(vec![band("S0", &[4, 8]), band("S1", &[8]), band("S2", &[])]),
                parallel
            ]
        );
    }

    /// Different texts and different overlapped tiling heads stay apart.
    #[test]
    fn different_entries_stay_apart() {
        let a = Done::Overlap {
            head: "overlapped tiling (Rectangle trapezoids) [32, 256]".into(),
            groups: None,
        };
        let b = Done::Overlap {
            head: "overlapped tiling (Rectangle trapezoids) [8, 256]".into(),
            groups: None,
        };
        let merged = merge(vec![vec![a.clone()], vec![b.clone(), a.clone()]]);
        assert_eq!(merged, vec![a, b]);
    }
}
