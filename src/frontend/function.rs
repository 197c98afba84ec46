//! One walk of each function that holds regions, shared by all its regions.
//!
//! The checks of a region look at the whole function around it: the reads
//! that may run after it ([`super::temporaries`]), the proofs of liveness
//! ([`super::liveness`]), the final values of its loop variables
//! ([`super::final_values`]) and its per-thread state
//! ([`super::thread_state`]). Each used to walk the function through
//! libclang for every region, so a function of `n` regions cost `n` walks
//! of `n` regions' code (issue 54: 800 regions in one function took 12.4 s
//! of user time, now 1.2 s).
//! [`Walk`] visits the function once ([`Functions`] keeps it) with
//! every node's kind and span, and answers the per-region questions from
//! what it stored.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use crate::diag::Span;
use crate::frontend::ast::{strip, Unit};
use crate::frontend::clang::{Cursor, CursorKind};
use crate::frontend::liveness::{self, Owner};

/// The walks of the functions that hold regions, made on first use: one
/// per function for all its regions.
#[derive(Default)]
pub struct Functions<'tu> {
    /// The walks, by index in [`Unit::functions`].
    walks: RefCell<HashMap<usize, Rc<Walk<'tu>>>>,
}

impl<'tu> Functions<'tu> {
    /// No walk yet.
    pub fn new() -> Self {
        Functions::default()
    }

    /// The walk of the function whose definition holds all of `span`.
    pub fn walk(&self, unit: &Unit<'tu>, span: Span) -> Option<Rc<Walk<'tu>>> {
        let k = unit.function_index(span)?;
        let walk = self
            .walks
            .borrow_mut()
            .entry(k)
            .or_insert_with(|| Rc::new(Walk::new(unit.functions[k])))
            .clone();
        Some(walk)
    }
}

/// A use of per-thread state ([`super::thread_state`]) in a function: the
/// node, where it is, what it names, and whether it counts only where the
/// program reads errno (a call that may set it).
#[derive(Clone, Debug)]
pub struct StateUse<'tu> {
    /// The thread-local variable's declaration (`None`: errno).
    pub thread_local: Option<Cursor<'tu>>,
    /// The use.
    pub at: Span,
    /// The variable or the function called.
    pub what: String,
    /// True for a call that sets errno only where the program reads it.
    pub if_errno_read: bool,
}

/// A function's nodes, walked once, and what the regions inside it ask of
/// all of them (each computed on first use).
pub struct Walk<'tu> {
    /// Every node in preorder with its parent, the jumps and the references
    /// by name (what the proofs of [`liveness`] use).
    pub liveness: liveness::Function<'tu>,
    /// Every node's kind, by preorder index.
    kinds: Vec<CursorKind>,
    /// Every node's span, by preorder index.
    spans: Vec<Option<Span>>,
    /// The indices of the nodes with a span, stably sorted by its start.
    by_start: Vec<usize>,
    /// Whether the function holds a `goto` or a label.
    jumps: bool,
    /// The spans of the function's loops (`for`, `while`, `do`), in preorder.
    loops: Vec<Span>,
    /// The element reads that are candidates for [`Walk::reads_after`].
    element_reads: OnceCell<Vec<(String, Span)>>,
    /// The uses of per-thread state, in the order of `by_start`.
    state_uses: OnceCell<Vec<StateUse<'tu>>>,
    /// The region-independent part of [`liveness::prove`], by name.
    owned: RefCell<HashMap<String, Result<Owner, String>>>,
    /// Whether the function takes a variable's address, by name and
    /// declaration (see [`crate::frontend::final_values`]).
    addressed: RefCell<HashMap<(String, Option<usize>), bool>>,
}

impl<'tu> Walk<'tu> {
    /// Walks the function `root` once.
    pub fn new(root: Cursor<'tu>) -> Self {
        let liveness = liveness::Function::new(root);
        let kinds: Vec<CursorKind> = liveness.nodes.iter().map(|n| n.cursor.kind()).collect();
        let spans: Vec<Option<Span>> = liveness.nodes.iter().map(|n| n.cursor.span()).collect();
        let mut by_start: Vec<usize> = (0..spans.len()).filter(|&k| spans[k].is_some()).collect();
        by_start.sort_by_key(|&k| spans[k].map_or(0, |s| s.start));
        let jumps = kinds
            .iter()
            .any(|k| matches!(k, CursorKind::GotoStmt | CursorKind::LabelStmt));
        let loops = kinds
            .iter()
            .zip(&spans)
            .filter(|(k, _)| {
                matches!(
                    k,
                    CursorKind::ForStmt | CursorKind::WhileStmt | CursorKind::DoStmt
                )
            })
            .filter_map(|(_, s)| *s)
            .collect();
        Walk {
            liveness,
            kinds,
            spans,
            by_start,
            jumps,
            loops,
            element_reads: OnceCell::new(),
            state_uses: OnceCell::new(),
            owned: RefCell::default(),
            addressed: RefCell::default(),
        }
    }

