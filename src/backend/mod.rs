//! Back end: isl AST generation from the final schedule tree, read into the
//! target-neutral loop tree (`tree.rs`, by `ast.rs`), and C output shaped by
//! the tera templates in `templates/`.

pub mod alias;
pub mod ast;
pub mod c;
pub mod cuda;
pub mod int_range;
pub mod mdg_dot;
pub mod output;
pub mod tile_body;
pub mod tree;

use crate::backend::alias::GuardParts;
use crate::backend::ast::AstReader;
use crate::backend::c::{CPrinter, OmpLines};
use crate::backend::tile_body::TileBodies;
use crate::backend::tree::Helper;
use crate::diag::{Error, Result};
use crate::model::isl_ext::{ast_from_schedule, isl_err};
use crate::model::polyhedral::Names;
use crate::model::program::Stage;
use crate::model::sequence::{cut_root_sequence, held_children, Part};
use crate::model::storage::StoragePlan;
use isl_rs::{Schedule, Set, UnionSet};
use std::collections::BTreeSet;
use tera::{Context, Tera};

/// Names flextile adds to the user's code, chosen so that no identifier of
/// the input is shadowed or called by mistake.
#[derive(Clone, Debug)]
pub struct Naming {
    /// Prefix of generated loop counters (`c` gives `c0`, `c1`, ...).
    pub counter: String,
    /// Prefix of helper functions and scratchpads (`ft_` gives `ft_min`, `ft_A`).
    pub helper: String,
    /// Loop counters, helpers and parameters in generated expressions are
    /// `long long` instead of `int`: some parameter or iterator is declared
    /// wider than `int`, or a tile size, shift or chunk is large enough for
    /// `int` counters to overflow.
    pub wide: bool,
}

impl Naming {
    /// The C type of generated loop counters.
    pub fn counter_type(&self) -> &'static str {
        if self.wide {
            "long long"
        } else {
            "int"
        }
    }
}

/// The output templates, compiled into the binary from `templates/c/`.
pub struct Templates {
    tera: Tera,
}

const TEMPLATES: &[(&str, &str)] = &[
    ("file", include_str!("../../templates/c/file.c.tera")),
    (
        "cuda_file",
        include_str!("../../templates/cuda/file.cu.tera"),
    ),
    ("region", include_str!("../../templates/c/region.c.tera")),
    (
        "parallel_for",
        include_str!("../../templates/c/parallel_for.c.tera"),
    ),
    ("team", include_str!("../../templates/c/team.c.tera")),
    (
        "simd_for",
        include_str!("../../templates/c/simd_for.c.tera"),
    ),
    (
        "team_for",
        include_str!("../../templates/c/team_for.c.tera"),
    ),
    ("helpers", include_str!("../../templates/c/helpers.c.tera")),
    (
        "cuda_gather",
        include_str!("../../templates/cuda/gather.cu.tera"),
    ),
    ("shadows", include_str!("../../templates/c/shadows.c.tera")),
    (
        "time_blocks",
        include_str!("../../templates/c/time_blocks.c.tera"),
    ),
    ("alias", include_str!("../../templates/c/alias.c.tera")),
    (
        "original",
        include_str!("../../templates/c/original.c.tera"),
    ),
];

fn tera_err(e: tera::Error) -> Error {
    use std::error::Error as _;
    let mut msg = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        msg.push_str(&format!(": {s}"));
        src = s.source();
    }
    Error::internal(format!("template: {msg}"))
}

/// What the file template needs.
pub struct FileParts<'a> {
    /// Input path as given.
    pub input: &'a str,
    /// Options that shaped the output, as the user wrote them.
    pub options: &'a str,
    /// Number of rewritten regions.
    pub regions: usize,
    /// Helpers used by the generated code.
    pub helpers: &'a BTreeSet<Helper>,
    /// Prefix of the helpers' names.
    pub helper_prefix: &'a str,
    /// The file's text with every region replaced.
    pub body: &'a str,
    /// A CUDA file (else C).
    pub cuda: bool,
    /// The command line's macros (`-D`: name, value), which a CUDA file
    /// defines itself (see `templates/cuda/file.cu.tera`).
    pub defines: &'a [(String, String)],
}

