//! The program model produced by the front end: regions (loop chains or scops),
//! their stages, domains, accesses and body templates.
//!
//! This is plain data with source spans; `model::polyhedral` turns it into isl
//! objects. A *stage* is one annotated loop nest (omplc) or one C statement
//! (`#pragma scop`); its iterators are the loops that enclose it inside the
//! region, outermost first.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Diagnostic, SourceFile, Span};
use crate::model::cxx_fixes::CxxFixes;
use crate::model::expr::Expr;

/// A parsed input file: its text and the regions flextile rewrites.
#[derive(Clone, Debug)]
pub struct Program {
    /// The main input file.
    pub file: SourceFile,
    /// Regions in source order; they do not overlap.
    pub regions: Vec<Region>,
    /// Integer variables declared wider than `int` (`long`, `unsigned`,
    /// `size_t`...) at file scope or in a function holding a region: a
    /// region whose parameters or iterators include one gets `long long`
    /// loop counters.
    pub wide_vars: BTreeSet<String>,
    /// Names the generated code must not define or use for its own: every
    /// macro (headers, `-D`, predefined) and file-scope declaration clang
    /// saw, besides the identifiers of the main file's text.
    pub reserved: BTreeSet<String>,
    /// The `#define` and `#undef` lines inside regions (from the start of
    /// the line to its end, newline excluded), in order, and whether the
    /// output keeps each after the region's generated code (else before it).
    pub directives: Vec<(Span, bool)>,
    /// What the front end tells the user without refusing (a region in an
    /// included file, which is not transformed).
    pub warnings: Vec<Diagnostic>,
    /// What the file must change to compile as C++ (the CUDA target's
    /// output), and what C++ rejects that cannot be fixed; only the CUDA
    /// path reads it.
    pub cxx: CxxFixes,
}

