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
pub mod templates;
pub mod tile_body;
pub mod tree;

use crate::backend::ast::AstReader;
use crate::backend::c::CPrinter;
pub use crate::backend::templates::{
    comment_text, FileParts, OriginalParts, RegionParts, ShadowParts, Templates, TimeBlockParts,
};
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

/// What a region's loop tree is printed with.
pub struct LoopPrinting<'a> {
    /// The region's stages.
    pub stages: &'a [Stage],
    /// Prefixes of generated names.
    pub naming: &'a Naming,
    pub templates: &'a Templates,
    /// The indent of the outermost loops.
    pub indent: &'a str,
    /// Tile-local storage (overlapped tiling).
    pub storage: Option<&'a StoragePlan>,
    /// The CUDA target's view of the region; `None`: C.
    pub cuda: Option<&'a cuda::print::CudaRegion<'a>>,
}

/// Prints one region's loop tree (see [`loop_tree`]) for its target.
pub fn generate_loops(
    tree: Vec<tree::Node>,
    printing: &LoopPrinting,
    helpers: &mut BTreeSet<Helper>,
) -> Result<Generated> {
    let LoopPrinting {
        stages,
        naming,
        templates,
        indent,
        storage,
        cuda,
    } = *printing;
    tree::helpers(&tree, naming.wide, helpers);
    if let Some(cu) = cuda {
        let (path, line) = (&cu.place, cu.line);
        let prefix = format!("{}kernel{line}{}_", naming.helper, cu.part);
        let (host, kernels) = cuda::map::map(tree)?;
        let mapped = cuda::print::Mapped {
            host: &host,
            kernels: &kernels,
            stages,
            storage,
            naming,
            cuda: cu,
            kernel_prefix: &prefix,
            indent,
            templates,
        };
        let g = cuda::print::print_region(&mapped, helpers)?;
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