    /// The function's definition.
    pub fn cursor(&self) -> Cursor<'tu> {
        self.liveness.nodes[0].cursor
    }

    /// Every node of the function, in preorder.
    pub fn cursors(&self) -> impl Iterator<Item = Cursor<'tu>> + '_ {
        self.liveness.nodes.iter().map(|n| n.cursor)
    }

    /// The span of the node of preorder index `k`.
    pub fn span(&self, k: usize) -> Option<Span> {
        self.spans.get(k).copied().flatten()
    }

    /// Whether the function holds a `goto` or a label.
    pub fn jumps(&self) -> bool {
        self.jumps
    }

    /// The spans of the loops of the function that enclose the region
    /// `region`.
    pub fn loops_around(&self, region: Span) -> Vec<Span> {
        self.loops
            .iter()
            .copied()
            .filter(|s| s.start <= region.start && region.end <= s.end && *s != region)
            .collect()
    }

    /// The element reads `(array, span)` of the function that may run after
    /// the region `region`: those after it, and those in one of the loops
    /// `around` it. Reads are subscripts down to a variable that are neither
    /// the target of a plain `=` nor the base of another subscript (the
    /// inner part of `A[i][j]`).
    pub fn reads_after(
        &self,
        unit: &Unit<'tu>,
        around: &[Span],
        region: Span,
    ) -> Vec<(String, Span)> {
        let inside = |s: Span, outer: Span| outer.start <= s.start && s.end <= outer.end;
        let may_run_after = |s: Span| {
            !inside(s, region) && (s.start >= region.end || around.iter().any(|l| inside(s, *l)))
        };
        self.element_reads
            .get_or_init(|| self.element_reads(unit))
            .iter()
            .filter(|(_, s)| may_run_after(*s))
            .cloned()
            .collect()
    }

    /// The candidates of [`Walk::reads_after`], in preorder.
    fn element_reads(&self, unit: &Unit<'tu>) -> Vec<(String, Span)> {
        let mut targets = BTreeSet::new();
        let mut inner = BTreeSet::new();
        for (k, n) in self.cursors().enumerate() {
            match self.kinds[k] {
                CursorKind::BinaryOperator if unit.binary_op(n).as_deref() == Some("=") => {
                    if let Some(lhs) = n.children().first() {
                        targets.extend(strip(*lhs).span().map(|s| (s.start, s.end)));
                    }
                }
                CursorKind::ArraySubscriptExpr => {
                    if let Some(base) = n.children().first() {
                        let b = strip(*base);
                        if b.kind() == CursorKind::ArraySubscriptExpr {
                            inner.extend(b.span().map(|s| (s.start, s.end)));
                        }
                    }
                }
                _ => {}
            }
        }
        let mut reads = Vec::new();
        for (k, n) in self.cursors().enumerate() {
            if self.kinds[k] != CursorKind::ArraySubscriptExpr {
                continue;
            }
            let Some(span) = self.spans[k] else { continue };
            let key = (span.start, span.end);
            if inner.contains(&key) || targets.contains(&key) {
                continue;
            }
            let mut root = n;
            while root.kind() == CursorKind::ArraySubscriptExpr {
                match root.children().first() {
                    Some(b) => root = strip(*b),
                    None => break,
                }
            }
            if root.kind() == CursorKind::DeclRefExpr {
                reads.push((root.spelling(), span));
            }
        }
        reads
    }

    /// The uses of per-thread state inside `region`, ordered by their start.
    pub fn state_uses(&self, region: Span) -> Vec<StateUse<'tu>> {
        let all = self.state_uses.get_or_init(|| self.all_state_uses());
        all.iter()
            .filter(|u| region.start <= u.at.start && u.at.end <= region.end)
            .cloned()
            .collect()
    }

    /// Every use of per-thread state in the function, ordered by start.
    fn all_state_uses(&self) -> Vec<StateUse<'tu>> {
        let mut out = Vec::new();
        for &k in &self.by_start {
            let (Some(at), n) = (self.spans[k], self.liveness.nodes[k].cursor) else {
                continue;
            };
            match self.kinds[k] {
                CursorKind::DeclRefExpr => {
                    if let Some(d) = n.referenced().filter(|d| d.is_thread_local()) {
                        out.push(StateUse {
                            thread_local: Some(d),
                            at,
                            what: d.spelling(),
                            if_errno_read: false,
                        });
                    }
                }
                CursorKind::CallExpr => {
                    let name = n.spelling();
                    let plain = name.strip_prefix("__builtin_").unwrap_or(&name);
                    let location = super::thread_state::ERRNO_LOCATIONS.contains(&plain);
                    if location || !super::thread_state::ERRNO_FREE.contains(&plain) {
                        out.push(StateUse {
                            thread_local: None,
                            at,
                            what: if location { "errno".to_string() } else { name },
                            if_errno_read: !location,
                        });
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// [`liveness::owned`] for `name`, computed once per function.
    pub fn owned(&self, unit: &Unit<'tu>, name: &str) -> Result<Owner, String> {
        if let Some(r) = self.owned.borrow().get(name) {
            return r.clone();
        }
        let r = liveness::owned(unit, &self.liveness, name);
        self.owned.borrow_mut().insert(name.to_string(), r.clone());
        r
    }

    /// `f(name, decl)` computed once per name and declaration.
    pub fn address_taken(&self, name: &str, decl: Cursor<'tu>, f: impl FnOnce() -> bool) -> bool {
        let key = (name.to_string(), decl.location());
        if let Some(r) = self.addressed.borrow().get(&key) {
            return *r;
        }
        let r = f();
        self.addressed.borrow_mut().insert(key, r);
        r
    }
}