/// What the region template needs.
pub struct RegionParts<'a> {
    /// "loop chain" or "scop".
    pub kind: &'a str,
    /// Input path.
    pub input: &'a str,
    /// Line of the region's pragma.
    pub line: usize,
    /// One line per stage.
    pub stages: Vec<String>,
    /// A summary of the transformations applied.
    pub schedule: String,
    /// Indentation of the region.
    pub indent: &'a str,
    /// The generated loops, already indented one level below `indent`.
    pub code: String,
    /// Shadow copies of arrays the region updates in place, declared around the loops.
    pub shadows: Vec<ShadowParts>,
    /// The run-time alias guard around the loops, if the region needs one.
    pub guard: Option<&'a GuardParts>,
}

/// What the template of a time-blocked scop needs.
pub struct TimeBlockParts<'a> {
    /// Input path.
    pub input: &'a str,
    /// Line of the region's pragma.
    pub line: usize,
    /// One line per statement of the original scop.
    pub stages: Vec<String>,
    /// A summary of the transformations applied.
    pub schedule: String,
    /// Indentation of the region.
    pub indent: &'a str,
    /// C name of the variable holding a block's first time step.
    pub start: &'a str,
    /// C type of the block's start and remainder variables (`int`, `long long`).
    pub counter_type: &'a str,
    /// The time loop's first step (C).
    pub first: &'a str,
    /// The condition (C) under which a block of `steps` steps from `start` runs.
    pub full: &'a str,
    /// Time steps per block.
    pub steps: i64,
    /// C name of the remainder's first time step.
    pub rest: &'a str,
    /// Shadow copies declared around the blocks.
    pub shadows: Vec<ShadowParts>,
    /// The loops of one block, indented two levels below `indent`.
    pub blocks: String,
    /// Code before and after the loop over blocks, one level below
    /// `indent` (CUDA: the blocks' device buffers, set up once).
    pub around: [String; 2],
    /// The loops of the remainder, indented two levels below `indent`.
    pub remainder: String,
    /// The run-time alias guard around the blocks, if the region needs one.
    pub guard: Option<&'a GuardParts>,
}

/// What the template of a region left as written needs.
pub struct OriginalParts<'a> {
    /// "loop chain" or "scop".
    pub kind: &'a str,
    /// Input path.
    pub input: &'a str,
    /// Line of the region's pragma.
    pub line: usize,
    /// Indentation of the region.
    pub indent: &'a str,
    /// Why it is left as written.
    pub why: &'a str,
    /// The region's code as written (see [`alias::original_code`]).
    pub original: &'a str,
}

/// One shadow copy of an array, for the region and time-blocks templates.
pub struct ShadowParts {
    /// C name of the copy.
    pub name: String,
    /// The array.
    pub array: String,
    /// Its number of rows (C expression).
    pub rows: String,
    /// Whether the array has more than one dimension (its rows are arrays).
    pub nested: bool,
}

impl Templates {
    /// Compiles the embedded templates.
    pub fn load() -> Result<Templates> {
        let mut tera = Tera::default();
        tera.autoescape_on(vec![]);
        tera.add_raw_templates(TEMPLATES.to_vec())
            .map_err(tera_err)?;
        Ok(Templates { tera })
    }

    /// The OpenMP lines of parallel loops.
    pub fn omp_lines(&self) -> Result<OmpLines> {
        let line = |name: &str| {
            self.tera
                .render(name, &Context::new())
                .map(|s| s.trim_end().to_string())
                .map_err(tera_err)
        };
        Ok(OmpLines {
            parallel_for: line("parallel_for")?,
            team: line("team")?,
            team_for: line("team_for")?,
            simd_for: line("simd_for")?,
        })
    }

