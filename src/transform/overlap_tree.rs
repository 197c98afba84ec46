//! The schedule tree of overlapped tiles (Zhao & Cohen §3.3–3.4, Fig. 11,
//! 12, 15): one tile token per tile of the group, the tile band (split into
//! the overlapped loops and, under `--overlap-dims`, the classically tiled
//! one), the storage mark, the expansion node that maps every token to the
//! instances the group's statements compute in that tile, the tile's prologue (sliding
//! scratchpads, loads) and the point loops — fused for rectangle tiles
//! (the innermost one strip-mined into chunks, the stages one after another
//! inside a chunk), one stage after another for scalene ones. `overlap.rs`
//! decides what each tile computes; this file only builds the tree.

use crate::diag::{Error, Result};
use crate::model::isl_ext::{insert_expansion, isl_err};
use crate::model::marks::Mark;
use crate::model::program::Region;
use crate::model::storage::{GroupStorage, Slide};
use crate::transform::multi_level::InnerTiles;
use crate::transform::overlap::{GroupAnalysis, OverlapSpec, Shape, WHOLE};
use isl_rs::{
    Context, DimType, Map, MultiUnionPwAff, Schedule, UnionMap, UnionPwMultiAff, UnionSet,
    UnionSetList,
};

/// A statement of the tree (a stage's or a store's name) and its stage.
type Stmt = (String, usize);

/// What the parts of one group's tree share: the group, its storage, the
/// tile token and the statements' iteration variables.
struct Tree<'a> {
    ctx: &'a Context,
    region: &'a Region,
    a: &'a GroupAnalysis,
    storage: &'a GroupStorage,
    /// The tile token's name.
    token: String,
    /// `T0, ..`: the tile loops.
    tvars: Vec<String>,
    /// `T0, .., i0, ..`: a statement's variables in the tree.
    all: String,
    /// The run of stages each stage's innermost point loop is fused with
    /// (intra-tile fusion for register reuse, `intra_fusion.rs`).
    run_of: Vec<usize>,
}

impl<'a> Tree<'a> {
    fn new(ctx: &'a Context, region: &'a Region, a: &'a GroupAnalysis) -> Result<Self> {
        let n = region.stages.len();
        let mut run_of: Vec<usize> = (0..n).collect();
        for (r, run) in a.reuse.iter().enumerate() {
            for k in run {
                if let Some(slot) = run_of.get_mut(*k) {
                    *slot = r + n;
                }
            }
        }
        let storage = a
            .storage
            .groups
            .first()
            .ok_or_else(|| Error::internal("overlap: a storage plan without its group"))?;
        let first = region
            .stages
            .first()
            .ok_or_else(|| Error::internal("overlap: empty group"))?;
        let tvars: Vec<String> = (0..a.depth).map(|d| format!("T{d}")).collect();
        let ivars: Vec<String> = (0..a.depth).map(|d| format!("i{d}")).collect();
        Ok(Tree {
            ctx,
            region,
            a,
            storage,
            token: format!("{}_t", first.name),
            all: format!("{}, {}", tvars.join(", "), ivars.join(", ")),
            tvars,
            run_of,
        })
    }

    /// The store statement of stage `k`, if the group stores it.
    fn store_of(&self, k: usize) -> Option<String> {
        self.storage
            .stores()
            .find(|(_, s)| *s == k)
            .map(|(n, _)| n.to_string())
    }

