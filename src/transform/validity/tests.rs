//! Tests of the validity check.

use super::*;
use crate::model::isl_ext::new_context;
use crate::transform::band::insert_mark;

/// In-place Gauss–Seidel in 1-D, `for t for i: A[i] = A[i-1] + A[i+1]`.
const DOMAIN: &str = "[N, T] -> { S0[t, i] : 0 <= t < T and 1 <= i < N - 1 }";
const FLOW: &str =
    "[N, T] -> { S0[t, i] -> S0[t, i + 1] : 0 <= t < T and 1 <= i < N - 2; S0[t, i] -> S0[t + 1, i - 1] : 0 <= t < T - 1 and 2 <= i < N - 1 }";
const ANTI: &str = "[N, T] -> { S0[t, i] -> S0[t + 1, i - 1] : 0 <= t < T - 1 and 2 <= i < N - 1 }";

fn deps(ctx: &isl_rs::Context) -> Dependences {
    let read = |s: &str| UnionMap::read_from_str(ctx, s).unwrap();
    Dependences {
        flow: read(FLOW),
        anti: read(ANTI),
        output: read("{ }"),
        exact: true,
        live_in: None,
    }
}

fn schedule(ctx: &isl_rs::Context, domain: &str, band: &str) -> Schedule {
    let dom = UnionSet::read_from_str(ctx, domain).unwrap();
    let node = Schedule::from_domain(dom)
        .unwrap()
        .get_root()
        .unwrap()
        .child(0)
        .unwrap();
    let band = isl_rs::MultiUnionPwAff::read_from_str(ctx, band).unwrap();
    node.insert_partial_schedule(band)
        .unwrap()
        .get_schedule()
        .unwrap()
}

/// The check of `sched` against the whole of [`DOMAIN`].
fn outcome(ctx: &isl_rs::Context, sched: &Schedule) -> Result<Outcome> {
    let context = "[N, T] -> { : N >= 3 and T >= 1 }";
    check_against(ctx, sched, DOMAIN, context, &deps(ctx))
}

/// The check of `sched` against the instances `domain` under `context`.
fn check_against(
    ctx: &isl_rs::Context,
    sched: &Schedule,
    domain: &str,
    context: &str,
    deps: &Dependences,
) -> Result<Outcome> {
    let dom = UnionSet::read_from_str(ctx, domain).unwrap();
    let context = Set::read_from_str(ctx, context).unwrap();
    let label = |s: &str| format!("stage {s}");
    check(
        &Subject {
            schedule: sched,
            domain: &dom,
            context: &context,
            deps,
            label: &label,
            reductions: &[],
        },
        0,
    )
}

fn message(r: Result<Outcome>) -> String {
    match r {
        Err(Error::Internal(m)) => m,
        Err(_) => "another error".to_string(),
        Ok(o) => format!("{o:?}"),
    }
}

const ORIGINAL: &str = "[{ S0[t, i] -> [(t)] }, { S0[t, i] -> [(i)] }]";

#[test]
fn the_original_order_passes() {
    let ctx = new_context();
    let s = schedule(&ctx, DOMAIN, ORIGINAL);
    assert_eq!(outcome(&ctx, &s).ok(), Some(Outcome::Valid));
}

#[test]
fn a_skewed_schedule_with_a_parallel_inner_loop_passes() {
    let ctx = new_context();
    // Skewed (t, t + i), then the inner loop over a wavefront is parallel.
    let s = schedule(
        &ctx,
        DOMAIN,
        "[{ S0[t, i] -> [(2*t + i)] }, { S0[t, i] -> [(t)] }]",
    );
    let band = s.get_root().unwrap().child(0).unwrap();
    let band = band.band_split(1).unwrap().child(0).unwrap();
    let s = insert_mark(band, &Mark::Parallel { depths: vec![1] })
        .unwrap()
        .get_schedule()
        .unwrap();
    assert_eq!(outcome(&ctx, &s).ok(), Some(Outcome::Valid));
}