    /// A whole output file.
    pub fn file(&self, p: &FileParts) -> Result<String> {
        let mut helpers = Vec::new();
        for h in p.helpers {
            let mut c = Context::new();
            c.insert("prefix", p.helper_prefix);
            c.insert(
                "qualifiers",
                if p.cuda { "__host__ __device__ " } else { "" },
            );
            c.insert(
                "name",
                match h {
                    Helper::Min => "min",
                    Helper::Max => "max",
                    Helper::Floord => "floord",
                    Helper::MinLL => "min_ll",
                    Helper::MaxLL => "max_ll",
                    Helper::FloordLL => "floord_ll",
                    Helper::Gather => "gather",
                },
            );
            let template = match h {
                Helper::Gather => "cuda_gather",
                _ => "helpers",
            };
            helpers.push(
                self.tera
                    .render(template, &c)
                    .map_err(tera_err)?
                    .trim_end()
                    .to_string(),
            );
        }
        let mut c = Context::new();
        c.insert("version", env!("CARGO_PKG_VERSION"));
        c.insert("input", &comment_text(p.input));
        c.insert("options", &comment_text(p.options));
        c.insert("regions", &p.regions);
        c.insert("helpers", &helpers);
        c.insert("body", p.body);
        c.insert("prefix", p.helper_prefix);
        let defines: String = p
            .defines
            .iter()
            .map(|(n, v)| format!("#ifndef {n}\n#define {n} {v}\n#endif\n"))
            .collect();
        c.insert("defines", &defines);
        let name = if p.cuda { "cuda_file" } else { "file" };
        self.tera.render(name, &c).map_err(tera_err)
    }

    /// A time-blocked scop (without a trailing newline).
    pub fn time_blocks(&self, p: &TimeBlockParts) -> Result<String> {
        let mut c = Context::new();
        c.insert("input", &comment_text(p.input));
        c.insert("line", &p.line);
        c.insert("stages", &comment_texts(&p.stages));
        c.insert("schedule", &comment_text(&p.schedule));
        c.insert("indent", p.indent);
        c.insert("start", p.start);
        c.insert("counter_type", p.counter_type);
        c.insert("first", p.first);
        c.insert("full", p.full);
        c.insert("steps", &p.steps);
        c.insert("rest", p.rest);
        c.insert("shadows", &shadow_values(&p.shadows));
        c.insert("blocks", &p.blocks);
        c.insert("before", &p.around[0]);
        c.insert("after", &p.around[1]);
        c.insert("remainder", &p.remainder);
        guard_values(&mut c, p.guard);
        let s = self.tera.render("time_blocks", &c).map_err(tera_err)?;
        Ok(s.trim_end_matches('\n').to_string())
    }

    /// One rewritten region (without a trailing newline: the file's own follows).
    pub fn region(&self, p: &RegionParts) -> Result<String> {
        let mut c = Context::new();
        c.insert("kind", &comment_text(p.kind));
        c.insert("input", &comment_text(p.input));
        c.insert("line", &p.line);
        c.insert("stages", &comment_texts(&p.stages));
        c.insert("schedule", &comment_text(&p.schedule));
        c.insert("indent", p.indent);
        c.insert("code", &p.code);
        c.insert("shadows", &shadow_values(&p.shadows));
        guard_values(&mut c, p.guard);
        let s = self.tera.render("region", &c).map_err(tera_err)?;
        Ok(s.trim_end_matches('\n').to_string())
    }

    /// A region left as written, under a banner that says why (without a
    /// trailing newline).
    pub fn original(&self, p: &OriginalParts) -> Result<String> {
        let mut c = Context::new();
        c.insert("kind", &comment_text(p.kind));
        c.insert("input", &comment_text(p.input));
        c.insert("line", &p.line);
        c.insert("indent", p.indent);
        c.insert("why", &comment_text(p.why));
        c.insert("original", p.original);
        let s = self.tera.render("original", &c).map_err(tera_err)?;
        Ok(s.trim_end_matches('\n').to_string())
    }
}

/// The alias guard's template values (`guarded` is false without one).
fn guard_values(c: &mut Context, guard: Option<&GuardParts>) {
    c.insert("guarded", &guard.is_some());
    let empty = Vec::new();
    c.insert("guard_decls", guard.map_or(&empty, |g| &g.decls));
    c.insert("guard_terms", guard.map_or(&empty, |g| &g.terms));
    c.insert("guard_original", guard.map_or("", |g| g.original.as_str()));
    c.insert("guard_wraps", guard.map_or(&empty, |g| &g.wraps));
    c.insert("guard_alias", &guard.is_some_and(|g| !g.pairs.is_empty()));
}

