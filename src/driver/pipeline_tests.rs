//! The driver's tests: small programs built in memory, compiled through
//! every pass after the front end.

use super::*;
use crate::model::expr::Expr;
use crate::model::program::*;

fn v(s: &str) -> Expr {
    Expr::Var(s.into())
}

fn range(it: &str, lo: Expr, hi: Expr) -> Vec<Constraint> {
    vec![
        Constraint {
            lhs: v(it),
            op: CmpOp::Ge,
            rhs: lo,
        },
        Constraint {
            lhs: v(it),
            op: CmpOp::Le,
            rhs: hi,
        },
    ]
}

fn access(kind: AccessKind, data: &str, off: i64) -> Access {
    Access {
        kind,
        data: data.into(),
        index: vec![Expr::sum(v("i"), Expr::Int(off))],
        span: Span::default(),
        conditional: false,
    }
}

fn stage(k: usize, domain: Vec<Constraint>, accesses: Vec<Access>, body: &str) -> Stage {
    let mut pieces = Vec::new();
    for (n, part) in body.split('@').enumerate() {
        if n > 0 {
            pieces.push(Piece::Iter(0));
        }
        pieces.push(Piece::Text(part.to_string()));
    }
    Stage {
        name: format!("S{k}"),
        label: format!("nest {}", k + 1),
        span: Span::default(),
        iterators: vec!["i".into()],
        iterator_types: Vec::new(),
        domain,
        accesses,
        body: BodyTemplate { pieces },
        analysable: false,
        observed: None,
        gathered: None,
        time_step: None,
        loop_bounds: None,
        loop_spans: Vec::new(),
        reduction: None,
    }
}

/// The 1-D two-nest chain: B from A (3-point), C from B (1-point).
fn chain(items: Vec<ScheduleItem>) -> Program {
    let text = "REGION\n".to_string();
    let s0 = stage(
        0,
        range("i", Expr::Int(1), Expr::difference(v("N"), Expr::Int(2))),
        vec![
            access(AccessKind::Read, "A", -1),
            access(AccessKind::Read, "A", 0),
            access(AccessKind::Read, "A", 1),
            access(AccessKind::Write, "B", 0),
        ],
        "B[@] = A[@-1] + A[@+1];",
    );
    let s1 = stage(
        1,
        range("i", Expr::Int(1), Expr::difference(v("N"), Expr::Int(3))),
        vec![
            access(AccessKind::Read, "B", 1),
            access(AccessKind::Write, "C", 0),
        ],
        "C[@] = B[@+1];",
    );
    let lp = |k| OrigNode::Loop {
        iter: "i".into(),
        body: vec![OrigNode::Stage(k)],
        down: false,
    };
    Program {
        file: SourceFile::new("t.c", text),
        regions: vec![Region {
            kind: RegionKind::Chain(ChainSchedule { items }),
            span: Span::new(0, 6),
            pragma_span: Span::new(0, 6),
            indent: String::new(),
            stages: vec![s0, s1],
            tree: vec![lp(0), lp(1)],
            data_types: Default::default(),
            scalars: Default::default(),
            function_start: None,
            versions: Default::default(),
            macro_values: Vec::new(),
            macro_params: std::collections::BTreeMap::new(),
            final_values: None,
            storage: Default::default(),
            declarations: Default::default(),
            pragma_lines: Vec::new(),
            temporaries: Vec::new(),
            whole_depth: None,
            wraps: Default::default(),
            thread_state: Vec::new(),
            shared_scalars: Default::default(),
        }],
        wide_vars: Default::default(),
        reserved: Default::default(),
        directives: Vec::new(),
        warnings: Vec::new(),
        cxx: Default::default(),
    }
}

/// The diagnostics of compiling `p`, which must fail with a user error.
fn user_error(o: &Options, p: &Program) -> Vec<Diagnostic> {
    match compile_program(o, p) {
        Err(Error::User(d)) => d,
        Err(e) => panic!("not a user error: {}", e.first_message()),
        Ok(out) => panic!("compiled:\n{}", out.text),
    }
}

/// The options of a plain run (no transformation asked for).
pub(super) fn opts() -> Options {
    Options {
        input: "t.c".into(),
        output: "o.c".into(),
        target: Target::C,
        block_sizes: None,
        gpu_tiling: None,
        reg_fraction: None,
        gpu: crate::transform::gpu_occupancy::DEFAULT_GPU,
        openmp: true,
        tile: false,
        tile_sizes: None,
        clang_args: vec![],
        temporaries: vec![],
        infer_temporaries: true,
        assume: None,
        dump_schedule: false,
        overlap: None,
        overlap_dims: None,
        overlap_tolerance: None,
        grouping: GroupingStrategy::Greedy,
        inline: true,
        intra_fusion: true,
        multi_level: true,
        machine: crate::transform::cost::Machine::detect(),
        weights: crate::transform::cost::CALIBRATED,
        estimates: Default::default(),
        explain: false,
        missed: false,
        point_chunk: DEFAULT_POINT_CHUNK,
        stack_limit: DEFAULT_STACK_LIMIT,
        report: false,
        emit_mdg: None,
        fatal_warnings: false,
        max_isl_operations: DEFAULT_MAX_ISL_OPERATIONS,
        max_dependence_operations: DEFAULT_MAX_ISL_OPERATIONS,
        summary: String::new(),
        dep_file: None,
        templates: None,
    }
}

