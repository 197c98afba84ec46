//! The storage plan of a region (Zhao & Cohen §3.7, "reducing the memory
//! footprint"; Davis et al. §4.4, "mapping data to memory"): the buffers
//! flextile allocates itself, each with its element type, extents, index
//! function (offset and modulus per dimension) and the data sets mapped to
//! it, and the typed roles of the statements generated to move data between
//! buffers and the original arrays.
//!
//! Passes edit the plan (`transform::storage` chooses the scratchpads of
//! overlapped tiles); the back ends read it. Nothing here is encoded in a
//! statement or array name.

use crate::diag::{Error, Result};
use crate::model::expr::Expr;
use std::collections::{BTreeMap, BTreeSet};

/// A variable of an affine function in the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// Tile coordinate `d` (the `d`-th leading argument of a statement instance in a tile).
    Tile(usize),
    /// Index `d` of the data element a load or guard ranges over.
    Index(usize),
    /// A parameter, by its C name.
    Param(String),
}

/// `constant + Σ coefficient · term`, integral.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Affine {
    /// Constant term.
    pub constant: i64,
    /// Non-zero coefficients, in the order they are printed.
    pub terms: Vec<(Term, i64)>,
}

impl Affine {
    /// `self + k · t` (`self` when `k` is 0).
    pub fn plus(mut self, k: i64, t: Term) -> Affine {
        if k != 0 {
            self.terms.push((t, k));
        }
        self
    }

    /// A constant function.
    pub fn constant(c: i64) -> Affine {
        Affine {
            constant: c,
            terms: Vec::new(),
        }
    }

    /// The value of a constant function.
    pub fn constant_value(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// The function as an expression, each term replaced by the variable
    /// `name` gives it.
    pub fn to_expr(&self, name: &dyn Fn(&Term) -> String) -> Expr {
        self.terms
            .iter()
            .fold(Expr::Int(self.constant), |e, (t, k)| {
                Expr::sum(e, Expr::product(Expr::Int(*k), Expr::Var(name(t))))
            })
    }
}

/// A union of conjunctions of affine constraints: `(a >= 0 && b == 0) || ...`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Condition {
    /// Disjuncts; each a list of `(e, equality)`: `e == 0` or `e >= 0`.
    pub disjuncts: Vec<Vec<(Affine, bool)>>,
}

/// How a buffer element is found from a data element `x`: dimension `d` is
/// `(x[d] - offset[d]) mod modulus[d]` (no modulus: the difference itself;
/// modulus 1: the dimension is dropped).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexFn {
    /// Origin per dimension, over the tile coordinates and parameters.
    pub offsets: Vec<Affine>,
    /// Modulus per dimension (a rolling window), if any.
    pub moduli: Vec<Option<i64>>,
}

/// Where a buffer is declared and how long it lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Placement {
    /// On the stack of the thread running a tile of overlapped group `group`,
    /// declared where the group's tile body starts.
    Tile {
        /// The group (index into [`StoragePlan::groups`]).
        group: usize,
    },
    /// Declared where the schedule's buffer scope `scope` starts (a mark in
    /// the schedule tree), once per execution of that subtree (per thread
    /// for [`Alloc::PerThread`]).
    Scope {
        /// The scope's number.
        scope: usize,
    },
}

/// How a buffer is allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alloc {
    /// An array on the stack (constant extents).
    Stack,
    /// `malloc` where the buffer is declared, `free` where its scope ends
    /// (extents that depend on parameters).
    Heap,
    /// `malloc` once by every thread of the parallel loops its scope holds
    /// (`#pragma omp parallel` around their `omp for`), `free` at the
    /// scope's end: each thread reuses its buffer for all its iterations.
    /// A tile's buffers too large for a thread's stack: allocated so around
    /// the parallel loop of the tiles, or by each tile where no parallel
    /// loop holds the tiles.
    PerThread,
}

impl Alloc {
    /// Whether the buffer is allocated with `malloc`.
    pub fn is_heap(self) -> bool {
        matches!(self, Alloc::Heap | Alloc::PerThread)
    }
}

