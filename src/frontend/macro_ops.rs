//! Operators written in macro bodies, read through the macro's expansion.
//!
//! libclang 14 reports no operator kinds and gives a node of a macro body
//! the location of the whole invocation, so `NEXT(B, i)` defined as
//! `B[(i) + 1]` hides its `+` (see [`crate::frontend::clang`]). This module
//! expands the invocation itself, as the C preprocessor does (ISO C11
//! §6.10.3: arguments fully macro-expanded before substitution, the result
//! rescanned with the macro's own name disabled), and lines the expansion's
//! tokens up with the clang subtree that the invocation produced. Each
//! operator node then gets the token between its operands.
//!
//! Fail closed: a definition with `#` or `##`, a variadic macro, a name
//! with two definitions, an expansion that does not line up token for token
//! with the subtree (identifiers by name, every token used exactly once), or
//! a node kind it does not know gives no operators at all, and callers keep
//! treating the operators as unreadable.

use std::collections::HashMap;

use crate::frontend::clang::{Cursor, CursorKey, CursorKind, TokenKind};

/// A token as the preprocessor sees it: kind and spelling.
pub type Tok = (TokenKind, String);

/// Every macro definition by name: `(definition tokens, function-like)`.
pub type Table = HashMap<String, Vec<(Vec<Tok>, bool)>>;

/// An operator read from an expansion: its spelling, and for a unary
/// operator whether it is prefix.
pub type Ops = HashMap<CursorKey, (String, bool)>;

/// How deep macros may nest in one expansion before it is given up.
const MAX_DEPTH: usize = 64;
/// How many tokens one expansion may have before it is given up.
const MAX_TOKENS: usize = 100_000;

/// The tokens of the invocation `raw` (the name, and for a function-like
/// macro its parenthesised arguments, as written), fully expanded; `first`
/// is the definition clang resolved the invocation to.
pub fn expand_invocation(raw: &[Tok], first: &(Vec<Tok>, bool), table: &Table) -> Option<Vec<Tok>> {
    let raw: Vec<Tok> = raw
        .iter()
        .filter(|t| t.0 != TokenKind::Comment)
        .cloned()
        .collect();
    let (name, rest) = raw.split_first()?;
    let mut disabled = Vec::new();
    let (out, used) = invoke(&name.1, first, rest, table, &mut disabled, 0)?;
    (used == rest.len()).then_some(out)
}

/// Expands every macro of `toks` (C11 §6.10.3.4 rescanning, with
/// `disabled` the names being replaced).
fn expand(
    toks: &[Tok],
    table: &Table,
    disabled: &mut Vec<String>,
    depth: usize,
) -> Option<Vec<Tok>> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let defs = match t.0 {
            TokenKind::Identifier if !disabled.contains(&t.1) => table.get(&t.1),
            _ => None,
        };
        let Some(defs) = defs else {
            out.push(t.clone());
            i += 1;
            continue;
        };
        let [def] = defs.as_slice() else {
            return None;
        };
        if def.1 && toks.get(i + 1).is_none_or(|n| n.1 != "(") {
            // A function-like macro's name not followed by '(' is not an
            // invocation, unless the '(' would come after this list.
            if i + 1 == toks.len() {
                return None;
            }
            out.push(t.clone());
            i += 1;
            continue;
        }
        let (r, used) = invoke(&t.1, def, &toks[i + 1..], table, disabled, depth)?;
        out.extend(r);
        if out.len() > MAX_TOKENS {
            return None;
        }
        i += 1 + used;
    }
    Some(out)
}

/// The replacement of macro `name` (definition `def`) invoked before
/// `rest`, and how many tokens of `rest` its arguments took.
fn invoke(
    name: &str,
    def: &(Vec<Tok>, bool),
    rest: &[Tok],
    table: &Table,
    disabled: &mut Vec<String>,
    depth: usize,
) -> Option<(Vec<Tok>, usize)> {
    let (tokens, function_like) = def;
    let (params, body, used, args) = if *function_like {
        let (params, body) = split(tokens)?;
        let (args, used) = arguments(rest)?;
        (params, body, used, args)
    } else {
        (Vec::new(), tokens.get(1..)?.to_vec(), 0, Vec::new())
    };
    if body
        .iter()
        .any(|t| t.1 == "#" || t.1 == "##" || t.1 == "__VA_ARGS__")
    {
        return None;
    }
    let args = match (params.len(), args.len()) {
        (0, 1) if args[0].is_empty() => Vec::new(),
        (p, a) if p == a => args,
        _ => return None,
    };
    let mut expanded_args = Vec::new();
    for a in &args {
        expanded_args.push(expand(a, table, disabled, depth + 1)?);
    }
    let mut substituted = Vec::new();
    for t in body {
        match params
            .iter()
            .position(|p| t.0 == TokenKind::Identifier && *p == t.1)
        {
            Some(k) => substituted.extend(expanded_args[k].iter().cloned()),
            None => substituted.push(t),
        }
    }
    disabled.push(name.to_string());
    let out = expand(&substituted, table, disabled, depth + 1);
    disabled.pop();
    Some((out?, used))
}

