//! Prints flextile's loop tree ([`CNode`]) as C: loops, guards, OpenMP
//! pragmas, and stage bodies instantiated from their templates.

use crate::backend::ast::CNode;
use crate::diag::{Error, Result};
use crate::model::program::Stage;
use std::collections::HashMap;

/// One indentation level of generated code.
const INDENT: &str = "  ";

/// Prints loop trees of one region.
pub struct CPrinter<'a> {
    stages: HashMap<&'a str, &'a Stage>,
    /// The line printed before a parallel loop (`#pragma omp parallel for`).
    parallel_for: String,
}

impl<'a> CPrinter<'a> {
    /// A printer for the given stages; `parallel_for` is the OpenMP line.
    pub fn new(stages: &'a [Stage], parallel_for: &str) -> CPrinter<'a> {
        CPrinter {
            stages: stages.iter().map(|s| (s.name.as_str(), s)).collect(),
            parallel_for: parallel_for.trim_end().to_string(),
        }
    }

    /// Appends `nodes` to `out`, each line prefixed by `indent`.
    pub fn print(&self, nodes: &[CNode], indent: &str, out: &mut String) -> Result<()> {
        for n in nodes {
            self.node(n, indent, out)?;
        }
        Ok(())
    }

    fn node(&self, n: &CNode, indent: &str, out: &mut String) -> Result<()> {
        let inner = format!("{indent}{INDENT}");
        match n {
            CNode::For {
                iter,
                init,
                cond,
                inc,
                body,
                parallel,
            } => {
                if *parallel {
                    out.push_str(&format!("{indent}{}\n", self.parallel_for));
                }
                let step = if inc == "1" {
                    format!("{iter}++")
                } else {
                    format!("{iter} += {inc}")
                };
                out.push_str(&format!(
                    "{indent}for (int {iter} = {init}; {cond}; {step}) {{\n"
                ));
                self.print(body, &inner, out)?;
                out.push_str(&format!("{indent}}}\n"));
            }
            CNode::If { cond, then, els } => {
                out.push_str(&format!("{indent}if ({cond}) {{\n"));
                self.print(then, &inner, out)?;
                match els {
                    Some(e) => {
                        out.push_str(&format!("{indent}}} else {{\n"));
                        self.print(e, &inner, out)?;
                        out.push_str(&format!("{indent}}}\n"));
                    }
                    None => out.push_str(&format!("{indent}}}\n")),
                }
            }
            CNode::Stmt { stage, args } => match self.stages.get(stage.as_str()) {
                Some(s) => {
                    let iters: Vec<String> = args.iter().map(|a| wrap(a)).collect();
                    let text = s.body.instantiate(&iters);
                    out.push_str(&format!("{indent}/* {}: {} */\n", s.name, s.label));
                    out.push_str(&reindent(&text, indent));
                }
                None => {
                    return Err(Error::internal(format!(
                        "AST names unknown statement {stage}"
                    )))
                }
            },
        }
        Ok(())
    }
}

/// An iterator value as it replaces an iterator in a body: bare when it is a
/// name or a non-negative literal, parenthesised otherwise.
fn wrap(a: &str) -> String {
    if a.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        a.to_string()
    } else {
        format!("({a})")
    }
}

/// Re-indents a (possibly multi-line) body: its first line at `indent`, the
/// others keeping their indentation relative to each other.
fn reindent(text: &str, indent: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let min = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    // Continuation lines of a simple statement sit one level deeper than its
    // first line; the lines of a compound statement keep their own layout.
    let extra = if lines
        .first()
        .is_some_and(|l| l.trim_start().starts_with('{'))
    {
        ""
    } else {
        INDENT
    };
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        out.push_str(indent);
        if i == 0 {
            out.push_str(l.trim());
        } else {
            let lead = l.len() - l.trim_start().len();
            out.push_str(extra);
            out.push_str(&l[lead.min(min)..]);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reindents_relative() {
        let t = "{\n      a = 1;\n    }";
        assert_eq!(reindent(t, "  "), "  {\n    a = 1;\n  }\n");
        assert_eq!(reindent("a =\n        b;", ""), "a =\n  b;\n");
    }

    #[test]
    fn wraps_compound_values() {
        assert_eq!(wrap("c0"), "c0");
        assert_eq!(wrap("c0 + 1"), "(c0 + 1)");
    }
}