/// One region of the file that flextile replaces with generated code.
#[derive(Clone, Debug)]
pub struct Region {
    /// Loop chain (with its schedule) or scop.
    pub kind: RegionKind,
    /// Bytes replaced by the generated code: from the start of the opening
    /// pragma's line to the end of the chain's compound statement (or of the
    /// `#pragma endscop` line, its newline excluded).
    pub span: Span,
    /// The opening pragma (`#pragma omplc loopchain ...` or `#pragma scop`).
    pub pragma_span: Span,
    /// Indentation (spaces/tabs) of the opening pragma's line.
    pub indent: String,
    /// Statements of the region in textual order.
    pub stages: Vec<Stage>,
    /// Original loop structure: loops and stages in textual order.
    pub tree: Vec<OrigNode>,
    /// Element types of the C arrays accessed in the region's analysable
    /// bodies: array name -> C spelling of the type of a fully subscripted
    /// access (`double`, `unsigned short`, a typedef name), without
    /// qualifiers (`const`, `volatile`, `restrict`).
    pub data_types: BTreeMap<String, String>,
    /// Where the definition of the function holding the region starts (a
    /// CUDA output defines the region's kernels before it); `None` outside
    /// a function definition of the main file.
    pub function_start: Option<usize>,
    /// The scalar variables the region's analysable bodies use (declared
    /// outside them) -> clang's spelling of their type. A CUDA kernel
    /// receives those the region never writes as parameters and places
    /// the others in device buffers.
    pub scalars: BTreeMap<String, String>,
    /// Data sets that stand for one version of a C array (the steps of a
    /// time block, see `transform::time_blocks`); empty for regions read
    /// from the input.
    pub versions: BTreeMap<String, DataVersion>,
    /// Macros whose values the model had to use (`N = 100`, for `i * N`):
    /// the generated code is right only for these values, and its banner
    /// says so. Other macros in bounds and subscripts are parameters.
    pub macro_values: Vec<String>,
    /// The user's object-like macros the front end read as parameters, with
    /// their values (`N -> 100`); the driver falls back to these values where
    /// the symbolic form cannot be compiled.
    pub macro_params: BTreeMap<String, i64>,
    /// The loop variables declared outside the region that the program may
    /// read after it, and the code that gives them their final values (see
    /// `frontend::final_values`); `None` when there are none.
    pub final_values: Option<FinalValues>,
    /// How the C variables the region's accesses name are declared (array
    /// name -> [`Storage`]), for the run-time alias guard
    /// (`backend::alias`); `None` where one name denotes different
    /// variables in different statements. A data set missing here (a loop
    /// chain's logical name, a body flextile does not analyse) has unknown
    /// storage too.
    pub storage: BTreeMap<String, Option<Storage>>,
    /// Where the pointers of [`Region::storage`] that are not `restrict`
    /// are declared in the main file (see [`Declaration`]).
    pub declarations: BTreeMap<String, Declaration>,
    /// The whole lines (newline excluded) of the flextile pragmas inside
    /// [`Region::span`] (`#pragma omplc ...`, `#pragma scop`, `#pragma
    /// endscop`): the region's text without them is the user's original
    /// code, which the alias guard's fallback runs.
    pub pragma_lines: Vec<Span>,
    /// The temporaries (see [`Temporary`]), each written by the region: the
    /// declared ones in the order declared, then those proved.
    pub temporaries: Vec<Temporary>,
    /// For a part of a larger region lowered on its own (see
    /// `driver::parts`): the depth of the larger region's deepest nest,
    /// which the options' tile sizes and loop numbers count from; `None`
    /// for a region as written.
    pub whole_depth: Option<usize>,
    /// The integer expressions the model reads whose C value is the
    /// model's only inside their C type's range (see [`Wraps`]).
    pub wraps: Wraps,
    /// The 0-dimensional data sets that stand for the per-thread objects
    /// the region's code touches (thread-local variables; errno where the
    /// program reads it), one each: each stage that touches one writes and
    /// reads its data set, so no loop runs two of its instances on different
    /// threads or out of order (see `frontend::thread_state`).
    pub thread_state: Vec<String>,
    /// The scalars the region writes that are not private to an iteration
    /// (a 0-dimensional data set each), and why: the notes on the loops
    /// they keep serial say it.
    pub shared_scalars: BTreeMap<String, String>,
}

/// The integer expressions of a region that the model reads as
/// mathematical integers (loop bounds, `if` conditions, subscripts) but
/// that C computes in a type of fixed width: `i - 5` on an `unsigned i`
/// wraps below 5, and `n - 1` converted to `unsigned` wraps for `n = 0`.
/// The model is exact only when none of them leaves its type's range
/// (`model::wrap` checks it with isl; where it cannot prove it, the region
/// keeps its original loops).
#[derive(Clone, Debug, Default)]
pub struct Wraps {
    /// One check per expression that may leave its range.
    pub checks: Vec<WrapCheck>,
    /// The value range of every integer variable the expressions read
    /// (from its C type): facts the checks may use for the parameters.
    pub ranges: BTreeMap<String, (i128, i128)>,
}

/// One integer expression that must stay in `lo..=hi` (its C type's range)
/// wherever it is evaluated.
#[derive(Clone, Debug)]
pub struct WrapCheck {
    /// Its value, as the model reads it.
    pub expr: Expr,
    /// The smallest value its C type holds.
    pub lo: i128,
    /// The largest value its C type holds.
    pub hi: i128,
    /// The expression in the source.
    pub span: Span,
    /// What it is, for messages (`'i - 5' (unsigned int)`).
    pub what: String,
    /// The iterators of the loops around it, outermost first.
    pub iterators: Vec<String>,
    /// The constraints in force where it is evaluated.
    pub context: Vec<Constraint>,
}

impl Region {
    /// The depth of the deepest nest, as the options' tile sizes and loop
    /// numbers count it (a part's: its whole region's); `None` without
    /// stages.
    pub fn deepest(&self) -> Option<usize> {
        self.whole_depth
            .or_else(|| self.stages.iter().map(|s| s.iterators.len()).max())
    }