    /// Statement names in execution order: each stage, then its store.
    fn statements(&self) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        for (k, stage) in self.region.stages.iter().enumerate() {
            stmts.push((stage.name.clone(), k));
            if let Some(store) = self.store_of(k) {
                stmts.push((store, k));
            }
        }
        stmts
    }

    /// Consecutive statements of different stages in one run share a loop.
    fn by_run(&self, stmts: &[Stmt]) -> Vec<Vec<Stmt>> {
        let mut out: Vec<Vec<Stmt>> = Vec::new();
        for s in stmts {
            match out.last_mut() {
                Some(last)
                    if last
                        .iter()
                        .all(|(_, k)| *k != s.1 && self.run_of[*k] == self.run_of[s.1]) =>
                {
                    last.push(s.clone())
                }
                _ => out.push(vec![s.clone()]),
            }
        }
        out
    }

    /// One point-band member over `which`: the stage's shifted, scaled
    /// iteration `p = scale*i + shift`, or, with a chunk size `c`, the chunk
    /// `floor((p - size*T)/c)` it lies in, counted from its tile's origin.
    fn member(&self, which: &[Stmt], d: usize, chunk: Option<i64>) -> String {
        let (a, all) = (self.a, &self.all);
        let parts: Vec<String> = which
            .iter()
            .map(|(n, k)| {
                let p = format!("{}*i{d} + {}", a.scales[*k][d], a.shifts[*k][d]);
                let e = match chunk {
                    None => p,
                    Some(c) if a.sizes[d] >= WHOLE => format!("floor(({p})/{c})"),
                    Some(c) => format!("floor(({p} - {}*T{d})/{c})", a.sizes[d]),
                };
                format!("{n}[{all}] -> [({e})]")
            })
            .collect();
        format!("{{ {} }}", parts.join("; "))
    }

    /// The point band of `which`: one member per loop.
    fn point(&self, which: &[Stmt]) -> String {
        let members: Vec<String> = (0..self.a.depth)
            .map(|d| self.member(which, d, None))
            .collect();
        format!("[{}]", members.join(", "))
    }

    /// The filter of the statements `which`.
    fn filter(&self, which: &[Stmt]) -> Result<UnionSet> {
        let all = &self.all;
        let parts: Vec<String> = which.iter().map(|(n, _)| format!("{n}[{all}]")).collect();
        UnionSet::read_from_str(self.ctx, &format!("{{ {} }}", parts.join("; "))).map_err(isl_err)
    }

    /// The filter of a prologue statement `name` over `n` elements.
    fn element_filter(&self, name: &str, n: usize) -> Result<UnionSet> {
        let xs: Vec<String> = (0..n).map(|d| format!("x{d}")).collect();
        UnionSet::read_from_str(
            self.ctx,
            &format!("{{ {name}[{}, {}] }}", self.tvars.join(", "), xs.join(", ")),
        )
        .map_err(isl_err)
    }
}

/// Builds the tree of group `a` of `region`: tokens → tile band → mark →
/// expansion → prologue → point loops, as `spec` shapes them.
pub(crate) fn build_tree(
    ctx: &Context,
    region: &Region,
    a: &GroupAnalysis,
    spec: &OverlapSpec,
    mark: &Mark,
) -> Result<Schedule> {
    let t = Tree::new(ctx, region, a)?;
    let tiles = group_tiles(&a.regions)?;
    let (expansion, slides) = expansion(&t, &tiles)?;
    let contraction = expansion
        .copy()
        .and_then(|e| e.reverse())
        .and_then(UnionPwMultiAff::from_union_map)
        .map_err(isl_err)?;
    let tokens = tiles
        .copy()
        .and_then(|s| s.set_tuple_name(&t.token))
        .and_then(UnionSet::from_set)
        .map_err(isl_err)?;
    let root = Schedule::from_domain(tokens)
        .and_then(|s| s.get_root())
        .map_err(isl_err)?;
    let node = tile_bands(&t, root, mark, contraction, expansion)?;
    let stmts = t.statements();
    let node = prologue(&t, node, &slides, &stmts)?;
    let node = match spec.shape {
        Shape::Rectangle => rectangle_points(&t, node, &stmts, spec)?,
        Shape::Scalene => scalene_points(&t, node, &stmts)?,
    };
    node.get_schedule().map_err(isl_err)
}

/// The tiles of the group: the union of the tiles its statements' regions
/// reach. The token exists for every tile of the group (a statement's region
/// in some tiles may be empty): isl puts no guard between the tile loops and
/// the tile body, which stays one block.
fn group_tiles(regions: &[Map]) -> Result<isl_rs::Set> {
    let mut tiles: Option<isl_rs::Set> = None;
    for r in regions.iter() {
        let t = r.copy().and_then(|m| m.range()).map_err(isl_err)?;
        tiles = Some(match tiles {
            None => t,
            Some(u) => u.union(t).map_err(isl_err)?,
        });
    }
    tiles
        .ok_or_else(|| Error::internal("overlap: empty group"))?
        .coalesce()
        .map_err(isl_err)
}

