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
//! Copies: in, for a variable the region reads, or writes and the program
//! reads afterwards (the box holds elements the region does not write);
//! out, for a variable written that is not a temporary. A temporary the
//! region only writes is never copied, nor is a shadow copy (an array that
//! overlapped tiling updates in place is written to a copy, copied back
//! inside the region): it has the array's layout and lives on the device
//! only.

use crate::backend::alias::box_bounds;
use crate::backend::ast::AstReader;
use crate::backend::c::{self, DataAccess};
use crate::backend::tree::LoopExpr;
use crate::diag::{Error, Result};
use crate::model::expr::Expr;
use crate::model::isl_ext::{ast_expr_from_pw_aff, isl_err};
use crate::model::polyhedral::{isl_name, Names, RegionModel};
use crate::model::program::{AccessKind, Region};
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
    /// Per subscript, the smallest and largest index the region touches.
    pub bounds: Vec<(LoopExpr, LoopExpr)>,
    /// Whether the region touches it at all (else it gets no buffer).
    pub touched: bool,
    /// Copied to the device before the region's kernels.
    pub copy_in: bool,
    /// Copied back after them.
    pub copy_out: bool,
}

/// The device buffers of one region, in order of first access.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceData {
    /// The buffers.
    pub arrays: Vec<DeviceArray>,
    /// Prefix of generated names (`ft_`).
    pub prefix: String,
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
        let touched = model.touched_sets()?;
        let reader = AstReader::new(names);
        let mut arrays: Vec<DeviceArray> = Vec::new();
        for s in &region.stages {
            let Some(analysed) = s.analysed() else {
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
                let read = a.kind == AccessKind::Read;
                if let Some(d) = arrays.iter_mut().find(|d| d.data == a.data) {
                    d.copy_in |= read;
                    d.copy_out |= !read;
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
                let host = shadow_of(&a.data).unwrap_or_else(|| a.data.clone());
                let storage = region.storage.get(&host).copied().flatten();
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
                    _ => region.data_types.get(&a.data),
                };
                let Some(element) = element else {
                    return Err(unsupported("its element type is not known".to_string()));
                };
                let set = touched.get(&isl_name(&a.data));
                let is_touched = match set {
                    Some(set) => !set.is_empty().map_err(isl_err)?,
                    None => false,
                };
                let mut bounds = Vec::new();
                if let (Some(set), true) = (set, is_touched) {
                    let Some(b) = box_bounds(set, a.index.len())? else {
                        return Err(unsupported(
                            "its subscripts have no bound in the parameters".to_string(),
                        ));
                    };
                    for (lo, hi) in b {
                        let lo = reader.expr(&ast_expr_from_pw_aff(&model.context, lo)?)?;
                        let hi = reader.expr(&ast_expr_from_pw_aff(&model.context, hi)?)?;
                        bounds.push((lo, hi));
                    }
                }
                arrays.push(DeviceArray {
                    data: a.data.clone(),
                    host,
                    element: element.clone(),
                    rank: a.index.len(),
                    bounds,
                    touched: is_touched,
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
        let terms: Vec<String> = index
            .iter()
            .enumerate()
            .map(|(d, e)| {
                let x = c::c_expr(e, &subst);
                match d + 1 == index.len() {
                    true => format!("(long long)({x})"),
                    false => format!("(long long)({x}) * {}", self.stride(k, d)),
                }
            })
            .collect();
        format!(
            "{}[{} - {}]",
            self.pointer(k),
            terms.join(" + "),
            self.first(k)
        )
    }
}
