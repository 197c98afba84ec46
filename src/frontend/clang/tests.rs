use super::install::major_version;
use super::*;
use std::path::PathBuf;

fn write_temp(name: &str, text: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("flextile-clang-{}-{}.c", std::process::id(), name));
    std::fs::write(&p, text).expect("write temp file");
    p
}

fn args() -> Vec<String> {
    match resource_dir() {
        Some(d) => vec![
            "-resource-dir".to_string(),
            d.to_string_lossy().into_owned(),
        ],
        None => Vec::new(),
    }
}

#[test]
fn version_parsing() {
    assert_eq!(major_version("Debian clang version 14.0.6"), Some(14));
    assert_eq!(major_version("clang version 19.1.0 (x)"), Some(19));
    assert_eq!(major_version("nonsense"), None);
}

#[test]
fn finds_resource_dir() {
    let d = resource_dir().expect("a clang resource directory");
    assert!(d.join("include").join("stddef.h").is_file());
}

#[test]
fn parses_walks_and_tokenizes() {
    let src = "#include <stddef.h>\n#define N 10\nint f(int *a) {\n  return a[N] + 1;\n}\n";
    let p = write_temp("walk", src);
    let index = Index::new().unwrap();
    let tu = TranslationUnit::parse(&index, &p, &args(), &[]).unwrap();
    assert!(tu.diagnostics().iter().all(|d| d.level == DiagLevel::Minor));
    let f = tu
        .root()
        .children()
        .into_iter()
        .find(|c| c.kind() == CursorKind::FunctionDecl && c.is_in_main_file())
        .unwrap();
    assert_eq!(f.spelling(), "f");
    let body = f.children().into_iter().last().unwrap();
    assert_eq!(body.kind(), CursorKind::CompoundStmt);
    let sp = body.span().unwrap();
    assert_eq!(&src[sp.start..sp.end], "{\n  return a[N] + 1;\n}");
    let toks = tu.tokens(sp);
    let texts: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(
        texts,
        ["{", "return", "a", "[", "N", "]", "+", "1", ";", "}"]
    );
    assert_eq!(toks[2].kind, TokenKind::Identifier);
    assert_eq!(&src[toks[2].span.start..toks[2].span.end], "a");
    let macros = tu.macro_expansions();
    assert_eq!(macros.len(), 1);
    assert_eq!(macros[0].name, "N");
    assert!(!macros[0].function_like);
    assert_eq!(
        macros[0].definition.last().map(|t| t.1.as_str()),
        Some("10")
    );
    std::fs::remove_file(&p).ok();
}

#[test]
fn extents_cover_the_macro_invocations_they_end_or_start_in() {
    let src = "\
#define V(x) x
#define AT(a, i, j) a[i][j]
#define ADD(a, b) (a + b)
#define NN 4
#define BOUND(x, y) x
#define PB_NN BOUND(NN, n)
void f(int n, double A[n][n], double *t) {
  t[5] = (double)PB_NN;
  t[6] = NN;
  t[0] = V(0.0);
  AT(A, 1, 2) = V(t[1] * 2) + ADD(t[2], 3);
  t[3] = V(t[4]);
}
";
    let p = write_temp("widen", src);
    let index = Index::new().unwrap();
    let tu = TranslationUnit::parse(&index, &p, &args(), &[]).unwrap();
    let mut spans = Vec::new();
    let mut stack = vec![tu.root()];
    while let Some(c) = stack.pop() {
        if c.kind().is_expression() {
            if let Some(sp) = c.span() {
                spans.push(&src[sp.start..sp.end]);
            }
        }
        stack.extend(c.children());
    }
    for whole in [
        "t[0] = V(0.0)",
        "AT(A, 1, 2) = V(t[1] * 2) + ADD(t[2], 3)",
        "AT(A, 1, 2)",
        "ADD(t[2], 3)",
        "t[3] = V(t[4])",
        "t[5] = (double)PB_NN",
        "t[6] = NN",
    ] {
        assert!(spans.contains(&whole), "{whole}: {spans:?}");
    }
    // Nodes inside one argument keep the argument's bytes.
    for inner in ["t[1] * 2", "t[4]", "t[2]"] {
        assert!(spans.contains(&inner), "{inner}: {spans:?}");
    }
    // Cut extents would end inside an invocation or start after its name.
    for sp in &spans {
        assert!(!sp.ends_with("V(0.0") && !sp.starts_with("A, 1"), "{sp}");
    }
    std::fs::remove_file(&p).ok();
}

#[test]
fn reports_errors_and_skipped_ranges() {
    let src = "#if 0\nnothing here\n#endif\nint f(void) { return x; }\n";
    let p = write_temp("err", src);
    let index = Index::new().unwrap();
    let tu = TranslationUnit::parse(&index, &p, &args(), &[]).unwrap();
    let errs: Vec<_> = tu
        .diagnostics()
        .into_iter()
        .filter(|d| d.level == DiagLevel::Error)
        .collect();
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0].message.contains("undeclared identifier 'x'"),
        "{}",
        errs[0].message
    );
    let at = src.find("x;").unwrap();
    assert!(matches!(errs[0].place, DiagPlace::Main(s) if s.start == at));
    let skipped = tu.skipped_ranges();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].start <= 6 && skipped[0].end >= 18);
    std::fs::remove_file(&p).ok();
}
