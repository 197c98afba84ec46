//! The edits that make a C file C++ (found by the front end's C++ analysis,
//! `frontend::cxx`), as data, and their rendering into text edits of the
//! original file: the analysis finds them before the driver has chosen the
//! prefix of generated names, so they are structured (spans, names, type
//! spellings) and [`CxxFixes::render`] spells them with the prefix. They live
//! in the model because the program model carries them to the back end.

use crate::diag::{Diagnostic, Span};

/// The edits that make the main file C++, and what they cannot fix.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CxxFixes {
    /// Fixes in source order (by the start of their first edit).
    pub fixes: Vec<CxxFix>,
    /// Constructs C++ rejects that no fix handles, located, in source order.
    pub problems: Vec<Diagnostic>,
    /// Names CUDA's headers declare that the file renames ([`CxxFix::Rename`])
    /// and flextile's generated code uses for CUDA's own (`dim3`,
    /// `blockIdx`): [`CxxFixes::guard`] hides the renaming from that code.
    pub guarded: Vec<String>,
    /// Uses (identifier tokens) of the names flextile's generated CUDA code
    /// uses for CUDA's own: a region that uses one is refused.
    pub cuda_uses: Vec<(Span, String)>,
    /// Constructs the device cannot run as C means them (`long double`, a
    /// `sizeof` of a variably modified expression), with the error's
    /// message: a region that holds one is refused.
    pub device_only: Vec<(Span, String)>,
    /// For the CUDA target, the edits of `cxx::meaning` rendered (empty for
    /// C): the regions' bodies and their original code, kept in the output
    /// as a fallback, take them.
    pub region_edits: Vec<(Span, String)>,
}

/// One change of the user's text.
#[derive(Clone, Debug, PartialEq)]
pub enum CxxFix {
    /// A variably modified parameter passed as `void *`.
    VoidParam(VoidParam),
    /// An array parameter with qualifiers (or `static`) in its first
    /// brackets, declared as the pointer it is: `double *restrict A`.
    PointerParam {
        /// The parameter's declaration.
        span: Span,
        /// Its name, if it has one.
        name: Option<String>,
        /// The pointer type it is declared with.
        decl: PointerDecl,
    },
    /// A cast inserted before an expression of type `void *` that C converts
    /// implicitly to another pointer type.
    Cast {
        /// The expression.
        expr: Span,
        /// clang's spelling of the destination type (`double (*)[N]`).
        target: String,
        /// The expression needs parentheses after the cast.
        parenthesise: bool,
    },
    /// A file-scope name that CUDA's headers declare too (`min`, `max`):
    /// `#define <name> <prefix>user_<name>` on a line of its own at `at`, the
    /// start of the line of its first declaration, renames every later use.
    Rename {
        /// Start of the line of the name's first declaration.
        at: usize,
        /// The user's name.
        name: String,
    },
    /// `extern "C" ` inserted at `at`, the start of a file-scope prototype
    /// of a function the file does not define: it comes from a C library
    /// (the C++ name would be mangled and not link).
    ExternC {
        /// Start of the declaration.
        at: usize,
    },
    /// The line `line` (an `#include "..."` of the user's header, newline
    /// excluded) put inside `extern "C" { ... }`.
    ExternCInclude {
        /// The directive's line.
        line: Span,
    },
    /// `__host__ __device__ ` inserted at `at`, the start of a declaration
    /// of a function the file defines whose name statement bodies may call
    /// (`min`, `max`: see `body::PURE_FUNCTIONS`): kernels call it.
    HostDevice {
        /// Start of the declaration.
        at: usize,
    },
    /// A declaration respelled for C++ (see `decls`): `text` replaces
    /// `span` (an empty span is an insertion).
    Text {
        /// The bytes replaced.
        span: Span,
        /// What replaces them.
        text: String,
    },
    /// A C11 keyword replaced by its C++ spelling (`_Bool` -> `bool`).
    Keyword {
        /// The keyword's token.
        span: Span,
        /// The C++ spelling.
        replacement: &'static str,
    },
}

/// A variably modified parameter: it becomes `void *<prefix>p_<name>` and
/// the function's body declares `<name>` with [`VoidParam::decl`].
#[derive(Clone, Debug, PartialEq)]
pub struct VoidParam {
    /// The parameter's declaration (type and declarator).
    pub span: Span,
    /// The parameter's name (`None` in a prototype that names none).
    pub name: Option<String>,
    /// Qualifiers of the elements (`const`, `volatile`, `const volatile`;
    /// empty for none), which the `void *` keeps.
    pub qualifiers: String,
    /// The adjusted pointer type the body declares the name with.
    pub decl: PointerDecl,
    /// Offset just after the body's `{`, for a definition.
    pub body: Option<usize>,
}

/// A pointer type split around the place of its declarator's name:
/// `double (*A)[N]` is `head` `double (*`, the name, `tail` `)[N]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointerDecl {
    /// What comes before the name, the pointer's own qualifiers included.
    pub head: String,
    /// What comes after the name.
    pub tail: String,
}

impl PointerDecl {
    /// The declaration of `name` with this type: `double (*A)[N]`.
    pub fn declare(&self, name: &str) -> String {
        let sep = if self
            .head
            .ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        {
            " "
        } else {
            ""
        };
        format!("{}{sep}{name}{}", self.head, self.tail)
    }