/// The expansion: one token per tile of the group, mapped to every statement
/// instance the tile runs (stages, stores, loads and slides): the tile loops
/// schedule one statement, and the back end finds one call per tile to
/// expand (`backend/tile_body.rs`). Also returns the slides' maps
/// (`[T] -> Slide[x]`).
fn expansion(t: &Tree, tiles: &isl_rs::Set) -> Result<(UnionMap, Vec<(String, Map)>)> {
    let a = t.a;
    let mut expansion = UnionMap::read_from_str(t.ctx, "{ }").map_err(isl_err)?;
    for (k, stage) in t.region.stages.iter().enumerate() {
        expansion = expansion
            .union(expand(&a.regions[k], &t.token, &stage.name)?)
            .map_err(isl_err)?;
        if let Some(store) = t.store_of(k) {
            expansion = expansion
                .union(expand(&a.own[k], &t.token, &store)?)
                .map_err(isl_err)?;
        }
    }
    for (name, l) in &a.loads {
        // `[T] -> D[x]`, reversed into the `element -> tile` form `expand` takes.
        // Restricted to the group's tiles (a load box is given for every tile).
        let l = l
            .copy()
            .and_then(|m| m.intersect_domain(tiles.copy()?))
            .and_then(|m| m.reverse())
            .map_err(isl_err)?;
        expansion = expansion
            .union(expand(&l, &t.token, name)?)
            .map_err(isl_err)?;
    }
    let mut slides: Vec<(String, Map)> = Vec::new();
    for (name, sl) in t.storage.slides() {
        let m = slide_map(t, name, sl, tiles)?;
        let rev = m.copy().and_then(|m| m.reverse()).map_err(isl_err)?;
        expansion = expansion
            .union(expand(&rev, &t.token, name)?)
            .map_err(isl_err)?;
        slides.push((name.to_string(), m));
    }
    Ok((expansion, slides))
}

/// A slide `[T] -> name[x]` over the elements of its scratchpad that move,
/// in the group's `tiles`.
fn slide_map(t: &Tree, name: &str, sl: &Slide, tiles: &isl_rs::Set) -> Result<Map> {
    let sp =
        t.a.storage
            .tile_buffer(0, &sl.data)
            .ok_or_else(|| Error::internal("slide without a scratchpad"))?;
    let xs: Vec<String> = (0..sp.extents.len()).map(|d| format!("x{d}")).collect();
    let extents: Vec<i64> = sp
        .extents
        .iter()
        .map(|e| e.constant_value())
        .collect::<Option<_>>()
        .ok_or_else(|| Error::internal("a tile buffer without a constant size"))?;
    let bounds: Vec<String> = extents
        .iter()
        .enumerate()
        .map(|(d, n)| {
            let n = if d == sl.dim { n - sl.step } else { *n };
            format!("0 <= x{d} < {n}")
        })
        .collect();
    Map::read_from_str(
        t.ctx,
        &format!(
            "{{ [{}] -> {name}[{}] : {} }}",
            t.tvars.join(", "),
            xs.join(", "),
            bounds.join(" and ")
        ),
    )
    .and_then(|m| m.intersect_domain(tiles.copy()?))
    .map_err(isl_err)
}

/// The tile bands below `root`, the mark and the expansion node: the
/// overlapped loops' tile band (parallel), then, under partial overlapped
/// tiling, the classically tiled loop's (serial: its tiles pass values on
/// through the sliding scratchpads declared above it). Returns the node
/// below the expansion, where the tile's body goes.
fn tile_bands(
    t: &Tree,
    root: isl_rs::ScheduleNode,
    mark: &Mark,
    contraction: UnionPwMultiAff,
    expansion: UnionMap,
) -> Result<isl_rs::ScheduleNode> {
    let (ctx, depth, classic) = (t.ctx, t.a.depth, t.a.classic);
    let tile_band: Vec<String> = (0..depth)
        .map(|d| format!("{{ {}[{}] -> [(T{d})] }}", t.token, t.tvars.join(", ")))
        .collect();
    let overlapped: Vec<String> = (0..depth)
        .filter(|d| Some(*d) != classic)
        .map(|d| tile_band[d].clone())
        .collect();
    let band = MultiUnionPwAff::read_from_str(ctx, &format!("[{}]", overlapped.join(", ")))
        .map_err(isl_err)?;
    let node = root
        .child(0)
        .and_then(|n| n.insert_partial_schedule(band))
        .map_err(isl_err)?;
    // One loop per tile dimension: a split tile loop would split the tile body,
    // and with it the scope of the tile's scratchpads.
    let mut node = atomic(node)?;
    node = node.child(0).map_err(isl_err)?;
    if let Some(c) = classic {
        node = crate::transform::band::insert_mark(node, mark)?;
        node = node.child(0).map_err(isl_err)?;
        let band =
            MultiUnionPwAff::read_from_str(ctx, &format!("[{}]", tile_band[c])).map_err(isl_err)?;
        node = atomic(node.insert_partial_schedule(band).map_err(isl_err)?)?;
        node = node.child(0).map_err(isl_err)?;
        node = insert_expansion(node, contraction, expansion)?;
        node.child(0).map_err(isl_err)
    } else {
        node = insert_expansion(node, contraction, expansion)?;
        node = crate::transform::band::insert_mark(node, mark)?;
        node.child(0).and_then(|n| n.child(0)).map_err(isl_err)
    }
}