/// `s` made safe to print inside a `/* ... */` comment on one line: no
/// `*/` (which would end it: `* /`), no `/*` (`/ *`, which gcc warns
/// about), no line breaks or other control characters (a space), and no
/// backslash or trigraph `??/` at its end (a line continuation when a line
/// break follows).
pub fn comment_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let c = if c.is_control() { ' ' } else { c };
        let prev = out.chars().last();
        if (prev == Some('*') && c == '/') || (prev == Some('/') && c == '*') {
            out.push(' ');
        }
        out.push(c);
    }
    if out.ends_with('\\') || out.ends_with("??/") {
        out.push(' ');
    }
    out
}

/// [`comment_text`] of each string.
fn comment_texts(v: &[String]) -> Vec<String> {
    v.iter().map(|s| comment_text(s)).collect()
}

/// The shadows as template values.
fn shadow_values(shadows: &[ShadowParts]) -> Vec<std::collections::BTreeMap<&str, String>> {
    shadows
        .iter()
        .map(|s| {
            std::collections::BTreeMap::from([
                ("name", s.name.clone()),
                ("array", s.array.clone()),
                ("rows", s.rows.clone()),
                ("nested", if s.nested { "yes" } else { "" }.to_string()),
            ])
        })
        .collect()
}

/// A region's generated code.
pub struct Generated {
    /// What replaces the region's loops (C: the loops; CUDA: the host code).
    pub code: String,
    /// Definitions at file scope before the region's function (CUDA's kernels).
    pub kernels: String,
    /// The `--report` lines of the target (CUDA: the kernels' launches).
    pub report: Option<String>,
    /// CUDA: `code` as the device buffers' setup, the host loops, the
    /// teardown.
    pub parts: Option<[String; 3]>,
}

/// A region's final schedule made ready for code generation in a thread of
/// its own (isl contexts are not shared between threads): the bodies of
/// overlapped tiles, which flextile generates ([`tile_body`]), taken out,
/// and the rest as isl's text.
pub struct Prepared {
    schedule: String,
    context: String,
    bodies: TileBodies,
    names: Names,
}

impl Prepared {
    /// `schedule` under the parameter `context`, its tile bodies cut.
    pub fn new(schedule: &Schedule, context: &Set, names: &Names) -> Result<Prepared> {
        use crate::model::isl_ext::IslText;
        let (schedule, bodies) = tile_body::cut(schedule, context, names)?;
        Ok(Prepared {
            schedule: schedule.text()?,
            context: context.text()?,
            bodies,
            names: names.clone(),
        })
    }

    /// The loop tree, in an isl context of its own: `Ok(None)` when isl's
    /// code generator ran past `max_operations` (see [`ast_from_schedule`]),
    /// `Err(Unreadable)` when isl cannot read its own text back.
    ///
    /// Where the schedule is a sequence of many nests at its root, the
    /// children are generated in two halves (see [`root_halves`]), the
    /// second in a thread and isl context of its own, each half with the
    /// share of `max_operations` of its statements, and the two loop trees
    /// concatenated. isl generates each child of a sequence on its own; it
    /// only gathers neighbouring children under a guard they share
    /// (`if (M >= 5) { ... }`), which the cut may then split into two
    /// guards of the same condition: the same instances, in the same
    /// order. Local-laplacian under `--tile` (99 classically tiled nests):
    /// code generation 0.9 -> 0.45 s.
    pub fn loop_tree(
        self,
        max_operations: u64,
    ) -> Result<std::result::Result<Option<Vec<tree::Node>>, Unreadable>> {
        let ctx = crate::model::isl_ext::new_context();
        let Ok((schedule, context)) = self.read(&ctx) else {
            return Ok(Err(Unreadable));
        };
        if let Some(parts) = cut_root_sequence(&schedule)? {
            return self.in_parts(parts, &context, max_operations);
        }
        let Some(halves) = root_halves(&schedule)? else {
            return Ok(Ok(self.half(&schedule, &context, None, max_operations)?));
        };
        let budget = |share: usize| match max_operations {
            0 => 0,
            n => (n as u128 * share as u128 / halves.statements as u128).max(1) as u64,
        };
        let (first, second) = std::thread::scope(|scope| {
            let second = scope.spawn(|| -> std::result::Result<_, Unreadable> {
                let ctx = crate::model::isl_ext::new_context();
                let (schedule, context) = self.read(&ctx)?;
                let filter =
                    UnionSet::read_from_str(&ctx, &halves.second.0).map_err(|_| Unreadable)?;
                Ok(self.half(&schedule, &context, Some(filter), budget(halves.second.1)))
            });
            let first = self.half(
                &schedule,
                &context,
                Some(halves.first.0),
                budget(halves.first.1),
            );
            let second = second.join().unwrap_or_else(|_| {
                Ok(Err(Error::internal("the code generator's thread panicked")))
            });
            (first, second)
        });
        let Ok(second) = second else {
            return Ok(Err(Unreadable));
        };
        let (Some(mut nodes), Some(rest)) = (first?, second?) else {
            return Ok(Ok(None));
        };
        nodes.extend(rest);
        Ok(Ok(Some(tree::hoist_tile_storage(nodes)?)))
    }

