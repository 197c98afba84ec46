//! The isl functions isl-rs lacks, declared and wrapped once.
//!
//! isl-rs 0.3.1 has no AST build, no block-style YAML printing, and its
//! `to_str` methods leak the string isl allocates. This module declares the
//! missing C functions (the static libisl that isl-rs builds exports them),
//! respects isl's `__isl_take`/`__isl_keep` conventions, and exposes safe
//! functions. No other module touches raw isl pointers.

use crate::diag::{Error, Result};
use isl_rs::{
    ASTExpr, ASTNode, Aff, Context, DimType, LibISLError, LocalSpace, Map, MultiVal, PwAff,
    Schedule, ScheduleNode, Set, UnionMap, UnionPwMultiAff, UnionSet,
};
use libc_free::free;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

type Ptr = libc_uintptr::uintptr_t;

mod libc_uintptr {
    /// isl-rs passes every isl object as a `uintptr_t`.
    #[allow(non_camel_case_types)]
    pub type uintptr_t = usize;
}

mod libc_free {
    use std::os::raw::c_void;
    extern "C" {
        /// The C library's `free`, for strings isl hands over.
        pub fn free(p: *mut c_void);
    }
}

extern "C" {
    fn isl_ast_build_from_context(set: Ptr) -> Ptr;
    fn isl_ast_build_node_from_schedule(build: Ptr, schedule: Ptr) -> Ptr;
    fn isl_ast_build_free(build: Ptr) -> Ptr;
    fn isl_ast_build_expr_from_pw_aff(build: Ptr, pa: Ptr) -> Ptr;
    fn isl_ast_build_expr_from_set(build: Ptr, set: Ptr) -> Ptr;
    #[link_name = "isl_set_free"]
    fn isl_set_free_raw(set: Ptr) -> Ptr;
    fn isl_options_set_on_error(ctx: Ptr, val: c_int) -> c_int;
    fn isl_options_set_tile_shift_point_loops(ctx: Ptr, val: c_int) -> c_int;
    fn isl_options_set_tile_scale_tile_loops(ctx: Ptr, val: c_int) -> c_int;
    fn isl_options_set_ast_build_detect_min_max(ctx: Ptr, val: c_int) -> c_int;
    fn isl_ctx_last_error_msg(ctx: Ptr) -> *const c_char;
    fn isl_ctx_reset_error(ctx: Ptr);
    fn isl_ctx_last_error(ctx: Ptr) -> c_int;
    fn isl_val_zero(ctx: Ptr) -> Ptr;
    fn isl_val_free(v: Ptr) -> Ptr;
    fn isl_printer_to_str(ctx: Ptr) -> Ptr;
    fn isl_printer_set_yaml_style(p: Ptr, style: c_int) -> Ptr;
    fn isl_printer_print_schedule(p: Ptr, schedule: Ptr) -> Ptr;
    fn isl_printer_get_str(p: Ptr) -> *mut c_char;
    fn isl_printer_free(p: Ptr) -> Ptr;
    fn isl_schedule_to_str(schedule: Ptr) -> *mut c_char;
    fn isl_union_map_to_str(umap: Ptr) -> *mut c_char;
    fn isl_union_set_to_str(uset: Ptr) -> *mut c_char;
    fn isl_set_to_str(set: Ptr) -> *mut c_char;
    fn isl_map_to_str(map: Ptr) -> *mut c_char;
    fn isl_pw_aff_to_str(pa: Ptr) -> *mut c_char;
    #[link_name = "isl_version"]
    fn isl_version_string() -> *const c_char;
}

