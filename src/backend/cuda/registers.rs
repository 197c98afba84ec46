//! The register parts of hybrid tiles (Jangda & Guha, PACT'20, §5, Algorithm 1's
//! GENREGTILE and Figure 7), printed from the storage plan's
//! [`RegisterTiles`] after a warp's tile has computed its shared-memory
//! part: one named register per lane and register-tile element
//! (`ft_ft_r_<data>_<j>[_<a>...]`), the statements unrolled over them, each
//! read of a held value one of the four load types: the lane's own register
//! (Type 1), the scratchpad (Type 2), a shuffle from a lane of the same
//! parallelogram tile (Type 3) or of the tile before it (Type 4). Every
//! lane runs every shuffle (outside the statement's guard, as
//! `__shfl_sync` with a full mask requires); the guard then selects.

use super::print::INDENT;
use crate::backend::c::expr;
use crate::backend::c::{c_condition, offset_text, CPrinter, Overrides, Spelling};
use crate::backend::tree::{LoopExpr, Node};
use crate::backend::Naming;
use crate::diag::{Error, Result};
use crate::model::program::AccessKind;
use crate::model::storage::{RegisterPart, RegisterTiles, StoragePlan, Term};

/// One group's hybrid tile, as its register parts are printed.
pub(super) struct Hybrid<'a> {
    pub(super) printer: &'a CPrinter<'a>,
    pub(super) plan: &'a StoragePlan,
    /// The group, in the storage plan.
    pub(super) group: usize,
    pub(super) regs: &'a RegisterTiles,
    /// The thread's lane in its warp, and the names' prefix.
    pub(super) names: Names<'a>,
    pub(super) naming: &'a Naming,
}

/// Prints the register parts of the group's tile, whose loop tree (the
/// shared-memory part, printed before) is `body`.
pub(super) fn print(h: &Hybrid, body: &[Node], indent: &str, out: &mut String) -> Result<()> {
    let Hybrid {
        plan,
        group,
        regs,
        ref names,
        ..
    } = *h;
    out.push_str(&format!(
        "{indent}/* hybrid tile: {} parallelogram tile(s) of {} lanes of every statement in registers */\n",
        regs.tiles, regs.lanes
    ));
    // The registers, one per lane and element of the writer's register part.
    for part in &regs.parts {
        let Some(data) = &part.writes else { continue };
        let elem = plan
            .tile_buffer(group, data)
            .map(|b| b.elem_type.clone())
            .ok_or_else(|| Error::internal(format!("held data '{data}' without a buffer")))?;
        let names_of: Vec<String> = coordinates(part, regs)
            .map(|(a, j)| names.register(data, j, &a, regs.dim))
            .collect();
        for chunk in names_of.chunks(8) {
            let decls: Vec<String> = chunk.iter().map(|n| format!("{n} = 0")).collect();
            out.push_str(&format!("{indent}{elem} {};\n", decls.join(", ")));
        }
    }
    for part in &regs.parts {
        print_part(h, part, body, indent, out)?;
    }
    Ok(())
}

/// Prints one statement's register part, unrolled over its register
/// coordinates.
fn print_part(
    h: &Hybrid,
    part: &RegisterPart,
    body: &[Node],
    indent: &str,
    out: &mut String,
) -> Result<()> {
    let Hybrid {
        printer,
        regs,
        ref names,
        naming,
        ..
    } = *h;
    let Names { prefix, lane } = *names;
    let Some(args) = find_args(body, &part.stmt) else {
        // isl generated no instance of it in this tile: nor has its part.
        return Ok(());
    };
    let Some(stage) = printer.stage(&part.stage) else {
        return Err(Error::internal(format!(
            "register part of unknown stage {}",
            part.stage
        )));
    };
    let depth = part.first.len();
    let dims = args
        .len()
        .checked_sub(depth)
        .ok_or_else(|| Error::internal(format!("{} has fewer arguments than loops", part.stmt)))?;
    let bound = bound_inside(body);
    if args[..dims]
        .iter()
        .any(|a| bound.iter().any(|b| mentions(a, b)))
    {
        return Err(Error::internal(format!(
            "the tile coordinates of {} depend on a loop inside its tile",
            part.stmt
        )));
    }
    let tile: Vec<String> = args[..dims]
        .iter()
        .map(|a| expr::operand(a, naming))
        .collect();
    let its: Vec<String> = (0..depth)
        .map(|d| format!("{prefix}{prefix}i{d}"))
        .collect();
    let term = |t: &Term| match t {
        Term::Tile(d) => tile.get(*d).cloned().unwrap_or_default(),
        Term::Index(d) => its.get(*d).cloned().unwrap_or_default(),
        Term::Param(p) => p.clone(),
    };
    let guard = c_condition(&part.guard, &term);
    let mut call = args[..dims].to_vec();
    call.extend(its.iter().map(|i| LoopExpr::Name(i.clone())));
    let node = Node::Stmt {
        stage: part.stmt.clone(),
        args: call,
    };
    let write = part.writes.as_ref().and_then(|data| {
        stage
            .spelled()?
            .iter()
            .position(|a| a.kind == AccessKind::Write && a.data == *data)
    });
    let stored: Vec<&String> = match &part.writes {
        Some(_) => Vec::new(),
        None => regs
            .held
            .iter()
            .filter(|d| writes(printer, &part.stage, d))
            .collect(),
    };
    let inner = format!("{indent}{INDENT}");
    let inner2 = format!("{inner}{INDENT}");
    out.push_str(&format!("{indent}/* {}: register part */\n", part.stmt));
    for (a, j) in coordinates(part, regs) {
        out.push_str(&format!("{indent}{{\n"));
        for d in 0..depth {
            let first = offset_text(&part.first[d], &term);
            let at = match d == regs.dim {
                true => format!("{} * {j} + {lane}", regs.lanes),
                false => a[d].to_string(),
            };
            out.push_str(&format!(
                "{inner}const {} {} = {first} + {at};\n",
                naming.counter_type(),
                its[d]
            ));
        }
        let mut o = Overrides {
            stmt: part.stmt.clone(),
            ..Default::default()
        };
        if let (Some(data), Some(w)) = (&part.writes, write) {
            let r = names.register(data, j, &a, regs.dim);
            o.access.insert(w, Spelling::Text(r));
        }
        for data in &stored {
            o.data
                .insert((*data).clone(), names.register(data, j, &a, regs.dim));
        }
        // Reads of one element share its shuffles.
        let mut shuffled = Shuffled::default();
        for read in &part.reads {
            let at = (&a[..], j);
            let s = read_value(h, read, at, &mut shuffled, &inner, out)?;
            if let Some(s) = s {
                o.access.insert(read.access, s);
            }
        }
        out.push_str(&format!("{inner}if ({guard}) {{\n"));
        printer.print_overridden(o, std::slice::from_ref(&node), &inner2, out)?;
        out.push_str(&format!("{inner}}}\n{indent}}}\n"));
    }
    Ok(())
}

