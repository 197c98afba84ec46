//! The polyhedral form of a region: isl iteration domains, access relations
//! and the original schedule tree, built from the front end's [`Region`].
//!
//! C names are kept in isl strings where isl's parser accepts them; names
//! that are isl keywords (or look like generated loop counters `c0`, `c1`)
//! are renamed, and [`Names`] maps them back for code generation.

use crate::diag::{Diagnostic, Error, Result};
use crate::model::expr::Expr;
use crate::model::isl_ext::{isl_err, IslText};
use crate::model::program::{Access, AccessKind, Constraint, OrigNode, Region, Stage};
use isl_rs::{Context, Schedule, Set, UnionMap, UnionSet};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Words isl's parser reserves; C names equal to one are renamed.
const ISL_KEYWORDS: &[&str] = &[
    "exists", "and", "or", "implies", "not", "mod", "min", "max", "rat", "infty", "NaN", "floor",
    "ceil", "floord", "ceild", "true", "false", "domain", "range", "div", "cond",
];

/// The isl spelling of a C name.
pub fn isl_name(c_name: &str) -> String {
    let looks_generated = c_name.len() > 1
        && c_name.starts_with('c')
        && c_name[1..].bytes().all(|b| b.is_ascii_digit());
    if ISL_KEYWORDS.contains(&c_name) || looks_generated || c_name.starts_with("ft_") {
        format!("ft_{c_name}")
    } else {
        c_name.to_string()
    }
}

/// Names shared by all regions: parameters (free identifiers of bounds and
/// subscripts) in isl and C spelling.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// isl name → C name, for every parameter.
    pub params: BTreeMap<String, String>,
}

impl Names {
    /// The isl parameter list `[N, M]` (`[]` when there is none), for messages.
    pub fn param_list(&self) -> String {
        let v: Vec<&str> = self.params.keys().map(String::as_str).collect();
        format!("[{}]", v.join(", "))
    }

    /// What precedes a set, map or affine expression in isl text: `[N, M] -> `,
    /// or nothing when the region has no parameter (isl's parser rejects
    /// `[] -> [{ ... }]`).
    pub fn params_prefix(&self) -> String {
        if self.params.is_empty() {
            String::new()
        } else {
            format!("{} -> ", self.param_list())
        }
    }

    /// The C spelling of an isl identifier that is a parameter, if it is one.
    pub fn c_param(&self, isl: &str) -> Option<&str> {
        self.params.get(isl).map(String::as_str)
    }
}

/// Collects the parameters of every region: identifiers in domains and
/// subscripts that are not iterators of the stage using them.
pub fn collect_names(regions: &[Region]) -> Names {
    let mut names = Names::default();
    for region in regions {
        for stage in &region.stages {
            let mut vars = BTreeSet::new();
            for c in &stage.domain {
                c.lhs.collect_vars(&mut vars);
                c.rhs.collect_vars(&mut vars);
            }
            for a in stage.accesses.iter().chain(stage.observed.iter().flatten()) {
                a.index.iter().for_each(|e| e.collect_vars(&mut vars));
            }
            for v in vars {
                if !stage.iterators.contains(&v) {
                    names.params.insert(isl_name(&v), v);
                }
            }
        }
    }
    names
}

/// The isl objects of one region.
pub struct RegionModel {
    /// Statement instances of all stages.
    pub domain: UnionSet,
    /// Read accesses (declared, or analysed in scops).
    pub reads: UnionMap,
    /// Writes that certainly happen (no `*` index).
    pub must_writes: UnionMap,
    /// All writes.
    pub may_writes: UnionMap,
    /// The original execution order as a schedule tree.
    pub schedule: Schedule,
    /// Where the region holds several top-level nodes (the nests of a loop
    /// chain), the children of the schedule's top-level sequence, in order;
    /// empty otherwise. [`crate::model::deps`] analyses them a few at a time.
    pub parts: Vec<SchedulePart>,
    /// Constraints on the parameters (from `--assume`).
    pub context: Set,
}