/// Prologue phases of a tile: slides, then loads (each over its elements,
/// in order), then the tile's computation (`stmts`). Each load is a phase of
/// its own: loads of stages at different scales (pyramids) in one loop nest
/// would run over the union of their ranges, most of it guarded off.
/// Returns the node where the computation goes.
fn prologue(
    t: &Tree,
    node: isl_rs::ScheduleNode,
    slides: &[(String, Map)],
    stmts: &[Stmt],
) -> Result<isl_rs::ScheduleNode> {
    let with_dims = |list: &[(String, Map)]| -> Result<Vec<(String, usize)>> {
        list.iter()
            .map(|(n, m)| Ok((n.clone(), m.range_tuple_dim().map_err(isl_err)? as usize)))
            .collect()
    };
    let mut phases: Vec<Vec<(String, usize)>> = Vec::new();
    if !slides.is_empty() {
        phases.push(with_dims(slides)?);
    }
    for load in &t.a.loads {
        phases.push(with_dims(std::slice::from_ref(load))?);
    }
    if phases.is_empty() {
        return Ok(node);
    }
    let mut list = UnionSetList::alloc(t.ctx, phases.len() as i32 + 1).map_err(isl_err)?;
    for phase in &phases {
        let mut f = UnionSet::read_from_str(t.ctx, "{ }").map_err(isl_err)?;
        for (name, n) in phase {
            f = f.union(t.element_filter(name, *n)?).map_err(isl_err)?;
        }
        list = list.add(f).map_err(isl_err)?;
    }
    let mut rest = UnionSet::read_from_str(t.ctx, "{ }").map_err(isl_err)?;
    for (n, _) in stmts {
        rest = rest.union(t.filter(&[(n.clone(), 0)])?).map_err(isl_err)?;
    }
    list = list.add(rest).map_err(isl_err)?;
    let mut node = node.insert_sequence(list).map_err(isl_err)?;
    for (i, phase) in phases.iter().enumerate() {
        node = node
            .child(i as i32)
            .and_then(|n| n.child(0))
            .map_err(isl_err)?;
        node = phase_loops(t, node, phase)?;
        node = node.parent().and_then(|n| n.parent()).map_err(isl_err)?;
    }
    node.child(phases.len() as i32)
        .and_then(|n| n.child(0))
        .map_err(isl_err)
}

/// A prologue phase's own loops at `node`: over its elements, in increasing
/// order (a slide moves elements down, so it must run upwards).
fn phase_loops(
    t: &Tree,
    node: isl_rs::ScheduleNode,
    phase: &[(String, usize)],
) -> Result<isl_rs::ScheduleNode> {
    let max_dims = phase.iter().map(|(_, n)| *n).max().unwrap_or(0);
    if max_dims == 0 {
        return Ok(node);
    }
    let tvars = t.tvars.join(", ");
    let members: Vec<String> = (0..max_dims)
        .map(|d| {
            let parts: Vec<String> = phase
                .iter()
                .map(|(name, n)| {
                    let xs: Vec<String> = (0..*n).map(|k| format!("x{k}")).collect();
                    let v = if d < *n {
                        format!("x{d}")
                    } else {
                        "0".to_string()
                    };
                    format!("{name}[{tvars}, {}] -> [({v})]", xs.join(", "))
                })
                .collect();
            format!("{{ {} }}", parts.join("; "))
        })
        .collect();
    let mupa = MultiUnionPwAff::read_from_str(t.ctx, &format!("[{}]", members.join(", ")))
        .map_err(isl_err)?;
    let mut node = atomic(node.insert_partial_schedule(mupa).map_err(isl_err)?)?;
    if phase.len() > 1 {
        // The slides of several scratchpads share the loops, one after
        // another at each element (they touch different scratchpads): a
        // sequence below the band says so, so that no two statements share a
        // leaf, whose order isl picks itself and flextile's tile-body
        // generator does not take (the body was left to isl).
        let mut each = UnionSetList::alloc(t.ctx, phase.len() as i32).map_err(isl_err)?;
        for (name, n) in phase {
            each = each.add(t.element_filter(name, *n)?).map_err(isl_err)?;
        }
        node = node
            .child(0)
            .and_then(|leaf| leaf.insert_sequence(each))
            .and_then(|seq| seq.parent())
            .map_err(isl_err)?;
    }
    Ok(node)
}

