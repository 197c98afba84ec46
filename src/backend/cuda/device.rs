//! The CUDA target's data plan for one region: the device buffer of each
//! variable the region's statements access, the part of its memory copied
//! in and out, and how a kernel spells an element of it.
//!
//! A variable's buffer holds the bounding box of the elements the region
//! touches through it (isl: per subscript, the parametric minimum and
//! maximum over the accesses, as for the alias guard), flattened the way C
//! lays it out: subscript `d` steps by `sizeof` of the variable subscripted
//! `d + 1` times, so the declared inner sizes (constants, macros, variable
//! lengths) are the host compiler's own, computed once on the host. A kernel
//! reads `A[i][j]` as `d[(long long)i * s0 + j - lo]`: the very address C
//! computes, relative to the box's first element. Device code has no
//! variable-length array types; the flat index needs none.
//!
//! A subscript the region's accesses do not bound (a data-dependent one,
//! `lut[img[i][j]]`, or a declared `*`) takes the whole dimension where the
//! declaration gives its size (an inner dimension, or a true array's
//! first); else the box of the region's other accesses to the variable
//! along it. Either way the kernels check each such *gather* against the
//! buffer (its flat index, the address C computes, inside the buffer's
//! elements), and the host stops the program with the region's `file:line`
//! when one fell outside: a result is the original program's or none.
//!
//! Copies: in, for a variable the region reads, or writes and the program
//! reads afterwards (the box holds elements the region does not write);
//! out, for a variable written that is not a temporary. A temporary the
//! region only writes is never copied, nor is a shadow copy (an array that
//! overlapped tiling updates in place is written to a copy, copied back
//! inside the region): it has the array's layout and lives on the device
//! only.

use crate::backend::alias::dim_bounds;
use crate::backend::ast::AstReader;
use crate::backend::c::{self, DataAccess};
use crate::backend::tree::LoopExpr;
use crate::diag::{Error, Result};
use crate::model::expr::Expr;
use crate::model::isl_ext::{ast_expr_from_pw_aff, isl_err};
use crate::model::polyhedral::{isl_name, Names, RegionModel};
use crate::model::program::{AccessKind, Region, StorageKind};
use crate::transform::shadow::Shadow;

/// One variable's device buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceArray {
    /// The data set (the C variable, or a shadow copy of one).
    pub data: String,
    /// The C variable whose layout the buffer has: `data`, or for a shadow
    /// copy (overlapped tiling of an array updated in place) the array it
    /// copies. A shadow lives on the device only.
    pub host: String,
    /// The C type of its elements.
    pub element: String,
    /// Its subscripts (0 for a scalar).
    pub rank: usize,
    /// Per subscript, the indices the buffer holds.
    pub bounds: Vec<Extent>,
    /// Some access has a data-dependent subscript: the kernels check each
    /// such index against the buffer.
    pub gathered: bool,
    /// Whether the region touches it at all (else it gets no buffer).
    pub touched: bool,
    /// Copied to the device before the region's kernels.
    pub copy_in: bool,
    /// Copied back after them.
    pub copy_out: bool,
}

/// The indices one subscript of a device buffer holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Extent {
    /// From the first to the second (parametric bounds from isl).
    Box(LoopExpr, LoopExpr),
    /// The whole dimension as declared: from 0 to its size less one, the
    /// size from `sizeof` on the host.
    Declared,
}

/// The device buffers of one region, in order of first access.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceData {
    /// The buffers.
    pub arrays: Vec<DeviceArray>,
    /// Prefix of generated names (`ft_`).
    pub prefix: String,
}

/// An error at the first use of per-thread state of the host in `region`
/// ([`Region::thread_state`]: a thread-local variable, errno or the
/// floating-point environment where the program reads them): a kernel's
/// threads would neither see nor set the host thread's.
fn host_state(region: &Region) -> Result<()> {
    let state = &region.thread_state;
    let mut uses = region.stages.iter().flat_map(|s| {
        s.accesses
            .iter()
            .filter(|a| state.contains(&a.data))
            .map(move |a| (s, a))
    });
    match uses.next() {
        Some((s, a)) => Err(Error::at(
            a.span,
            format!(
                "the CUDA target cannot run {} on the device: it uses per-thread state of the \
                 host (a thread-local variable, errno or the floating-point environment, which \
                 the program reads), which a kernel's threads do not share",
                s.label
            ),
        )),
        None => Ok(()),
    }
}

/// How a device buffer's box is read off the accesses' sets.
struct Bounds<'a> {
    reader: &'a AstReader<'a>,
    /// The region's parameter context.
    context: &'a isl_rs::Set,
}

