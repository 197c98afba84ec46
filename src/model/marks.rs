//! The marks flextile puts in schedule trees, as typed values.
//!
//! isl carries a mark as an `isl_id`; isl-rs 0.3.1 gives ids no user
//! pointer, so the id's name is the mark's serialisation. It is written and
//! read here only: passes and back ends handle [`Mark`]s.

/// A mark node's meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Above a band whose outer members run as `omp parallel for`: the
    /// schedule depths of those members (isl's AST iterators `c<depth>`).
    Parallel {
        /// Schedule depths of the parallel members, outermost first.
        depths: Vec<usize>,
    },
    /// Above a band the user asked to run in parallel (checked by the parallel pass).
    ParallelRequested,
    /// Above a band the user asked to run serially.
    Serial,
    /// Above the expansion node of overlapped group `group`: the back end
    /// declares the group's tile buffers there.
    TileBody {
        /// Index of the group in the region's storage plan.
        group: usize,
    },
    /// Above the subtree in which buffer scope `scope` of the storage plan
    /// lives: the back end declares (and frees) its buffers there.
    BufferScope {
        /// The scope's number.
        scope: usize,
    },
    /// Above an innermost band (or above its parallel mark) whose last
    /// member, at schedule depth `depth`, carries no dependence: the back
    /// end puts `#pragma omp simd` on that member's loops.
    Simd {
        /// Schedule depth of the member (isl's AST iterator `c<depth>`).
        depth: usize,
    },
    /// Above a band below an expansion (an overlapped tile's point loops)
    /// whose members at `depths` carry no dependence between one tile's
    /// instances: the CUDA target spreads their iterations over the
    /// threads of the tile's block (`transform::threads`).
    Threads {
        /// Schedule depths of those members, outermost first.
        depths: Vec<usize>,
    },
}

const PARALLEL: &str = "parallel";
const PARALLEL_REQUESTED: &str = "parallel_requested";
const SERIAL: &str = "serial";
const TILE_BODY: &str = "tile_storage";
const BUFFER_SCOPE: &str = "buffer_scope";
const SIMD: &str = "simd";
const THREADS: &str = "threads";

impl Mark {
    /// The name of the mark's isl id.
    pub fn id(&self) -> String {
        match self {
            Mark::Parallel { depths } => std::iter::once(PARALLEL.to_string())
                .chain(depths.iter().map(|d| d.to_string()))
                .collect::<Vec<_>>()
                .join("_"),
            Mark::ParallelRequested => PARALLEL_REQUESTED.to_string(),
            Mark::Serial => SERIAL.to_string(),
            Mark::TileBody { group } => format!("{TILE_BODY}_{group}"),
            Mark::BufferScope { scope } => format!("{BUFFER_SCOPE}_{scope}"),
            Mark::Simd { depth } => format!("{SIMD}_{depth}"),
            Mark::Threads { depths } => std::iter::once(THREADS.to_string())
                .chain(depths.iter().map(|d| d.to_string()))
                .collect::<Vec<_>>()
                .join("_"),
        }
    }

    /// The mark an isl id names (`None`: not one of flextile's).
    pub fn from_id(id: &str) -> Option<Mark> {
        if id == PARALLEL_REQUESTED {
            return Some(Mark::ParallelRequested);
        }
        if id == SERIAL {
            return Some(Mark::Serial);
        }
        let numbers = |rest: &str| -> Option<Vec<usize>> {
            rest.split('_').map(|d| d.parse().ok()).collect()
        };
        if let Some(rest) = id.strip_prefix(TILE_BODY).and_then(|r| r.strip_prefix('_')) {
            return match numbers(rest)?.as_slice() {
                [group] => Some(Mark::TileBody { group: *group }),
                _ => None,
            };
        }
        if let Some(rest) = id
            .strip_prefix(BUFFER_SCOPE)
            .and_then(|r| r.strip_prefix('_'))
        {
            return match numbers(rest)?.as_slice() {
                [scope] => Some(Mark::BufferScope { scope: *scope }),
                _ => None,
            };
        }
        if let Some(rest) = id.strip_prefix(SIMD).and_then(|r| r.strip_prefix('_')) {
            return match numbers(rest)?.as_slice() {
                [depth] => Some(Mark::Simd { depth: *depth }),
                _ => None,
            };
        }
        if let Some(rest) = id.strip_prefix(THREADS).and_then(|r| r.strip_prefix('_')) {
            return Some(Mark::Threads {
                depths: numbers(rest)?,
            });
        }
        let rest = id.strip_prefix(PARALLEL)?.strip_prefix('_')?;
        Some(Mark::Parallel {
            depths: numbers(rest)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Mark;

    #[test]
    fn marks_round_trip() {
        for m in [
            Mark::Parallel { depths: vec![1, 2] },
            Mark::Parallel { depths: vec![0] },
            Mark::ParallelRequested,
            Mark::Serial,
            Mark::TileBody { group: 3 },
            Mark::BufferScope { scope: 0 },
            Mark::Simd { depth: 4 },
            Mark::Threads { depths: vec![3, 4] },
        ] {
            assert_eq!(Mark::from_id(&m.id()), Some(m));
        }
        assert_eq!(Mark::from_id("parallel_x"), None);
        assert_eq!(Mark::from_id("tile_storage_1_2"), None);
        assert_eq!(Mark::from_id("other"), None);
        assert_eq!(Mark::from_id("simd_1_2"), None);
        assert_eq!(Mark::from_id("threads_x"), None);
    }
}