/// The shuffles declared for one instance: by register and source lane
/// offset, the value's name.
#[derive(Default)]
struct Shuffled(std::collections::HashMap<(String, i64), String>);

/// How the generated names are spelled.
#[derive(Clone, Copy)]
pub(super) struct Names<'a> {
    /// The names' prefix.
    pub(super) prefix: &'a str,
    /// The thread's lane in its warp.
    pub(super) lane: &'a str,
}

impl Names<'_> {
    /// The register of `data` at parallelogram tile `j` and coordinates `a`
    /// along the other loops.
    fn register(&self, data: &str, j: i64, a: &[i64], dim: usize) -> String {
        let mut n = format!("{0}{0}r_{data}_{j}", self.prefix);
        for (d, v) in a.iter().enumerate() {
            if d != dim {
                n.push_str(&format!("_{v}"));
            }
        }
        n
    }
}

/// A part's register coordinates: per element of the other loops (row
/// major; the split loop's entry 0) each parallelogram tile `j`.
fn coordinates(part: &RegisterPart, regs: &RegisterTiles) -> impl Iterator<Item = (Vec<i64>, i64)> {
    let widths: Vec<i64> = part
        .widths
        .iter()
        .enumerate()
        .map(|(d, w)| if d == regs.dim { 1 } else { *w })
        .collect();
    let total: i64 = widths.iter().product();
    let tiles = regs.tiles as i64;
    (0..total).flat_map(move |mut n| {
        let mut a = vec![0; widths.len()];
        for d in (0..widths.len()).rev() {
            a[d] = n % widths[d];
            n /= widths[d];
        }
        (0..tiles).map(move |j| (a.clone(), j))
    })
}