/// The version string of the isl flextile is linked with (`--version`).
pub fn isl_version() -> String {
    // SAFETY: isl returns a pointer to a static, NUL-terminated string.
    let p = unsafe { isl_version_string() };
    if p.is_null() {
        return "unknown".to_string();
    }
    // SAFETY: checked non-null above; static storage.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// `ISL_ON_ERROR_CONTINUE`: errors are recorded in the context, not printed.
const ISL_ON_ERROR_CONTINUE: c_int = 1;
/// `isl_error_quota`: the operation bound was reached.
const ISL_ERROR_QUOTA: c_int = 6;
/// `ISL_YAML_STYLE_BLOCK`.
const ISL_YAML_STYLE_BLOCK: c_int = 0;

/// Converts an isl-rs error into an internal flextile error.
pub fn isl_err(e: LibISLError) -> Error {
    Error::internal(format!("isl: {e}"))
}

/// Allocates an isl context configured for flextile: isl errors are returned,
/// not printed; tile loops are scaled and point loops keep original values
/// (so generated code reads `for (c1 = c0; c1 <= c0 + 31; ...)`).
pub fn new_context() -> Context {
    let ctx = Context::alloc();
    // SAFETY: `ctx.ptr` is a live context; the setters only store a flag.
    unsafe {
        isl_options_set_on_error(ctx.ptr, ISL_ON_ERROR_CONTINUE);
        isl_options_set_tile_shift_point_loops(ctx.ptr, 0);
        isl_options_set_tile_scale_tile_loops(ctx.ptr, 1);
        isl_options_set_ast_build_detect_min_max(ctx.ptr, 1);
    }
    ctx
}

/// Takes ownership of a string isl allocated, copies it and frees it.
fn take_string(ctx: &Context, p: *mut c_char) -> Result<String> {
    if p.is_null() {
        return Err(last_error(ctx, "isl returned no string"));
    }
    // SAFETY: isl returns a NUL-terminated string allocated with malloc.
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    // SAFETY: the string is ours (`__isl_give`), freed exactly once.
    unsafe { free(p.cast()) };
    Ok(s)
}

/// The context's last error as an internal error, resetting it.
fn last_error(ctx: &Context, what: &str) -> Error {
    // SAFETY: reading the error message of a live context.
    let msg = unsafe {
        let m = isl_ctx_last_error_msg(ctx.ptr);
        let s = if m.is_null() {
            String::new()
        } else {
            CStr::from_ptr(m).to_string_lossy().into_owned()
        };
        isl_ctx_reset_error(ctx.ptr);
        s
    };
    Error::internal(format!("isl: {what}: {msg}"))
}

/// Generates an AST for `schedule` under the parameter constraints `context`
/// (`isl_ast_build_from_context` + `isl_ast_build_node_from_schedule`).
///
/// `max_operations` bounds the work isl may spend (its operation counter
/// counts every allocation, so it bounds memory too); 0 means no bound.
/// `Ok(None)`: isl ran past the bound and stopped cleanly.
pub fn ast_from_schedule(
    schedule: &Schedule,
    context: &Set,
    max_operations: u64,
) -> Result<Option<ASTNode>> {
    let ctx = schedule.get_ctx();
    let context = context.copy().map_err(isl_err)?;
    let schedule = schedule.copy().map_err(isl_err)?;
    let (mut context, mut schedule) = (context, schedule);
    context.do_not_free_on_drop();
    schedule.do_not_free_on_drop();
    ctx.reset_operations();
    ctx.set_max_operations(max_operations);
    // SAFETY: both arguments are `__isl_take` copies we no longer own; the
    // build is freed before returning; the node is handed to an owning wrapper.
    let node = unsafe {
        let build = isl_ast_build_from_context(context.ptr);
        if build == 0 {
            isl_schedule_free_raw(schedule.ptr);
            0
        } else {
            let node = isl_ast_build_node_from_schedule(build, schedule.ptr);
            isl_ast_build_free(build);
            node
        }
    };
    ctx.set_max_operations(0);
    ctx.reset_operations();
    if node == 0 {
        // SAFETY: reading the error code of a live context.
        if unsafe { isl_ctx_last_error(ctx.ptr) } == ISL_ERROR_QUOTA {
            // SAFETY: clearing the error of a live context.
            unsafe { isl_ctx_reset_error(ctx.ptr) };
            return Ok(None);
        }
        return Err(last_error(&ctx, "AST generation failed"));
    }
    Ok(Some(ASTNode {
        ptr: node,
        should_free_on_drop: true,
    }))
}

/// The least and greatest value of dimension `d` of `set` over its points
/// (and parameters), when both are integers; `None` when it is unbounded or
/// empty along `d`.
pub fn dim_range(set: &Set, d: usize) -> Result<Option<(i64, i64)>> {
    let min = set.copy().and_then(|x| x.dim_min_val(d as i32));
    let max = set.copy().and_then(|x| x.dim_max_val(d as i32));
    let (min, max) = (min.map_err(isl_err)?, max.map_err(isl_err)?);
    if !min.is_int().map_err(isl_err)? || !max.is_int().map_err(isl_err)? {
        return Ok(None);
    }
    Ok(Some((
        min.get_num_si().map_err(isl_err)?,
        max.get_num_si().map_err(isl_err)?,
    )))
}

/// Whether constants bound dimension `d` of `set` below and above over its
/// points and every value of the parameters: [`dim_range`] is `Some`,
/// found without integer programming. A basic set with integer points is
/// bounded along `d` over the integers exactly where its rational
/// relaxation is (both have the same recession cone), so each basic set
/// that has integer points gets two rational LPs.
pub fn dim_bounded(set: &Set, d: usize) -> Result<bool> {
    let list = set
        .copy()
        .and_then(|s| s.get_basic_set_list())
        .map_err(isl_err)?;
    let mut points = false;
    for i in 0..list.size().map_err(isl_err)? {
        let b = list.get_at(i).map_err(isl_err)?;
        if b.is_empty().map_err(isl_err)? {
            continue;
        }
        points = true;
        let obj = b
            .get_space()
            .and_then(LocalSpace::from_space)
            .and_then(|ls| Aff::var_on_domain(ls, DimType::Set, d as u32))
            .map_err(isl_err)?;
        for v in [b.min_lp_val(&obj), b.max_lp_val(&obj)] {
            if !v.and_then(|v| v.is_rat()).map_err(isl_err)? {
                return Ok(false);
            }
        }
    }
    Ok(points)
}

/// The AST expression of `pa`, a piecewise affine function of the
/// parameters, under the parameter constraints `context`
/// (`isl_ast_build_from_context` + `isl_ast_build_expr_from_pw_aff`).
/// Where `pa` is undefined the expression has the value of one of its pieces.
pub fn ast_expr_from_pw_aff(context: &Set, pa: PwAff) -> Result<ASTExpr> {
    let ctx = context.get_ctx();
    let mut context = context.copy().map_err(isl_err)?;
    let mut pa = pa;
    context.do_not_free_on_drop();
    pa.do_not_free_on_drop();
    // SAFETY: both arguments are `__isl_take` objects we no longer own; the
    // build is freed before returning; the expression goes to an owning wrapper.
    let expr = unsafe {
        let build = isl_ast_build_from_context(context.ptr);
        if build == 0 {
            isl_pw_aff_free_raw(pa.ptr);
            0
        } else {
            let e = isl_ast_build_expr_from_pw_aff(build, pa.ptr);
            isl_ast_build_free(build);
            e
        }
    };
    if expr == 0 {
        return Err(last_error(&ctx, "AST expression generation failed"));
    }
    Ok(ASTExpr {
        ptr: expr,
        should_free_on_drop: true,
    })
}

/// The AST expression (a condition) that holds exactly for the parameter
/// values of `set`, a set of parameters, under the parameter constraints
/// `context` (`isl_ast_build_from_context` + `isl_ast_build_expr_from_set`):
/// what `context` implies may be left out.
pub fn ast_expr_from_set(context: &Set, set: Set) -> Result<ASTExpr> {
    let ctx = context.get_ctx();
    let mut context = context.copy().map_err(isl_err)?;
    let mut set = set;
    context.do_not_free_on_drop();
    set.do_not_free_on_drop();
    // SAFETY: both arguments are `__isl_take` objects we no longer own; the
    // build is freed before returning; the expression goes to an owning wrapper.
    let expr = unsafe {
        let build = isl_ast_build_from_context(context.ptr);
        if build == 0 {
            isl_set_free_raw(set.ptr);
            0
        } else {
            let e = isl_ast_build_expr_from_set(build, set.ptr);
            isl_ast_build_free(build);
            e
        }
    };
    if expr == 0 {
        return Err(last_error(&ctx, "AST expression generation failed"));
    }
    Ok(ASTExpr {
        ptr: expr,
        should_free_on_drop: true,
    })
}

/// Runs `f` with isl's operation counter bounded by `max_operations` (0:
/// no bound) on `ctx`. `Ok(None)`: an isl operation inside `f` ran past the
/// bound (any error `f` returns then is that one, and is dropped).
///
/// Past the bound, isl fails an operation with its quota error, but what
/// reaches `f`'s caller may be another error (isl's parser reports a failed
/// allocation as a syntax error, and callers wrap messages): the bound is
/// recognised by trying one more allocation, which fails too once the
/// counter is past it.
pub fn with_operation_budget<T>(
    ctx: &Context,
    max_operations: u64,
    f: impl FnOnce() -> Result<T>,
) -> Result<Option<T>> {
    ctx.reset_operations();
    ctx.set_max_operations(max_operations);
    let out = f();
    let over = max_operations > 0 && out.is_err() && past_budget(ctx);
    ctx.set_max_operations(0);
    ctx.reset_operations();
    match out {
        Ok(v) => Ok(Some(v)),
        Err(_) if over => Ok(None),
        Err(e) => Err(e),
    }
}

/// Whether `ctx`'s operation counter is past its bound: one allocation
/// fails with isl's quota error (which is then cleared).
fn past_budget(ctx: &Context) -> bool {
    // SAFETY: allocating and freeing a value on a live context, and reading
    // and clearing its error.
    unsafe {
        let v = isl_val_zero(ctx.ptr);
        if v != 0 {
            isl_val_free(v);
            return false;
        }
        let quota = isl_ctx_last_error(ctx.ptr) == ISL_ERROR_QUOTA;
        isl_ctx_reset_error(ctx.ptr);
        quota
    }
}

/// The kind of an isl AST node.
///
/// isl-rs's `ASTNodeType::from_i32` is off by one against isl's
/// `enum isl_ast_node_type` (`for` is 1) and panics on user nodes, so the
/// kind is read here instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AstKind {
    /// `for` loop.
    For,
    /// `if` statement.
    If,
    /// Sequence of statements.
    Block,
    /// Mark node (carries an id, e.g. `parallel`).
    Mark,
    /// A statement instance (a call expression `S3(c0, c1)`).
    User,
}