/// A function-like definition's parameter names and body (`None` for a
/// variadic one).
fn split(def: &[Tok]) -> Option<(Vec<String>, Vec<Tok>)> {
    let mut params = Vec::new();
    let mut k = 2;
    while k < def.len() && def[k].1 != ")" {
        match def[k].0 {
            TokenKind::Identifier => params.push(def[k].1.clone()),
            _ if def[k].1 == "," => {}
            _ => return None,
        }
        k += 1;
    }
    Some((params, def.get(k + 1..)?.to_vec()))
}

/// The arguments of an invocation whose `(` starts `rest`, split at
/// top-level commas, and the number of tokens up to its `)`.
fn arguments(rest: &[Tok]) -> Option<(Vec<Vec<Tok>>, usize)> {
    if rest.first()?.1 != "(" {
        return None;
    }
    let mut depth = 0usize;
    let mut args = vec![Vec::new()];
    for (k, t) in rest.iter().enumerate().skip(1) {
        match t.1.as_str() {
            "(" => depth += 1,
            ")" if depth == 0 => return Some((args, k + 1)),
            ")" => depth -= 1,
            "," if depth == 0 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        args.last_mut()?.push(t.clone());
    }
    None
}

/// The operators of the subtree at `root`, read from `toks`, the expansion
/// it came from: `None` unless the subtree spells exactly `toks`.
pub fn align(root: Cursor<'_>, toks: &[Tok]) -> Option<Ops> {
    let mut a = Aligner {
        toks,
        ops: Ops::new(),
    };
    (a.node(root, 0)? == toks.len()).then_some(a.ops)
}

/// Position after `text` at `pos` of `toks`, if it is there.
fn expect(toks: &[Tok], pos: usize, text: &str) -> Option<usize> {
    (toks.get(pos)?.1 == text).then_some(pos + 1)
}

/// Lines a clang subtree up with tokens.
struct Aligner<'a> {
    toks: &'a [Tok],
    ops: Ops,
}