#[test]
fn a_wrong_parallel_mark_fails() {
    let ctx = new_context();
    for (depth, node) in [(0, 0), (1, 1)] {
        let s = schedule(&ctx, DOMAIN, ORIGINAL);
        let mut band = s.get_root().unwrap().child(0).unwrap();
        if node == 1 {
            band = band.band_split(1).unwrap().child(0).unwrap();
        }
        let s = insert_mark(
            band,
            &Mark::Parallel {
                depths: vec![depth],
            },
        )
        .unwrap()
        .get_schedule()
        .unwrap();
        let m = message(outcome(&ctx, &s));
        assert!(
            m.contains(&format!("the loop at depth {depth} is marked parallel but carries a flow dependence from stage S0 to stage S0")),
            "{m}"
        );
    }
}

/// A band of `band`'s members with a parallel mark naming `depths`.
fn marked(ctx: &isl_rs::Context, band: &str, depths: Vec<usize>) -> Schedule {
    let s = schedule(ctx, DOMAIN, band);
    let band = s.get_root().unwrap().child(0).unwrap();
    insert_mark(band, &Mark::Parallel { depths })
        .unwrap()
        .get_schedule()
        .unwrap()
}

#[test]
fn a_mark_of_several_loops_is_checked_loop_by_loop() {
    let ctx = new_context();
    // A loop of one iteration, then t, then i: only the first is parallel.
    let band = "[{ S0[t, i] -> [(0)] }, { S0[t, i] -> [(t)] }, { S0[t, i] -> [(i)] }]";
    assert_eq!(
        outcome(&ctx, &marked(&ctx, band, vec![0])).ok(),
        Some(Outcome::Valid)
    );
    for depths in [vec![0, 1], vec![0, 1, 2], vec![1, 2]] {
        let m = message(outcome(&ctx, &marked(&ctx, band, depths.clone())));
        assert!(
            m.contains("the loop at depth 1 is marked parallel but carries a flow dependence"),
            "{depths:?}: {m}"
        );
    }
    let m = message(outcome(&ctx, &marked(&ctx, band, vec![0, 2])));
    assert!(
        m.contains("the loop at depth 2 is marked parallel but carries a flow dependence"),
        "{m}"
    );
    // Skewed: within a wavefront (0, 2t + i) no dependence joins two t.
    let skewed = "[{ S0[t, i] -> [(0)] }, { S0[t, i] -> [(2*t + i)] }, { S0[t, i] -> [(t)] }]";
    assert_eq!(
        outcome(&ctx, &marked(&ctx, skewed, vec![0, 2])).ok(),
        Some(Outcome::Valid)
    );
}

#[test]
fn simd_marks_are_checked_like_parallel_ones() {
    let ctx = new_context();
    let all = deps(&ctx).all().unwrap();
    let dom = UnionSet::read_from_str(&ctx, DOMAIN).unwrap();
    let simd = |s| crate::transform::simd::mark_simd_loops(s, &all, &dom).unwrap();
    // In the original order the space loop carries the in-place
    // update's dependence: the simd pass leaves it alone.
    let s = simd(schedule(&ctx, DOMAIN, ORIGINAL));
    let top = s.get_root().unwrap().child(0).unwrap();
    assert!(matches!(top.get_type().unwrap(), ScheduleNodeType::Band));
    // Skewed, the inner (time) loop carries none: marked, and accepted.
    let skewed = "[{ S0[t, i] -> [(2*t + i)] }, { S0[t, i] -> [(t)] }]";
    let s = simd(schedule(&ctx, DOMAIN, skewed));
    let mark = s.get_root().unwrap().child(0).unwrap();
    assert_eq!(mark_of(&mark).unwrap(), Some(Mark::Simd { depth: 1 }));
    assert_eq!(outcome(&ctx, &s).ok(), Some(Outcome::Valid));
    // The same mark on the original order fails.
    let s = schedule(&ctx, DOMAIN, ORIGINAL);
    let band = s.get_root().unwrap().child(0).unwrap();
    let s = insert_mark(band, &Mark::Simd { depth: 1 })
        .unwrap()
        .get_schedule()
        .unwrap();
    let m = message(outcome(&ctx, &s));
    assert!(
        m.contains("the loop at depth 1 is marked parallel but carries a flow dependence"),
        "{m}"
    );
}