/// A buffer flextile declares: it holds the values of its data sets where
/// the generated code computes them.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// C name (prefixed so that it shadows nothing of the input).
    pub name: String,
    /// Data sets (C arrays) mapped to the buffer.
    pub data: Vec<String>,
    /// C element type.
    pub elem_type: String,
    /// Extent per dimension (over the parameters).
    pub extents: Vec<Affine>,
    /// From data element to buffer element.
    pub index: IndexFn,
    /// Where it is declared.
    pub placement: Placement,
    /// How it is allocated.
    pub alloc: Alloc,
    /// The pool it shares an allocation with (buffers of one pool, in one
    /// tile or one scope, have lifetimes that do not overlap), if any: a C
    /// `union` in a tile, one `malloc` of the largest member in a scope.
    pub pool: Option<usize>,
}

impl Buffer {
    /// Number of elements, when constant.
    pub fn elements(&self) -> Option<i64> {
        self.extents
            .iter()
            .try_fold(1i64, |n, e| n.checked_mul(e.constant_value()?))
    }
}

/// A load: at the start of a tile, elements of `data` copied from the
/// original array into its buffer.
#[derive(Clone, Debug)]
pub struct Load {
    /// The data set whose buffer receives the elements.
    pub data: String,
    /// The C array the elements are read from: `data` itself, or the array
    /// `data` is a version of.
    pub source: String,
    /// When the statement runs over a box around the elements to load: the
    /// elements worth loading (over [`Term::Index`] and parameters); the
    /// others are skipped.
    pub guard: Option<Condition>,
}

/// One buffer's sliding window along the classically tiled loop: its
/// elements `step..size` move to `0..size-step` before a tile starts, since
/// the buffer's origin advances by `step` (one tile) along data dimension `dim`.
#[derive(Clone, Debug)]
pub struct Slide {
    /// Data set whose buffer slides.
    pub data: String,
    /// Data dimension along which it slides.
    pub dim: usize,
    /// Elements moved: the tile size of the classically tiled loop.
    pub step: i64,
}

/// What a statement flextile generated does.
#[derive(Clone, Debug)]
pub enum StmtRole {
    /// Copies the own tile part of stage `stage` (index in the region) from
    /// its buffers to the original arrays.
    Store {
        /// The stage whose writes are stored.
        stage: usize,
    },
    /// Fills a buffer from an original array.
    Load(Load),
    /// Moves a buffer's halo down by one tile.
    Slide(Slide),
}

/// The storage of one overlapped group.
#[derive(Clone, Debug, Default)]
pub struct GroupStorage {
    /// Names of the group's stages.
    pub stages: BTreeSet<String>,
    /// Number of tile dimensions (leading arguments of every statement instance).
    pub tile_dims: usize,
    /// Statements generated for the group (by isl name), with their roles.
    pub statements: BTreeMap<String, StmtRole>,
    /// Data sets whose values never leave the tile (versions of an array at
    /// the inner steps of a time block, temporaries): no store writes them back.
    pub unstored: BTreeSet<String>,
    /// CUDA, one tile per warp: the part of every statement's tile kept in
    /// the warp's registers (hybrid tiling, Jangda & Guha, PACT'20, §5), if any.
    pub registers: Option<RegisterTiles>,
}

/// Hybrid register/shared tiles (Jangda & Guha, PACT'20, §5): along the split (innermost)
/// loop, the right `tiles` parallelogram tiles of every statement's
/// per-tile region, each a warp's [`RegisterTiles::lanes`] wide, are
/// computed after the rest of the tile (its shared-memory part), one
/// point per lane and tile, their values in named registers; the
/// scratchpads hold the left part only. A read of a register-held value
/// is one of four cases: the thread's own register, the scratchpad (left
/// of the register part), a shuffle from a lane of the same parallelogram
/// tile, or from a lane of the one before it.
#[derive(Clone, Debug, PartialEq)]
pub struct RegisterTiles {
    /// Parallelogram tiles per statement held in registers (`K`).
    pub tiles: usize,
    /// Lanes of a parallelogram tile along the split loop (a warp).
    pub lanes: usize,
    /// The split loop (the innermost).
    pub dim: usize,
    /// The data sets whose register part lives in registers, each written
    /// by one statement of the group.
    pub held: BTreeSet<String>,
    /// The statements (stages and their stores) in the order their register
    /// parts run.
    pub parts: Vec<RegisterPart>,
}