impl RegionModel {
    /// Per data set, the elements each statement's reads and each one's
    /// writes touch, apart (a statement that reads a lookup table at any
    /// index does not hide the bounded box another one writes).
    pub fn touched_parts(&self) -> Result<BTreeMap<String, Vec<Set>>> {
        let mut out: BTreeMap<String, Vec<Set>> = BTreeMap::new();
        for accesses in [&self.reads, &self.may_writes] {
            let touched = accesses
                .copy()
                .map_err(isl_err)?
                .intersect_domain(self.domain.copy().map_err(isl_err)?)
                .map_err(isl_err)?;
            let list = touched.get_map_list().map_err(isl_err)?;
            for k in 0..list.size().map_err(isl_err)? {
                let set = list
                    .get_at(k)
                    .map_err(isl_err)?
                    .range()
                    .map_err(isl_err)?
                    .intersect_params(self.context.copy().map_err(isl_err)?)
                    .map_err(isl_err)?;
                let name = set.get_tuple_name().map_err(isl_err)?.to_string();
                out.entry(name).or_default().push(set);
            }
        }
        Ok(out)
    }

    /// The elements each data set's reads and writes touch, by isl name, for
    /// the parameter values the context (`--assume`) allows.
    pub fn touched_sets(&self) -> Result<BTreeMap<String, Set>> {
        let all = self
            .reads
            .copy()
            .map_err(isl_err)?
            .union(self.may_writes.copy().map_err(isl_err)?)
            .map_err(isl_err)?
            .intersect_domain(self.domain.copy().map_err(isl_err)?)
            .map_err(isl_err)?
            .range()
            .map_err(isl_err)?
            .intersect_params(self.context.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
        let list = all.get_set_list().map_err(isl_err)?;
        let mut out = BTreeMap::new();
        for k in 0..list.size().map_err(isl_err)? {
            let set = list.get_at(k).map_err(isl_err)?;
            let name = set.get_tuple_name().map_err(isl_err)?.to_string();
            out.insert(name, set);
        }
        Ok(out)
    }
}

/// One child of the top-level sequence of a region's schedule.
pub struct SchedulePart {
    /// Its statement instances.
    pub domain: UnionSet,
    /// The universe of each of its statements (for selecting their relations).
    pub universe: UnionSet,
    /// Its item of the sequence in the schedule's YAML (`{ filter: ..., child: ... }`).
    pub yaml: String,
    /// Its statements' names, in order, comma separated: which part it is
    /// (see [`crate::model::deps::LiveInMemo`]).
    pub key: String,
}

impl SchedulePart {
    /// The schedule of `parts` alone, in their order: what the region's
    /// schedule orders among their instances, with the same tree shape.
    pub fn schedule(ctx: &Context, parts: &[&SchedulePart]) -> Result<Schedule> {
        let mut domain = read_union_set(ctx, "{ }")?;
        for p in parts {
            domain = domain
                .union(p.domain.copy().map_err(isl_err)?)
                .map_err(isl_err)?;
        }
        let items: Vec<&str> = parts.iter().map(|p| p.yaml.as_str()).collect();
        let yaml = format!(
            "{{ domain: {}, child: {{ sequence: [ {} ] }} }}",
            quote(&domain.text()?),
            items.join(", ")
        );
        Schedule::read_from_str(ctx, &yaml)
            .map_err(|e| Error::internal(format!("isl cannot read schedule '{yaml}': {e}")))
    }
}

/// Everything needed to turn a stage's expressions into isl text.
struct StageText<'a> {
    stage: &'a Stage,
    names: &'a Names,
}