    /// The type name, for a cast, without the pointer's own qualifiers
    /// (meaningless on a cast): `double (*)[N]`.
    pub fn type_name(&self) -> String {
        let head = match self.head.rfind('*') {
            Some(k) => &self.head[..=k],
            None => self.head.trim_end(),
        };
        format!("{head}{}", self.tail)
    }
}

impl CxxFixes {
    /// True when nothing needs to change and nothing is refused.
    pub fn is_empty(&self) -> bool {
        self.fixes.is_empty() && self.problems.is_empty()
    }

    /// The text replacements of every fix: byte spans of the original text
    /// and what replaces them (an empty span is an insertion), sorted and
    /// non-overlapping. `prefix` starts the generated parameter names
    /// (`ft_`: `void *ft_p_A`).
    pub fn render(&self, prefix: &str) -> Vec<(Span, String)> {
        // (start, end, rank, text): the rank orders insertions at one offset
        // (an outer cast's opening before an inner one's, its closing after).
        let mut edits: Vec<(usize, usize, i64, String)> = Vec::new();
        for (k, fix) in self.fixes.iter().enumerate() {
            let rank = i64::try_from(k).unwrap_or(i64::MAX);
            match fix {
                CxxFix::VoidParam(p) => {
                    let quals = if p.qualifiers.is_empty() {
                        String::new()
                    } else {
                        format!("{} ", p.qualifiers)
                    };
                    let generated = p.name.as_ref().map(|n| format!("{prefix}p_{n}"));
                    edits.push((
                        p.span.start,
                        p.span.end,
                        rank,
                        format!("{quals}void *{}", generated.as_deref().unwrap_or("")),
                    ));
                    if let (Some(body), Some(name), Some(g)) = (p.body, &p.name, &generated) {
                        edits.push((
                            body,
                            body,
                            rank,
                            format!(" {} = ({}) {g};", p.decl.declare(name), p.decl.type_name()),
                        ));
                    }
                }
                CxxFix::PointerParam { span, name, decl } => {
                    let text = match name {
                        Some(n) => decl.declare(n),
                        None => decl.type_name(),
                    };
                    edits.push((span.start, span.end, rank, text));
                }
                CxxFix::Cast {
                    expr,
                    target,
                    parenthesise,
                } => {
                    let open = if *parenthesise { "(" } else { "" };
                    edits.push((expr.start, expr.start, rank, format!("({target}){open}")));
                    if *parenthesise {
                        edits.push((expr.end, expr.end, -rank, ")".to_string()));
                    }
                }
                CxxFix::Text { span, text } => {
                    edits.push((span.start, span.end, rank, text.clone()));
                }
                CxxFix::Keyword { span, replacement } => {
                    edits.push((span.start, span.end, rank, replacement.to_string()));
                }
                CxxFix::ExternCInclude { line } => {
                    edits.push((line.start, line.start, rank, "extern \"C\" {\n".to_string()));
                    edits.push((line.end, line.end, rank, "\n}".to_string()));
                }
                CxxFix::ExternC { at } => {
                    edits.push((*at, *at, rank, "extern \"C\" ".to_string()));
                }
                CxxFix::HostDevice { at } => {
                    edits.push((*at, *at, rank, "__host__ __device__ ".to_string()));
                }
                CxxFix::Rename { at, name } => {
                    edits.push((
                        *at,
                        *at,
                        rank,
                        format!("#define {name} {prefix}user_{name}\n"),
                    ));
                }
            }
        }
        edits.sort_by_key(|e| (e.0, e.1, e.2));
        let mut out: Vec<(Span, String)> = Vec::new();
        for (start, end, _, text) in edits {
            match out.last_mut() {
                Some((last, t)) if last.start == start && last.end == start && start == end => {
                    t.push_str(&text);
                }
                _ => out.push((Span::new(start, end), text)),
            }
        }
        out
    }

    /// `code`, generated CUDA code, between lines that hide the renaming
    /// `#define`s of [`CxxFixes::guarded`] (pushed, undefined, popped).
    pub fn guard(&self, code: &str) -> String {
        if self.guarded.is_empty() {
            return code.to_string();
        }
        let mut out = String::from("\n");
        for n in &self.guarded {
            out.push_str(&format!("#pragma push_macro(\"{n}\")\n#undef {n}\n"));
        }
        out.push_str(code);
        out.push('\n');
        for n in self.guarded.iter().rev() {
            out.push_str(&format!("#pragma pop_macro(\"{n}\")\n"));
        }
        out
    }

    /// `text` with the edits of [`CxxFixes::render`] applied (an edit out
    /// of `text`'s range, or not on character boundaries, is skipped).
    pub fn apply(&self, text: &str, prefix: &str) -> String {
        let mut out = String::with_capacity(text.len() + 256);
        let mut at = 0;
        for (span, rep) in self.render(prefix) {
            let (Some(before), true) = (
                text.get(at..span.start),
                text.get(span.start..span.end).is_some(),
            ) else {
                continue;
            };
            out.push_str(before);
            out.push_str(&rep);
            at = span.end;
        }
        out.push_str(text.get(at..).unwrap_or(""));
        out
    }
}