/// One statement's register part: its instances
/// `first[d] + a[d]` (`0 <= a[d] < widths[d]`; along the split loop
/// `a = lanes * j + lane`), each computed by one lane under `guard`.
#[derive(Clone, Debug, PartialEq)]
pub struct RegisterPart {
    /// The statement (a stage, or a store of one), by its isl name.
    pub stmt: String,
    /// The stage whose iterators it runs over.
    pub stage: String,
    /// Per loop, the first iterator value of the part (over [`Term::Tile`]
    /// and parameters).
    pub first: Vec<Affine>,
    /// Per loop, the part's points (along the split loop `tiles * lanes`).
    pub widths: Vec<i64>,
    /// The instances the statement runs in a tile (over [`Term::Tile`],
    /// [`Term::Index`] for its iterators, and parameters).
    pub guard: Condition,
    /// The data set it writes into registers, if it is held.
    pub writes: Option<String>,
    /// Its reads of register-held data.
    pub reads: Vec<RegisterRead>,
}

/// A read of register-held data: access `access` of the statement reads the
/// element of `data` that the producer's register part holds at the
/// reader's coordinates plus `offset` (per loop; along the split loop a
/// negative offset reaches lanes to the left, the tile before, or the
/// scratchpad).
#[derive(Clone, Debug, PartialEq)]
pub struct RegisterRead {
    /// The access, by its position among the statement's analysed accesses.
    pub access: usize,
    /// The data read.
    pub data: String,
    /// Offset per loop from the reader's register coordinates to the producer's.
    pub offset: Vec<i64>,
}

impl GroupStorage {
    /// The store statements, with their stages.
    pub fn stores(&self) -> impl Iterator<Item = (&str, usize)> {
        self.statements.iter().filter_map(|(n, r)| match r {
            StmtRole::Store { stage } => Some((n.as_str(), *stage)),
            _ => None,
        })
    }

    /// The slide statements.
    pub fn slides(&self) -> impl Iterator<Item = (&str, &Slide)> {
        self.statements.iter().filter_map(|(n, r)| match r {
            StmtRole::Slide(s) => Some((n.as_str(), s)),
            _ => None,
        })
    }
}

/// The storage plan of a region.
#[derive(Clone, Debug, Default)]
pub struct StoragePlan {
    /// Overlapped groups in execution order.
    pub groups: Vec<GroupStorage>,
    /// Buffers, in declaration order.
    pub buffers: Vec<Buffer>,
}

impl StoragePlan {
    /// The group that schedules statement `name` (a stage or a generated
    /// statement), with its index.
    pub fn group_of(&self, name: &str) -> Option<(usize, &GroupStorage)> {
        self.groups
            .iter()
            .enumerate()
            .find(|(_, g)| g.stages.contains(name) || g.statements.contains_key(name))
    }

    /// The buffer holding `data` inside the tiles of group `group`, if any.
    pub fn tile_buffer(&self, group: usize, data: &str) -> Option<&Buffer> {
        self.buffers
            .iter()
            .find(|b| b.placement == Placement::Tile { group } && b.data.iter().any(|d| d == data))
    }

    /// The buffers declared where `at` starts.
    pub fn buffers_at(&self, at: Placement) -> impl Iterator<Item = &Buffer> {
        self.buffers.iter().filter(move |b| b.placement == at)
    }

    /// Bytes of one tile's buffers of group `group` (a pool counts once, at
    /// its largest member); an element type of unknown size counts
    /// `unknown_elem` bytes per element. `None` where an extent is not
    /// constant.
    pub fn tile_bytes(&self, group: usize, unknown_elem: u64) -> Option<u64> {
        let mut pools: BTreeMap<usize, u64> = BTreeMap::new();
        let mut total = 0u64;
        for b in self.buffers_at(Placement::Tile { group }) {
            let elem = crate::model::mdg::type_bytes(&b.elem_type).unwrap_or(unknown_elem);
            let bytes = u64::try_from(b.elements()?).ok()?.checked_mul(elem)?;
            match b.pool {
                Some(p) => {
                    let max = pools.entry(p).or_default();
                    *max = (*max).max(bytes);
                }
                None => total = total.checked_add(bytes)?,
            }
        }
        pools.values().try_fold(total, |t, b| t.checked_add(*b))
    }

    /// The buffer of a buffer scope (not a tile) holding `data`, if any.
    pub fn scope_buffer(&self, data: &str) -> Option<&Buffer> {
        self.buffers.iter().find(|b| {
            matches!(b.placement, Placement::Scope { .. }) && b.data.iter().any(|d| d == data)
        })
    }