    /// The region with `stages` and `temporaries` in place of its own and
    /// no loop tree: a group of its stages as a region of their own. Its
    /// own stages and tree are not copied (a candidate group of a deep
    /// pipeline is analysed many times).
    pub fn with_stages(&self, stages: Vec<Stage>, temporaries: Vec<Temporary>) -> Region {
        Region {
            kind: self.kind.clone(),
            span: self.span,
            pragma_span: self.pragma_span,
            indent: self.indent.clone(),
            stages,
            tree: Vec::new(),
            data_types: self.data_types.clone(),
            function_start: self.function_start,
            scalars: self.scalars.clone(),
            versions: self.versions.clone(),
            macro_values: self.macro_values.clone(),
            macro_params: self.macro_params.clone(),
            final_values: self.final_values.clone(),
            storage: self.storage.clone(),
            declarations: self.declarations.clone(),
            pragma_lines: self.pragma_lines.clone(),
            temporaries,
            whole_depth: self.whole_depth,
            wraps: self.wraps.clone(),
            thread_state: self.thread_state.clone(),
            shared_scalars: self.shared_scalars.clone(),
        }
    }
}

/// A temporary data set: the program does not read its values after the
/// region, so the generated code need not store them. Declared (the
/// `temporary(...)` clause of a region's pragma, or `--temporary`) or
/// proved (`frontend::liveness`).
#[derive(Clone, Debug, PartialEq)]
pub struct Temporary {
    /// The data set (in a scop, the C array).
    pub name: String,
    /// Its name in the pragma; `None` for `--temporary` and proved ones.
    pub span: Option<Span>,
    /// Proved temporary by flextile, not declared.
    pub proved: bool,
}

/// How a C variable accessed in a region is declared: what memory it may
/// share with the region's other variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Storage {
    /// What kind of variable.
    pub kind: StorageKind,
    /// The subscripts that index contiguous memory: 1 for `double *A`, 2 for
    /// `double (*A)[M]` or a parameter `double A[N][M]`, 2 for a true array
    /// `double A[N][M]`, 0 for a scalar; `double **A` and `double *A[N]` have
    /// 1 (their rows are elsewhere).
    pub levels: usize,
    /// The type of its elements (after [`Storage::levels`] subscripts) as
    /// C's effective-type rules see it: two variables of different
    /// elements never share memory (strict aliasing). `None`: it may share
    /// memory with any type (a character type, a struct, a pointer, or
    /// strict aliasing is off).
    pub element: Option<Element>,
}

/// The arithmetic types that strict aliasing tells apart: signed and
/// unsigned variants, qualifiers and typedefs of one type are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Element {
    /// `short`, `unsigned short`.
    Short,
    /// `int`, `unsigned int`.
    Int,
    /// `long`, `unsigned long`.
    Long,
    /// `long long`, `unsigned long long`.
    LongLong,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `long double`.
    LongDouble,
}

/// See [`Storage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageKind {
    /// A pointer (a parameter declared as an array is one). `restrict`: the
    /// pointer is `restrict`-qualified; `origin`: what it may point into.
    Pointer {
        /// The pointer is `restrict`-qualified.
        restrict: bool,
        /// Where its values come from.
        origin: Origin,
    },
    /// A variable with its own memory (a true array, or a scalar whose
    /// address is taken or that lives beyond its function): only a pointer
    /// can reach into it. `local`: of automatic storage, declared in the
    /// function (created after its parameters got their values).
    Object {
        /// Declared in the function, neither `static` nor `extern`.
        local: bool,
    },
    /// A scalar of automatic storage (a local or a parameter) whose address
    /// is never taken in its function: nothing else can reach it.
    Private,
}