/// Rectangle tiles' point loops (Fig. 14) at `node`, fused over `stmts`.
/// The copies of a time block's body fuse per time step, steps one after
/// another: the time loop is the outer point loop, as with the time
/// dimension in the tile band (§4.3). Fusing the steps as well would put
/// time innermost, each step reading what the step before stored an
/// iteration earlier, which defeats vectorisation. Consecutive statements of
/// one step form a layer; a chain that is not a time block is one layer (all
/// its stages fused).
fn rectangle_points(
    t: &Tree,
    node: isl_rs::ScheduleNode,
    stmts: &[Stmt],
    spec: &OverlapSpec,
) -> Result<isl_rs::ScheduleNode> {
    let stages = &t.region.stages;
    let mut layers: Vec<Vec<Stmt>> = Vec::new();
    for s in stmts {
        let step = stages[s.1].time_step;
        match layers.last_mut() {
            Some(layer) if stages[layer[0].1].time_step == step => layer.push(s.clone()),
            _ => layers.push(vec![s.clone()]),
        }
    }
    // Chunked by default ([`chunked_points`]). With `--point-chunk 0`, a
    // chain's stages in one fused loop (Fig. 14): its innermost loop is not
    // isolated, since on unsharp-mask (8x512 tiles) isl's AST build fails on
    // the isolated fused loop ("cannot handle void expression"); it is left
    // to isl's default, which splits it where that is cheap.
    let mode = match (spec.point_chunk, spec.isolate_points, layers.len() > 1) {
        (c, _, _) if c > 0 => PointLoops::Chunked(c),
        (_, false, _) => PointLoops::Atomic,
        (_, true, true) => PointLoops::Isolated,
        (_, true, false) => PointLoops::DefaultInnermost,
    };
    // A layer that stores several stages to their arrays (every stage of
    // harris is live-out) stores them after its point loops, one copy loop
    // nest per store: fused, the stores interleave as many output streams
    // per row, each chunk's row a short copy (harris 83 -> 58 ms, unsharp 28
    // -> 24 ms, camera 58 -> 50 ms at one thread). A layer with one store
    // keeps it fused, next to the values it copies (heat-1d, the last step
    // of a time block: 7% faster). Legal: nothing in a tile reads what a
    // store writes (a stage's consumers read its scratchpad).
    let is_store = |s: &Stmt| t.storage.statements.contains_key(&s.0);
    let mut parts: Vec<Vec<Stmt>> = Vec::new();
    for layer in layers {
        let (stores, computed): (Vec<_>, Vec<_>) = layer.iter().cloned().partition(is_store);
        if stores.len() > 1 {
            parts.push(computed);
            parts.extend(stores.into_iter().map(|s| vec![s]));
        } else {
            parts.push(layer);
        }
    }
    let (ctx, depth) = (t.ctx, t.a.depth);
    let filter = |w: &[Stmt]| t.filter(w);
    let point = |w: &[Stmt]| t.point(w);
    let member = |w: &[Stmt], d: usize, c: Option<i64>| t.member(w, d, c);
    per_part(ctx, node, &parts, &filter, |n, part| match (part, mode) {
        ([one], _) if is_store(one) => {
            let mupa = MultiUnionPwAff::read_from_str(ctx, &t.point(part)).map_err(isl_err)?;
            atomic(n.insert_partial_schedule(mupa).map_err(isl_err)?)
        }
        (_, PointLoops::Chunked(c)) => {
            let each = t.by_run(part);
            chunked_points(ctx, n, part, &each, (depth, c), &member, &filter)
        }
        _ => fused_points(ctx, n, part, &point, &filter, mode),
    })
}

