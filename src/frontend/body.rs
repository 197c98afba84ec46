//! Stage bodies: their templates (source text with holes for the iterators)
//! and the analysis of the accesses they perform, from clang's AST.
//!
//! The analysis understands plain array subscripts `A[e][f]` of variables,
//! assignments (`=` writes; `+=`, `++`, ... write and read), arithmetic,
//! literals, local variables, and calls to pure math functions. It gives up
//! ("not analysable") on calls to other functions, pointer dereferences,
//! address-of, member accesses, and operators it cannot read that may write
//! (an operator of a macro body may be an assignment when an assignment token
//! appears in the node's text or in the macros it expands, transitively: its
//! left operand is then taken as written). Macro invocations are analysed
//! through clang's expanded AST (`SCALAR_VAL(9.0)`, `SQRT_FUN(x)`); an access
//! that a macro body spells (`AT(A, i, j)` for `A[i][j]`) is exact but makes
//! the body not analysable, since its text cannot be redirected.
//! A subscript that is not affine in the iterators and loop-invariant
//! variables, or that converts a value in a way that may change it
//! (`(unsigned char)(i - 100)`), becomes [`Expr::Any`] in that dimension (and
//! the body is then not analysable).
//!
//! Scalars: a variable declared outside the body and written in it is a
//! 0-dimensional data set (written; read too where the body reads it).
//! Scalars that are only read are not accesses: they are loop-invariant.
//!
//! Access holes: in an analysable body, every array access `A[e1]...[en]`
//! of a variable declared outside the body, with all its indices affine,
//! becomes a [`Piece::Access`] of the template ([`template_with_accesses`]),
//! pointing at the analysed access it performs (the write for `+=`, `++`,
//! ...). Holes do not nest. The analysis also records the element type of
//! each such array (clang's spelling of the access's type, qualifiers
//! removed).
//!
//! In `#pragma scop` mode the accesses *are* the analysis, so constructs whose
//! accesses cannot be seen are errors; in omplc mode they only make the body
//! not analysable (the pragma's declared accesses carry the dependences).

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::{strip, Unit};
use crate::frontend::cexpr::{node_range, referenced_vars, to_expr, wrap_nodes, WrapNode};
use crate::frontend::clang::{Cursor, CursorKind, TokenKind, TypeClass};
use crate::frontend::storage::Declared;
use crate::model::expr::Expr;
use crate::model::program::{Access, AccessKind, BodyTemplate, Gathered, Piece};

/// Functions without side effects on memory whose calls are analysable.
pub(crate) const PURE_FUNCTIONS: &[&str] = &[
    "sqrt",
    "sqrtf",
    "sqrtl",
    "cbrt",
    "cbrtf",
    "fabs",
    "fabsf",
    "fabsl",
    "abs",
    "labs",
    "llabs",
    "exp",
    "expf",
    "exp2",
    "exp2f",
    "expm1",
    "log",
    "logf",
    "log2",
    "log2f",
    "log10",
    "log10f",
    "log1p",
    "pow",
    "powf",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "round",
    "roundf",
    "trunc",
    "truncf",
    "fmod",
    "fmodf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "min",
    "max",
    "sin",
    "sinf",
    "cos",
    "cosf",
    "tan",
    "tanf",
    "asin",
    "asinf",
    "acos",
    "acosf",
    "atan",
    "atanf",
    "atan2",
    "atan2f",
    "sinh",
    "sinhf",
    "cosh",
    "coshf",
    "tanh",
    "tanhf",
    "hypot",
    "hypotf",
    "erf",
    "erff",
    "fma",
    "fmaf",
    "copysign",
    "copysignf",
];

/// Which front-end mode the body belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// An annotated nest: failures make the body not analysable.
    Omplc,
    /// A scop statement: failures are errors.
    Scop,
}