/// Where a pointer's values come from (see `frontend::storage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// Anything: it may point into any variable's memory.
    Any,
    /// A parameter the function never assigns (nor takes the address of):
    /// it points into memory that existed when the function was called,
    /// never into the function's own arrays or allocations.
    Entry,
    /// A local pointer every assignment of which is the result of an
    /// allocation (`malloc`, `calloc`): memory no other variable has,
    /// except another pointer of origin [`Origin::Any`].
    Fresh,
}

/// Where a pointer the region accesses is declared, for the warning that
/// asks to mark it `restrict`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The declaration's name.
    pub span: Span,
    /// The declaration as written with `restrict` added (`float
    /// *restrict a`), where flextile can write it.
    pub restrict: Option<String>,
}

/// Code that leaves loop variables with their values after the original
/// region: its loops without their statements.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalValues {
    /// The variables, sorted.
    pub variables: Vec<String>,
    /// The code's lines, without indentation of their own.
    pub lines: Vec<String>,
}

/// One version of a C array: the values one statement of a time-iterated
/// stencil writes at one step of a time block.
#[derive(Clone, Debug, PartialEq)]
pub struct DataVersion {
    /// The C array: elements a version does not hold are read from it.
    pub array: String,
    /// Whether the values reach memory outside the tile: the last version of
    /// a block (stored to the array, or to its shadow copy). Other versions
    /// live only in scratchpads.
    pub stored: bool,
}

/// What kind of region.
#[derive(Clone, Debug)]
pub enum RegionKind {
    /// `#pragma omplc loopchain schedule(...)`.
    Chain(ChainSchedule),
    /// `#pragma scop` ... `#pragma endscop`.
    Scop,
}

/// The original loop structure of a region: the loops that enclose stages.
#[derive(Clone, Debug)]
pub enum OrigNode {
    /// A loop over `iter`, whose body runs `body` in order.
    Loop {
        /// Iterator name as written in C.
        iter: String,
        /// Children in textual order.
        body: Vec<OrigNode>,
        /// The loop counts down (`i--`, `i -= c`): its instances run in
        /// decreasing order of `iter`.
        down: bool,
    },
    /// A stage (index into `Region::stages`).
    Stage(usize),
}

impl OrigNode {
    /// Stage `k` inside its own upward loops over `iterators`, outermost
    /// first.
    pub fn nest(k: usize, iterators: &[String]) -> OrigNode {
        let mut node = OrigNode::Stage(k);
        for it in iterators.iter().rev() {
            node = OrigNode::Loop {
                iter: it.clone(),
                body: vec![node],
                down: false,
            };
        }
        node
    }
}

/// One statement of a region: an annotated nest or a scop statement.
#[derive(Clone, Debug)]
pub struct Stage {
    /// Statement name used in isl (`S0`, `S1`, ...), unique in the program.
    pub name: String,
    /// Human name for messages: `nest 2 (line 14)` or `statement 'B[i] = ...'`.
    pub label: String,
    /// The `#pragma omplc for` (chains) or the statement itself (scops).
    pub span: Span,
    /// Iterators, outermost first: every loop of the region that encloses it.
    pub iterators: Vec<String>,
    /// The C type of each iterator (canonical spelling: `int`, `unsigned
    /// long`), in the order of `iterators`: the body sees its iterators in
    /// these types, with their wrap-around arithmetic. Empty: all `int`.
    pub iterator_types: Vec<String>,
    /// The iteration domain: a conjunction of affine constraints over the
    /// iterators and parameters.
    pub domain: Vec<Constraint>,
    /// Reads and writes, declared (omplc) or analysed (scop).
    pub accesses: Vec<Access>,
    /// The body, with holes for iterator uses and (analysable bodies only)
    /// for array accesses ([`Piece::Access`], indexing [`Stage::analysed`]).
    pub body: BodyTemplate,
    /// True when the body's accesses were analysed from plain array subscripts
    /// (false for macros, calls, pointer arithmetic).
    pub analysable: bool,
    /// For omplc nests whose body's accesses flextile reads exactly (an
    /// analysable body, or one whose accesses a macro spells): the accesses
    /// found in the body, to be checked against the declared ones (`None`
    /// otherwise, and for scops, whose `accesses` are the analysed ones).
    pub observed: Option<Vec<Access>>,
    /// For a body that is not analysable only because some of its subscripts
    /// are data-dependent ([`Expr::Any`]): what it accesses (see
    /// [`Stage::spelled`]).
    pub gathered: Option<Gathered>,
    /// For the copies of a time block's body: the time step of the block
    /// this copy computes (rectangle tiles run their steps one after another).
    pub time_step: Option<usize>,
    /// For omplc nests whose loop headers are affine: the iterations the
    /// loops themselves run, to be checked against the declared domain.
    pub loop_bounds: Option<LoopBounds>,
    /// The `for` keyword of each loop around the stage, in the order of
    /// `iterators` (empty where the loops are not the user's: a copy
    /// flextile made), for the notes on loops left serial.
    pub loop_spans: Vec<Span>,
    /// The statement folds values into one scalar with an associative
    /// and commutative operator (`s += e`), see [`Reduction`].
    pub reduction: Option<Reduction>,
}