/// Scalene tiles' point loops (Fig. 13) at `node`: one loop nest after
/// another, per stage, then per store. The statements of a multi-statement
/// stage share theirs, with a sequence in it (Fig. 15); their stores follow.
/// Stages fused for register reuse share theirs (one run of single-statement
/// stages, none of them stored). Under multi-level tiling the inner tiles
/// run around them.
fn scalene_points(
    t: &Tree,
    node: isl_rs::ScheduleNode,
    stmts: &[Stmt],
) -> Result<isl_rs::ScheduleNode> {
    let mut parts: Vec<Vec<Stmt>> = Vec::new();
    for unit in &t.a.units {
        let members: Vec<Stmt> = unit
            .iter()
            .map(|k| (t.region.stages[*k].name.clone(), *k))
            .collect();
        let stores: Vec<Stmt> = unit
            .iter()
            .filter_map(|k| t.store_of(*k).map(|n| (n, *k)))
            .collect();
        match (parts.last_mut(), &members[..]) {
            (Some(last), [one]) if t.by_run(&[last[0].clone(), one.clone()]).len() == 1 => {
                last.push(one.clone())
            }
            _ => parts.push(members),
        }
        parts.extend(stores.into_iter().map(|s| vec![s]));
    }
    let filter = |w: &[Stmt]| t.filter(w);
    let band_at = |node: isl_rs::ScheduleNode, part: &[Stmt]| {
        let mupa = MultiUnionPwAff::read_from_str(t.ctx, &t.point(part)).map_err(isl_err)?;
        let band = atomic(node.insert_partial_schedule(mupa).map_err(isl_err)?)?;
        in_order(t.ctx, band, part, &filter)
    };
    let node = match &t.a.inner {
        Some(inner) => inner_tile_band(t, node, stmts, inner)?,
        None => node,
    };
    per_part(t.ctx, node, &parts, &filter, band_at)
}

/// Multi-level tiling (`multi_level.rs`): the band of the inner tiles at
/// `node`, in order, each running the stages' point loops below it; returns
/// the node below the band.
fn inner_tile_band(
    t: &Tree,
    node: isl_rs::ScheduleNode,
    stmts: &[Stmt],
    inner: &InnerTiles,
) -> Result<isl_rs::ScheduleNode> {
    let a = t.a;
    let members: Vec<String> = (0..a.depth)
        .filter(|d| inner.sizes[*d] < WHOLE)
        .map(|d| {
            let parts: Vec<String> = stmts
                .iter()
                .map(|(n, k)| {
                    format!(
                        "{n}[{}] -> [(floor(({}*i{d} + {} + {} - {}*T{d})/{}))]",
                        t.all,
                        a.scales[*k][d],
                        a.shifts[*k][d],
                        inner.offsets[*k][d],
                        a.sizes[d],
                        inner.sizes[d]
                    )
                })
                .collect();
            format!("{{ {} }}", parts.join("; "))
        })
        .collect();
    let mupa = MultiUnionPwAff::read_from_str(t.ctx, &format!("[{}]", members.join(", ")))
        .map_err(isl_err)?;
    atomic(node.insert_partial_schedule(mupa).map_err(isl_err)?)?
        .child(0)
        .map_err(isl_err)
}

/// Builds one subtree per statement list of `parts` at `node` with `build`:
/// in place for a single list, else below a sequence with a filter per list.
fn per_part(
    ctx: &Context,
    node: isl_rs::ScheduleNode,
    parts: &[Vec<(String, usize)>],
    filter: &FilterFn,
    build: impl Fn(isl_rs::ScheduleNode, &[(String, usize)]) -> Result<isl_rs::ScheduleNode>,
) -> Result<isl_rs::ScheduleNode> {
    if let [only] = parts {
        return build(node, only);
    }
    let mut list = UnionSetList::alloc(ctx, parts.len() as i32).map_err(isl_err)?;
    for part in parts {
        list = list.add(filter(part)?).map_err(isl_err)?;
    }
    let mut node = node.insert_sequence(list).map_err(isl_err)?;
    for (i, part) in parts.iter().enumerate() {
        node = node
            .child(i as i32)
            .and_then(|n| n.child(0))
            .map_err(isl_err)?;
        node = build(node, part)?;
        node = node.parent().and_then(|n| n.parent()).map_err(isl_err)?;
    }
    Ok(node)
}

/// How the fused point loops of rectangle tiles are generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PointLoops {
    /// The innermost one strip-mined into chunks of this many points, the
    /// statements one after another inside a chunk ([`chunked_points`]).
    Chunked(i64),
    /// The innermost one isolated ([`isolate_full_points`]), the outer ones
    /// atomic (the steps of time blocks).
    Isolated,
    /// The innermost one left to isl's default, the outer ones atomic (chains).
    DefaultInnermost,
    /// All atomic (after isl's code generation ran past its budget).
    Atomic,
}