#[test]
fn a_wrong_order_fails() {
    let ctx = new_context();
    // The space loop runs backwards.
    let s = schedule(
        &ctx,
        DOMAIN,
        "[{ S0[t, i] -> [(t)] }, { S0[t, i] -> [(-i)] }]",
    );
    let m = message(outcome(&ctx, &s));
    assert!(
        m.contains("order: a flow dependence from stage S0 to stage S0"),
        "{m}"
    );
    // Tiled without skewing (not permutable): the tiles break the order.
    let s = schedule(
        &ctx,
        DOMAIN,
        "[{ S0[t, i] -> [(i - i mod 4)] }, { S0[t, i] -> [(t)] }, { S0[t, i] -> [(i)] }]",
    );
    let m = message(outcome(&ctx, &s));
    assert!(m.contains("order: a "), "{m}");
}

/// `S1` reads what `S0` writes: `S0[i] -> S1[i]`.
fn two_stages(ctx: &isl_rs::Context, sched: &Schedule) -> Result<Outcome> {
    let read = |s: &str| UnionMap::read_from_str(ctx, s).unwrap();
    let deps = Dependences {
        flow: read("[N] -> { S0[i] -> S1[i] : 0 <= i < N }"),
        anti: read("{ }"),
        output: read("{ }"),
        exact: true,
        live_in: None,
    };
    let domain = "[N] -> { S0[i] : 0 <= i < N; S1[i] : 0 <= i < N }";
    check_against(ctx, sched, domain, "[N] -> { : N >= 2 }", &deps)
}

#[test]
fn dependences_between_outermost_positions_are_checked_by_position() {
    let ctx = new_context();
    let domain = "[N] -> { S0[i] : 0 <= i < N; S1[i] : 0 <= i < N }";
    // Each stage at its own outermost position, in order, then reversed.
    let ok = schedule(
        &ctx,
        domain,
        "[{ S0[i] -> [(0)]; S1[i] -> [(1)] }, { S0[i] -> [(i)]; S1[i] -> [(i)] }]",
    );
    assert_eq!(two_stages(&ctx, &ok).ok(), Some(Outcome::Valid));
    let bad = schedule(
        &ctx,
        domain,
        "[{ S0[i] -> [(1)]; S1[i] -> [(0)] }, { S0[i] -> [(i)]; S1[i] -> [(i)] }]",
    );
    let m = message(two_stages(&ctx, &bad));
    assert!(
        m.contains("order: a flow dependence from stage S0 to stage S1"),
        "{m}"
    );
    // The loop over the positions marked parallel carries the pairs
    // between them.
    let band = ok.get_root().unwrap().child(0).unwrap();
    let marked = insert_mark(band, &Mark::Parallel { depths: vec![0] })
        .unwrap()
        .get_schedule()
        .unwrap();
    let m = message(two_stages(&ctx, &marked));
    assert!(
        m.contains("the loop at depth 0 is marked parallel but carries a flow dependence from stage S0 to stage S1"),
        "{m}"
    );
}

#[test]
fn missing_instances_fail() {
    let ctx = new_context();
    let small = "[N, T] -> { S0[t, i] : 0 <= t < T and 1 <= i < N - 2 }";
    let s = schedule(&ctx, small, ORIGINAL);
    let m = message(outcome(&ctx, &s));
    assert!(
        m.contains("coverage: some instances of stage S0 are never executed"),
        "{m}"
    );
}

#[test]
fn a_tiny_budget_does_not_complete() {
    let ctx = new_context();
    let s = schedule(&ctx, DOMAIN, ORIGINAL);
    let dom = UnionSet::read_from_str(&ctx, DOMAIN).unwrap();
    let context = Set::read_from_str(&ctx, "[N, T] -> { : N >= 3 }").unwrap();
    let deps = deps(&ctx);
    let label = |s: &str| s.to_string();
    let subject = Subject {
        schedule: &s,
        domain: &dom,
        context: &context,
        deps: &deps,
        label: &label,
        reductions: &[],
    };
    let r = check(&subject, 1);
    assert!(matches!(r, Ok(Outcome::NotCompleted)), "{}", message(r));
    assert_eq!(check(&subject, 0).ok(), Some(Outcome::Valid));
}