/// A statement `var = var op e` (or `var op= e`, `var = var < e ? var :
/// e`) whose `e` does not read `var` and that writes nothing else: its
/// instances may run in any order when `op` is associative and
/// commutative on the values (`exact`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reduction {
    /// The scalar reduced into.
    pub var: String,
    /// The operator.
    pub op: ReductionOp,
    /// The result does not depend on the order: an integer type (whose
    /// wrap-around arithmetic reassociates exactly); a floating-point sum
    /// or product does not reassociate bit for bit.
    pub exact: bool,
}

/// The operator of a [`Reduction`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ReductionOp {
    /// `+=`, `-=`, `s = s + e`, `s = s - e`.
    Sum,
    /// `*=`, `s = s * e`.
    Product,
    /// `&=`.
    And,
    /// `|=`.
    Or,
    /// `^=`.
    Xor,
    /// `s = s < e ? s : e`.
    Min,
    /// `s = s > e ? s : e`.
    Max,
}

impl ReductionOp {
    /// OpenMP's reduction identifier (`reduction(+:s)`).
    pub fn openmp(self) -> &'static str {
        match self {
            ReductionOp::Sum => "+",
            ReductionOp::Product => "*",
            ReductionOp::And => "&",
            ReductionOp::Or => "|",
            ReductionOp::Xor => "^",
            ReductionOp::Min => "min",
            ReductionOp::Max => "max",
        }
    }
}

/// What a body accesses that is not analysable only because some of its
/// subscripts are data-dependent.
#[derive(Clone, Debug)]
pub struct Gathered {
    /// The accesses found in it, which its holes index, gathers included.
    pub accesses: Vec<Access>,
    /// The element types of the arrays it accesses (kept out of
    /// [`Region::data_types`], which the CPU cost model reads: its choices
    /// were made, and measured, without them).
    pub types: BTreeMap<String, String>,
}

/// The iterations an annotated nest's own loops run.
#[derive(Clone, Debug)]
pub struct LoopBounds {
    /// Constraints over the stage's iterators, read from the loop headers.
    pub constraints: Vec<Constraint>,
    /// The headers (from the outermost `for` to the innermost header's `)`).
    pub headers: Span,
    /// The pragma's `domain(...)`.
    pub domain: Span,
}

impl Stage {
    /// The accesses found in the body, which [`Piece::Access`] holes index:
    /// `observed` for omplc nests, `accesses` for analysable scop statements.
    /// `None` when the body is not analysable (it then has no access holes).
    /// (An analysable omplc nest always has `observed`, so an analysable stage
    /// without it is a scop statement.)
    pub fn analysed(&self) -> Option<&[Access]> {
        match &self.observed {
            _ if !self.analysable => None,
            Some(obs) => Some(obs),
            None => Some(&self.accesses),
        }
    }