/// What the analysis of one body found.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    /// Accesses, without duplicates, in order of appearance.
    pub accesses: Vec<Access>,
    /// False when some access could not be expressed exactly.
    pub analysable: bool,
    /// Why the accesses found are not all the body performs, exactly: the
    /// first construct whose accesses flextile cannot see or express (a call,
    /// a pointer, a data-dependent subscript, an operator of a macro that may
    /// assign) and where it is. `None`: [`Analysis::accesses`] are exact (also
    /// when a macro spells them, which makes the body not analysable), so a
    /// loop chain's declaration can be checked against them.
    pub inexact: Option<(Span, String)>,
    /// True when the body spells every access as a hole: `analysable`, or
    /// not only because some subscripts are data-dependent ([`Expr::Any`]):
    /// such an access (a *gather*) is then a hole too, its subscripts
    /// templates where the holes inside them nest. The C back end keeps the
    /// text of a body that is not analysable; CUDA's respells its gathers.
    pub spelled: bool,
    /// Errors (iterator assignments, jumps out of the body, and in scop mode
    /// anything whose accesses cannot be seen).
    pub errors: Vec<Diagnostic>,
    /// Array accesses that become [`Piece::Access`] holes, in textual order,
    /// none inside another but in a gather's subscripts (empty unless
    /// `spelled`).
    pub holes: Vec<AccessHole>,
    /// Element type of every array accessed (empty unless `spelled`; the
    /// region's model takes those of analysable bodies only).
    pub types: BTreeMap<String, String>,
    /// How the variables of [`Analysis::accesses`] are declared (kept also
    /// when the body is not analysable: the alias guard needs them).
    pub declared: Declared,
    /// The scalar variables declared outside the body that it reads or
    /// writes, with clang's spelling of their types (a CUDA kernel receives
    /// the loop-invariant ones as parameters, the others in device buffers).
    pub scalars: BTreeMap<String, String>,
    /// What the analysed subscripts compute that may wrap (see
    /// [`crate::model::program::Wraps`]), over the body's iterations.
    pub wraps: Vec<WrapNode>,
    /// The ranges of the integer variables those subscripts read.
    pub ranges: BTreeMap<String, (i128, i128)>,
}

/// One array access of a body that becomes a [`Piece::Access`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessHole {
    /// The whole access `A[e1]...[en]`.
    pub span: Span,
    /// Index into [`Analysis::accesses`]: the write when the access writes.
    pub access: usize,
    /// True when the access also reads the element it writes (`A[i] += ...`,
    /// `A[i]++`): its text is then the read too.
    pub reads_too: bool,
    /// A gather's subscripts, outermost first (empty for an access whose
    /// subscripts are affine).
    pub subscripts: Vec<Span>,
}

/// The template of the bytes `span` with iterator holes (as [`template`])
/// and a [`Piece::Access`] for each of `holes` inside `span` (holes
/// overlapping an earlier one, or a replacement of the C++ edits, are left
/// as text). The C++ edits (for the CUDA target, [`Unit::cxx_edits`]) are
/// applied, those at a hole's ends outside it.
pub fn template_with_accesses(
    unit: &Unit<'_>,
    span: Span,
    iterators: &[String],
    holes: &[AccessHole],
) -> BodyTemplate {
    let holes_in = holes;
    let mut holes: Vec<&AccessHole> = holes
        .iter()
        .filter(|h| span.start <= h.span.start && h.span.end <= span.end)
        .filter(|h| !unit.replaced(h.span))
        .collect();
    holes.sort_by_key(|h| (h.span.start, std::cmp::Reverse(h.span.end)));
    let mut pieces = Vec::new();
    let mut pos = span.start;
    let append = |pieces: &mut Vec<Piece>, more: Vec<Piece>| {
        for p in more {
            match (pieces.last_mut(), p) {
                (Some(Piece::Text(a)), Piece::Text(b)) => a.push_str(&b),
                (_, p) => pieces.push(p),
            }
        }
    };
    for h in holes {
        if h.span.start < pos {
            continue;
        }
        let before = template_in(unit, Span::new(pos, h.span.start), iterators, (true, true));
        append(&mut pieces, before.pieces);
        let gather = (!h.subscripts.is_empty()).then(|| {
            h.subscripts
                .iter()
                .map(|sub| template_with_accesses(unit, *sub, iterators, holes_in).pieces)
                .collect()
        });
        pieces.push(Piece::Access {
            access: h.access,
            reads_too: h.reads_too,
            text: template_in(unit, h.span, iterators, (false, false)).pieces,
            gather,
        });
        pos = h.span.end;
    }
    let rest = template_in(
        unit,
        Span::new(pos, span.end.max(pos)),
        iterators,
        (true, true),
    );
    append(&mut pieces, rest.pieces);
    BodyTemplate { pieces }
}