    /// Number of buffer scopes so far (the next scope's number).
    pub fn scopes(&self) -> usize {
        self.buffers
            .iter()
            .filter_map(|b| match b.placement {
                Placement::Scope { scope } => Some(scope + 1),
                Placement::Tile { .. } => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// Appends `other`'s groups and buffers, renumbering its groups after
    /// ours; `stages[k]` is our index of `other`'s stage `k`. A statement
    /// role is found by its name in the joined schedule, so a name that
    /// both plans give a statement is an internal error: two groups' loads
    /// once shared one, and the second's were printed with the first's
    /// offsets.
    pub fn append(&mut self, mut other: StoragePlan, stages: &[usize]) -> Result<()> {
        for name in other.groups.iter().flat_map(|g| g.statements.keys()) {
            if self.group_of(name).is_some() {
                return Err(Error::internal(format!(
                    "two overlapped groups add a statement named '{name}'"
                )));
            }
        }
        let base = self.groups.len();
        for role in other
            .groups
            .iter_mut()
            .flat_map(|g| g.statements.values_mut())
        {
            if let StmtRole::Store { stage } = role {
                *stage = stages.get(*stage).copied().unwrap_or(*stage);
            }
        }
        self.groups.extend(other.groups);
        self.buffers.extend(other.buffers.into_iter().map(|mut b| {
            if let Placement::Tile { group } = b.placement {
                b.placement = Placement::Tile {
                    group: group + base,
                };
            }
            b
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine_prints_terms_in_order() {
        let a = Affine {
            constant: -2,
            terms: vec![],
        }
        .plus(32, Term::Tile(0))
        .plus(0, Term::Tile(1))
        .plus(1, Term::Param("N".into()));
        let e = a.to_expr(&|t| match t {
            Term::Tile(d) => format!("c{d}"),
            Term::Index(d) => format!("x{d}"),
            Term::Param(p) => p.clone(),
        });
        assert_eq!(e.to_string(), "((-2 + (32 * c0)) + (1 * N))");
    }

    /// A tile's bytes: a pool counts once, at its largest member; a type of
    /// unknown size counts what the caller says.
    #[test]
    fn tile_bytes_count_a_pool_once() {
        let buf = |d: &str, ty: &str, n: i64, pool| Buffer {
            name: format!("ft_{d}"),
            data: vec![d.to_string()],
            elem_type: ty.into(),
            extents: vec![Affine::constant(n), Affine::constant(8)],
            index: IndexFn::default(),
            placement: Placement::Tile { group: 0 },
            alloc: Alloc::Stack,
            pool,
        };
        let plan = StoragePlan {
            groups: vec![GroupStorage::default()],
            buffers: vec![
                buf("A", "double", 4, None),
                buf("B", "float", 4, Some(0)),
                buf("C", "float", 16, Some(0)),
                buf("D", "pixel_t", 2, None),
            ],
        };
        assert_eq!(
            plan.tile_bytes(0, 32),
            Some(4 * 8 * 8 + 16 * 8 * 4 + 2 * 8 * 32)
        );
        assert_eq!(plan.tile_bytes(1, 32), Some(0));
    }

    #[test]
    fn plan_finds_buffers_by_group() {
        let buf = |g, d: &str| Buffer {
            name: format!("ft_{d}"),
            data: vec![d.to_string()],
            elem_type: "double".into(),
            extents: vec![Affine::constant(4), Affine::constant(8)],
            index: IndexFn::default(),
            placement: Placement::Tile { group: g },
            alloc: Alloc::Stack,
            pool: None,
        };
        let mut plan = StoragePlan {
            groups: vec![GroupStorage::default()],
            buffers: vec![buf(0, "A")],
        };
        let mut other = GroupStorage::default();
        other
            .statements
            .insert("S0_store".into(), StmtRole::Store { stage: 0 });
        plan.append(
            StoragePlan {
                groups: vec![other],
                buffers: vec![buf(0, "B")],
            },
            &[4],
        )
        .expect("distinct names");
        assert_eq!(
            plan.groups[1].stores().collect::<Vec<_>>(),
            [("S0_store", 4)]
        );
        assert!(plan.tile_buffer(0, "A").is_some());
        assert!(plan.tile_buffer(1, "B").is_some());
        assert!(plan.tile_buffer(0, "B").is_none());
        assert_eq!(plan.buffers_at(Placement::Tile { group: 1 }).count(), 1);
        assert_eq!(
            plan.tile_buffer(1, "B").and_then(Buffer::elements),
            Some(32)
        );
        let again = StoragePlan {
            groups: vec![plan.groups[1].clone()],
            buffers: vec![],
        };
        assert!(plan.append(again, &[4]).is_err());
    }
}