    /// The body's accesses when it spells every one of them as a hole: an
    /// analysable body's, or one whose data-dependent subscripts make it not
    /// analysable, whose gathers are holes with their subscripts as pieces
    /// (see [`Piece::Access`]). A back end that respells every access
    /// (CUDA's device buffers) prints through these; the C back end keeps a
    /// gathering body's text.
    pub fn spelled(&self) -> Option<&[Access]> {
        self.analysed()
            .or(self.gathered.as_ref().map(|g| g.accesses.as_slice()))
    }
}

/// An affine constraint `lhs op rhs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    /// Left-hand side.
    pub lhs: Expr,
    /// Comparison.
    pub op: CmpOp,
    /// Right-hand side.
    pub rhs: Expr,
}

/// Comparison operators of constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `>=`
    Ge,
    /// `>`
    Gt,
}

impl Constraint {
    /// The constraint that holds exactly where this one fails, when that is
    /// one constraint (not for `==`, whose negation is a disjunction).
    pub fn negated(&self) -> Option<Constraint> {
        let op = match self.op {
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Eq => return None,
        };
        Some(Constraint {
            lhs: self.lhs.clone(),
            op,
            rhs: self.rhs.clone(),
        })
    }
}

impl CmpOp {
    /// The isl (and C) spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Eq => "=",
            CmpOp::Ge => ">=",
            CmpOp::Gt => ">",
        }
    }
}

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// The stage reads the element.
    Read,
    /// The stage writes the element.
    Write,
}

/// One access of a stage to a data set.
#[derive(Clone, Debug)]
pub struct Access {
    /// Read or write.
    pub kind: AccessKind,
    /// Data-set name (a C array, or a logical name in omplc).
    pub data: String,
    /// Index expressions, one per dimension of the data set. `Expr::Any`
    /// stands for "any index" (a data-dependent access).
    pub index: Vec<Expr>,
    /// Where the access is written (pragma tuple or C subscript).
    pub span: Span,
    /// True when the body performs the access only under a condition (an
    /// `if`, `?:` or inner loop of the body); declared accesses are false.
    pub conditional: bool,
}

/// The schedule of a loop chain, as given in its pragma.
#[derive(Clone, Debug, Default)]
pub struct ChainSchedule {
    /// Items in order.
    pub items: Vec<ScheduleItem>,
}

/// One item of `schedule(...)`.
#[derive(Clone, Debug)]
pub enum ScheduleItem {
    /// `fuse()` (shifts = None: computed) or `fuse(t1, ..., tn)`.
    Fuse {
        /// One shift vector per nest, in order, when given.
        shifts: Option<Vec<Vec<i64>>>,
        /// The `fuse` item in the pragma.
        span: Span,
    },
    /// `parallel`.
    Parallel(Span),
    /// `wavefront`.
    Wavefront(Span),
    /// `tile(...)`.
    Tile(TileSpec),
}

/// `tile((s1, ..., sk), outer, inner)`.
#[derive(Clone, Debug)]
pub struct TileSpec {
    /// Tile sizes, outermost first.
    pub sizes: Vec<i64>,
    /// Treatment of the loops over tiles.
    pub outer: LoopTreatment,
    /// Treatment of the loops inside a tile.
    pub inner: LoopTreatment,
    /// The `tile` item in the pragma.
    pub span: Span,
}

/// How the loops of one level of a tiling are run.
#[derive(Clone, Debug)]
pub enum LoopTreatment {
    /// Left to flextile (command-line tiling): parallel where the dependences allow.
    Auto,
    /// In order.
    Serial,
    /// In parallel (checked against the dependences).
    Parallel,
    /// Skewed so that the inner loops become parallel.
    Wavefront,
    /// Tiled again.
    Tile(Box<TileSpec>),
}