impl Bounds<'_> {
    /// The box of an array of `rank` subscripts, from the set it touches
    /// (`set`) and each statement's part of it (`parts`), with whether some
    /// dimension has no bound there (data-dependent indices): such a
    /// dimension takes its declared size where the declaration gives one
    /// (every inner one, and the first of a true array, `object`), else
    /// the box of the parts that have bounds. `Err`: why the CUDA target
    /// cannot place the array.
    fn of(
        &self,
        set: &isl_rs::Set,
        parts: &[isl_rs::Set],
        rank: usize,
        object: bool,
    ) -> Result<std::result::Result<(Vec<Extent>, bool), String>> {
        let mut bounds = Vec::new();
        let mut unbounded = false;
        for d in 0..rank {
            // A true array's first dimension, and every inner
            // one, have a size in the declaration.
            let declared = d > 0 || object;
            let b = match dim_bounds(set, d)? {
                Some(b) => Some(b),
                None if declared => {
                    unbounded = true;
                    bounds.push(Extent::Declared);
                    continue;
                }
                None => {
                    unbounded = true;
                    bounded_part(parts, d)?
                }
            };
            let Some((lo, hi)) = b else {
                return Ok(Err(
                    "it is accessed at data-dependent indices only along its first subscript, whose size a pointer's declaration does not give (so flextile cannot tell which elements to copy)"
                        .to_string(),
                ));
            };
            let lo = self.reader.expr(&ast_expr_from_pw_aff(self.context, lo)?)?;
            let hi = self.reader.expr(&ast_expr_from_pw_aff(self.context, hi)?)?;
            bounds.push(Extent::Box(lo, hi));
        }
        Ok(Ok((bounds, unbounded)))
    }
}

impl DeviceData {
    /// The plan of `region`, whose model is `model`; a located error where
    /// the CUDA target cannot run a statement (a body flextile does not
    /// analyse, rows that are pointers, a variable whose accesses have no
    /// bound).
    pub fn plan(
        region: &Region,
        model: &RegionModel,
        names: &Names,
        prefix: &str,
        shadows: &[Shadow],
    ) -> Result<DeviceData> {
        let shadow_of = |d: &str| {
            shadows
                .iter()
                .find(|s| s.name == d)
                .map(|s| s.array.clone())
        };
        host_state(region)?;
        let touched = model.touched_sets()?;
        let parts = model.touched_parts()?;
        let reader = AstReader::new(names);
        let mut arrays: Vec<DeviceArray> = Vec::new();
        for s in &region.stages {
            let Some(analysed) = s.spelled() else {
                return Err(Error::at(
                    s.span,
                    format!(
                        "the CUDA target needs bodies whose accesses flextile analyses (plain subscripts of variables), and {} has another ({})",
                        s.label,
                        "a call, a pointer dereference or a macro that spells an access"
                    ),
                ));
            };
            for a in analysed {
                // A time block's step that is not its last lives in the
                // tiles' scratchpads only (`check_versions_in_scratchpads`).
                if region.versions.get(&a.data).is_some_and(|v| !v.stored) {
                    continue;
                }
                let read = a.kind == AccessKind::Read;
                let gather = a.index.contains(&Expr::Any);
                if let Some(d) = arrays.iter_mut().find(|d| d.data == a.data) {
                    d.copy_in |= read;
                    d.copy_out |= !read;
                    d.gathered |= gather;
                    continue;
                }
                let unsupported = |why: String| {
                    Error::at(
                        s.span,
                        format!(
                            "the CUDA target cannot place '{}' of {} on the device: {why}",
                            a.data, s.label
                        ),
                    )
                };
                let host = shadow_of(&a.data)
                    .or_else(|| region.versions.get(&a.data).map(|v| v.array.clone()))
                    .unwrap_or_else(|| a.data.clone());
                let storage = region.storage.get(&host).copied().flatten();
                let st = storage;
                match storage {
                    Some(st) if st.levels == a.index.len() => {}
                    Some(st) => {
                        return Err(unsupported(format!(
                            "it is used with {} subscript(s) but only {} index contiguous memory (rows that are pointers, as in 'double **')",
                            a.index.len(),
                            st.levels
                        )))
                    }
                    None => return Err(unsupported("its declaration is not known".to_string())),
                }
                let element = match a.index.len() {
                    0 => region.scalars.get(&a.data),
                    _ => region.data_types.get(&a.data).or_else(|| {
                        region
                            .stages
                            .iter()
                            .find_map(|s| s.gathered.as_ref()?.types.get(&a.data))
                    }),
                };
                let Some(element) = element else {
                    return Err(unsupported("its element type is not known".to_string()));
                };
                let set = touched.get(&isl_name(&a.data));
                let is_touched = match set {
                    Some(set) => !set.is_empty().map_err(isl_err)?,
                    None => false,
                };
                let (bounds, unbounded) = match (set, is_touched) {
                    (Some(set), true) => {
                        let of = parts.get(&isl_name(&a.data)).map_or(&[][..], |p| p);
                        let object =
                            st.is_some_and(|st| matches!(st.kind, StorageKind::Object { .. }));
                        let bounds = Bounds {
                            reader: &reader,
                            context: &model.context,
                        };
                        bounds
                            .of(set, of, a.index.len(), object)?
                            .map_err(unsupported)?
                    }
                    _ => (Vec::new(), false),
                };
                if unbounded {
                    log::info!(
                        "{}: '{}' is accessed at data-dependent indices; its device buffer holds {} and the kernels check every such index against it",
                        s.label,
                        a.data,
                        bounds
                            .iter()
                            .map(|b| match b {
                                Extent::Declared => "the declared size",
                                Extent::Box(..) => "the box of its other accesses",
                            })
                            .collect::<Vec<_>>()
                            .join(" by ")
                    );
                }
                arrays.push(DeviceArray {
                    data: a.data.clone(),
                    host,
                    element: element.clone(),
                    rank: a.index.len(),
                    bounds,
                    touched: is_touched,
                    gathered: gather,
                    copy_in: read,
                    copy_out: !read,
                });
            }
        }
        let temporary =
            |d: &str| region.temporaries.iter().any(|t| t.name == d) || shadow_of(d).is_some();
        for d in &mut arrays {
            // The box's other elements go back unchanged.
            d.copy_in |= d.copy_out && !temporary(&d.data);
            d.copy_out &= !temporary(&d.data);
        }
        Ok(DeviceData {
            arrays,
            prefix: prefix.to_string(),
        })
    }

