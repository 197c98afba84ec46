//! Initialisers g++ (`-std=gnu++17`) reads differently from C or rejects:
//! designators out of declaration order, array designators and ranges,
//! nested designators, and `char` arrays filled by a string literal with no
//! room for its `'\0'` (ISO C++17, Annex C.1, [diff.decl]).

use super::super::{CxxFix, Pass, WHY};
use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::strip;
use crate::frontend::clang::{Cursor, CursorKind, Token, Type, TypeKind};

/// The most elements an array designator may make flextile spell.
const MAX_SLOTS: i64 = 4096;

/// One item of a brace-enclosed initialiser list.
struct Item {
    /// The designator's tokens (before `=`), empty for a positional item.
    designator: Vec<Token>,
    /// The value's bytes.
    value: Span,
    /// The value is a brace-enclosed list.
    braced: bool,
}

/// Splits the tokens of `{ ... }` into items; `None` if it is not one.
fn items(toks: &[Token]) -> Option<Vec<Item>> {
    let (first, last) = (toks.first()?, toks.last()?);
    if first.text != "{" || last.text != "}" {
        return None;
    }
    let inner = &toks[1..toks.len() - 1];
    let mut parts: Vec<&[Token]> = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (k, t) in inner.iter().enumerate() {
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "," if depth == 0 => {
                parts.push(&inner[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    if from < inner.len() {
        parts.push(&inner[from..]);
    }
    let mut out = Vec::new();
    for p in parts {
        let eq = designator_end(p);
        let (designator, value) = match eq {
            Some(e) => (p[..e].to_vec(), &p[e + 1..]),
            None => (Vec::new(), p),
        };
        let (a, b) = (value.first()?, value.last()?);
        out.push(Item {
            designator,
            value: Span::new(a.span.start, b.span.end),
            braced: a.text == "{",
        });
    }
    Some(out)
}

/// The index of the `=` ending a designator at the start of `p`, if any.
fn designator_end(p: &[Token]) -> Option<usize> {
    let mut k = 0;
    while k < p.len() {
        match p[k].text.as_str() {
            "." if p.get(k + 1).is_some() => k += 2,
            "[" => {
                let close = p[k..].iter().position(|t| t.text == "]")?;
                k += close + 1;
            }
            "=" if k > 0 => return Some(k),
            _ => return None,
        }
    }
    None
}

/// One step of a designator: a member, an index, or a range of indices.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
    Range(i64, i64),
}

/// The steps of a designator's tokens; `None` for an index that is not an
/// integer literal.
fn steps(d: &[Token]) -> Option<Vec<Step>> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < d.len() {
        if d[k].text == "." {
            out.push(Step::Field(d.get(k + 1)?.text.clone()));
            k += 2;
            continue;
        }
        let close = k + d[k..].iter().position(|t| t.text == "]")?;
        let inside: Vec<&str> = d[k + 1..close].iter().map(|t| t.text.as_str()).collect();
        out.push(match inside.as_slice() {
            [a] => Step::Index(literal(a)?),
            [a, "...", b] => Step::Range(literal(a)?, literal(b)?),
            _ => return None,
        });
        k = close + 1;
    }
    Some(out)
}

/// The value of an integer literal (decimal, octal or hex, any suffix).
fn literal(s: &str) -> Option<i64> {
    let t = s.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        i64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

/// True when the tokens of `span` may have side effects (a call, an
/// assignment, `++`, `--`).
fn has_effects(pass: &Pass<'_, '_>, span: Span) -> bool {
    let toks = pass.unit.tokens_in(span);
    toks.iter().enumerate().any(|(k, t)| {
        let call = t.text == "("
            && k > 0
            && toks[k - 1].kind == crate::frontend::clang::TokenKind::Identifier;
        call || matches!(
            t.text.as_str(),
            "=" | "++"
                | "--"
                | "+="
                | "-="
                | "*="
                | "/="
                | "%="
                | "&="
                | "|="
                | "^="
                | "<<="
                | ">>="
        )
    })
}

/// The text of `rest = value` as a braced list of its own (`{ .b = v }`),
/// for a nested designator; `None` where the rest needs a rewrite itself.
fn nested(pass: &Pass<'_, '_>, rest: &[Token], value: Span) -> Option<String> {
    let s = steps(rest)?;
    if !s.iter().all(|x| matches!(x, Step::Field(_))) {
        return None;
    }
    let mut text = pass.unit.slice(value).to_string();
    for f in s.iter().rev() {
        if let Step::Field(f) = f {
            text = format!("{{ .{f} = {text} }}");
        }
    }
    Some(text)
}

/// An initialiser list `c` with designators g++ rejects, respelled.
pub(super) fn designators(pass: &mut Pass<'_, '_>, c: Cursor<'_>) {
    let Some(span) = c.span() else { return };
    let toks = pass.unit.tokens_in(span).to_vec();
    let Some(list) = items(&toks) else { return };
    if list.iter().all(|i| i.designator.is_empty()) {
        return;
    }
    let ty = c.ty().canonical();
    let text = match ty.kind() {
        TypeKind::ConstantArray | TypeKind::IncompleteArray => array(pass, &list, ty),
        _ if ty.spelling().starts_with("struct ") => structure(pass, &list, c, ty),
        _ => Ok(None),
    };
    let text = match text {
        Ok(None) => return,
        Ok(Some(_)) if !pass.written(span) => Err("it is written in a macro".to_string()),
        other => other.map(Option::unwrap_or_default),
    };
    match text {
        Ok(text) => pass.push(vec![span], CxxFix::Text { span, text }),
        Err(why) => pass.problems.push(Diagnostic::error(
            span,
            format!(
                "this initialiser has designators {WHY} rejects (out of order, array \
                 designators, ranges or nested), and flextile cannot respell it ({why}): \
                 write it in the order of the declaration, without array designators"
            ),
        )),
    }
}

/// The fields of the struct type `ty` (name, is an aggregate), from its
/// definition in the file.
fn fields(c: Cursor<'_>, ty: Type<'_>) -> Option<Vec<(String, bool)>> {
    let want = ty.spelling();
    let mut stack = c.translation_root().children();
    while let Some(d) = stack.pop() {
        if !d.is_in_main_file() {
            continue;
        }
        let kind = d.kind_name();
        if kind == "StructDecl" && d.is_definition() && d.ty().canonical().spelling() == want {
            return Some(
                d.children()
                    .into_iter()
                    .filter(|f| f.kind_name() == "FieldDecl")
                    .map(|f| (f.spelling(), is_aggregate(f.ty())))
                    .collect(),
            );
        }
        if matches!(
            kind.as_str(),
            "StructDecl" | "UnionDecl" | "FunctionDecl" | "CompoundStmt" | "DeclStmt"
        ) || d.kind() == CursorKind::FunctionDecl
        {
            stack.extend(d.children());
        }
    }
    None
}

/// True for arrays, structs and unions.
fn is_aggregate(ty: Type<'_>) -> bool {
    let c = ty.canonical();
    let s = c.spelling();
    matches!(
        c.kind(),
        TypeKind::ConstantArray | TypeKind::IncompleteArray
    ) || s.starts_with("struct ")
        || s.starts_with("union ")
}

/// A struct's initialiser list: `None` where g++ takes it as written.
fn structure(
    pass: &Pass<'_, '_>,
    list: &[Item],
    c: Cursor<'_>,
    ty: Type<'_>,
) -> Result<Option<String>, String> {
    let fields = fields(c, ty).ok_or("the struct's definition is not in this file")?;
    let mut at: Vec<(usize, String)> = Vec::new();
    let mut next = 0usize;
    let mut rewrite = false;
    for item in list {
        let (k, value) = if item.designator.is_empty() {
            (next, pass.unit.slice(item.value).to_string())
        } else {
            let d = &item.designator;
            let name = match (d.first().map(|t| t.text.as_str()), d.get(1)) {
                (Some("."), Some(n)) => n.text.clone(),
                _ => return Err("an array designator on a struct".to_string()),
            };
            let k = fields
                .iter()
                .position(|(f, _)| *f == name)
                .ok_or_else(|| format!("no field '{name}' found"))?;
            if d.len() > 2 {
                rewrite = true;
                let v = nested(pass, &d[2..], item.value)
                    .ok_or("a nested designator with an array index")?;
                (k, v)
            } else {
                (k, pass.unit.slice(item.value).to_string())
            }
        };
        let Some((f, aggregate)) = fields.get(k) else {
            return Err("more values than fields".to_string());
        };
        if *aggregate && !item.braced && item.designator.len() <= 2 {
            return Err(format!("field '{f}' is initialised without braces"));
        }
        if at.iter().any(|(j, _)| *j == k) {
            return Err(format!("field '{f}' is initialised twice"));
        }
        if at.last().is_some_and(|(j, _)| *j > k) {
            rewrite = true;
        }
        at.push((k, value));
        next = k + 1;
    }
    if !rewrite {
        return Ok(None);
    }
    if list.iter().any(|i| has_effects(pass, i.value)) {
        return Err("a value may have side effects, and the order would change".to_string());
    }
    at.sort_by_key(|(k, _)| *k);
    let parts: Vec<String> = at
        .into_iter()
        .map(|(k, v)| format!(".{} = {v}", fields[k].0))
        .collect();
    Ok(Some(format!("{{ {} }}", parts.join(", "))))
}

/// An array's initialiser list with designators, positionally.
fn array(pass: &Pass<'_, '_>, list: &[Item], ty: Type<'_>) -> Result<Option<String>, String> {
    let aggregate = ty.element().is_some_and(is_aggregate);
    let mut slots: Vec<Option<String>> = Vec::new();
    let mut next = 0i64;
    for item in list {
        let value = pass.unit.slice(item.value).to_string();
        let (from, to, value) = if item.designator.is_empty() {
            (next, next, value)
        } else {
            let s = steps(&item.designator).ok_or("an index that is not an integer literal")?;
            let (a, b) = match s.first() {
                Some(Step::Index(i)) => (*i, *i),
                Some(Step::Range(a, b)) => (*a, *b),
                _ => return Err("a field designator on an array".to_string()),
            };
            if s.len() > 1 {
                let rest = item.designator.iter().position(|t| t.text == "]");
                let v = rest
                    .and_then(|k| nested(pass, &item.designator[k + 1..], item.value))
                    .ok_or("a nested designator with an array index")?;
                (a, b, v)
            } else {
                (a, b, value)
            }
        };
        let simple = !item.designator.iter().any(|t| t.text == ".");
        if aggregate && !item.braced && simple {
            return Err("an element is initialised without braces".to_string());
        }
        if to < from || from < 0 || to >= MAX_SLOTS {
            return Err(format!("an index out of 0..{MAX_SLOTS}"));
        }
        if to > from && has_effects(pass, item.value) {
            return Err("a range's value may have side effects".to_string());
        }
        for k in from..=to {
            let k = usize::try_from(k).map_err(|_| "an index out of range".to_string())?;
            if slots.len() <= k {
                slots.resize(k + 1, None);
            }
            if slots[k].is_some() {
                return Err(format!("element {k} is initialised twice"));
            }
            slots[k] = Some(value.clone());
        }
        next = to + 1;
    }
    if let Some(n) = ty.array_len() {
        if i64::try_from(slots.len()).unwrap_or(i64::MAX) > n {
            return Err("more values than elements".to_string());
        }
    }
    let parts: Vec<String> = slots
        .into_iter()
        .map(|s| s.unwrap_or_else(|| "{}".to_string()))
        .collect();
    Ok(Some(format!("{{ {} }}", parts.join(", "))))
}

/// A `char` array of type `ty` initialised by `init`, a string literal
/// whose characters fill it with no room for the `'\0'`: C drops the
/// `'\0'`, C++ rejects it; respelled as a list of the characters.
pub(super) fn string_array(pass: &mut Pass<'_, '_>, ty: Type<'_>, init: Cursor<'_>) {
    let c = ty.canonical();
    let Some(n) = c.array_len() else { return };
    let element = c.element().map(|e| e.canonical().spelling());
    let Some(element) = element.filter(|e| {
        matches!(e.as_str(), "char" | "signed char" | "unsigned char") || e.ends_with(" char")
    }) else {
        return;
    };
    let lit = strip(init);
    if lit.kind() != CursorKind::StringLiteral {
        return;
    }
    let Some(span) = lit.span() else { return };
    let text = pass.unit.slice(span);
    let refuse = |pass: &mut Pass<'_, '_>, why: &str| {
        pass.problems.push(Diagnostic::error(
            span,
            format!(
                "this string literal fills its array with no room for its '\\0', which \
                 {WHY} rejects, and flextile cannot respell it ({why}): write the \
                 characters as a list ({{'a', 'b'}})"
            ),
        ));
    };
    let Some(bytes) = decode(text) else {
        if !text.starts_with('"') {
            return;
        }
        return refuse(pass, "escapes or concatenation it does not decode");
    };
    if i64::try_from(bytes.len()).ok() != Some(n) {
        return;
    }
    if !pass.written(span) {
        return refuse(pass, "it is written in a macro");
    }
    let unsigned = element.starts_with("unsigned");
    let parts: Vec<String> = bytes
        .iter()
        .map(|&b| match b {
            _ if unsigned => b.to_string(),
            b'\'' | b'\\' => format!("'\\{}'", b as char),
            0x20..=0x7e => format!("'{}'", b as char),
            _ => format!("'\\{b:03o}'"),
        })
        .collect();
    pass.push(
        vec![span],
        CxxFix::Text {
            span,
            text: format!("{{{}}}", parts.join(", ")),
        },
    );
}

/// The bytes of a plain string literal `"..."` (one, with the simple and
/// octal and hex escapes); `None` for others.
fn decode(text: &str) -> Option<Vec<u8>> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let b = inner.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < b.len() {
        if b[k] == b'"' {
            return None;
        }
        if b[k] != b'\\' {
            out.push(b[k]);
            k += 1;
            continue;
        }
        let e = *b.get(k + 1)?;
        k += 2;
        out.push(match e {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'\\' | b'\'' | b'"' | b'?' => e,
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                let mut d = 1;
                while d < 3 && k < b.len() && (b'0'..=b'7').contains(&b[k]) {
                    v = v * 8 + u32::from(b[k] - b'0');
                    k += 1;
                    d += 1;
                }
                u8::try_from(v).ok()?
            }
            b'x' => {
                let start = k;
                while k < b.len() && b[k].is_ascii_hexdigit() {
                    k += 1;
                }
                u8::from_str_radix(std::str::from_utf8(&b[start..k]).ok()?, 16).ok()?
            }
            _ => return None,
        });
    }
    Some(out)
}