/// A stage body with holes for its iterators.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyTemplate {
    /// Pieces in order.
    pub pieces: Vec<Piece>,
}

/// What fills a body's access holes (see [`BodyTemplate::instantiate_with`]).
pub type Filler<'a> = dyn FnMut(usize, &[String]) -> Option<String> + 'a;

/// One piece of a body template.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Source text copied verbatim.
    Text(String),
    /// A use of iterator number `k` of the stage (outermost is 0).
    Iter(usize),
    /// One array access `A[e1]...[en]` (array name included), only in bodies
    /// that spell every access ([`Stage::spelled`]). `access` indexes
    /// [`Stage::spelled`]; for an access that both reads and writes
    /// (`A[i] += ...`, `A[i]++`) it is the *write* access, and the read of the
    /// same element (also in the list) is this same text. `text` is the
    /// original access as pieces ([`Piece::Text`] and [`Piece::Iter`] only).
    /// An access with a data-dependent subscript (a *gather*, only in bodies
    /// that are not analysable) has its subscripts in `gather`, where the
    /// holes of the accesses inside them nest.
    Access {
        /// Index into the stage's analysed accesses.
        access: usize,
        /// True when the text is also the read of the element it writes
        /// (`A[i] += ...`, `A[i]++`): redirecting it redirects that read.
        reads_too: bool,
        /// The original text of the access.
        text: Vec<Piece>,
        /// For a gather: each subscript, outermost first, as pieces.
        gather: Option<Vec<Vec<Piece>>>,
    },
}

impl BodyTemplate {
    /// Fills the holes: iterator `k` becomes `iters[k]`, access holes their
    /// original text (so the original body comes back with renamed iterators).
    pub fn instantiate(&self, iters: &[String]) -> String {
        self.instantiate_with(iters, &mut |_, _| None)
    }

    /// Like [`BodyTemplate::instantiate`], but access hole `k` (an index into
    /// [`Stage::spelled`]) becomes `access(k, subscripts)` when that is
    /// `Some`; `subscripts` are a gather's subscripts, filled the same way
    /// (empty for other holes).
    pub fn instantiate_with(&self, iters: &[String], access: &mut Filler<'_>) -> String {
        self.instantiate_split(iters, iters, access)
    }

    /// Like [`BodyTemplate::instantiate_with`], but the iterators in the
    /// subscripts of the analysed accesses (affine: the model reads them as
    /// integers, whatever their C type) come from `subscripts`, those
    /// anywhere else (gathers' subscripts too) from `iters`.
    pub fn instantiate_split(
        &self,
        iters: &[String],
        subscripts: &[String],
        access: &mut Filler<'_>,
    ) -> String {
        let mut s = String::new();
        fill(&mut s, &self.pieces, (iters, subscripts), access);
        s
    }
}

/// Appends `pieces` to `s`, iterators from `iters.0` (from `iters.1` in an
/// analysed access's subscripts), access holes from `access` or their text.
fn fill(s: &mut String, pieces: &[Piece], iters: (&[String], &[String]), access: &mut Filler<'_>) {
    for p in pieces {
        match p {
            Piece::Text(t) => s.push_str(t),
            Piece::Iter(k) => match iters.0.get(*k) {
                Some(e) => s.push_str(e),
                None => s.push_str("/* missing iterator */"),
            },
            Piece::Access {
                access: k,
                text,
                gather,
                ..
            } => {
                let subscripts: Vec<String> = gather
                    .iter()
                    .flatten()
                    .map(|sub| {
                        let mut t = String::new();
                        fill(&mut t, sub, (iters.0, iters.0), access);
                        t
                    })
                    .collect();
                let inside = match gather {
                    Some(_) => (iters.0, iters.0),
                    None => (iters.1, iters.1),
                };
                match access(*k, &subscripts) {
                    Some(r) => s.push_str(&r),
                    None => fill(s, text, inside, access),
                }
            }
        }
    }
}