    /// [`Prepared::loop_tree`] of a long root sequence cut into `parts`
    /// (see [`cut_root_sequence`]): each part generated on its own, the
    /// parts after the cut nearest to half of the statements in a thread
    /// and isl context of their own, and the loop trees concatenated in
    /// the sequence's order. Each part has the share of `max_operations`
    /// of its statements. As with [`root_halves`], only a guard that
    /// neighbouring children share may be split at a part's end.
    fn in_parts(
        &self,
        parts: Vec<Part>,
        context: &Set,
        max_operations: u64,
    ) -> Result<std::result::Result<Option<Vec<tree::Node>>, Unreadable>> {
        let total: usize = parts.iter().map(|p| p.statements).sum::<usize>().max(1);
        let budget = |share: usize| match max_operations {
            0 => 0,
            n => (n as u128 * share as u128 / total as u128).max(1) as u64,
        };
        let mut before = 0;
        let cut = parts
            .iter()
            .position(|p| {
                before += p.statements;
                2 * before >= total
            })
            .map_or(parts.len(), |k| k + 1);
        let second: Vec<(&str, usize)> = parts[cut..]
            .iter()
            .map(|p| (p.text.as_str(), p.statements))
            .collect();
        let generate = |schedule: &Schedule, context: &Set, statements: usize| {
            nodes_of(
                schedule,
                context,
                &self.names,
                &self.bodies,
                budget(statements),
            )
        };
        let (first, second) = std::thread::scope(|scope| {
            let second = scope.spawn(|| -> std::result::Result<_, Unreadable> {
                let ctx = crate::model::isl_ext::new_context();
                let context = Set::read_from_str(&ctx, &self.context).map_err(|_| Unreadable)?;
                let mut all = Vec::new();
                for (text, statements) in &second {
                    let s = Schedule::read_from_str(&ctx, text).map_err(|_| Unreadable)?;
                    all.push(generate(&s, &context, *statements));
                }
                Ok(all)
            });
            let first: Vec<_> = parts[..cut]
                .iter()
                .map(|p| generate(&p.schedule, context, p.statements))
                .collect();
            let second = second.join().unwrap_or_else(|_| {
                Ok(vec![Err(Error::internal(
                    "the code generator's thread panicked",
                ))])
            });
            (first, second)
        });
        let Ok(second) = second else {
            return Ok(Err(Unreadable));
        };
        let mut nodes = Vec::new();
        for generated in first.into_iter().chain(second) {
            match generated? {
                Some(part) => nodes.extend(part),
                None => return Ok(Ok(None)),
            }
        }
        Ok(Ok(Some(tree::hoist_tile_storage(nodes)?)))
    }

    /// The schedule and context, read in `ctx`.
    fn read(&self, ctx: &isl_rs::Context) -> std::result::Result<(Schedule, Set), Unreadable> {
        Schedule::read_from_str(ctx, &self.schedule)
            .and_then(|s| Ok((s, Set::read_from_str(ctx, &self.context)?)))
            .map_err(|_| Unreadable)
    }

    /// The loop nodes of `schedule`'s instances in `filter` (all: `None`),
    /// their tile storage not yet hoisted where `filter` is given.
    fn half(
        &self,
        schedule: &Schedule,
        context: &Set,
        filter: Option<UnionSet>,
        max_operations: u64,
    ) -> Result<Option<Vec<tree::Node>>> {
        let Some(filter) = filter else {
            return tree_of(schedule, context, &self.names, &self.bodies, max_operations);
        };
        let part = schedule
            .copy()
            .and_then(|s| s.intersect_domain(filter))
            .map_err(isl_err)?;
        nodes_of(&part, context, &self.names, &self.bodies, max_operations)
    }
}