/// The executed instances found by walking the tree (through expansion
/// nodes, restricted by the filters of a sequence below one) are isl's
/// subtree expansion of the domain.
#[test]
fn executed_instances_are_isl_subtree_expansion() {
    let ctx = new_context();
    let yaml = r#"domain: "[N] -> { T[t] : 0 <= t <= N }"
child:
  schedule: "[N] -> [{ T[t] -> [(t)] }]"
  child:
    expansion: "[N] -> { T[t] -> S0[t, i] : 4t <= i <= 4t + 5; T[t] -> S1[t, i] : 4t <= i <= 4t + 3 }"
    contraction: "[N] -> { S0[t, i] -> T[(t)]; S1[t, i] -> T[(t)] }"
    child:
      sequence:
      - filter: "[N] -> { S0[t, i] : i <= N }"
      - filter: "[N] -> { S1[t, i] : i >= 2 }"
"#;
    let schedule = Schedule::read_from_str(&ctx, yaml).unwrap();
    let top = schedule.get_root().unwrap().child(0).unwrap();
    let dom = schedule.get_domain().unwrap();
    let mine = expanded(&top, dom.copy().unwrap()).unwrap();
    let isl = dom
        .copy()
        .unwrap()
        .apply(top.get_subtree_expansion().unwrap())
        .unwrap();
    assert!(
        mine.is_equal(&isl).unwrap(),
        "{} vs {}",
        mine.to_str().unwrap(),
        isl.to_str().unwrap()
    );
    // The filters below the expansion restrict what is executed.
    let s0_beyond = UnionSet::read_from_str(&ctx, "[N] -> { S0[t, i] : i > N }").unwrap();
    assert!(mine.intersect(s0_beyond).unwrap().is_empty().unwrap());
    // Where no expansion is crossed, the walk that stops at one says so.
    assert!(reaching_leaves(&top, dom, false, false).unwrap().is_none());
}

/// `text` with `by` more spaces at the start of each line.
fn indent(text: &str, by: usize) -> String {
    text.lines()
        .map(|l| format!("{}{l}\n", " ".repeat(by)))
        .collect()
}

/// `child` below a mark named `id` (a YAML tree at the left margin).
fn marked_yaml(id: &str, child: &str) -> String {
    format!("mark: \"{id}\"\nchild:\n{}", indent(child, 2))
}

/// Overlapped tiles of a 3-point stencil `S1[i] = f(S0[i-1], S0[i], S0[i+1])`:
/// tiles `T[t]` of 4 instances of `S1`, each computing the 6 instances of
/// `S0` it reads, after a stage `U` that `S0` reads; `body` is the subtree
/// below the expansion node, `tile_mark` a mark above the tile loop.
fn tiled(ctx: &isl_rs::Context, tile_mark: Option<&str>, body: &str) -> Result<Outcome> {
    tiled_with_halo(ctx, tile_mark, 1, body)
}

/// [`tiled`] where a tile computes `S0` `halo` instances beyond its own.
fn tiled_with_halo(
    ctx: &isl_rs::Context,
    tile_mark: Option<&str>,
    halo: i64,
    body: &str,
) -> Result<Outcome> {
    let expansion = format!(
        r#"expansion: "[N] -> {{ T[t] -> S0[t, i] : 4t - {halo} <= i <= 4t + 3 + {halo} and 0 <= i < N; T[t] -> S1[t, i] : 4t <= i <= 4t + 3 and i < N }}"
contraction: "[N] -> {{ S0[t, i] -> T[(t)]; S1[t, i] -> T[(t)] }}"
child:
{}"#,
        indent(body, 2)
    );
    // (The tile-local storage's mark: right above the expansion, a band
    // would make the group's loops classically tiled.)
    let group = format!(
        "schedule: \"[{{ T[t] -> [(t)] }}]\"\nchild:\n{}",
        indent(&marked_yaml("tile_storage_0", &expansion), 2)
    );
    let group = match tile_mark {
        Some(id) => marked_yaml(id, &group),
        None => group,
    };
    let yaml = format!(
        r#"domain: "[N] -> {{ T[t] : t >= 0 and 4t <= N - 1; U[i] : 0 <= i < N }}"
child:
  sequence:
  - filter: "{{ U[i] }}"
    child:
      schedule: "[{{ U[i] -> [(i)] }}]"
  - filter: "{{ T[t] }}"
    child:
{}"#,
        indent(&group, 6)
    );
    let sched = Schedule::read_from_str(ctx, &yaml).unwrap();
    let read = |s: &str| UnionMap::read_from_str(ctx, s).unwrap();
    let deps = Dependences {
        flow: read("[N] -> { S0[i] -> S1[j] : 0 <= i < N and 0 <= j < N and j - 1 <= i <= j + 1; U[i] -> S0[i] : 0 <= i < N }"),
        anti: read("{ }"),
        output: read("{ }"),
        exact: true,
        live_in: None,
    };
    check_against(
        ctx,
        &sched,
        "[N] -> { U[i] : 0 <= i < N; S0[i] : 0 <= i < N; S1[i] : 0 <= i < N }",
        "[N] -> { : N >= 1 }",
        &deps,
    )
}