    /// The start of the names of buffer `k`'s variables: the prefix twice
    /// (`ft_ft_`), since scratchpads are the prefix and a user's name
    /// (`ft_d0` for an array `d0`), and no user's name starts with the
    /// prefix.
    fn name(&self, what: &str, k: usize) -> String {
        format!("{0}{0}{what}{k}", self.prefix)
    }

    /// The device pointer of buffer `k`.
    pub fn pointer(&self, k: usize) -> String {
        self.name("d", k)
    }

    /// The index of buffer `k`'s first element in the variable's memory.
    pub fn first(&self, k: usize) -> String {
        self.name("lo", k)
    }

    /// Buffer `k`'s number of elements.
    pub fn count(&self, k: usize) -> String {
        self.name("n", k)
    }

    /// Whether a kernel checks some index (see [`DeviceArray::gathered`]).
    pub fn gathers(&self) -> bool {
        self.arrays.iter().any(|a| a.gathered)
    }

    /// The device flag a kernel sets when a gather falls outside its buffer.
    pub fn fault(&self) -> String {
        format!("{0}{0}fault", self.prefix)
    }

    /// The step of subscript `d` of buffer `k`, in elements.
    pub fn stride(&self, k: usize, d: usize) -> String {
        format!("{}_{d}", self.name("s", k))
    }
}

impl DataAccess for DeviceData {
    fn element(
        &self,
        data: &str,
        index: &[Expr],
        iterators: &[String],
        values: &[String],
    ) -> String {
        let Some(k) = self.arrays.iter().position(|a| a.data == data) else {
            // Not planned: the plan covers every analysed access, so this is
            // not reached; the C spelling fails to compile rather than
            // reading host memory.
            return format!("{data}{}", c::subscripts(index, iterators, values));
        };
        let subst = |v: &str| {
            iterators
                .iter()
                .position(|i| i == v)
                .and_then(|k| values.get(k).cloned())
        };
        if index.is_empty() {
            return format!("{}[0]", self.pointer(k));
        }
        let subscripts: Vec<String> = index.iter().map(|e| c::c_expr(e, &subst)).collect();
        format!("{}[{}]", self.pointer(k), self.flat(k, &subscripts))
    }

    fn gather(&self, data: &str, subscripts: &[String]) -> String {
        let Some(k) = self.arrays.iter().position(|a| a.data == data) else {
            // As in `element`: not reached.
            let subs: String = subscripts.iter().map(|s| format!("[{s}]")).collect();
            return format!("{data}{subs}");
        };
        format!(
            "{}[{}gather({}, {}, {})]",
            self.pointer(k),
            self.prefix,
            self.flat(k, subscripts),
            self.count(k),
            self.fault()
        )
    }
}

impl DeviceData {
    /// The index in buffer `k` of the element whose subscripts are
    /// `subscripts` (C text): the address C computes, less the buffer's first.
    fn flat(&self, k: usize, subscripts: &[String]) -> String {
        let terms: Vec<String> = subscripts
            .iter()
            .enumerate()
            .map(|(d, x)| match d + 1 == subscripts.len() {
                true => format!("(long long)({x})"),
                false => format!("(long long)({x}) * {}", self.stride(k, d)),
            })
            .collect();
        format!("{} - {}", terms.join(" + "), self.first(k))
    }
}

/// The box along dimension `d` of those of `parts` (the elements of one
/// variable each statement's reads or writes touch) that are bounded along
/// it; `None` when none is.
fn bounded_part(parts: &[isl_rs::Set], d: usize) -> Result<Option<(isl_rs::PwAff, isl_rs::PwAff)>> {
    let mut union: Option<isl_rs::Set> = None;
    for p in parts {
        if dim_bounds(p, d)?.is_none() || p.is_empty().map_err(isl_err)? {
            continue;
        }
        let p = p.copy().map_err(isl_err)?;
        union = Some(match union {
            None => p,
            Some(u) => u.union(p).map_err(isl_err)?,
        });
    }
    match union {
        Some(u) => dim_bounds(&u, d),
        None => Ok(None),
    }
}