impl StageText<'_> {
    fn var(&self, v: &str) -> String {
        isl_name(v)
    }

    fn expr(&self, e: &Expr) -> String {
        e.to_isl(&|v| self.var(v))
    }

    fn tuple(&self) -> String {
        let its: Vec<String> = self.stage.iterators.iter().map(|i| self.var(i)).collect();
        format!("{}[{}]", self.stage.name, its.join(", "))
    }

    fn constraint(&self, c: &Constraint) -> String {
        format!(
            "{} {} {}",
            self.expr(&c.lhs),
            c.op.as_str(),
            self.expr(&c.rhs)
        )
    }

    fn conditions(&self) -> String {
        let v: Vec<String> = self
            .stage
            .domain
            .iter()
            .map(|c| self.constraint(c))
            .collect();
        if v.is_empty() {
            String::new()
        } else {
            format!(" : {}", v.join(" and "))
        }
    }

    fn domain(&self) -> String {
        format!(
            "{}{{ {}{} }}",
            self.names.params_prefix(),
            self.tuple(),
            self.conditions()
        )
    }

    /// [`StageText::access`] without the domain's constraints (the model
    /// intersects it with the stage's domain, already read: reading the
    /// constraints again for every access took most of the model's time).
    fn access_of_instances(&self, data: &str, index: &[Expr]) -> String {
        self.access_text(data, index, "")
    }

    /// `[P] -> { S0[i] -> A[i + 1] : domain }`; `*` indices become fresh variables.
    fn access(&self, data: &str, index: &[Expr]) -> String {
        self.access_text(data, index, &self.conditions())
    }

    /// The access of `data` at `index`, with `conditions` (` : ...` or none).
    fn access_text(&self, data: &str, index: &[Expr], conditions: &str) -> String {
        let idx: Vec<String> = index
            .iter()
            .enumerate()
            .map(|(k, e)| {
                if e.has_any() {
                    format!("ft_any{k}")
                } else {
                    self.expr(e)
                }
            })
            .collect();
        format!(
            "{}{{ {} -> {}[{}]{} }}",
            self.names.params_prefix(),
            self.tuple(),
            isl_name(data),
            idx.join(", "),
            conditions
        )
    }
}

/// The relation of `stage`'s access `access` over the stage's domain
/// (`S0[i] -> A[i + 1] : ...`; a `*` index is any element), as the model
/// reads it.
pub fn access_relation(
    ctx: &Context,
    stage: &Stage,
    names: &Names,
    access: &Access,
) -> Result<UnionMap> {
    let t = StageText { stage, names };
    read_union_map(ctx, &t.access(&access.data, &access.index))
}

fn read_union_set(ctx: &Context, s: &str) -> Result<UnionSet> {
    UnionSet::read_from_str(ctx, s)
        .map_err(|e| Error::internal(format!("isl cannot read '{s}': {e}")))
}

fn read_union_map(ctx: &Context, s: &str) -> Result<UnionMap> {
    UnionMap::read_from_str(ctx, s)
        .map_err(|e| Error::internal(format!("isl cannot read '{s}': {e}")))
}

/// Above this many access relations of one kind, a stage's relations are
/// joined pairwise (see [`union_all`]).
const PAIRWISE_ABOVE: usize = 256;

/// The union of `maps`. Joined in order (the order decides how isl lists the
/// disjuncts, and so the generated code); but a union copies the disjuncts
/// of its space, so a stage that declares thousands of accesses to one array
/// would take quadratic time: each run of more than [`PAIRWISE_ABOVE`]
/// relations of one stage (each comes with its stage's index) is first
/// joined pairwise, as a balanced tree.
fn union_all(ctx: &Context, maps: Vec<(usize, UnionMap)>) -> Result<UnionMap> {
    let mut runs: Vec<(usize, Vec<UnionMap>)> = Vec::new();
    for (stage, m) in maps {
        match runs.last_mut() {
            Some((s, run)) if *s == stage => run.push(m),
            _ => runs.push((stage, vec![m])),
        }
    }
    let mut u = read_union_map(ctx, "{ }")?;
    for (_, run) in runs {
        if run.len() <= PAIRWISE_ABOVE {
            for m in run {
                u = u.union(m).map_err(isl_err)?;
            }
            continue;
        }
        let mut level = run;
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            let mut it = level.into_iter();
            while let Some(a) = it.next() {
                next.push(match it.next() {
                    Some(b) => a.union(b).map_err(isl_err)?,
                    None => a,
                });
            }
            level = next;
        }
        for m in level {
            u = u.union(m).map_err(isl_err)?;
        }
    }
    Ok(u)
}