/// The kind of `node`.
pub fn ast_node_kind(node: &ASTNode) -> Result<AstKind> {
    // SAFETY: `__isl_keep` read of a live node.
    let t = unsafe { isl_ast_node_get_type(node.ptr) };
    Ok(match t {
        1 => AstKind::For,
        2 => AstKind::If,
        3 => AstKind::Block,
        4 => AstKind::Mark,
        5 => AstKind::User,
        _ => return Err(last_error(&node.get_ctx(), "invalid AST node")),
    })
}

/// Inserts an expansion node between `node` and its parent
/// (`isl_schedule_node_insert_expansion`, private in isl's headers).
/// `expansion` maps each element reaching `node` (the contracted domain) to
/// the elements the subtree schedules; `contraction` maps those back.
pub fn insert_expansion(
    node: ScheduleNode,
    contraction: UnionPwMultiAff,
    expansion: UnionMap,
) -> Result<ScheduleNode> {
    let ctx = node.get_ctx();
    let (mut node, mut contraction, mut expansion) = (node, contraction, expansion);
    node.do_not_free_on_drop();
    contraction.do_not_free_on_drop();
    expansion.do_not_free_on_drop();
    // SAFETY: all three arguments are `__isl_take` and no longer owned by us.
    let p = unsafe { isl_schedule_node_insert_expansion(node.ptr, contraction.ptr, expansion.ptr) };
    if p == 0 {
        return Err(last_error(&ctx, "cannot insert expansion node"));
    }
    Ok(ScheduleNode {
        ptr: p,
        should_free_on_drop: true,
    })
}