/// One fused point loop nest of rectangle tiles over `stmts`, inserted at
/// `node` and generated as `mode` says; returns the node where it was
/// inserted.
fn fused_points(
    ctx: &Context,
    node: isl_rs::ScheduleNode,
    stmts: &[(String, usize)],
    point: &PointFn,
    filter: &FilterFn,
    mode: PointLoops,
) -> Result<isl_rs::ScheduleNode> {
    let mupa = MultiUnionPwAff::read_from_str(ctx, &point(stmts)).map_err(isl_err)?;
    let mut band = node.insert_partial_schedule(mupa).map_err(isl_err)?;
    let n = band.band_n_member().map_err(isl_err)?;
    // Only the innermost point loop is isolated: the outer ones stay atomic
    // (a statement's guard per row, not per point). Isolating every level
    // multiplies the pieces isl separates per level (gigabytes on 3-D
    // chains of time steps) for no gain in the inner loop.
    let split = mode == PointLoops::Isolated && n > 1;
    if split {
        band = atomic(band.band_split(n - 1).map_err(isl_err)?)?
            .child(0)
            .map_err(isl_err)?;
    }
    band = match mode {
        PointLoops::Isolated => isolate_full_points(band, stmts, filter)?,
        PointLoops::DefaultInnermost => {
            crate::transform::band::atomic_loops(band, (n as usize).saturating_sub(1))?
        }
        PointLoops::Atomic => atomic(band)?,
        PointLoops::Chunked(_) => {
            return Err(Error::internal(
                "chunked point loops are built by chunked_points",
            ))
        }
    };
    band = in_order(ctx, band, stmts, filter)?;
    if split {
        band = band.parent().map_err(isl_err)?;
    }
    Ok(band)
}

/// Rectangle tiles' fused point loops, strip-mined: the outer point loops
/// and the chunk loop `floor((p - size*T)/c)` of the innermost one are fused
/// over all `stmts`, and inside a chunk each list of `each` (consecutive
/// statements of `stmts`: one, or a run fused for register reuse) runs its
/// own loop over its points of the chunk, one list after another.
///
/// The tile's shape and its fused order at the granularity of a chunk are
/// those of Fig. 14; only the order inside a chunk changes. Fused point by
/// point, a consumer loads (as vectors) values its producer stored an
/// iteration earlier, partly overlapping the producer's last vector store:
/// the load waits for that store to reach the cache, every iteration
/// (heat-1d, 8x4096 tiles, one thread: 1.9 s fused point by point, 0.87 s
/// in chunks of 256). Inside a chunk each loop
/// is a plain stencil loop with no guard, and what a stage computed for the
/// chunk is still in the L1 cache when the next one reads it.
///
/// Legal because the fused order is: a dependence between two statements
/// of the layer has non-negative distances in every point loop (the shifts
/// make it so) and, at distance zero, goes from the earlier statement to the
/// later one (the stages of a group are in program order, and
/// `check_race_free` refuses flow from a later statement to an earlier one
/// of a multi-statement stage). Inside a chunk, the earlier statement's loop
/// runs first. The statements of a run share a loop: no dependence joins
/// them (`intra_fusion.rs`). `node` is where the band goes, with a leaf below it; returns
/// the chunk band.
fn chunked_points(
    ctx: &Context,
    node: isl_rs::ScheduleNode,
    stmts: &[(String, usize)],
    each: &[Vec<(String, usize)>],
    (depth, chunk): (usize, i64),
    member: &MemberFn,
    filter: &FilterFn,
) -> Result<isl_rs::ScheduleNode> {
    let inner = depth
        .checked_sub(1)
        .ok_or_else(|| Error::internal("chunked point loops without a point loop"))?;
    let mut outer: Vec<String> = (0..inner).map(|d| member(stmts, d, None)).collect();
    outer.push(member(stmts, inner, Some(chunk)));
    let mupa =
        MultiUnionPwAff::read_from_str(ctx, &format!("[{}]", outer.join(", "))).map_err(isl_err)?;
    let band = atomic(node.insert_partial_schedule(mupa).map_err(isl_err)?)?;
    let below = band.child(0).map_err(isl_err)?;
    let below = per_part(ctx, below, each, filter, |n, run| {
        let mupa = MultiUnionPwAff::read_from_str(ctx, &format!("[{}]", member(run, inner, None)))
            .map_err(isl_err)?;
        let loop_ = atomic(n.insert_partial_schedule(mupa).map_err(isl_err)?)?;
        in_order(ctx, loop_, run, filter)
    })?;
    below.parent().map_err(isl_err)
}