/// Declares (at `indent`) what read `read` at register coordinates
/// `(a, j)` needs from the other lanes, and returns its spelling (`None`:
/// the scratchpad's, as outside the register part): the producer's register part holds the value at coordinates
/// `a + offset`, along the split loop at position `lanes * j + lane +
/// offset`, which is the lane's own register, another lane's of the same
/// or an earlier parallelogram tile (a shuffle), or left of the register
/// part (the scratchpad).
fn read_value(
    h: &Hybrid,
    read: &crate::model::storage::RegisterRead,
    (a, j): (&[i64], i64),
    shuffled: &mut Shuffled,
    indent: &str,
    out: &mut String,
) -> Result<Option<Spelling>> {
    let (plan, group, regs, names) = (h.plan, h.group, h.regs, &h.names);
    let producer = regs
        .parts
        .iter()
        .find(|p| p.writes.as_deref() == Some(read.data.as_str()))
        .ok_or_else(|| Error::internal(format!("held data '{}' without a writer", read.data)))?;
    let mut at = a.to_vec();
    for (d, v) in at.iter_mut().enumerate() {
        if d != regs.dim {
            *v += read.offset[d];
            if *v < 0 || *v >= producer.widths[d] {
                // Outside the producer's part: no instance the guard lets
                // run reads it (the producer's region covers every read of
                // the reader's); the value is never used.
                return Ok(Some(Spelling::Text("0".to_string())));
            }
        }
    }
    let lanes = regs.lanes as i64;
    let base = lanes * j + read.offset[regs.dim];
    let (jb, m) = (base.div_euclid(lanes), base.rem_euclid(lanes));
    let elem = plan
        .tile_buffer(group, &read.data)
        .map(|b| b.elem_type.clone())
        .unwrap_or_else(|| "double".to_string());
    let lane = names.lane;
    let prefix = names.prefix;
    let reg = |j: i64| names.register(&read.data, j, &at, regs.dim);
    let mut shuffle = |j: i64| -> String {
        let r = reg(j);
        let n = shuffled.0.len();
        let v = shuffled.0.entry((r.clone(), m)).or_insert_with(|| {
            let v = format!("{prefix}{prefix}v{n}");
            out.push_str(&format!(
                "{indent}const {elem} {v} = __shfl_sync(0xffffffffu, {r}, ({lane} + {m}) % {lanes});\n"
            ));
            v
        });
        v.clone()
    };
    Ok(match (m, jb >= 0) {
        // Every lane its own register (Type 1) ...
        (0, true) => Some(Spelling::Text(reg(jb))),
        // ... or the scratchpad (Type 2).
        (0, false) => None,
        (m, _) => {
            // Lanes below `lanes - m` read tile `jb`, the others `jb + 1`
            // (Types 3 and 4), a tile left of the part the scratchpad.
            let low = (jb >= 0).then(|| shuffle(jb));
            let high = (jb + 1 >= 0).then(|| shuffle(jb + 1));
            Some(Spelling::Select {
                cond: format!("{lane} < {}", lanes - m),
                then: low,
                els: high,
            })
        }
    })
}

/// The arguments of the first instance of statement `name` in `nodes`.
fn find_args(nodes: &[Node], name: &str) -> Option<Vec<LoopExpr>> {
    nodes.iter().find_map(|n| match n {
        Node::Stmt { stage, args } if stage == name => Some(args.clone()),
        Node::Stmt { .. } => None,
        Node::For { body, .. } | Node::Buffers { body, .. } => find_args(body, name),
        Node::If { then, els, .. } => {
            find_args(then, name).or_else(|| els.as_deref().and_then(|e| find_args(e, name)))
        }
    })
}

/// The counters of the loops in `nodes`.
fn bound_inside(nodes: &[Node]) -> Vec<LoopExpr> {
    let mut out = Vec::new();
    for n in nodes {
        match n {
            Node::For { iter, body, .. } => {
                out.push(iter.clone());
                out.extend(bound_inside(body));
            }
            Node::Buffers { body, .. } => out.extend(bound_inside(body)),
            Node::If { then, els, .. } => {
                out.extend(bound_inside(then));
                if let Some(e) = els {
                    out.extend(bound_inside(e));
                }
            }
            Node::Stmt { .. } => {}
        }
    }
    out
}

/// Whether `e` mentions the variable `v`.
fn mentions(e: &LoopExpr, v: &LoopExpr) -> bool {
    if e == v {
        return true;
    }
    match e {
        LoopExpr::Op(_, a, b) | LoopExpr::FloorDiv(a, b) => mentions(a, v) || mentions(b, v),
        LoopExpr::Neg(a) => mentions(a, v),
        LoopExpr::Min(xs) | LoopExpr::Max(xs) => xs.iter().any(|x| mentions(x, v)),
        LoopExpr::Select(c, a, b) => mentions(c, v) || mentions(a, v) || mentions(b, v),
        LoopExpr::Int(_) | LoopExpr::Param(_) | LoopExpr::Counter(_) | LoopExpr::Name(_) => false,
    }
}

/// Whether stage `stage` writes `data`.
fn writes(printer: &CPrinter<'_>, stage: &str, data: &str) -> bool {
    printer
        .stage(stage)
        .and_then(|s| s.spelled())
        .is_some_and(|acc| {
            acc.iter()
                .any(|a| a.kind == AccessKind::Write && a.data == data)
        })
}

#[cfg(test)]
mod tests {
    use super::{coordinates, Names};
    use crate::model::storage::{Condition, RegisterPart, RegisterTiles};
    use std::collections::BTreeSet;

    #[test]
    fn coordinates_run_the_other_loops_then_the_tiles() {
        let part = RegisterPart {
            stmt: "S0".into(),
            stage: "S0".into(),
            first: vec![Default::default(), Default::default()],
            widths: vec![3, 64],
            guard: Condition::default(),
            writes: None,
            reads: vec![],
        };
        let regs = RegisterTiles {
            tiles: 2,
            lanes: 32,
            dim: 1,
            held: BTreeSet::new(),
            parts: vec![part.clone()],
        };
        let all: Vec<(Vec<i64>, i64)> = coordinates(&part, &regs).collect();
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], (vec![0, 0], 0));
        assert_eq!(all[1], (vec![0, 0], 1));
        assert_eq!(all[5], (vec![2, 0], 1));
        let names = Names {
            prefix: "ft_",
            lane: "ft_ft_lane",
        };
        assert_eq!(names.register("bx", 1, &[2, 0], 1), "ft_ft_r_bx_1_2");
    }
}