extern "C" {
    fn isl_schedule_node_insert_expansion(node: Ptr, contraction: Ptr, expansion: Ptr) -> Ptr;
    fn isl_ast_node_get_type(node: Ptr) -> c_int;
    #[link_name = "isl_schedule_free"]
    fn isl_schedule_free_raw(schedule: Ptr) -> Ptr;
    #[link_name = "isl_pw_aff_free"]
    fn isl_pw_aff_free_raw(pa: Ptr) -> Ptr;
}

/// Tiles the band at `node` (`isl_schedule_node_band_tile`) with point
/// loops relative to the tile's origin (isl's `tile_shift_point_loops`,
/// off in flextile's context, on for this one call). Tiling the point band
/// again then yields inner tiles aligned on the outer tile's origin, as in
/// classical multi-level tiling.
pub fn band_tile_local(node: ScheduleNode, sizes: MultiVal) -> Result<ScheduleNode> {
    let ctx = node.get_ctx();
    // SAFETY: `ctx.ptr` is the node's live context; the setter stores a flag
    // that `band_tile` reads, and it is restored before returning.
    unsafe { isl_options_set_tile_shift_point_loops(ctx.ptr, 1) };
    let tiled = node.band_tile(sizes);
    // SAFETY: as above.
    unsafe { isl_options_set_tile_shift_point_loops(ctx.ptr, 0) };
    tiled.map_err(isl_err)
}

