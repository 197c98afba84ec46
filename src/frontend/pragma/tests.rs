//! Tests of the pragma parser.

use super::*;

fn v(s: &str) -> Expr {
    Expr::Var(s.into())
}

/// Scans `text` and expects exactly one pragma and no error.
fn one(text: &str) -> PragmaLine {
    let (ps, errs) = scan(text);
    assert!(errs.is_empty(), "unexpected errors: {errs:?}");
    assert_eq!(ps.len(), 1, "{ps:?}");
    ps.into_iter().next().unwrap()
}

/// Scans `text` and expects one error: returns its message and the text under its span.
fn error(text: &str) -> (String, String) {
    let (ps, errs) = scan(text);
    assert!(ps
        .iter()
        .all(|p| !matches!(p.kind, PragmaKind::For(_) | PragmaKind::Loopchain(..))));
    assert_eq!(errs.len(), 1, "{errs:?}");
    let d = &errs[0];
    let crate::diag::Location::Span(sp) = d.location else {
        panic!("no span")
    };
    (d.message.clone(), text[sp.start..sp.end].to_string())
}

const SPEC: &str = "\
#pragma omplc loopchain schedule( fuse(), tile( (16), parallel, serial ) )
{
  #pragma omplc for domain(1:N-2) with (i) read A { (i-1), (i), (i+1) }, write B { (i) }
  for (int i = 1; i <= N-2; i += 1) { B[i] = (A[i-1] + A[i] + A[i+1]) * e; }

  #pragma omplc for domain(0:N-1) with (i) read B { (i) }, write C { (i) }
  for (int i = 0; i <= N-1; i += 1) { foo(C, B, i); }
}
";

#[test]
fn spec_example() {
    let (ps, errs) = scan(SPEC);
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(ps.len(), 3);
    let PragmaKind::Loopchain(s, _) = &ps[0].kind else {
        panic!()
    };
    assert_eq!(ps[0].span.start, 0);
    assert_eq!(ps[0].line_end, SPEC.find('\n').unwrap());
    assert_eq!(s.items.len(), 2);
    assert!(matches!(
        s.items[0],
        ScheduleItem::Fuse { shifts: None, .. }
    ));
    let ScheduleItem::Tile(t) = &s.items[1] else {
        panic!()
    };
    assert_eq!(t.sizes, vec![16]);
    assert!(matches!(t.outer, LoopTreatment::Parallel));
    assert!(matches!(t.inner, LoopTreatment::Serial));
    assert_eq!(
        &SPEC[t.span.start..t.span.end],
        "tile( (16), parallel, serial )"
    );

    let PragmaKind::For(n) = &ps[1].kind else {
        panic!()
    };
    assert_eq!(ps[1].indent, "  ");
    assert_eq!(&SPEC[ps[1].span.start..ps[1].span.start + 7], "#pragma");
    assert_eq!(
        n.iterators.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
        ["i"]
    );
    assert_eq!(n.ranges[0].lo, Expr::Int(1));
    assert_eq!(n.ranges[0].hi, Expr::difference(v("N"), Expr::Int(2)));
    assert_eq!(n.accesses.len(), 2);
    assert_eq!(n.accesses[0].kind, AccessKind::Read);
    assert_eq!(n.accesses[0].data, "A");
    let t: Vec<&Expr> = n.accesses[0].tuples.iter().map(|t| &t.exprs[0]).collect();
    assert_eq!(
        t,
        [
            &Expr::difference(v("i"), Expr::Int(1)),
            &v("i"),
            &Expr::sum(v("i"), Expr::Int(1))
        ]
    );
    let sp = n.accesses[0].tuples[2].span;
    assert_eq!(&SPEC[sp.start..sp.end], "(i+1)");
    assert_eq!(n.accesses[1].kind, AccessKind::Write);
    assert_eq!(&SPEC[n.with_span.start..n.with_span.end], "with (i)");
    assert_eq!(
        &SPEC[n.domain_span.start..n.domain_span.end],
        "domain(1:N-2)"
    );
    assert!(matches!(ps[2].kind, PragmaKind::For(_)));
}