/// A C type spelling without its qualifiers (`const`, `volatile`, `restrict`).
fn unqualified(ty: &str) -> String {
    const QUALIFIERS: &[&str] = &[
        "const",
        "volatile",
        "restrict",
        "__restrict",
        "__restrict__",
        "_Atomic",
    ];
    ty.split_whitespace()
        .filter(|w| !QUALIFIERS.contains(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The template of the bytes `span`: identifier tokens naming an iterator
/// (not after `.` or `->`) become [`Piece::Iter`].
pub fn template(unit: &Unit<'_>, span: Span, iterators: &[String]) -> BodyTemplate {
    template_in(unit, span, iterators, (true, true))
}

/// [`template`] with the C++ edits ([`Unit::cxx_edits`]) applied: those
/// inside `span`, and an insertion at its start or end where `ends` says
/// so. An iterator inside a replaced span is no hole.
fn template_in(
    unit: &Unit<'_>,
    span: Span,
    iterators: &[String],
    ends: (bool, bool),
) -> BodyTemplate {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut pos = span.start;
    let mut prev: Option<&str> = None;
    let edited = !unit.cxx_edits.is_empty();
    for t in unit.tokens_in(span) {
        let hole = if t.kind == TokenKind::Identifier && !matches!(prev, Some("." | "->")) {
            iterators.iter().position(|i| *i == t.text)
        } else {
            None
        };
        if let Some(k) = hole.filter(|_| !edited || !unit.replaced(t.span)) {
            let before = Span::new(pos, t.span.start);
            if edited {
                text.push_str(&unit.edited(before, (pos != span.start || ends.0, true)));
            } else {
                text.push_str(unit.slice(before));
            }
            if !text.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut text)));
            }
            pieces.push(Piece::Iter(k));
            pos = t.span.end;
        }
        prev = Some(t.text.as_str());
    }
    let rest = Span::new(pos, span.end.max(pos));
    if edited {
        text.push_str(&unit.edited(rest, (pos != span.start || ends.0, ends.1)));
    } else {
        text.push_str(unit.slice(rest));
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    BodyTemplate { pieces }
}

/// Variables assigned (`=`, compound assignment, `++`, `--`) anywhere under
/// `c`: array names for subscripted targets, variable names otherwise.
pub fn assigned_vars(unit: &Unit<'_>, c: Cursor<'_>, out: &mut BTreeSet<String>) {
    let target = match c.kind() {
        CursorKind::BinaryOperator => match unit.binary_op(c).as_deref() {
            Some("=") => c.children().into_iter().next(),
            Some(_) => None,
            None => c
                .children()
                .into_iter()
                .next()
                .filter(|l| unit.macro_may_assign_to(c.span().unwrap_or_default(), *l)),
        },
        CursorKind::CompoundAssignOperator => c.children().into_iter().next(),
        CursorKind::UnaryOperator => match unit.unary_op(c) {
            Some((op, _)) if op == "++" || op == "--" => c.children().into_iter().next(),
            Some(_) => None,
            None => c
                .children()
                .into_iter()
                .next()
                .filter(|k| unit.macro_may_assign_to(c.span().unwrap_or_default(), *k)),
        },
        _ => None,
    };
    if let Some(t) = target {
        let mut base = strip(t);
        while base.kind() == CursorKind::ArraySubscriptExpr {
            match base.children().into_iter().next() {
                Some(b) => base = strip(b),
                None => break,
            }
        }
        if base.kind() == CursorKind::DeclRefExpr {
            if let Some(d) = base.referenced() {
                out.insert(d.spelling());
            }
        }
    }
    if c.kind() == CursorKind::VarDecl {
        out.insert(c.spelling());
    }
    for k in c.children() {
        assigned_vars(unit, k, out);
    }
}

/// How an expression is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Read,
    Write,
    ReadWrite,
}