/// The schedule tree in isl's block-style YAML (for `--dump-schedule`).
pub fn schedule_to_yaml(schedule: &Schedule) -> Result<String> {
    let ctx = schedule.get_ctx();
    // SAFETY: the printer is created, used and freed here; the schedule is `__isl_keep`.
    let s = unsafe {
        let p = isl_printer_to_str(ctx.ptr);
        let p = isl_printer_set_yaml_style(p, ISL_YAML_STYLE_BLOCK);
        let p = isl_printer_print_schedule(p, schedule.ptr);
        let s = isl_printer_get_str(p);
        isl_printer_free(p);
        s
    };
    take_string(&ctx, s)
}

/// Types whose isl text form can be read without leaking.
pub trait IslText {
    /// isl's text form of the object.
    fn text(&self) -> Result<String>;
}

macro_rules! isl_text {
    ($ty:ty, $f:ident) => {
        impl IslText for $ty {
            fn text(&self) -> Result<String> {
                let ctx = self.get_ctx();
                // SAFETY: `__isl_keep` argument; the returned string is ours.
                let s = unsafe { $f(self.ptr) };
                take_string(&ctx, s)
            }
        }
    };
}

isl_text!(Schedule, isl_schedule_to_str);
isl_text!(UnionMap, isl_union_map_to_str);
isl_text!(UnionSet, isl_union_set_to_str);
isl_text!(Set, isl_set_to_str);
isl_text!(Map, isl_map_to_str);
isl_text!(PwAff, isl_pw_aff_to_str);

#[cfg(test)]
mod tests {
    use super::*;
    use isl_rs::Val;

    #[test]
    fn dim_range_is_integral_or_none() {
        let ctx = new_context();
        let s = Set::read_from_str(&ctx, "{ [a, b] : 2 <= a <= 7 and b >= a }").expect("set");
        assert_eq!(dim_range(&s, 0).expect("isl"), Some((2, 7)));
        assert_eq!(dim_range(&s, 1).expect("isl"), None);
    }