#[test]
fn continuations_and_comments() {
    let text = "  #  pragma omplc for /* the domain */ domain(0:N-1, \\\n   0:M-1) /* spans\n two lines */ with (i, j) \\\n  read A { (i, j-1) } // the reads\\\n  write B { (i, j) }\nint x;\n";
    let p = one(text);
    let PragmaKind::For(n) = &p.kind else {
        panic!()
    };
    assert_eq!(p.indent, "  ");
    assert_eq!(p.span.start, 2);
    assert_eq!(n.ranges.len(), 2);
    assert_eq!(n.ranges[1].hi, Expr::difference(v("M"), Expr::Int(1)));
    // As in C, a line comment ending in a backslash swallows the next line.
    assert_eq!(n.accesses.len(), 1);
    assert_eq!(n.accesses[0].data, "A");
    assert_eq!(&text[p.line_end..p.line_end + 7], "\nint x;");
}

#[test]
fn skips_comments_and_strings() {
    let text = "/*\n#pragma omplc for oops\n*/\nchar *s = \"\\\n#pragma scop\";\n// #pragma scop\nx = 1; #pragma scop\n#pragma omp parallel\n#pragma scop\n";
    let (ps, errs) = scan(text);
    assert!(errs.is_empty());
    assert_eq!(ps.len(), 1);
    assert!(matches!(ps[0].kind, PragmaKind::Scop(_)));
    assert_eq!(ps[0].span.start, text.rfind("#pragma scop").unwrap());
}

#[test]
fn crlf_lines_end_before_the_carriage_return() {
    let text = "#pragma scop\r\nx = 1;\r\n#pragma endscop\r\n";
    let (ps, errs) = scan(text);
    assert!(errs.is_empty());
    assert_eq!(ps.len(), 2);
    assert_eq!(ps[0].line_end, text.find('\r').unwrap());
    assert!(matches!(ps[1].kind, PragmaKind::Endscop));
    assert_eq!(&text[ps[1].line_start..ps[1].line_end], "#pragma endscop");
}

#[test]
fn nested_tile_and_fuse_shifts() {
    let text = "#pragma omplc loopchain schedule(fuse((0,0),(0,-1),(1, 1)), tile((32,64), wavefront, tile((4,4), parallel, serial)), parallel)\n";
    let p = one(text);
    let PragmaKind::Loopchain(s, _) = &p.kind else {
        panic!()
    };
    let ScheduleItem::Fuse {
        shifts: Some(sh),
        span,
    } = &s.items[0]
    else {
        panic!()
    };
    assert_eq!(sh, &vec![vec![0, 0], vec![0, -1], vec![1, 1]]);
    assert_eq!(&text[span.start..span.end], "fuse((0,0),(0,-1),(1, 1))");
    let ScheduleItem::Tile(t) = &s.items[1] else {
        panic!()
    };
    assert_eq!(t.sizes, vec![32, 64]);
    assert!(matches!(t.outer, LoopTreatment::Wavefront));
    let LoopTreatment::Tile(inner) = &t.inner else {
        panic!()
    };
    assert_eq!(inner.sizes, vec![4, 4]);
    assert!(matches!(inner.outer, LoopTreatment::Parallel));
    assert!(matches!(inner.inner, LoopTreatment::Serial));
    assert!(matches!(s.items[2], ScheduleItem::Parallel(_)));
}

#[test]
fn any_index_and_lenient_commas() {
    let p = one("#pragma omplc for domain(0:n-1) with (i) read img { (i) } read lut { (*) } write hist { (2*i+1), (*) }\n");
    let PragmaKind::For(n) = &p.kind else {
        panic!()
    };
    assert_eq!(n.accesses.len(), 3);
    assert_eq!(n.accesses[1].tuples[0].exprs, vec![Expr::Any]);
    assert_eq!(
        n.accesses[2].tuples[0].exprs,
        vec![Expr::sum(Expr::product(Expr::Int(2), v("i")), Expr::Int(1))]
    );
    let p = one("#pragma omplc loopchain\n");
    assert!(matches!(&p.kind, PragmaKind::Loopchain(s, _) if s.items.is_empty()));
}