/// Settings of one body analysis.
pub struct BodyScope<'a> {
    /// Omplc nest or scop statement.
    pub mode: Mode,
    /// The stage's iterators (outermost first).
    pub iterators: &'a [String],
    /// Declarations inside this range are local to the body.
    pub local_range: Span,
    /// Variables declared outside it that are local to it too: a scop's
    /// statement-local scalars, of which the body declares its own copy.
    pub locals: &'a [Cursor<'a>],
    /// Variables written anywhere in the region (scop mode): reads of such
    /// scalars are accesses, and they are not loop-invariant.
    pub region_writes: &'a BTreeSet<String>,
}

struct Walker<'a, 'tu> {
    unit: &'a Unit<'tu>,
    scope: &'a BodyScope<'a>,
    out: Analysis,
    /// Variables assigned anywhere in the body (found before the walk).
    body_writes: BTreeSet<String>,
    /// Scalars written in the body.
    written: BTreeSet<String>,
    /// Scalar reads seen (kept if the scalar is written).
    scalar_reads: Vec<(String, Span)>,
    /// Loops and switches entered inside the body (for `break`/`continue`).
    nesting: usize,
    /// True while walking the operand of a macro operator that cannot be read
    /// and only may be an assignment (so the write role is a guess).
    guessed_write: bool,
    /// How many conditional constructs (`if`, `?:`, loops, `switch`) of the
    /// body enclose the current node.
    conditional: usize,
}

/// Analyses the body `c` (a statement or expression) whose bytes are `span`.
pub fn analyse(unit: &Unit<'_>, c: Cursor<'_>, span: Span, scope: &BodyScope<'_>) -> Analysis {
    analyse_all(unit, &[c], span, scope)
}