    #[test]
    fn dim_bounded_is_dim_range_found() {
        let ctx = new_context();
        for text in [
            "{ [a, b] : 2 <= a <= 7 and b >= a }",
            "[N] -> { [a, b] : 0 <= a < N and 0 <= b <= 7 }",
            "[N] -> { [a, b] : 0 <= a < N and a <= 7 and 0 <= b < N }",
            "[N] -> { [a, b] : 0 <= a <= 3 and b = 2a or N <= a <= N + 2 and b = 0 }",
            "{ [a, b] : exists (e : a = 2e + 1 and 0 <= e <= 4) and 0 <= b }",
            "{ [a, b] : 0 <= a <= 9 and 2b = 2a + 1 }",
            "{ [a, b] : 0 <= a <= 9 and 0 <= b <= 9; [a, b] : a >= 20 and 3b = 3a + 1 }",
            "{ [a, b] : false }",
        ] {
            let s = Set::read_from_str(&ctx, text).expect("set");
            for d in 0..2 {
                let range = dim_range(&s, d).expect("isl");
                assert_eq!(
                    dim_bounded(&s, d).expect("isl"),
                    range.is_some(),
                    "{text}, {d}"
                );
            }
        }
    }

    #[test]
    fn ast_from_a_two_statement_schedule() {
        let ctx = new_context();
        let s = Schedule::read_from_str(
            &ctx,
            "{ domain: \"[N] -> { S0[i] : 0 <= i < N; S1[i] : 0 <= i < N }\", \
               child: { schedule: \"[N] -> [{ S0[i] -> [(i)]; S1[i] -> [(i)] }]\", \
               child: { sequence: [ { filter: \"{ S0[i] }\" }, { filter: \"{ S1[i] }\" } ] } } }",
        )
        .expect("schedule");
        let context = Set::read_from_str(&ctx, "[N] -> { : N >= 1 }").expect("context");
        let ast = ast_from_schedule(&s, &context, 0)
            .expect("ast")
            .expect("no bound");
        assert_eq!(ast_node_kind(&ast).expect("kind"), AstKind::For);
        let text = ast.to_C_str().expect("c").to_string();
        assert!(text.contains("S0(c0)") && text.contains("S1(c0)"), "{text}");
    }

    #[test]
    fn local_tiling_shifts_only_its_own_point_loops() {
        let ctx = new_context();
        let s = Schedule::read_from_str(
            &ctx,
            "{ domain: \"[N] -> { S[i] : 0 <= i < N }\", child: { schedule: \"[{ S[i] -> [(i)] }]\" } }",
        )
        .expect("schedule");
        let point_schedule = |local: bool| -> String {
            let band = s.get_root().expect("root").child(0).expect("band");
            let sizes = MultiVal::zero(band.band_get_space().expect("space"))
                .expect("zero")
                .set_val(0, Val::int_from_si(&ctx, 4).expect("4"))
                .expect("set");
            let tiled = if local {
                band_tile_local(band, sizes).expect("tile")
            } else {
                band.band_tile(sizes).expect("tile")
            };
            let point = tiled.child(0).expect("point band");
            point
                .band_get_partial_schedule()
                .expect("partial")
                .to_str()
                .expect("str")
                .to_string()
        };
        // Local point loops run from the tile's origin; the context's
        // default (global values) is back after the call.
        assert_eq!(point_schedule(true), "[{ S[i] -> [((i) mod 4)] }]");
        assert_eq!(point_schedule(false), "[{ S[i] -> [(i)] }]");
    }

    #[test]
    fn ast_build_stops_cleanly_at_the_operation_bound() {
        let ctx = new_context();
        let s = Schedule::read_from_str(
            &ctx,
            "{ domain: \"[N, M] -> { S0[i, j] : 0 <= i < N and i <= j < M; S1[i, j] : 2 <= i < M and 0 <= j < N + i }\", \
               child: { schedule: \"[N, M] -> [{ S0[i, j] -> [(i + j)]; S1[i, j] -> [(i + 2j)] }]\" } }",
        )
        .expect("schedule");
        let context =
            Set::read_from_str(&ctx, "[N, M] -> { : N >= 1 and M >= 1 }").expect("context");
        assert!(ast_from_schedule(&s, &context, 10)
            .expect("no error")
            .is_none());
        // The bound is lifted afterwards: the context is usable, and an
        // unbounded build of the same schedule succeeds.
        assert!(ast_from_schedule(&s, &context, 0).expect("ast").is_some());
        assert_eq!(ctx.get_max_operations(), 0);
    }