/// The fewest children holding instances of a root sequence that is
/// generated in two halves (below it, a second thread gains little).
const MIN_SPLIT_CHILDREN: usize = 24;

/// The two halves of a schedule whose root's child is a sequence of at
/// least [`MIN_SPLIT_CHILDREN`] children that hold instances, each half
/// with at least two of them (a child that held all of a half's instances
/// would be generated by isl without intersecting its filter), cut where
/// the halves' numbers of statements are nearest: the first half's
/// instances as a set, the second's as text (for another isl context).
/// `None` where the schedule has no such sequence.
fn root_halves(schedule: &Schedule) -> Result<Option<Halves>> {
    let Some(held) = held_children(schedule)? else {
        return Ok(None);
    };
    if held.len() < MIN_SPLIT_CHILDREN {
        return Ok(None);
    }
    let mut children = Vec::with_capacity(held.len());
    for (_, here) in held {
        let statements = here.n_set().map_err(isl_err)? as usize;
        children.push((here, statements));
    }
    let total: usize = children.iter().map(|c| c.1).sum();
    // The second half starts at child p, 2 <= p <= len - 2.
    let before = |p: usize| -> usize { children[..p].iter().map(|c| c.1).sum() };
    let p = (2..=children.len() - 2)
        .min_by_key(|p| (2 * before(*p)).abs_diff(total))
        .unwrap_or(2);
    let n_first = before(p);
    let ctx = schedule.get_ctx();
    let (mut first, mut second) = (
        UnionSet::read_from_str(&ctx, "{ }").map_err(isl_err)?,
        UnionSet::read_from_str(&ctx, "{ }").map_err(isl_err)?,
    );
    for (k, (here, _)) in children.into_iter().enumerate() {
        match k < p {
            true => first = first.union(here).map_err(isl_err)?,
            false => second = second.union(here).map_err(isl_err)?,
        }
    }
    Ok(Some(Halves {
        first: (first, n_first),
        second: (
            second.to_str().map_err(isl_err)?.to_string(),
            total - n_first,
        ),
        statements: total,
    }))
}

/// A schedule's root sequence in two halves (see [`root_halves`]).
struct Halves {
    first: (UnionSet, usize),
    second: (String, usize),
    statements: usize,
}

/// isl could not read a schedule it printed back (see [`Prepared::loop_tree`]).
#[derive(Clone, Copy, Debug)]
pub struct Unreadable;

/// The loop tree of a region's final schedule, generated here (isl the
/// AST under the parameter `context`, flextile the overlapped tiles'
/// bodies). `Ok(None)`: isl's code generator ran past `max_operations`.
pub fn loop_tree(
    schedule: &Schedule,
    context: &Set,
    names: &Names,
    max_operations: u64,
) -> Result<Option<Vec<tree::Node>>> {
    let (schedule, bodies) = tile_body::cut(schedule, context, names)?;
    tree_of(&schedule, context, names, &bodies, max_operations)
}

/// isl's AST of `schedule` read into the loop tree, the calls of tile
/// tokens expanded into `bodies`.
fn tree_of(
    schedule: &Schedule,
    context: &Set,
    names: &Names,
    bodies: &TileBodies,
    max_operations: u64,
) -> Result<Option<Vec<tree::Node>>> {
    match nodes_of(schedule, context, names, bodies, max_operations)? {
        Some(nodes) => Ok(Some(tree::hoist_tile_storage(nodes)?)),
        None => Ok(None),
    }
}

/// [`tree_of`] before the tile storage is hoisted (which needs the whole
/// region's nodes).
fn nodes_of(
    schedule: &Schedule,
    context: &Set,
    names: &Names,
    bodies: &TileBodies,
    max_operations: u64,
) -> Result<Option<Vec<tree::Node>>> {
    let Some(ast) = ast_from_schedule(schedule, context, max_operations)? else {
        return Ok(None);
    };
    let reader = AstReader::new(names).with_tile_bodies(bodies);
    reader.read(&ast).map(Some)
}