/// Analyses the body made of the statements `cs`, one after another, whose
/// bytes are `span`.
pub fn analyse_all(
    unit: &Unit<'_>,
    cs: &[Cursor<'_>],
    span: Span,
    scope: &BodyScope<'_>,
) -> Analysis {
    let mut body_writes = BTreeSet::new();
    for c in cs {
        assigned_vars(unit, *c, &mut body_writes);
    }
    let mut w = Walker {
        unit,
        scope,
        out: Analysis {
            analysable: true,
            spelled: true,
            ..Analysis::default()
        },
        body_writes,
        written: BTreeSet::new(),
        scalar_reads: Vec::new(),
        nesting: 0,
        guessed_write: false,
        conditional: 0,
    };
    w.macros(span);
    for c in cs {
        w.walk(*c, Role::Read);
    }
    let reads = std::mem::take(&mut w.scalar_reads);
    for (name, sp) in reads {
        if w.written.contains(&name) || scope.region_writes.contains(&name) {
            w.push(AccessKind::Read, name, Vec::new(), sp);
        }
    }
    let mut out = w.out;
    if out.spelled {
        // Outermost first; an access inside another one stays text, but
        // in a gather's subscripts (`A[B[i]]`), where holes nest.
        out.holes
            .sort_by_key(|h| (h.span.start, std::cmp::Reverse(h.span.end)));
        let mut end = 0;
        out.holes.retain(|h| {
            let keep = h.span.start >= end;
            if keep && h.subscripts.is_empty() {
                end = h.span.end;
            }
            keep
        });
    } else {
        out.holes.clear();
        out.types.clear();
    }
    out
}

impl Analysis {
    /// What a body that is spelled but not analysable accesses (see
    /// [`Analysis::spelled`]).
    pub fn gathered(&self) -> Option<Gathered> {
        (self.spelled && !self.analysable).then(|| Gathered {
            accesses: self.accesses.clone(),
            types: self.types.clone(),
        })
    }
}

impl<'tu> Walker<'_, 'tu> {
    /// Marks the body not analysable; in scop mode also an error at `at`.
    fn opaque(&mut self, at: Option<Span>, what: &str) {
        self.out.analysable = false;
        self.out.spelled = false;
        self.inexact(at, what);
        if self.scope.mode == Mode::Scop {
            self.out.errors.push(Diagnostic::error(
                at.unwrap_or_default(),
                format!(
                    "{what} in a scop statement: flextile cannot see its accesses \
                     (annotate the nest with '#pragma omplc for' and declare them)"
                ),
            ));
        }
    }

    /// Records the first construct whose accesses are not exact.
    fn inexact(&mut self, at: Option<Span>, what: &str) {
        if self.out.inexact.is_none() {
            self.out.inexact = Some((at.unwrap_or_default(), what.to_string()));
        }
    }

    fn error(&mut self, at: Option<Span>, msg: String) {
        self.out
            .errors
            .push(Diagnostic::error(at.unwrap_or_default(), msg));
    }

    /// Adds an access (unless already there); its position in the list.
    fn push(&mut self, kind: AccessKind, data: String, index: Vec<Expr>, span: Span) -> usize {
        let dup = self
            .out
            .accesses
            .iter()
            .position(|a| a.kind == kind && a.data == data && a.index == index);
        dup.unwrap_or_else(|| {
            self.out.accesses.push(Access {
                kind,
                data,
                index,
                span,
                conditional: self.conditional > 0,
            });
            self.out.accesses.len() - 1
        })
    }

    /// Adds the accesses of `role`; the position of the write if any, else of the read.
    fn record(&mut self, role: Role, data: String, index: Vec<Expr>, span: Span) -> usize {
        let write = (role != Role::Read)
            .then(|| self.push(AccessKind::Write, data.clone(), index.clone(), span));
        let read = (role != Role::Write).then(|| self.push(AccessKind::Read, data, index, span));
        write.or(read).unwrap_or_default()
    }

    /// Macro invocations in the body: an iterator hidden in a macro body (or
    /// in a macro it names) is an error (the template could not rename it).
    /// The expansion itself is analysed through clang's AST like code written
    /// in the file; what that AST does not tell (operators of a macro body)
    /// is assumed to be the worst it may be (see [`Walker::walk`]).
    fn macros(&mut self, span: Span) {
        let unit = self.unit;
        for m in unit.macros_in(span) {
            let hidden = m
                .expanded
                .iter()
                .find(|(k, t)| *k == TokenKind::Identifier && self.scope.iterators.contains(t));
            if let Some((_, it)) = hidden {
                let msg = format!(
                    "macro '{}' uses the loop iterator '{it}' without taking it as an argument; \
                     flextile renames iterators, so pass '{it}' to the macro",
                    m.expansion.name
                );
                self.error(Some(m.expansion.span), msg);
            }
        }
    }

    fn is_local(&self, decl: Cursor<'_>) -> bool {
        let range = self.scope.local_range;
        decl.location()
            .is_some_and(|p| range.start <= p && p < range.end)
            || self.scope.locals.contains(&decl)
    }

    /// A unary operator: `++` and `--` write their operand; `&` and `*` make
    /// the body opaque; one hidden in a macro may write its operand.
    fn unary(&mut self, c: Cursor<'tu>, kids: &[Cursor<'tu>]) {
        let child = kids.first().copied();
        match self.unit.unary_op(c) {
            Some((op, _)) if op == "++" || op == "--" => {
                if let Some(k) = child {
                    let guessed = std::mem::replace(&mut self.guessed_write, false);
                    self.walk(k, Role::ReadWrite);
                    self.guessed_write = guessed;
                }
            }
            Some((op, _)) if op == "&" => {
                self.opaque(c.span(), "taking an address");
                kids.iter().for_each(|k| self.walk(*k, Role::Read));
            }
            Some((op, _)) if op == "*" => {
                self.opaque(c.span(), "a pointer dereference");
                kids.iter().for_each(|k| self.walk(*k, Role::Read));
            }
            Some(_) => kids.iter().for_each(|k| self.walk(*k, Role::Read)),
            None if self
                .unit
                .macro_may_touch_memory(c.span().unwrap_or_default()) =>
            {
                self.opaque(c.span(), "a unary operator inside a macro");
                if let Some(k) = child {
                    let guessed = std::mem::replace(&mut self.guessed_write, true);
                    self.walk(k, Role::ReadWrite);
                    self.guessed_write = guessed;
                }
            }
            None => kids.iter().for_each(|k| self.walk(*k, Role::Read)),
        }
    }

    fn walk(&mut self, c: Cursor<'tu>, role: Role) {
        let kids = c.children();
        match c.kind() {
            CursorKind::BinaryOperator => {
                match (self.unit.binary_op(c).as_deref(), kids.as_slice()) {
                    (Some("="), [l, r]) => {
                        let guessed = std::mem::replace(&mut self.guessed_write, false);
                        self.walk(*l, Role::Write);
                        self.guessed_write = guessed;
                        self.walk(*r, Role::Read);
                    }
                    (Some(_), _) => kids.iter().for_each(|k| self.walk(*k, Role::Read)),
                    (None, [l, r])
                        if self
                            .unit
                            .macro_may_assign_to(c.span().unwrap_or_default(), *l) =>
                    {
                        self.opaque(c.span(), "an assignment inside a macro");
                        let guessed = std::mem::replace(&mut self.guessed_write, true);
                        self.walk(*l, Role::ReadWrite);
                        self.guessed_write = guessed;
                        self.walk(*r, Role::Read);
                    }
                    (None, _) => kids.iter().for_each(|k| self.walk(*k, Role::Read)),
                }
            }
            CursorKind::CompoundAssignOperator => {
                if let [l, r] = kids.as_slice() {
                    let guessed = std::mem::replace(&mut self.guessed_write, false);
                    self.walk(*l, Role::ReadWrite);
                    self.guessed_write = guessed;
                    self.walk(*r, Role::Read);
                }
            }
            CursorKind::UnaryOperator => self.unary(c, &kids),
            CursorKind::ArraySubscriptExpr => self.subscript(c, role),
            CursorKind::DeclRefExpr => self.var_ref(c, role, false),
            CursorKind::MemberRefExpr => {
                self.opaque(c.span(), "a member access");
                kids.iter().for_each(|k| self.walk(*k, Role::Read));
            }
            CursorKind::CallExpr => {
                let name = c.spelling();
                if PURE_FUNCTIONS.contains(&name.as_str()) {
                    kids.iter().skip(1).for_each(|k| self.walk(*k, Role::Read));
                } else {
                    self.opaque(c.span(), &format!("a call to '{name}'"));
                    kids.iter().skip(1).for_each(|k| self.walk(*k, Role::Read));
                }
            }
            CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr => {
                kids.iter().for_each(|k| self.walk(*k, role));
            }
            CursorKind::IntegerLiteral
            | CursorKind::FloatingLiteral
            | CursorKind::CharacterLiteral
            | CursorKind::StringLiteral
            | CursorKind::UnaryExpr
            | CursorKind::TypeRef
            | CursorKind::NullStmt => {}
            CursorKind::ConditionalOperator | CursorKind::IfStmt => {
                // The condition itself is evaluated always; the branches are not.
                let mut rest = kids.iter();
                if let Some(cond) = rest.next() {
                    self.walk(*cond, Role::Read);
                }
                self.conditional += 1;
                rest.for_each(|k| self.walk(*k, Role::Read));
                self.conditional -= 1;
            }
            CursorKind::CompoundStmt | CursorKind::DeclStmt | CursorKind::VarDecl => {
                kids.iter().for_each(|k| self.walk(*k, Role::Read))
            }
            CursorKind::ForStmt
            | CursorKind::WhileStmt
            | CursorKind::DoStmt
            | CursorKind::SwitchStmt => {
                self.nesting += 1;
                self.conditional += 1;
                kids.iter().for_each(|k| self.walk(*k, Role::Read));
                self.conditional -= 1;
                self.nesting -= 1;
            }
            CursorKind::BreakStmt | CursorKind::ContinueStmt if self.nesting > 0 => {}
            CursorKind::LabelStmt => {
                // A label is unique in its function, and the output prints a
                // stage's body more than once (tiles, the alias guard's copy
                // of the original code).
                self.error(
                    c.span(),
                    format!(
                        "label '{}' in the body of a stage: the output holds the body more than once, and a label may appear only once in a function; remove the label",
                        c.spelling()
                    ),
                );
                kids.iter().for_each(|k| self.walk(*k, Role::Read));
            }
            CursorKind::BreakStmt
            | CursorKind::ContinueStmt
            | CursorKind::ReturnStmt
            | CursorKind::GotoStmt => {
                let word = match c.kind() {
                    CursorKind::BreakStmt => "break",
                    CursorKind::ContinueStmt => "continue",
                    CursorKind::ReturnStmt => "return",
                    _ => "goto",
                };
                self.error(
                    c.span(),
                    format!(
                        "'{word}' leaves the body of a stage; flextile cannot reorder such a body"
                    ),
                );
            }
            _ => {
                self.opaque(c.span(), "a construct flextile does not analyse");
                kids.iter().for_each(|k| self.walk(*k, Role::Read));
            }
        }
    }

    /// A use of a variable outside a subscript's base.
    fn var_ref(&mut self, c: Cursor<'tu>, role: Role, as_array: bool) {
        let Some(d) = c.referenced() else { return };
        if !matches!(d.kind(), CursorKind::VarDecl | CursorKind::ParmDecl) || self.is_local(d) {
            return;
        }
        let name = d.spelling();
        let span = c.span().unwrap_or_default();
        if self.scope.iterators.contains(&name) {
            // An operand of an unreadable macro operator is only a guessed
            // write: `(i)-1` in `A[(i)-1] = ...` must not count as assigning `i`.
            let guessed = self.guessed_write && !self.unit.macro_may_assign_arg(span);
            if role != Role::Read && !guessed {
                self.error(
                    Some(span),
                    format!("the loop iterator '{name}' is assigned in the body of a stage"),
                );
            }
            return;
        }
        // Also a pointer passed to a call: a loop chain's declared accesses
        // to it then get their storage from here.
        self.out.declared.note(self.unit, &name, d);
        let class = d.type_class();
        if !as_array && matches!(class, TypeClass::Array | TypeClass::Pointer) {
            self.opaque(
                Some(span),
                &format!("a use of the array or pointer '{name}' without subscripts"),
            );
            return;
        }
        match role {
            Role::Read => {
                self.out.scalars.insert(name.clone(), d.type_spelling());
                self.scalar_reads.push((name, span));
            }
            Role::Write | Role::ReadWrite => {
                self.out.scalars.insert(name.clone(), d.type_spelling());
                self.written.insert(name.clone());
                self.record(role, name, Vec::new(), span);
            }
        }
    }

    /// `A[e1]...[en]` used with `role`.
    fn subscript(&mut self, c: Cursor<'tu>, role: Role) {
        let span = c.span().unwrap_or_default();
        let mut subs = Vec::new();
        let mut cur = c;
        while cur.kind() == CursorKind::ArraySubscriptExpr {
            let kids = cur.children();
            let [base, idx] = kids.as_slice() else {
                self.opaque(Some(span), "a subscript flextile cannot read");
                return;
            };
            subs.push(*idx);
            cur = strip(*base);
        }
        subs.reverse();
        for s in &subs {
            self.walk(*s, Role::Read);
        }
        let decl = if cur.kind() == CursorKind::DeclRefExpr {
            cur.referenced()
        } else {
            None
        };
        let Some(decl) =
            decl.filter(|d| matches!(d.kind(), CursorKind::VarDecl | CursorKind::ParmDecl))
        else {
            self.opaque(Some(span), "a subscript of a computed address");
            self.walk(cur, Role::Read);
            return;
        };
        if self.is_local(decl) {
            return;
        }
        if matches!(c.type_class(), TypeClass::Array | TypeClass::Pointer) {
            self.opaque(
                Some(span),
                &format!("a partial subscript of '{}'", decl.spelling()),
            );
            return;
        }
        if !matches!(decl.type_class(), TypeClass::Array | TypeClass::Pointer) {
            self.opaque(Some(span), "a subscript flextile cannot read");
            return;
        }
        let mut index = Vec::new();
        for s in &subs {
            match self.affine_subscript(*s) {
                Some(e) => {
                    let nodes = wrap_nodes(self.unit, *s, &mut self.out.ranges);
                    self.out.wraps.extend(nodes);
                    index.push(e);
                }
                None => {
                    self.out.analysable = false;
                    let at = s.span().unwrap_or(span);
                    let why = match self.unit.macro_exactly(at) {
                        None => "a subscript that is not affine",
                        Some(_) => "a subscript computed in a macro's body, whose operators flextile cannot read",
                    };
                    self.inexact(Some(at), why);
                    index.push(Expr::Any);
                }
            }
        }
        let affine = !index.contains(&Expr::Any);
        let subscripts: Option<Vec<Span>> = match affine {
            true => Some(Vec::new()),
            false => subs.iter().map(|s| s.span()).collect(),
        };
        let name = decl.spelling();
        self.out.declared.note(self.unit, &name, decl);
        self.out
            .types
            .entry(name.clone())
            .or_insert_with(|| unqualified(&c.type_spelling()));
        let access = self.record(role, name, index, span);
        // A hole is replaced by other text (a scratchpad, a renamed array):
        // only an access whose text is its own (written in the file, or in
        // one macro argument) can be. One that a macro body writes
        // (`AT(A, i, j)` for `A[i][j]`) is exact for the dependences, but the
        // body cannot be redirected: not analysable.
        // A data-dependent subscript is a hole only for back ends that
        // respell every access (a gather: see `Analysis::spelled`).
        match (self.unit.is_clean(span), c.span(), subscripts) {
            (true, Some(_), Some(subscripts)) => self.out.holes.push(AccessHole {
                span,
                access,
                reads_too: role == Role::ReadWrite,
                subscripts,
            }),
            _ => {
                self.out.analysable = false;
                self.out.spelled = false;
            }
        }
    }

    /// The subscript as an affine expression of the iterators and
    /// loop-invariant variables, if it is one. A conversion that may change
    /// a value (`(unsigned char)(i - 100)`, `i + u` with `u` unsigned) makes
    /// it none: the model's integers do not wrap.
    fn affine_subscript(&self, s: Cursor<'tu>) -> Option<Expr> {
        if !preserves_values(s) {
            return None;
        }
        let e = to_expr(self.unit, s)?;
        if !e.is_affine() {
            return None;
        }
        for v in referenced_vars(s) {
            let invariant = !self.scope.region_writes.contains(&v) && !self.written_in_body(&v);
            if !self.scope.iterators.contains(&v) && !invariant {
                return None;
            }
        }
        // Local variables are not loop-invariant parameters.
        let mut ok = true;
        visit_decl_refs(s, &mut |d| {
            if self.is_local(d) && !self.scope.iterators.contains(&d.spelling()) {
                ok = false;
            }
        });
        ok.then_some(e)
    }

    fn written_in_body(&self, v: &str) -> bool {
        self.body_writes.contains(v)
    }
}