impl Aligner<'_> {
    /// Position after the `)` matching the `(` at `pos`.
    fn skip_parens(&self, pos: usize) -> Option<usize> {
        expect(self.toks, pos, "(")?;
        let mut depth = 0usize;
        for (k, t) in self.toks.iter().enumerate().skip(pos) {
            match t.1.as_str() {
                "(" => depth += 1,
                ")" => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The position after node `c`'s tokens, which start at `pos`.
    fn node(&mut self, c: Cursor<'_>, pos: usize) -> Option<usize> {
        let kids = c.children();
        match (c.kind(), kids.as_slice()) {
            (CursorKind::UnexposedExpr, [k]) => self.node(*k, pos),
            (CursorKind::ParenExpr, [k]) => {
                let p = self.node(*k, expect(self.toks, pos, "(")?)?;
                expect(self.toks, p, ")")
            }
            (CursorKind::DeclRefExpr, _) => {
                let t = self.toks.get(pos)?;
                (t.0 == TokenKind::Identifier && t.1 == c.spelling()).then_some(pos + 1)
            }
            (
                CursorKind::IntegerLiteral
                | CursorKind::FloatingLiteral
                | CursorKind::CharacterLiteral,
                _,
            ) => (self.toks.get(pos)?.0 == TokenKind::Literal).then_some(pos + 1),
            (CursorKind::BinaryOperator | CursorKind::CompoundAssignOperator, [l, r]) => {
                let p = self.node(*l, pos)?;
                let op = self.toks.get(p).filter(|t| t.0 == TokenKind::Punctuation)?;
                let op = op.1.clone();
                let q = self.node(*r, p + 1)?;
                self.ops.insert(c.key(), (op, false));
                Some(q)
            }
            (CursorKind::UnaryOperator, [k]) => self.unary(c, *k, pos),
            (CursorKind::ArraySubscriptExpr, [b, i]) => {
                let p = expect(self.toks, self.node(*b, pos)?, "[")?;
                expect(self.toks, self.node(*i, p)?, "]")
            }
            (CursorKind::CallExpr, [callee, args @ ..]) => {
                let mut p = expect(self.toks, self.node(*callee, pos)?, "(")?;
                for (k, a) in args.iter().enumerate() {
                    p = self.node(*a, p)?;
                    if k + 1 < args.len() {
                        p = expect(self.toks, p, ",")?;
                    }
                }
                expect(self.toks, p, ")")
            }
            (CursorKind::CStyleCastExpr, [.., operand]) => {
                let p = self.skip_parens(pos)?;
                self.node(*operand, p)
            }
            (CursorKind::ConditionalOperator, [x, a, b]) => {
                let p = expect(self.toks, self.node(*x, pos)?, "?")?;
                let q = expect(self.toks, self.node(*a, p)?, ":")?;
                self.node(*b, q)
            }
            (CursorKind::MemberRefExpr, [base]) => {
                let p = self.node(*base, pos)?;
                self.toks.get(p).filter(|t| t.1 == "." || t.1 == "->")?;
                let t = self.toks.get(p + 1)?;
                (t.1 == c.spelling()).then_some(p + 2)
            }
            _ => None,
        }
    }

    /// A unary operator `c` over `k`: prefix when its first token is an
    /// operator and the operand follows, postfix (`++`, `--`) otherwise.
    fn unary(&mut self, c: Cursor<'_>, k: Cursor<'_>, pos: usize) -> Option<usize> {
        const PREFIX: &[&str] = &["-", "+", "!", "~", "*", "&", "++", "--"];
        let first = self.toks.get(pos)?;
        if first.0 == TokenKind::Punctuation && PREFIX.contains(&first.1.as_str()) {
            let op = first.1.clone();
            let mut trial = Aligner {
                toks: self.toks,
                ops: Ops::new(),
            };
            if let Some(p) = trial.node(k, pos + 1) {
                self.ops.extend(trial.ops);
                self.ops.insert(c.key(), (op, true));
                return Some(p);
            }
        }
        let p = self.node(k, pos)?;
        let op = self.toks.get(p).filter(|t| t.1 == "++" || t.1 == "--")?;
        self.ops.insert(c.key(), (op.1.clone(), false));
        Some(p + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        s.split_whitespace()
            .map(|w| {
                let kind = if w.chars().all(|c| c.is_ascii_digit()) {
                    TokenKind::Literal
                } else if w.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    TokenKind::Identifier
                } else {
                    TokenKind::Punctuation
                };
                (kind, w.to_string())
            })
            .collect()
    }

    fn table(defs: &[(&str, &str, bool)]) -> Table {
        let mut t = Table::new();
        for (name, def, fl) in defs {
            t.entry(name.to_string())
                .or_default()
                .push((toks(def), *fl));
        }
        t
    }

    fn text(t: &[Tok]) -> String {
        t.iter().map(|t| t.1.as_str()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn expands_as_the_preprocessor_does() {
        let t = table(&[
            ("NEXT", "NEXT ( B , i ) B [ ( i ) + 1 ]", true),
            ("TWICE", "TWICE ( x ) NEXT ( x , k ) * 2", true),
            ("k", "k 3", false),
            ("SELF", "SELF SELF + 1", false),
        ]);
        let first = |n: &str| t[n][0].clone();
        let e = expand_invocation(&toks("NEXT ( b , j )"), &first("NEXT"), &t).unwrap();
        assert_eq!(text(&e), "b [ ( j ) + 1 ]");
        let e = expand_invocation(&toks("TWICE ( a )"), &first("TWICE"), &t).unwrap();
        assert_eq!(text(&e), "a [ ( 3 ) + 1 ] * 2");
        // A macro's own name is not replaced again.
        let e = expand_invocation(&toks("SELF"), &first("SELF"), &t).unwrap();
        assert_eq!(text(&e), "SELF + 1");
        // Arguments with parentheses and commas inside.
        let e = expand_invocation(&toks("NEXT ( b , f ( x , y ) )"), &first("NEXT"), &t).unwrap();
        assert_eq!(text(&e), "b [ ( f ( x , y ) ) + 1 ]");
    }

    #[test]
    fn gives_up_where_it_cannot_be_exact() {
        let t = table(&[
            ("CAT", "CAT ( a , b ) a ## b", true),
            ("STR", "STR ( a ) # a", true),
            ("VA", "VA ( ... ) __VA_ARGS__", true),
            ("TWO", "TWO 1", false),
            ("TWO", "TWO 2", false),
            ("USE", "USE TWO", false),
            ("F", "F ( a ) a", true),
        ]);
        let first = |n: &str| t[n][0].clone();
        assert!(expand_invocation(&toks("CAT ( x , y )"), &first("CAT"), &t).is_none());
        assert!(expand_invocation(&toks("STR ( x )"), &first("STR"), &t).is_none());
        assert!(expand_invocation(&toks("VA ( x )"), &first("VA"), &t).is_none());
        // Two definitions of a name inside the expansion.
        assert!(expand_invocation(&toks("USE"), &first("USE"), &t).is_none());
        // Wrong argument count.
        assert!(expand_invocation(&toks("F ( x , y )"), &first("F"), &t).is_none());
    }
}