/// Each stage of the body in its own loop, in `order`.
fn body_in_order(order: [&str; 2]) -> String {
    let mut out = "sequence:\n".to_string();
    for s in order {
        out.push_str(&format!(
            "- filter: \"{{ {s}[t, i] }}\"\n  child:\n    schedule: \"[{{ {s}[t, i] -> [(i)] }}]\"\n"
        ));
    }
    out
}

/// The two stages fused in one loop (`S1` at `i + shift`), `S0` first at
/// each point.
fn fused_body(shift: i64) -> String {
    format!(
        "schedule: \"[{{ S0[t, i] -> [(i)]; S1[t, i] -> [(i + {shift})] }}]\"\nchild:\n  sequence:\n  - filter: \"{{ S0[t, i] }}\"\n  - filter: \"{{ S1[t, i] }}\"\n"
    )
}

/// Pairs one tile computes are ordered by the tile's body: its stages in
/// sequence, producer first, pass; consumer first, fail.
#[test]
fn a_tile_body_is_checked_in_its_own_order() {
    let ctx = new_context();
    assert_eq!(
        message(tiled(&ctx, None, &body_in_order(["S0", "S1"]))),
        "Valid"
    );
    let m = message(tiled(&ctx, None, &body_in_order(["S1", "S0"])));
    assert!(
        m.contains("order: a flow dependence from stage S0 to stage S1"),
        "{m}"
    );
}

/// In a fused body the shared loop decides first: `S1[i]` reads `S0[i+1]`,
/// which the loop runs later unless `S1` is delayed by one iteration.
#[test]
fn a_fused_tile_body_is_checked_in_its_shared_loop() {
    let ctx = new_context();
    let m = message(tiled(&ctx, None, &fused_body(0)));
    assert!(
        m.contains("order: a flow dependence from stage S0 to stage S1"),
        "{m}"
    );
    assert_eq!(message(tiled(&ctx, None, &fused_body(1))), "Valid");
}

/// A tile that does not compute all it reads of its group fails.
#[test]
fn a_tile_without_its_halo_fails() {
    let ctx = new_context();
    let m = message(tiled_with_halo(&ctx, None, 0, &fused_body(1)));
    assert!(
        m.contains("recomputation: a tile computing stage S1 does not compute the values of stage S0 it reads"),
        "{m}"
    );
}

/// The tile loop of overlapped tiles carries no dependence (each tile
/// recomputes what it reads); the fused loop of a tile's body does.
#[test]
fn parallel_marks_on_overlapped_tiles_are_checked() {
    let ctx = new_context();
    let r = tiled(&ctx, Some("parallel_0"), &fused_body(1));
    assert_eq!(message(r), "Valid");
    let r = tiled(&ctx, None, &marked_yaml("parallel_1", &fused_body(1)));
    let m = message(r);
    assert!(
        m.contains("the loop at depth 1 is marked parallel but carries a flow dependence"),
        "{m}"
    );
}