/// Builds the isl model of `region`. `assume` holds the user's parameter
/// constraints in isl syntax (`N >= 1 and M >= 2`), if any.
pub fn build(
    ctx: &Context,
    region: &Region,
    names: &Names,
    assume: Option<&str>,
) -> Result<RegionModel> {
    let mut domain = read_union_set(ctx, "{ }")?;
    let mut stage_domains = Vec::with_capacity(region.stages.len());
    let (mut reads, mut must_writes, mut may_writes) = (Vec::new(), Vec::new(), Vec::new());
    for (k, stage) in region.stages.iter().enumerate() {
        let t = StageText { stage, names };
        let dom = read_union_set(ctx, &t.domain())?;
        stage_domains.push(dom.copy().map_err(isl_err)?);
        let mut seen = HashSet::new();
        for a in &stage.accesses {
            let text = t.access_of_instances(&a.data, &a.index);
            if !seen.insert((a.kind == AccessKind::Read, text.clone())) {
                continue;
            }
            let m = read_union_map(ctx, &text)?
                .intersect_domain(dom.copy().map_err(isl_err)?)
                .map_err(isl_err)?;
            match a.kind {
                AccessKind::Read => reads.push((k, m)),
                AccessKind::Write => {
                    // A write under a condition (`if`, `?:`) may not happen:
                    // it kills no earlier write.
                    if !a.conditional && !a.index.iter().any(Expr::has_any) {
                        must_writes.push((k, m.copy().map_err(isl_err)?));
                    }
                    may_writes.push((k, m));
                }
            }
        }
        domain = domain.union(dom).map_err(isl_err)?;
    }
    let (reads, must_writes, may_writes) = (
        union_all(ctx, reads)?,
        union_all(ctx, must_writes)?,
        union_all(ctx, may_writes)?,
    );
    let context = assume_context(ctx, names, assume)?;
    let yaml = schedule_yaml(region, names, &domain.text()?)?;
    let schedule = Schedule::read_from_str(ctx, &yaml)
        .map_err(|e| Error::internal(format!("isl cannot read schedule '{yaml}': {e}")))?;
    let mut parts = Vec::new();
    if region.tree.len() > 1 {
        for (stages, yaml) in sequence_items(region, names, &region.tree, 0)? {
            let mut domain = read_union_set(ctx, "{ }")?;
            let mut universe = read_union_set(ctx, "{ }")?;
            let key: Vec<&str> = stages
                .iter()
                .map(|&k| region.stages[k].name.as_str())
                .collect();
            let key = key.join(",");
            for k in stages {
                let d = stage_domains[k].copy().map_err(isl_err)?;
                let t = StageText {
                    stage: &region.stages[k],
                    names,
                };
                let u = read_union_set(ctx, &format!("{{ {} }}", t.tuple()))?;
                domain = domain.union(d).map_err(isl_err)?;
                universe = universe.union(u).map_err(isl_err)?;
            }
            parts.push(SchedulePart {
                domain,
                universe,
                yaml,
                key,
            });
        }
    }
    Ok(RegionModel {
        domain,
        reads,
        must_writes,
        may_writes,
        schedule,
        parts,
        context,
    })
}

/// Why a stage never runs (see [`empty_stages`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmptyStage {
    /// Its bounds admit no iteration for any parameter value.
    Bounds,
    /// Its bounds admit iterations, but none under `--assume`.
    Assumed,
}

/// The stages of `region` whose iteration domain is empty for every
/// parameter value the context (`--assume`) allows: they never run; and
/// whether the context itself is empty (no parameter value satisfies
/// `--assume`). An `--assume` isl cannot read is reported by [`build`];
/// here it counts as no assumption.
pub fn empty_stages(
    ctx: &Context,
    region: &Region,
    names: &Names,
    assume: Option<&str>,
) -> Result<(Vec<(usize, EmptyStage)>, bool)> {
    let context = assume.and_then(|_| assume_context(ctx, names, assume).ok());
    let context_empty = match &context {
        Some(c) => c.is_empty().map_err(isl_err)?,
        None => false,
    };
    let mut out = Vec::new();
    for (k, stage) in region.stages.iter().enumerate() {
        let text = StageText { stage, names }.domain();
        let dom = Set::read_from_str(ctx, &text)
            .map_err(|e| Error::internal(format!("isl cannot read '{text}': {e}")))?;
        if dom.is_empty().map_err(isl_err)? {
            out.push((k, EmptyStage::Bounds));
        } else if let Some(c) = &context {
            let dom = dom
                .intersect_params(c.copy().map_err(isl_err)?)
                .map_err(isl_err)?;
            if dom.is_empty().map_err(isl_err)? {
                out.push((k, EmptyStage::Assumed));
            }
        }
    }
    Ok((out, context_empty))
}