/// Rectangle tiles' fused point loops: isl's `isolate` option marks the
/// part of a tile where every statement of the band runs (the intersection
/// of their point ranges, per tile); that part is generated with isl's
/// default loops (no guards: every statement runs everywhere in it) and the
/// thin wedges before and after it with atomic loops (one loop per level,
/// each statement guarded). Without isolation the fused loop guards every
/// statement in every iteration, which keeps the compiler from vectorising
/// it. `node` is the point band, with a leaf below it.
fn isolate_full_points(
    node: isl_rs::ScheduleNode,
    stmts: &[(String, usize)],
    filter: &FilterFn,
) -> Result<isl_rs::ScheduleNode> {
    let n = node.band_n_member().map_err(isl_err)? as usize;
    // Statement instance -> [outer tile loops, point loops].
    let prefix = node
        .copy()
        .and_then(|n| n.child(0))
        .and_then(|leaf| leaf.get_prefix_schedule_union_map())
        .map_err(isl_err)?;
    let mut ranges = Vec::new();
    for s in stmts {
        let only = filter(std::slice::from_ref(s))?;
        ranges.push(
            prefix
                .copy()
                .and_then(|p| p.intersect_domain(only))
                .and_then(|p| p.range())
                .and_then(isl_rs::Set::from_union_set)
                .map_err(isl_err)?,
        );
    }
    let Some(core) = crate::transform::band::common_part(ranges)? else {
        return atomic(node);
    };
    let outer = core.dim(DimType::Set).map_err(isl_err)? as u32 - n as u32;
    crate::transform::band::isolate(node, core, outer)
}

/// Point loops are generated as one loop each with guards inside
/// ("atomic"), not separated into full and partial pieces: one code path.
fn atomic(node: isl_rs::ScheduleNode) -> Result<isl_rs::ScheduleNode> {
    let n = node.band_n_member().map_err(isl_err)? as usize;
    crate::transform::band::atomic_loops(node, n)
}

/// Builds the point schedule (`[{ S[T, i] -> [(..)] }, ...]`) of a statement list.
type PointFn<'a> = dyn Fn(&[(String, usize)]) -> String + 'a;

/// Builds one point-band member (`{ S[T, i] -> [(..)]; ... }`) of a
/// statement list: its loop `d`, or the chunk of that loop it lies in.
type MemberFn<'a> = dyn Fn(&[(String, usize)], usize, Option<i64>) -> String + 'a;

/// Builds the filter of one statement list.
type FilterFn<'a> = dyn Fn(&[(String, usize)]) -> Result<UnionSet> + 'a;

fn filter_list(
    ctx: &Context,
    stmts: &[(String, usize)],
    filter: &FilterFn,
) -> Result<UnionSetList> {
    let mut list = UnionSetList::alloc(ctx, stmts.len() as i32).map_err(isl_err)?;
    for s in stmts {
        list = list
            .add(filter(std::slice::from_ref(s))?)
            .map_err(isl_err)?;
    }
    Ok(list)
}

/// The statements `stmts` one after another (a sequence) below the band
/// node `band`, which is returned; nothing to order when there is one.
fn in_order(
    ctx: &Context,
    band: isl_rs::ScheduleNode,
    stmts: &[(String, usize)],
    filter: &FilterFn,
) -> Result<isl_rs::ScheduleNode> {
    if stmts.len() < 2 {
        return Ok(band);
    }
    let list = filter_list(ctx, stmts, filter)?;
    band.child(0)
        .and_then(|n| n.insert_sequence(list))
        .and_then(|n| n.parent())
        .map_err(isl_err)
}

/// `{ token[T] -> name[T, i] : (i -> T) in r }`.
fn expand(r: &Map, token: &str, name: &str) -> Result<UnionMap> {
    let rev = r.copy().and_then(|m| m.reverse()).map_err(isl_err)?;
    let id = rev
        .copy()
        .and_then(|m| m.domain())
        .and_then(|s| s.identity())
        .map_err(isl_err)?;
    let m = id
        .flat_range_product(rev)
        .and_then(|m| m.set_tuple_name(DimType::In, token))
        .and_then(|m| m.set_tuple_name(DimType::Out, name))
        .map_err(isl_err)?;
    UnionMap::from_map(m).map_err(isl_err)
}