/// Prints one region's loop tree (see [`loop_tree`]) for its target (C
/// when `cuda` is `None`).
#[allow(clippy::too_many_arguments)]
pub fn generate_loops(
    tree: Vec<tree::Node>,
    stages: &[Stage],
    naming: &Naming,
    templates: &Templates,
    indent: &str,
    helpers: &mut BTreeSet<Helper>,
    storage: Option<&StoragePlan>,
    cuda: Option<&cuda::print::CudaRegion>,
) -> Result<Generated> {
    tree::helpers(&tree, naming.wide, helpers);
    if let Some(cu) = cuda {
        let (path, line) = (&cu.place, cu.line);
        let prefix = format!("{}kernel{line}{}_", naming.helper, cu.part);
        let (host, kernels) = cuda::map::map(tree)?;
        let g = cuda::print::print_region(
            &host, &kernels, stages, storage, naming, cu, &prefix, indent, helpers,
        )?;
        return Ok(Generated {
            code: g.host,
            kernels: g.kernels,
            report: Some(cuda::report(path, &g.reports, cu.gpu)),
            parts: Some(g.parts),
        });
    }
    let printer = CPrinter::new(stages, templates.omp_lines()?, storage, naming);
    let mut out = String::new();
    printer.print(&tree, indent, &mut out)?;
    Ok(Generated {
        code: out,
        kernels: String::new(),
        report: None,
        parts: None,
    })
}

#[cfg(test)]
mod tests {
    use super::comment_text;
    use super::tile_body::tests::{run, Params, Trace};
    use super::*;
    use crate::model::isl_ext::new_context;
    use std::collections::HashMap;

    /// A root sequence of 30 one-loop nests, `S{k}[i]` for `0 <= i <= N - k / 5`
    /// (neighbours share isl's guards `N >= k / 5`), is generated in two
    /// halves: the same instances in the same order as in one piece, for
    /// `N` from 0 to 8.
    #[test]
    fn root_sequence_in_two_halves_runs_alike() {
        let n = 30;
        let domain: Vec<String> = (0..n)
            .map(|k| format!("S{k}[i] : 0 <= i <= N - {}", k / 5))
            .collect();
        let children: Vec<String> = (0..n)
            .map(|k| {
                format!(
                    "- filter: \"{{ S{k}[i] }}\"\n    child:\n      schedule: \"[N] -> [{{ S{k}[i] -> [(i)] }}]\"\n"
                )
            })
            .collect();
        let yaml = format!(
            "domain: \"[N] -> {{ {} }}\"\nchild:\n  sequence:\n  {}",
            domain.join("; "),
            children.join("  ")
        );
        let ctx = new_context();
        let schedule = Schedule::read_from_str(&ctx, &yaml).unwrap();
        let context = Set::read_from_str(&ctx, "[N] -> { : N >= 0 }").unwrap();
        let names = Names {
            params: [("N".to_string(), "N".to_string())].into(),
        };
        let halves = root_halves(&schedule).unwrap().unwrap();
        assert_eq!(
            (halves.first.1, halves.second.1, halves.statements),
            (15, 15, 30)
        );
        let whole = loop_tree(&schedule, &context, &names, 0).unwrap().unwrap();
        let split = Prepared::new(&schedule, &context, &names)
            .unwrap()
            .loop_tree(0)
            .unwrap()
            .unwrap()
            .unwrap();
        for value in 0..=8 {
            let params: Params = [("N".to_string(), value)].into();
            let (mut a, mut b): (Trace, Trace) = (Vec::new(), Vec::new());
            run(&whole, &params, &mut HashMap::new(), &mut a);
            run(&split, &params, &mut HashMap::new(), &mut b);
            assert!(!a.is_empty());
            assert_eq!(a, b, "N = {value}");
        }
    }

    #[test]
    fn comment_text_cannot_end_or_open_a_comment() {
        assert_eq!(comment_text("a */ b"), "a * / b");
        assert_eq!(comment_text("x/*y*/"), "x/ *y* /");
        assert_eq!(comment_text("*/*/"), "* / * /");
        assert_eq!(comment_text("line\nbreak\r"), "line break ");
        assert_eq!(comment_text("ends in \\"), "ends in \\ ");
        assert_eq!(comment_text("ends in ??/"), "ends in ??/ ");
        assert_eq!(comment_text("plain -DN=4"), "plain -DN=4");
    }
}
