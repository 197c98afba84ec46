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