/// The dimensions above an expansion node are those of isl's schedule map
/// (a sequence's position, the band's loops), and an expansion that keeps
/// the tile coordinates is recognised as such.
#[test]
fn dimensions_above_a_tile_body_are_isl_schedule_maps() {
    let ctx = new_context();
    let yaml = r#"domain: "[N] -> { T[t] : 0 <= t <= N; U[i] : 0 <= i <= N }"
child:
  sequence:
  - filter: "{ U[i] }"
    child:
      schedule: "[{ U[i] -> [(i)] }]"
  - filter: "{ T[t] }"
    child:
      schedule: "[{ T[t] -> [(t)] }, { T[t] -> [(2t)] }]"
      child:
        expansion: "[N] -> { T[t] -> S0[t, i] : 4t <= i <= 4t + 3 }"
        contraction: "[N] -> { S0[t, i] -> T[(t)] }"
        child:
          schedule: "[{ S0[t, i] -> [(i)] }]"
"#;
    let schedule = Schedule::read_from_str(&ctx, yaml).unwrap();
    let mut at = schedule.get_root().unwrap();
    while !matches!(at.get_type().unwrap(), ScheduleNodeType::Expansion) {
        at = match at.get_type().unwrap() {
            ScheduleNodeType::Sequence => at.child(1).unwrap(),
            _ => at.child(0).unwrap(),
        };
    }
    let whole = schedule.get_map().unwrap();
    let s0 = map_list(&whole)
        .unwrap()
        .into_iter()
        .find(|m| m.get_tuple_name(DimType::In).unwrap() == "S0")
        .unwrap();
    let body = at
        .copy()
        .unwrap()
        .child(0)
        .unwrap()
        .get_subtree_schedule_union_map()
        .unwrap();
    let below = map_list(&body).unwrap()[0].range_tuple_dim().unwrap();
    assert_eq!(
        dims_above(&at).unwrap(),
        Some((s0.range_tuple_dim().unwrap() - below) as usize)
    );
    let e = at.expansion_get_expansion().unwrap();
    assert!(keeps_tiles(&e).unwrap());
    let shifted = UnionMap::read_from_str(&ctx, "{ T[t] -> S0[t + 1, i] }").unwrap();
    assert!(!keeps_tiles(&shifted).unwrap());
    let two = UnionMap::read_from_str(&ctx, "{ T[t] -> S0[t, i]; V[t] -> S1[t, i] }").unwrap();
    assert!(!keeps_tiles(&two).unwrap());
}

/// The schedule map of the original statements below a filter that drops
/// the loads is isl's of the whole tree restricted to them.
#[test]
fn the_original_statements_keep_their_schedule_map() {
    let ctx = new_context();
    let yaml = r#"domain: "[N] -> { T[t] : 0 <= t <= N }"
child:
  schedule: "[{ T[t] -> [(t)] }]"
  child:
    expansion: "[N] -> { T[t] -> L0[t, i] : 4t - 1 <= i <= 4t + 4; T[t] -> S0[t, i] : 4t <= i <= 4t + 3 }"
    contraction: "[N] -> { L0[t, i] -> T[(t)]; S0[t, i] -> T[(t)] }"
    child:
      sequence:
      - filter: "{ L0[t, i] }"
        child:
          schedule: "[{ L0[t, i] -> [(i)] }]"
      - filter: "{ S0[t, i] }"
        child:
          schedule: "[{ S0[t, i] -> [(2i)] }]"
"#;
    let schedule = Schedule::read_from_str(&ctx, yaml).unwrap();
    let original: BTreeMap<String, usize> = [("S0".to_string(), 1)].into();
    let mine = originals_only(&schedule, &original)
        .unwrap()
        .get_map()
        .unwrap();
    let s0 = UnionSet::read_from_str(&ctx, "{ S0[t, i] }").unwrap();
    let isl = schedule
        .get_map()
        .unwrap()
        .intersect_domain(s0.copy().unwrap())
        .unwrap();
    assert!(
        mine.copy().unwrap().is_equal(&isl).unwrap(),
        "{} vs {}",
        mine.to_str().unwrap(),
        isl.to_str().unwrap()
    );
    assert!(mine.subtract_domain(s0).unwrap().is_empty().unwrap());
}