/// The identifiers of an `--assume` text that are not isl keywords: their
/// byte ranges.
fn assume_words(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if !ISL_KEYWORDS.contains(&&text[start..i]) {
                out.push((start, i));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Why one `--assume` text (as typed) is not a set of constraints isl can
/// read, whatever the parameters: `None` when it is one.
pub fn assume_syntax_error(text: &str) -> Option<String> {
    let mut words: Vec<&str> = assume_words(text)
        .into_iter()
        .map(|(a, b)| &text[a..b])
        .collect();
    words.sort_unstable();
    words.dedup();
    let ctx = crate::model::isl_ext::new_context();
    let probe = format!("[{}] -> {{ : {text} }}", words.join(", "));
    Set::read_from_str(&ctx, &probe).err().map(|_| {
        "it is not a constraint on the parameters isl can read; write comparisons of affine expressions joined with 'and' / 'or', such as 'N >= 1 and M <= 2*N'".to_string()
    })
}

/// The parameter context of a region: the `--assume` constraints (C names of
/// the parameters), or none. An identifier that is not a parameter of the
/// program's regions is named.
pub(crate) fn assume_context(ctx: &Context, names: &Names, assume: Option<&str>) -> Result<Set> {
    let user = assume.unwrap_or("true");
    let mut text = String::new();
    let mut unknown = Vec::new();
    let mut pos = 0;
    for (a, b) in assume_words(user) {
        text.push_str(&user[pos..a]);
        let isl = isl_name(&user[a..b]);
        if !names.params.contains_key(&isl) && !unknown.contains(&&user[a..b]) {
            unknown.push(&user[a..b]);
        }
        text.push_str(&isl);
        pos = b;
    }
    text.push_str(&user[pos..]);
    let known: Vec<&str> = names.params.values().map(String::as_str).collect();
    let known = if known.is_empty() {
        "they have none".to_string()
    } else {
        format!("they are {}", known.join(", "))
    };
    if let Some(u) = unknown.first() {
        return Err(Error::user(Diagnostic::error_global(format!(
            "--assume names '{u}', which is not a parameter of the program's regions ({known})"
        ))));
    }
    let context_text = format!("{}{{ : {text} }}", names.params_prefix());
    Set::read_from_str(ctx, &context_text).map_err(|_| {
        Error::user(Diagnostic::error_global(format!(
            "cannot read --assume '{user}' as constraints on the parameters ({known})"
        )))
    })
}

/// Checks, for every omplc nest whose loop headers are affine, that its
/// declared domain is the set of iterations its loops run: flextile runs the
/// domain's iterations, so one the domain leaves out would be lost, and one
/// the loops never run would be run.
pub fn check_declared_domains(ctx: &Context, region: &Region) -> Result<()> {
    let mut errors = Vec::new();
    for stage in &region.stages {
        let Some(bounds) = &stage.loop_bounds else {
            continue;
        };
        let mut vars = BTreeSet::new();
        for c in stage.domain.iter().chain(&bounds.constraints) {
            c.lhs.collect_vars(&mut vars);
            c.rhs.collect_vars(&mut vars);
        }
        let params: Vec<String> = vars
            .iter()
            .filter(|v| !stage.iterators.contains(v))
            .map(|v| isl_name(v))
            .collect();
        let iters: Vec<String> = stage.iterators.iter().map(|v| isl_name(v)).collect();
        let set = |cons: &[Constraint]| -> Result<UnionSet> {
            let text: Vec<String> = cons
                .iter()
                .map(|c| {
                    format!(
                        "{} {} {}",
                        c.lhs.to_isl(&isl_name),
                        c.op.as_str(),
                        c.rhs.to_isl(&isl_name)
                    )
                })
                .collect();
            let cond = if text.is_empty() {
                String::new()
            } else {
                format!(" : {}", text.join(" and "))
            };
            read_union_set(
                ctx,
                &format!(
                    "[{}] -> {{ [{}]{cond} }}",
                    params.join(", "),
                    iters.join(", ")
                ),
            )
        };
        let declared = set(&stage.domain)?;
        let runs = set(&bounds.constraints)?;
        let lost = runs
            .copy()
            .map_err(isl_err)?
            .subtract(declared.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
        let extra = declared.subtract(runs).map_err(isl_err)?;
        let (what, diff) = if !lost.is_empty().map_err(isl_err)? {
            (
                "leaves out iterations that its loops run, which would be lost",
                lost,
            )
        } else if !extra.is_empty().map_err(isl_err)? {
            (
                "holds iterations that its loops never run, which would be run",
                extra,
            )
        } else {
            continue;
        };
        errors.push(
            Diagnostic::error(
                bounds.domain,
                format!(
                    "the declared domain of {} {what}: {} (flextile runs the domain's \
                     iterations: declare exactly those the loops run)",
                    stage.label,
                    diff.text()?
                ),
            )
            .with_note(bounds.headers, "the loops are here"),
        );
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::User(errors))
    }
}

/// Checks, for every stage whose body was analysed, that the accesses the body
/// performs are covered by the ones its pragma declares. An access written
/// as a declared one is covered; isl compares the others.
pub fn check_declared_accesses(ctx: &Context, region: &Region, names: &Names) -> Result<()> {
    let mut errors = Vec::new();
    for stage in &region.stages {
        let Some(observed) = &stage.observed else {
            continue;
        };
        let t = StageText { stage, names };
        // Macros read as parameters have one value in the file: a body's
        // `W[ONE - 1 + i]` is the declared `W{(i)}`.
        let valued = |index: &[Expr]| -> Vec<Expr> {
            index
                .iter()
                .map(|e| {
                    region
                        .macro_params
                        .iter()
                        .fold(e.clone(), |e, (m, v)| e.substitute(m, &Expr::Int(*v)))
                })
                .collect()
        };
        let declared = |kinds: &[AccessKind]| -> Vec<String> {
            let mut seen = HashSet::new();
            stage
                .accesses
                .iter()
                .filter(|a| kinds.contains(&a.kind))
                .map(|a| t.access(&a.data, &valued(&a.index)))
                .filter(|text| seen.insert(text.clone()))
                .collect()
        };
        let union = |texts: &[String]| -> Result<UnionMap> {
            let maps = texts
                .iter()
                .map(|text| Ok((0, read_union_map(ctx, text)?)))
                .collect::<Result<Vec<_>>>()?;
            union_all(ctx, maps)
        };
        // A read of an element the same instance writes is ordered by the write's
        // own dependences, so reads may be covered by declared writes too.
        let texts = [
            declared(&[AccessKind::Write]),
            declared(&[AccessKind::Read, AccessKind::Write]),
        ];
        let mut covers: [Option<UnionMap>; 2] = [None, None];
        for a in observed {
            let which = usize::from(a.kind != AccessKind::Write);
            let text = t.access(&a.data, &valued(&a.index));
            if texts[which].contains(&text) {
                continue;
            }
            let cover = match &mut covers[which] {
                Some(c) => c,
                slot => slot.insert(union(&texts[which])?),
            };
            if !read_union_map(ctx, &text)?
                .is_subset(cover)
                .map_err(isl_err)?
            {
                let kind = if a.kind == AccessKind::Write {
                    "write"
                } else {
                    "read"
                };
                let idx: Vec<String> = a.index.iter().map(|e| e.to_string()).collect();
                errors.push(
                    Diagnostic::error(
                        stage.span,
                        format!(
                            "under-declared access: the body of {} {}s {}[{}], which its pragma does not declare",
                            stage.label,
                            kind,
                            a.data,
                            idx.join("][")
                        ),
                    )
                    .with_note(a.span, "access is here"),
                );
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::User(errors))
    }
}

/// The original schedule tree in isl's YAML form: one band per perfectly
/// nested run of loops, a sequence wherever a loop body (or the region) holds
/// several nodes.
fn schedule_yaml(region: &Region, names: &Names, domain: &str) -> Result<String> {
    let child = nodes_yaml(region, names, &region.tree, 0)?;
    Ok(match child {
        Some(c) => format!("{{ domain: {}, child: {} }}", quote(domain), c),
        None => format!("{{ domain: {} }}", quote(domain)),
    })
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\""))
}

/// Appends the stages under `nodes` to `out`, in textual order.
pub(crate) fn stages_under(nodes: &[OrigNode], out: &mut Vec<usize>) {
    for n in nodes {
        match n {
            OrigNode::Stage(k) => out.push(*k),
            OrigNode::Loop { body, .. } => stages_under(body, out),
        }
    }
}

fn nodes_yaml(
    region: &Region,
    names: &Names,
    nodes: &[OrigNode],
    depth: usize,
) -> Result<Option<String>> {
    match nodes {
        [] => Ok(None),
        [single] => node_yaml(region, names, single, depth),
        many => {
            let items: Vec<String> = sequence_items(region, names, many, depth)?
                .into_iter()
                .map(|(_, item)| item)
                .collect();
            Ok(Some(format!("{{ sequence: [ {} ] }}", items.join(", "))))
        }
    }
}

/// The items of a sequence over `nodes`: per node, its stages and its
/// `{ filter: ..., child: ... }` YAML.
fn sequence_items(
    region: &Region,
    names: &Names,
    nodes: &[OrigNode],
    depth: usize,
) -> Result<Vec<(Vec<usize>, String)>> {
    let mut items = Vec::new();
    for n in nodes {
        let mut ks = Vec::new();
        stages_under(std::slice::from_ref(n), &mut ks);
        let filter: Vec<String> = ks
            .iter()
            .map(|k| {
                StageText {
                    stage: &region.stages[*k],
                    names,
                }
                .tuple()
            })
            .collect();
        let filter = format!("{{ {} }}", filter.join("; "));
        let item = match node_yaml(region, names, n, depth)? {
            Some(c) => format!("{{ filter: {}, child: {} }}", quote(&filter), c),
            None => format!("{{ filter: {} }}", quote(&filter)),
        };
        items.push((ks, item));
    }
    Ok(items)
}

fn node_yaml(
    region: &Region,
    names: &Names,
    node: &OrigNode,
    depth: usize,
) -> Result<Option<String>> {
    let OrigNode::Loop { body, .. } = node else {
        return Ok(None);
    };
    // Merge perfectly nested loops into one band; a loop that counts down
    // schedules `-i`.
    let mut downs = vec![matches!(node, OrigNode::Loop { down: true, .. })];
    let mut inner = body;
    while let [OrigNode::Loop { body: b, down, .. }] = inner.as_slice() {
        downs.push(*down);
        inner = b;
    }
    let members = downs.len();
    let mut ks = Vec::new();
    stages_under(std::slice::from_ref(node), &mut ks);
    let mut parts = Vec::new();
    for (m, down) in downs.iter().enumerate() {
        let pieces: Vec<String> = ks
            .iter()
            .map(|k| {
                let stage = &region.stages[*k];
                let t = StageText { stage, names };
                let it = stage
                    .iterators
                    .get(depth + m)
                    .map(|i| t.var(i))
                    .unwrap_or_default();
                let sign = if *down { "-" } else { "" };
                format!("{} -> [({sign}{})]", t.tuple(), it)
            })
            .collect();
        parts.push(format!("{{ {} }}", pieces.join("; ")));
    }
    let band = format!("{}[{}]", names.params_prefix(), parts.join(", "));
    let child = nodes_yaml(region, names, inner, depth + members)?;
    Ok(Some(match child {
        Some(c) => format!("{{ schedule: {}, child: {} }}", quote(&band), c),
        None => format!("{{ schedule: {} }}", quote(&band)),
    }))
}