#[test]
fn errors_point_at_the_token() {
    assert_eq!(
        error("#pragma omplc for domain(0:N) with (i) read A { (i) } writ B { (i) }\n"),
        (
            "unknown clause 'writ' in '#pragma omplc for': expected 'read' or 'write'".into(),
            "writ".into()
        )
    );
    assert_eq!(
        error("#pragma omplc for domain(0:N, 0:M) with (i) read A { (i) }\n"),
        (
            "domain has 2 ranges but 'with' lists 1 iterator".into(),
            "with (i)".into()
        )
    );
    assert_eq!(
        error("#pragma omplc for domain(0:N) with (i, j) read A { (i) }\n"),
        (
            "domain has 1 range but 'with' lists 2 iterators".into(),
            "with (i, j)".into()
        )
    );
    assert_eq!(
        error("#pragma omplc for domain(0 N) with (i) read A { (i) }\n"),
        (
            "expected ':' between the bounds of a range (lower:upper), found 'N'".into(),
            "N".into()
        )
    );
    assert_eq!(
        error("#pragma omplc for domain(0:N) with (i) read A { (i) \n"),
        (
            "expected ',' or '}' in the tuples of 'A', found end of pragma".into(),
            "".into()
        )
    );
    assert_eq!(
        error("#pragma omplc loopchain schedule(fuse(), tyle((4),serial,serial))\n"),
        (
            "unknown schedule item 'tyle': expected 'fuse', 'tile', 'parallel' or 'wavefront'"
                .into(),
            "tyle".into()
        )
    );
    assert_eq!(
        error("#pragma omplc loopchain schedule(fuse(), tile((4),serial,serial), fuse((0),(1)))\n"),
        (
            "'fuse' may appear only once in a schedule: the nests are fused already".into(),
            "fuse((0),(1))".into()
        )
    );
    assert_eq!(
        error("#pragma omplc loopchain schedule(tile((4, N), serial, serial))\n"),
        (
            "tile sizes must be positive integer constants".into(),
            "N".into()
        )
    );
    assert_eq!(
            error("#pragma omplc loopchain schedule(tile((4), serial, paralel))\n"),
            (
                "unknown loop treatment 'paralel': expected 'serial', 'parallel', 'wavefront' or 'tile'".into(),
                "paralel".into()
            )
        );
    assert_eq!(
        error("#pragma omplc loopchain schedule(fuse((0),(k)))\n"),
        ("fuse shifts must be integer constants".into(), "k".into())
    );
    assert_eq!(
        error("#pragma omplc for domain(0:N) with (i) read A { (i*i) }\n"),
        (
            "non-affine index expression '(i * i)'; write '*' for a data-dependent index".into(),
            "i*i".into()
        )
    );
    assert_eq!(
        error("#pragma omplc for domain(0:(*)) with (i) read A { (i) }\n"),
        ("expected an expression, found '*'".into(), "*".into())
    );
    assert_eq!(
        error("#pragma omplc loop\n"),
        (
            "unknown omplc directive 'loop': expected 'loopchain' or 'for'".into(),
            "loop".into()
        )
    );
    assert_eq!(
        error("#pragma omplc loopchain schedule(parallel) extra\n"),
        (
            "unexpected 'extra' at the end of the pragma".into(),
            "extra".into()
        )
    );
    assert_eq!(
        error("#pragma omplc for domain(0:N) with (i, i) read A { (i) }\n"),
        ("iterator 'i' is listed twice in 'with'".into(), "i".into())
    );
    let deep = format!(
        "#pragma omplc for domain(0:{}N{}) with (i)\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert_eq!(error(&deep).0, "pragma nested too deeply");
    assert_eq!(
        error("#pragma omplc for domain(0:99999999999999999999) with (i)\n"),
        (
            "integer literal too large".into(),
            "99999999999999999999".into()
        )
    );
}

#[test]
fn continuations_inside_words_and_after_blanks() {
    // C joins `dom\<newline>ain` into one word; gcc and clang also accept
    // blanks between the backslash and the newline (with a warning).
    let text = "#pragma omplc for dom\\\nain(0:N\\\n-1) wi\\  \nth (i) \\ \t\r\n read A {(i)} write B {(i)}\nint x;\n";
    let p = one(text);
    let PragmaKind::For(n) = &p.kind else {
        panic!("{p:?}")
    };
    assert_eq!(n.ranges[0].hi, Expr::difference(v("N"), Expr::Int(1)));
    assert_eq!(&text[n.domain_span.start..n.domain_span.start + 3], "dom");
    assert_eq!(n.accesses.len(), 2);
    assert_eq!(&text[p.line_end..], "\nint x;\n");
    // A continuation that does not end a line is a stray backslash.
    let (m, t) = error("#pragma omplc for domain(0:N-1) \\ x\n");
    assert!(m.contains("found '\\'"), "{m}");
    assert_eq!(t, "\\");
}

#[test]
fn underscore_pragma_of_ours_is_an_error() {
    let text = "void f(void) {\n_Pragma( \"omplc loopchain schedule(fuse())\" )\n}\n#define R _Pragma(\"scop\")\n_Pragma(\"omp parallel\")\nchar *s = \"_Pragma(\\\"scop\\\")\";\n";
    let (ps, errs) = scan(text);
    assert!(ps.is_empty());
    assert_eq!(errs.len(), 2, "{errs:?}");
    let shown: Vec<&str> = errs
        .iter()
        .map(|d| match d.location {
            crate::diag::Location::Span(sp) => &text[sp.start..sp.end],
            _ => panic!("no span"),
        })
        .collect();
    assert_eq!(
        shown,
        [
            "_Pragma( \"omplc loopchain schedule(fuse())\" )",
            "_Pragma(\"scop\")"
        ]
    );
    assert!(errs[0]
        .message
        .contains("write this as '#pragma omplc loopchain schedule(fuse())'"));
}

#[test]
fn cr_only_line_endings_are_refused_where_a_pragma_is() {
    let text = "int x;\r#pragma scop\rx = 1;\r#pragma endscop\r";
    let (ps, errs) = scan(text);
    assert!(ps.is_empty());
    assert_eq!(errs.len(), 1);
    assert!(errs[0].message.contains("carriage return alone"));
    assert_eq!(
        errs[0].location,
        crate::diag::Location::Span(Span::new(7, 14))
    );
    // CRLF, and a lone CR elsewhere, are fine.
    let (ps, errs) = scan("int x; /* a\rb */\r\n#pragma scop\r\n#pragma endscop\r\n");
    assert!(errs.is_empty());
    assert_eq!(ps.len(), 2);
}

/// `temporary(...)` after the schedule, alone, and on `#pragma scop`.
#[test]
fn temporary_clauses() {
    let names = |t: &[Temporary]| t.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    let text = "#pragma omplc loopchain schedule(fuse()) temporary(BX, BY)\n";
    let PragmaKind::Loopchain(s, t) = &one(text).kind else {
        panic!()
    };
    assert_eq!(s.items.len(), 1);
    assert_eq!(names(t), ["BX", "BY"]);
    let sp = t[1].span.unwrap();
    assert_eq!(&text[sp.start..sp.end], "BY");
    let PragmaKind::Loopchain(s, t) = &one("#pragma omplc loopchain temporary(T)\n").kind else {
        panic!()
    };
    assert!(s.items.is_empty());
    assert_eq!(names(t), ["T"]);
    let PragmaKind::Scop(t) = &one("#pragma scop temporary(a,b)\n").kind else {
        panic!()
    };
    assert_eq!(names(t), ["a", "b"]);
    assert!(matches!(&one("#pragma scop\n").kind, PragmaKind::Scop(t) if t.is_empty()));
    let (m, at) = error("#pragma omplc loopchain temporary(A, A)\n");
    assert!(m.contains("named twice"), "{m}");
    assert_eq!(at, "A");
    let (m, at) = error("#pragma omplc loopchain temporary()\n");
    assert!(m.contains("an array name"), "{m}");
    assert_eq!(at, ")");
    let (m, _) = error("#pragma omplc loopchain schedule() temporary(A) fuse\n");
    assert!(m.contains("unexpected 'fuse'"), "{m}");
}