    #[test]
    fn yaml_and_text_round_trip() {
        let ctx = new_context();
        let s = Schedule::read_from_str(&ctx, "{ domain: \"{ S0[i] : 0 <= i < 4 }\" }").expect("s");
        assert!(schedule_to_yaml(&s).expect("yaml").contains("domain:"));
        let u = UnionSet::read_from_str(&ctx, "{ S0[i] : 0 <= i < 4 }").expect("u");
        assert!(u.text().expect("text").contains("S0[i]"));
    }

    #[test]
    fn expansion_node_duplicates_elements_per_tile() {
        let ctx = new_context();
        // Two tiles of 4 points, each computing one point of overlap on the left.
        let tokens = UnionSet::read_from_str(&ctx, "{ S_t[T] : 0 <= T <= 1 }").expect("tokens");
        let expansion = UnionMap::read_from_str(
            &ctx,
            "{ S_t[T] -> S[T, i] : 4T - 1 <= i <= 4T + 3 and 0 <= i <= 7 }",
        )
        .expect("expansion");
        let contraction =
            UnionPwMultiAff::read_from_str(&ctx, "{ S[T, i] -> S_t[T] }").expect("contraction");
        let root = Schedule::from_domain(tokens)
            .and_then(|s| s.get_root())
            .expect("root");
        let band =
            isl_rs::MultiUnionPwAff::read_from_str(&ctx, "[{ S_t[T] -> [(T)] }]").expect("band");
        let node = root
            .child(0)
            .and_then(|n| n.insert_partial_schedule(band))
            .expect("tile band");
        let node = node.child(0).expect("leaf");
        let node = insert_expansion(node, contraction, expansion).expect("expansion");
        let point =
            isl_rs::MultiUnionPwAff::read_from_str(&ctx, "[{ S[T, i] -> [(i)] }]").expect("point");
        let node = node
            .child(0)
            .and_then(|n| n.insert_partial_schedule(point))
            .expect("point band");
        let schedule = node.get_schedule().expect("schedule");
        let context = Set::read_from_str(&ctx, "{ : }").expect("context");
        let ast = ast_from_schedule(&schedule, &context, 0)
            .expect("ast")
            .expect("no bound");
        let text = ast.to_C_str().expect("c").to_string();
        // Tile 1 recomputes point 3: the point loop starts one before the tile.
        assert!(text.contains("S(c0, c1)"), "{text}");
        assert!(text.contains("4 * c0 - 1"), "{text}");
    }

    #[test]
    fn errors_are_values() {
        let ctx = new_context();
        assert!(UnionSet::read_from_str(&ctx, "{ S0[i] : 0 <= }").is_err());
    }

    /// Past the bound the parser reports a syntax error, yet the run counts
    /// as past the budget; a real syntax error within it stays an error, and
    /// the context works normally afterwards.
    #[test]
    fn operation_budget_is_recognised_behind_other_errors() {
        let ctx = new_context();
        let text = "{ S0[i, j] : 0 <= i < 100 and 0 <= j < i; S1[k] : k >= 3 }";
        let read = || UnionSet::read_from_str(&ctx, text).map_err(isl_err);
        assert!(matches!(with_operation_budget(&ctx, 3, read), Ok(None)));
        let bad = || UnionSet::read_from_str(&ctx, "{ S0[i] : 0 <= }").map_err(isl_err);
        assert!(with_operation_budget(&ctx, 1_000_000, bad).is_err());
        assert!(matches!(with_operation_budget(&ctx, 0, read), Ok(Some(_))));
    }
}