#[test]
fn original_order_is_two_parallel_loops() {
    let out = compile_program(&opts(), &chain(vec![]))
        .expect("compile")
        .text;
    assert_eq!(out.matches("#pragma omp parallel for").count(), 2, "{out}");
    assert!(out.contains("B[c0] = A[c0-1] + A[c0+1];"), "{out}");
}

#[test]
fn computed_fusion_shifts_consumer_by_one() {
    let items = vec![ScheduleItem::Fuse {
        shifts: None,
        span: Span::default(),
    }];
    let out = compile_program(&opts(), &chain(items))
        .expect("compile")
        .text;
    eprintln!("{out}");
    // C[i] reads B[i+1]: the consumer runs one iteration later.
    assert!(
        out.contains("C[c0 - 1] = B[c0 - 1+1];") || out.contains("C[(c0 - 1)] = B[(c0 - 1)+1];"),
        "{out}"
    );
}

#[test]
fn illegal_user_shifts_are_rejected() {
    let items = vec![ScheduleItem::Fuse {
        shifts: Some(vec![vec![0], vec![0]]),
        span: Span::default(),
    }];
    let d = user_error(&opts(), &chain(items));
    assert!(d[0].message.contains("violates"), "{}", d[0].message);
}

#[test]
fn code_generation_past_its_budget_is_a_diagnostic() {
    let mut o = opts();
    o.max_isl_operations = 1;
    let d = user_error(&o, &chain(vec![]));
    assert!(
        d[0].message
            .contains("ran past its budget of 2 operations on this region;"),
        "{}",
        d[0].message
    );
    // The default budget leaves room, and says nothing.
    let out = compile_program(&opts(), &chain(vec![])).expect("compile");
    assert!(out.warnings.is_empty());
}

/// One nest that reads what it computed (B[i] from B[i-1]).
fn recurrence() -> Program {
    let mut p = chain(vec![]);
    let r = &mut p.regions[0];
    r.stages.truncate(1);
    r.stages[0].accesses.push(access(AccessKind::Read, "B", -1));
    r.tree.truncate(1);
    p
}

/// Overlapped tiling of `shape` with tiles of 8.
fn overlapped(shape: Shape) -> Options {
    Options {
        overlap: Some(shape),
        tile_sizes: Some(vec![8]),
        ..opts()
    }
}

/// Asserts that `text` contains `part`.
fn assert_contains(text: &str, part: &str) {
    assert!(text.contains(part), "no {part:?} in:\n{text}");
}

#[test]
fn overlapped_tiling_of_a_recurrence_falls_back_with_a_warning() {
    let mut o = overlapped(Shape::Scalene);
    let out = compile_program(&o, &recurrence()).expect("compile");
    let [w, serial] = &out.warnings[..] else {
        panic!("expected one warning and one note: {:?}", out.warnings);
    };
    assert_eq!(w.severity, Severity::Warning);
    assert_contains(&w.message, "(a recurrence)");
    assert_eq!(serial.severity, Severity::Note);
    assert_contains(
        &serial.message,
        "stays serial: it carries a read-after-write dependence on 'B'",
    );
    assert!(w
        .message
        .ends_with("compiled without overlapped tiling, as without --scalene"));
    assert_contains(&out.text, "overlapped tiling does not apply");
    assert!(!out.text.contains("c0 += 8"), "{}", out.text);
    // --fatal-warnings turns the warning into an error.
    o.fatal_warnings = true;
    let d = user_error(&o, &recurrence());
    assert_eq!(d[0].severity, Severity::Error);
    assert_contains(&d[0].message, "(a recurrence)");
    assert!(d[0].message.ends_with(" [--fatal-warnings]"));
    // Nothing is compiled: the refusal does not say the region is.
    assert!(!d[0].message.contains("compiled"), "{}", d[0].message);
    assert_contains(
        &d[0].message,
        "overlapped tiling does not apply to the region (--scalene)",
    );
}

#[test]
fn an_option_that_leaves_no_nest_to_tile_is_an_error_not_a_fallback() {
    let o = Options {
        overlap_dims: Some(vec![]),
        ..overlapped(Shape::Rectangle)
    };
    let d = user_error(&o, &recurrence());
    assert_contains(&d[0].message, "--overlap-dims leaves no loop");
}

#[test]
fn cli_tiling_tiles_and_parallelises_tile_loops() {
    let mut o = opts();
    o.tile = true;
    o.tile_sizes = Some(vec![8]);
    let out = compile_program(&o, &chain(vec![])).expect("compile").text;
    eprintln!("{out}");
    assert!(out.contains("c0 += 8"), "{out}");
}