/// True when every conversion under `c` (explicit casts and clang's implicit
/// ones) keeps every value of its operand: of a constant the type holds;
/// between integer types, to a type
/// of the same signedness at least as wide, or to a wider signed type; any
/// conversion involving other types only when the type does not change.
fn preserves_values(c: Cursor<'_>) -> bool {
    let mut stack = vec![c];
    while let Some(c) = stack.pop() {
        let kids = c.children();
        if matches!(
            c.kind(),
            CursorKind::CStyleCastExpr | CursorKind::UnexposedExpr
        ) {
            let exprs: Vec<Cursor<'_>> = kids
                .iter()
                .copied()
                .filter(|k| k.kind().is_expression())
                .collect();
            if let [from] = exprs.as_slice() {
                // A constant that the type holds keeps its value (`i - 1`
                // on a `size_t i` converts the literal); what the arithmetic
                // computes from it is checked not to wrap (`model::wrap`).
                let fits = |k: i64| {
                    node_range(c).is_some_and(|(lo, hi)| lo <= k.into() && i128::from(k) <= hi)
                };
                let ok = match (from.int_type(), c.int_type()) {
                    (Some(_), Some(_)) if from.eval_int().is_some_and(fits) => true,
                    (Some((fs, fsize)), Some((ts, tsize))) => {
                        (fs == ts && tsize >= fsize) || (ts && !fs && tsize > fsize)
                    }
                    _ => from.type_spelling() == c.type_spelling(),
                };
                if !ok {
                    return false;
                }
            }
        }
        stack.extend(kids);
    }
    true
}

/// Calls `f` on the declaration of every variable referenced under `c`.
fn visit_decl_refs<'tu>(c: Cursor<'tu>, f: &mut dyn FnMut(Cursor<'tu>)) {
    if c.kind() == CursorKind::DeclRefExpr {
        if let Some(d) = c.referenced() {
            if matches!(d.kind(), CursorKind::VarDecl | CursorKind::ParmDecl) {
                f(d);
            }
        }
    }
    for k in c.children() {
        visit_decl_refs(k, f);
    }
}

#[cfg(test)]
mod tests;
