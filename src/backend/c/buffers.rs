//! Where the C back end declares and frees buffers: buffer scopes (on
//! the stack, on the heap, or once per thread of a team), and tiles' scratchpads
//! (stack arrays, or heap arrays each thread allocates before the parallel
//! tile loop). The storage plan decides where and how; this prints it.

use super::*;
use crate::backend::templates::SharedDecl;
use crate::backend::tree::tile_groups;

impl CPrinter<'_> {
    /// Prints the block where the buffers placed `at` live, around `body`.
    pub(super) fn buffer_block(
        &self,
        at: Placement,
        body: &[Node],
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let buffers: Vec<&Buffer> = self.storage.iter().flat_map(|s| s.buffers_at(at)).collect();
        match at {
            Placement::Scope { .. } => self.scope_buffers(at, buffers, body, indent, out),
            Placement::Tile { group } => self.tile_buffers(group, buffers, body, indent, out),
        }
    }

    /// Prints a buffer scope: its buffers declared (per thread where a
    /// team allocates them), `body`, then their `free`s.
    fn scope_buffers(
        &self,
        at: Placement,
        buffers: Vec<&Buffer>,
        body: &[Node],
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let inner = format!("{indent}{INDENT}");
        // Per-thread buffers: each thread of a team allocates its
        // own, then shares out the parallel loops (`omp for`). Where
        // isl generated no parallel loop, the code runs serially.
        let team = buffers.iter().any(|b| b.alloc == Alloc::PerThread)
            && match team_shape(body) {
                TeamShape::Worksharing => true,
                TeamShape::Serial => false,
                TeamShape::Mixed => {
                    return Err(Error::internal(format!(
                        "buffer scope {at:?}: statements outside the parallel loops \
                         of a team that allocates per-thread buffers"
                    )))
                }
            };
        out.push_str(&format!("{indent}{{\n"));
        let inner = match team {
            true => {
                out.push_str(&format!("{inner}{}\n{inner}{{\n", self.omp.team));
                format!("{inner}{INDENT}")
            }
            false => inner,
        };
        out.push_str(&self.declarations(&buffers, &inner));
        let was = self.in_team.replace(team);
        self.print(body, &inner, out)?;
        self.in_team.set(was);
        for b in buffers
            .iter()
            .filter(|b| b.alloc.is_heap() && b.pool.is_none())
        {
            out.push_str(&format!(
                "{inner}__builtin_free({});\n",
                scratch_name(&self.prefix, b)
            ));
        }
        let mut pools: Vec<usize> = buffers.iter().filter_map(|b| b.pool).collect();
        pools.sort_unstable();
        pools.dedup();
        for p in pools {
            out.push_str(&format!("{inner}__builtin_free({}pool{p});\n", self.prefix));
        }
        if team {
            out.push_str(&format!("{indent}{INDENT}}}\n"));
        }
        out.push_str(&format!("{indent}}}\n"));
        Ok(())
    }

    /// Prints a tile's block: its stack buffers declared, and its heap
    /// buffers unless the threads allocated them before the tile loop.
    fn tile_buffers(
        &self,
        group: usize,
        buffers: Vec<&Buffer>,
        body: &[Node],
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let inner = format!("{indent}{INDENT}");
        out.push_str(&format!("{indent}{{\n"));
        let array = |sp: &Buffer| tile_array(&self.prefix, sp, false);
        let mut pools_done = Vec::new();
        let (heap, buffers): (Vec<&Buffer>, Vec<&Buffer>) =
            buffers.into_iter().partition(|b| b.alloc.is_heap());
        // Heap buffers no thread allocated for its tiles: each tile
        // allocates its own.
        let own_heap = match self.hoisted.get() {
            Some(h) if group == h => Vec::new(),
            _ => heap,
        };
        out.push_str(&self.tile_heap_declarations(&own_heap, &inner));
        for sp in &buffers {
            // Cache-line aligned. The explicit alignment also makes
            // gcc 12 realign the OpenMP outlined function's frame: at
            // -O3 -march=native it otherwise vectorised fused point
            // loops with 32-byte aligned loads from arrays the frame
            // only aligned to 16 (heat-1d --rectangle crashed).
            match sp.pool {
                None => out.push_str(&format!(
                    "{inner}{} __attribute__((aligned(64))); /* tile-local '{}' */\n",
                    array(sp),
                    sp.data.join("', '")
                )),
                Some(p) if !pools_done.contains(&p) => {
                    pools_done.push(p);
                    let members: Vec<&&Buffer> =
                        buffers.iter().filter(|b| b.pool == Some(p)).collect();
                    let fields: String =
                        members.iter().map(|b| format!(" {};", array(b))).collect();
                    let data: Vec<String> = members.iter().map(|b| b.data.join("', '")).collect();
                    out.push_str(&format!(
                        "{inner}union {{{fields} }} {}shared{p} __attribute__((aligned(64))); /* tile-local '{}', lifetimes apart */\n",
                        self.prefix,
                        data.join("', '")
                    ));
                }
                Some(_) => {}
            }
        }
        self.print(body, &inner, out)?;
        out.push_str(&tile_heap_frees(&self.prefix, &own_heap, &inner));
        out.push_str(&format!("{indent}}}\n"));
        Ok(())
    }

    /// The declarations (for `cuda/shared.cu.tera`) of `group`'s tile
    /// buffers in a CUDA kernel: `__shared__` arrays (a pool as a union),
    /// one copy per thread block, or with `per_warp` (the warps of a
    /// block and the C name of the thread's warp), one per warp, each
    /// warp's copy named as the block's would be. A located refusal where
    /// they do not fit shared memory (the storage plan put some on the
    /// heap): their size is given in bytes.
    pub fn shared_tile_declarations(
        &self,
        group: usize,
        per_warp: Option<(u32, &str)>,
    ) -> Result<Vec<SharedDecl>> {
        let buffers: Vec<&Buffer> = self
            .storage
            .iter()
            .flat_map(|s| s.buffers_at(Placement::Tile { group }))
            .collect();
        if buffers.iter().any(|b| b.alloc.is_heap()) {
            return Err(Error::internal(
                "tile buffers on the heap in a CUDA kernel (the driver sizes them for shared memory)",
            ));
        }
        let mut out = Vec::new();
        let mut pools_done = Vec::new();
        let prefix = &self.prefix;
        // `T name[..]` (a block's), or `T all[warps][..]` and `name` the
        // thread's warp's part of it.
        let declare = |ty: String, name: String, dims: String, what: String| SharedDecl {
            per_warp: per_warp
                .map(|(warps, warp)| (format!("{prefix}{prefix}w{name}"), warps, warp.to_string())),
            ty,
            name,
            dims,
            what,
        };
        for sp in &buffers {
            match sp.pool {
                None => out.push(declare(
                    sp.elem_type.clone(),
                    format!("{prefix}{}", sp.name),
                    tile_dims(sp, 0),
                    format!("tile-local '{}'", sp.data.join("', '")),
                )),
                Some(p) if !pools_done.contains(&p) => {
                    pools_done.push(p);
                    let members: Vec<&&Buffer> =
                        buffers.iter().filter(|b| b.pool == Some(p)).collect();
                    let fields: String = members
                        .iter()
                        .map(|b| format!(" {};", tile_array(&self.prefix, b, false)))
                        .collect();
                    let data: Vec<String> = members.iter().map(|b| b.data.join("', '")).collect();
                    out.push(declare(
                        format!("union {{{fields} }}"),
                        format!("{prefix}shared{p}"),
                        String::new(),
                        format!("tile-local '{}', lifetimes apart", data.join("', '")),
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(out)
    }

    /// The bytes of one tile's buffers of `group` (after sharing), where
    /// every element type's size is known.
    pub fn tile_bytes(&self, group: usize) -> Option<u64> {
        self.storage?
            .tile_bytes(group, u64::MAX / 4)
            .filter(|b| *b < u64::MAX / 4)
    }

    /// The group whose tile buffers the threads running `n` allocate first:
    /// `n` is a parallel loop (no such allocation printed around it yet) and
    /// the tiles in it are all of one group, whose buffers live on the heap.
    pub(super) fn per_thread_tiles(&self, n: &Node) -> Option<usize> {
        let Node::For {
            parallel: true,
            body,
            ..
        } = n
        else {
            return None;
        };
        if self.hoisted.get().is_some() {
            return None;
        }
        let mut groups = Vec::new();
        tile_groups(body, &mut groups);
        let [group] = groups[..] else {
            return None;
        };
        let storage = self.storage?;
        storage
            .buffers_at(Placement::Tile { group })
            .any(|b| b.alloc == Alloc::PerThread)
            .then_some(group)
    }

    /// Prints the parallel loop `n` inside a team of threads that each
    /// allocate the heap buffers of `group`'s tiles once, before the loop's
    /// `omp for`, and free them after it.
    pub(super) fn per_thread_team(
        &self,
        n: &Node,
        group: usize,
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let storage = self
            .storage
            .ok_or_else(|| Error::internal("tile buffers without a storage plan"))?;
        let heap: Vec<&Buffer> = storage
            .buffers_at(Placement::Tile { group })
            .filter(|b| b.alloc.is_heap())
            .collect();
        let was_team = self.in_team.get();
        let mut inner = format!("{indent}{INDENT}");
        out.push_str(&format!("{indent}{{\n"));
        if !was_team {
            out.push_str(&format!("{inner}{}\n{inner}{{\n", self.omp.team));
            inner.push_str(INDENT);
        }
        out.push_str(&self.tile_heap_declarations(&heap, &inner));
        self.in_team.set(true);
        self.hoisted.set(Some(group));
        let printed = self.node(n, &inner, out);
        self.hoisted.set(None);
        self.in_team.set(was_team);
        printed?;
        out.push_str(&tile_heap_frees(&self.prefix, &heap, &inner));
        if !was_team {
            out.push_str(&format!("{indent}{INDENT}}}\n"));
        }
        out.push_str(&format!("{indent}}}\n"));
        Ok(())
    }

    /// Declarations of a tile's heap buffers (a pool once, as a pointer to
    /// its union): each allocated with `malloc`, its start aligned to a
    /// cache line, as the stack arrays are.
    fn tile_heap_declarations(&self, heap: &[&Buffer], indent: &str) -> String {
        let prefix = &self.prefix;
        let array = |sp: &Buffer, pointer: bool| tile_array(prefix, sp, pointer);
        let mut out = String::new();
        let mut pools_done = Vec::new();
        for sp in heap {
            let (pointer, bytes, what) = match sp.pool {
                None => (
                    array(sp, true),
                    format!(
                        "sizeof({}){}",
                        sp.elem_type,
                        sp.extents
                            .iter()
                            .map(|n| format!(" * (__SIZE_TYPE__){}", offset_text(n, &param_term)))
                            .collect::<String>()
                    ),
                    format!("'{}'", sp.data.join("', '")),
                ),
                Some(p) if !pools_done.contains(&p) => {
                    pools_done.push(p);
                    let members: Vec<&&Buffer> =
                        heap.iter().filter(|b| b.pool == Some(p)).collect();
                    let fields: String = members
                        .iter()
                        .map(|b| format!(" {};", array(b, false)))
                        .collect();
                    let data: Vec<String> = members.iter().map(|b| b.data.join("', '")).collect();
                    (
                        format!("union {{{fields} }} *restrict {prefix}shared{p}"),
                        format!("sizeof(*{prefix}shared{p})"),
                        format!("'{}', lifetimes apart", data.join("', '")),
                    )
                }
                Some(_) => continue,
            };
            let name = heap_name(prefix, sp);
            out.push_str(&format!(
                "{indent}{pointer}; /* tile-local {what}, on the heap */\n\
                 {indent}void *{name}_mem = __builtin_malloc({bytes} + 63);\n\
                 {indent}if (!{name}_mem)\n\
                 {indent}  __builtin_abort();\n\
                 {indent}{name} = __builtin_assume_aligned((void *)(((__UINTPTR_TYPE__){name}_mem + 63) & ~(__UINTPTR_TYPE__)63), 64);\n"
            ));
        }
        out
    }

    /// The declarations of a buffer scope's buffers, each pool allocated
    /// (the size of its largest member) before its first member.
    fn declarations(&self, buffers: &[&Buffer], indent: &str) -> String {
        let mut out = String::new();
        let mut pools_done = Vec::new();
        for b in buffers {
            if let Some(p) = b.pool.filter(|p| !pools_done.contains(p)) {
                pools_done.push(p);
                let members: Vec<&&Buffer> = buffers.iter().filter(|m| m.pool == Some(p)).collect();
                let pool = format!("{}pool{p}", self.prefix);
                let data: Vec<String> = members.iter().map(|m| m.data.join("', '")).collect();
                let first = heap_bytes(members[0]);
                out.push_str(&format!(
                    "{indent}__SIZE_TYPE__ {pool}_bytes = {first}; /* '{}', lifetimes apart */\n",
                    data.join("', '")
                ));
                let mut sizes: Vec<String> = members.iter().map(|m| heap_bytes(m)).collect();
                sizes.retain(|s| *s != first);
                sizes.sort();
                sizes.dedup();
                for bytes in sizes {
                    out.push_str(&format!(
                        "{indent}if ({pool}_bytes < {bytes})\n{indent}  {pool}_bytes = {bytes};\n"
                    ));
                }
                out.push_str(&format!(
                    "{indent}void *{pool} = __builtin_malloc({pool}_bytes);\n{indent}if (!{pool})\n{indent}  __builtin_abort();\n"
                ));
            }
            out.push_str(&self.declaration(b, indent));
        }
        out
    }

    /// The declaration of a buffer scope's buffer (its dimensions of modulus
    /// 1 dropped): a scalar, a stack array, or a heap array of parametric
    /// extents (a pointer into its pool, if it has one).
    fn declaration(&self, b: &Buffer, indent: &str) -> String {
        let name = scratch_name(&self.prefix, b);
        let extents = scope_extents(b);
        let what = format!("/* contracted '{}' */", b.data.join("', '"));
        // The arrays are no longer used here (no unused-parameter warning).
        let unused: String = b
            .data
            .iter()
            .map(|d| format!("{indent}(void){d};\n"))
            .collect();
        unused
            + &match b.alloc {
                Alloc::Stack => {
                    let dims: String = extents.iter().map(|e| format!("[{e}]")).collect();
                    format!("{indent}{} {name}{dims}; {what}\n", b.elem_type)
                }
                Alloc::Heap | Alloc::PerThread => {
                    let inner: String = positive_extents(&extents)
                        .iter()
                        .skip(1)
                        .map(|e| format!("[{e}]"))
                        .collect();
                    let ty = &b.elem_type;
                    match b.pool {
                        Some(p) => format!(
                            "{indent}{ty} (*{name}){inner} = {}pool{p}; {what}\n",
                            self.prefix
                        ),
                        None => format!(
                            "{indent}{ty} (*{name}){inner} = __builtin_malloc({}); {what}\n{indent}if (!{name})\n{indent}  __builtin_abort();\n",
                            heap_bytes(b)
                        ),
                    }
                }
            }
    }
}

/// A tile buffer's extents as C array dimensions (`[a][b]`), the first
/// `skip` left out.
fn tile_dims(sp: &Buffer, skip: usize) -> String {
    sp.extents
        .iter()
        .skip(skip)
        .map(|n| format!("[{}]", offset_text(n, &param_term)))
        .collect()
}

/// The C declarator of a tile buffer: the array itself, or (`pointer`) a
/// `restrict` pointer to its rows.
fn tile_array(prefix: &str, sp: &Buffer, pointer: bool) -> String {
    let dims = tile_dims(sp, usize::from(pointer));
    match pointer {
        true => format!("{} (*restrict {prefix}{}){dims}", sp.elem_type, sp.name),
        false => format!("{} {prefix}{}{dims}", sp.elem_type, sp.name),
    }
}

/// The C variable of a tile heap buffer: its pool's pointer, or its own.
fn heap_name(prefix: &str, sp: &Buffer) -> String {
    match sp.pool {
        Some(p) => format!("{prefix}shared{p}"),
        None => format!("{prefix}{}", sp.name),
    }
}

/// The `free`s of a tile's heap buffers (a pool once).
fn tile_heap_frees(prefix: &str, heap: &[&Buffer], indent: &str) -> String {
    let mut names: Vec<String> = Vec::new();
    for n in heap.iter().map(|b| heap_name(prefix, b)) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
        .iter()
        .map(|n| format!("{indent}__builtin_free({n}_mem);\n"))
        .collect()
}

/// What runs in the block of a team of threads: only parallel loops (and
/// the conditions and serial loops around them), no parallel loop, or both
/// parallel loops and statements outside them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TeamShape {
    Worksharing,
    Serial,
    Mixed,
}

fn team_shape(nodes: &[Node]) -> TeamShape {
    let mut shapes = Vec::new();
    for n in nodes {
        match n {
            Node::For { parallel: true, .. } => shapes.push(TeamShape::Worksharing),
            Node::For { body, .. } | Node::Buffers { body, .. } => shapes.push(team_shape(body)),
            Node::If { then, els, .. } => {
                shapes.push(team_shape(then));
                if let Some(e) = els {
                    shapes.push(team_shape(e));
                }
            }
            Node::Stmt { .. } => shapes.push(TeamShape::Serial),
        }
    }
    let has = |s| shapes.contains(&s);
    if has(TeamShape::Mixed) || (has(TeamShape::Worksharing) && has(TeamShape::Serial)) {
        TeamShape::Mixed
    } else if has(TeamShape::Worksharing) {
        TeamShape::Worksharing
    } else {
        TeamShape::Serial
    }
}

/// The extents of a scope buffer as C text, its dimensions of modulus 1 dropped.
fn scope_extents(b: &Buffer) -> Vec<String> {
    b.extents
        .iter()
        .enumerate()
        .filter(|(d, _)| b.index.moduli.get(*d).copied().flatten() != Some(1))
        .map(|(_, e)| offset_text(e, &param_term))
        .collect()
}

/// Extents as C text that are at least 1: a region that runs no iteration
/// still declares a valid type and calls a valid `malloc`.
fn positive_extents(extents: &[String]) -> Vec<String> {
    extents
        .iter()
        .map(|e| match e.parse::<i64>() {
            Ok(_) => e.clone(),
            Err(_) => format!("({e} > 0 ? {e} : 1)"),
        })
        .collect()
}

/// The size in bytes of a heap buffer, as C text.
fn heap_bytes(b: &Buffer) -> String {
    let size: String = positive_extents(&scope_extents(b))
        .iter()
        .map(|e| format!(" * (__SIZE_TYPE__){e}"))
        .collect();
    format!("sizeof({}){size}", b.elem_type)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{for_loop, stmt};
    use super::*;
    use crate::model::storage::IndexFn;

    /// A pool's allocation is freed once, its members in any order among
    /// the tile's other buffers.
    #[test]
    fn tile_heap_buffers_are_freed_once() {
        let buf = |d: &str, pool| Buffer {
            name: d.into(),
            data: vec![d.into()],
            elem_type: "float".into(),
            extents: vec![Affine::constant(1024)],
            index: IndexFn::default(),
            placement: Placement::Tile { group: 0 },
            alloc: Alloc::PerThread,
            pool,
        };
        let (a, b, c) = (buf("A", Some(0)), buf("B", None), buf("C", Some(0)));
        assert_eq!(
            tile_heap_frees("ft_", &[&a, &b, &c], ""),
            "__builtin_free(ft_shared0_mem);\n__builtin_free(ft_B_mem);\n"
        );
    }

    #[test]
    fn team_shapes() {
        let guarded = Node::If {
            cond: LoopExpr::Name("N".into()),
            then: vec![for_loop(true, vec![stmt()])],
            els: None,
        };
        assert_eq!(team_shape(&[guarded]), TeamShape::Worksharing);
        let serial_around = for_loop(false, vec![for_loop(true, vec![stmt()])]);
        assert_eq!(team_shape(&[serial_around]), TeamShape::Worksharing);
        assert_eq!(
            team_shape(&[for_loop(false, vec![stmt()])]),
            TeamShape::Serial
        );
        let mixed = [for_loop(true, vec![stmt()]), stmt()];
        assert_eq!(team_shape(&mixed), TeamShape::Mixed);
    }
}
