//! The output templates (`templates/`): tera templates compiled into the
//! binary, each of which a user may replace with a file of the same path
//! under `--templates DIR`. They shape everything of the output that is not
//! a loop or a statement: the file's banner and helpers, a region's frame,
//! its OpenMP lines, its alias guard and time-block frame, and the CUDA
//! target's host code (device buffers, copies, launches, error checks) and
//! kernel skeletons (signature, index set-up, shared declarations,
//! barriers). `docs/usage.md` lists each template's variables.

use crate::backend::alias::GuardParts;
use crate::backend::c::OmpLines;
use crate::backend::tree::Helper;
use crate::diag::{Diagnostic, Error, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use tera::{Context, Map, Tera, Value};

/// The output templates: the built-in ones, each replaced by the file of
/// the same path under the user's `--templates` directory where it has one.
pub struct Templates {
    tera: Tera,
    /// The user's directory, if any: an error in a template is then theirs.
    dir: Option<PathBuf>,
}

/// A built-in template: its path under `templates/` (also its name, as
/// tera's `import` and `include` take it) and its text.
macro_rules! template {
    ($path:literal) => {
        ($path, include_str!(concat!("../../templates/", $path)))
    };
}

/// Every template of the output, by path.
const TEMPLATES: &[(&str, &str)] = &[
    template!("c/file.c.tera"),
    template!("c/region.c.tera"),
    template!("c/parallel_for.c.tera"),
    template!("c/team.c.tera"),
    template!("c/simd_for.c.tera"),
    template!("c/team_for.c.tera"),
    template!("c/helpers.c.tera"),
    template!("c/shadows.c.tera"),
    template!("c/time_blocks.c.tera"),
    template!("c/alias.c.tera"),
    template!("c/original.c.tera"),
    template!("cuda/file.cu.tera"),
    template!("cuda/gather.cu.tera"),
    template!("cuda/setup.cu.tera"),
    template!("cuda/launch.cu.tera"),
    template!("cuda/teardown.cu.tera"),
    template!("cuda/kernel.cu.tera"),
    template!("cuda/shared.cu.tera"),
    template!("cuda/barrier.cu.tera"),
];

/// The template paths flextile knows, for `--templates`' check.
pub fn template_paths() -> impl Iterator<Item = &'static str> {
    TEMPLATES.iter().map(|(p, _)| *p)
}

/// The files of `dir` (the user's `--templates`) that replace built-in
/// templates: a Make dependency file names them.
pub fn user_files(dir: Option<&Path>) -> Vec<PathBuf> {
    let Some(dir) = dir else {
        return Vec::new();
    };
    template_paths()
        .map(|p| dir.join(p))
        .filter(|f| f.is_file())
        .collect()
}

/// A tera error's whole chain of causes, on one line.
fn tera_text(e: &tera::Error) -> String {
    use std::error::Error as _;
    let mut msg = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        msg.push_str(&format!(": {s}"));
        src = s.source();
    }
    msg
}

/// What the file template needs.
pub struct FileParts<'a> {
    /// Input path as given.
    pub input: &'a str,
    /// Options that shaped the output, as the user wrote them.
    pub options: &'a str,
    /// Number of rewritten regions.
    pub regions: usize,
    /// Helpers used by the generated code.
    pub helpers: &'a BTreeSet<Helper>,
    /// Prefix of the helpers' names.
    pub helper_prefix: &'a str,
    /// The file's text with every region replaced.
    pub body: &'a str,
    /// A CUDA file (else C).
    pub cuda: bool,
    /// The command line's macros (`-D`: name, value), which a CUDA file
    /// defines itself (see `templates/cuda/file.cu.tera`).
    pub defines: &'a [(String, String)],
}

/// What the region template needs.
pub struct RegionParts<'a> {
    /// "loop chain" or "scop".
    pub kind: &'a str,
    /// Input path.
    pub input: &'a str,
    /// Line of the region's pragma.
    pub line: usize,
    /// One line per stage.
    pub stages: Vec<String>,
    /// A summary of the transformations applied.
    pub schedule: String,
    /// Indentation of the region.
    pub indent: &'a str,
    /// The generated loops, already indented one level below `indent`.
    pub code: String,
    /// Shadow copies of arrays the region updates in place, declared around the loops.
    pub shadows: Vec<ShadowParts>,
    /// The run-time alias guard around the loops, if the region needs one.
    pub guard: Option<&'a GuardParts>,
}

/// What the template of a time-blocked scop needs.
pub struct TimeBlockParts<'a> {
    /// Input path.
    pub input: &'a str,
    /// Line of the region's pragma.
    pub line: usize,
    /// One line per statement of the original scop.
    pub stages: Vec<String>,
    /// A summary of the transformations applied.
    pub schedule: String,
    /// Indentation of the region.
    pub indent: &'a str,
    /// C name of the variable holding a block's first time step.
    pub start: &'a str,
    /// C type of the block's start and remainder variables (`int`, `long long`).
    pub counter_type: &'a str,
    /// The time loop's first step (C).
    pub first: &'a str,
    /// The condition (C) under which a block of `steps` steps from `start` runs.
    pub full: &'a str,
    /// Time steps per block.
    pub steps: i64,
    /// C name of the remainder's first time step.
    pub rest: &'a str,
    /// Shadow copies declared around the blocks.
    pub shadows: Vec<ShadowParts>,
    /// The loops of one block, indented two levels below `indent`.
    pub blocks: String,
    /// Code before and after the loop over blocks, one level below
    /// `indent` (CUDA: the blocks' device buffers, set up once).
    pub around: [String; 2],
    /// The loops of the remainder, indented two levels below `indent`.
    pub remainder: String,
    /// The run-time alias guard around the blocks, if the region needs one.
    pub guard: Option<&'a GuardParts>,
}

/// What the template of a region left as written needs.
pub struct OriginalParts<'a> {
    /// "loop chain" or "scop".
    pub kind: &'a str,
    /// Input path.
    pub input: &'a str,
    /// Line of the region's pragma.
    pub line: usize,
    /// Indentation of the region.
    pub indent: &'a str,
    /// Why it is left as written.
    pub why: &'a str,
    /// The region's code as written (see [`crate::backend::alias::original_code`]).
    pub original: &'a str,
}

/// One shadow copy of an array, for the region and time-blocks templates.
pub struct ShadowParts {
    /// C name of the copy.
    pub name: String,
    /// The array.
    pub array: String,
    /// Its number of rows (C expression).
    pub rows: String,
    /// Whether the array has more than one dimension (its rows are arrays).
    pub nested: bool,
}

impl Templates {
    /// Compiles the templates: the built-in ones, or where `dir` (the
    /// user's `--templates`) holds a file of a template's path, that file.
    /// A file that cannot be read or parsed is the user's error.
    pub fn load(dir: Option<&Path>) -> Result<Templates> {
        let mut texts = Vec::new();
        for (path, text) in TEMPLATES {
            let own = dir.map(|d| d.join(path)).filter(|f| f.is_file());
            let text = match &own {
                Some(f) => std::fs::read_to_string(f).map_err(|e| {
                    user_error(format!("--templates: cannot read {}: {e}", f.display()))
                })?,
                None => text.to_string(),
            };
            texts.push((*path, text));
        }
        let mut tera = Tera::default();
        tera.autoescape_on(vec![]);
        tera.add_raw_templates(texts)
            .map_err(|e| Templates::error_of(dir, &e))?;
        Ok(Templates {
            tera,
            dir: dir.map(Path::to_path_buf),
        })
    }

    /// A template's error: the user's where they gave the templates.
    fn error_of(dir: Option<&Path>, e: &tera::Error) -> Error {
        match dir {
            Some(d) => user_error(format!(
                "--templates {}: template: {}",
                d.display(),
                tera_text(e)
            )),
            None => Error::internal(format!("template: {}", tera_text(e))),
        }
    }

    /// Renders template `name` with `c`.
    fn render(&self, name: &str, c: &Context) -> Result<String> {
        self.tera
            .render(name, c)
            .map_err(|e| Templates::error_of(self.dir.as_deref(), &e))
    }

    /// The OpenMP lines of parallel loops.
    pub fn omp_lines(&self) -> Result<OmpLines> {
        let line = |name: &str| {
            self.render(name, &Context::new())
                .map(|s| s.trim_end().to_string())
        };
        Ok(OmpLines {
            parallel_for: line("c/parallel_for.c.tera")?,
            team: line("c/team.c.tera")?,
            team_for: line("c/team_for.c.tera")?,
            simd_for: line("c/simd_for.c.tera")?,
        })
    }

    /// A whole output file.
    pub fn file(&self, p: &FileParts) -> Result<String> {
        let mut helpers = Vec::new();
        for h in p.helpers {
            let mut c = Context::new();
            c.insert("prefix", p.helper_prefix);
            c.insert(
                "qualifiers",
                if p.cuda { "__host__ __device__ " } else { "" },
            );
            c.insert(
                "name",
                match h {
                    Helper::Min => "min",
                    Helper::Max => "max",
                    Helper::Floord => "floord",
                    Helper::MinLL => "min_ll",
                    Helper::MaxLL => "max_ll",
                    Helper::FloordLL => "floord_ll",
                    Helper::Gather => "gather",
                },
            );
            let template = match h {
                Helper::Gather => "cuda/gather.cu.tera",
                _ => "c/helpers.c.tera",
            };
            helpers.push(self.render(template, &c)?.trim_end().to_string());
        }
        let mut c = Context::new();
        c.insert("version", env!("CARGO_PKG_VERSION"));
        c.insert("input", &comment_text(p.input));
        c.insert("options", &comment_text(p.options));
        c.insert("regions", &p.regions);
        c.insert("helpers", &helpers);
        c.insert("body", p.body);
        c.insert("prefix", p.helper_prefix);
        let defines: String = p
            .defines
            .iter()
            .map(|(n, v)| format!("#ifndef {n}\n#define {n} {v}\n#endif\n"))
            .collect();
        c.insert("defines", &defines);
        let name = if p.cuda {
            "cuda/file.cu.tera"
        } else {
            "c/file.c.tera"
        };
        self.render(name, &c)
    }

    /// A time-blocked scop (without a trailing newline).
    pub fn time_blocks(&self, p: &TimeBlockParts) -> Result<String> {
        let mut c = Context::new();
        c.insert("input", &comment_text(p.input));
        c.insert("line", &p.line);
        c.insert("stages", &comment_texts(&p.stages));
        c.insert("schedule", &comment_text(&p.schedule));
        c.insert("indent", p.indent);
        c.insert("start", p.start);
        c.insert("counter_type", p.counter_type);
        c.insert("first", p.first);
        c.insert("full", p.full);
        c.insert("steps", &p.steps);
        c.insert("rest", p.rest);
        c.insert("shadows", &shadow_values(&p.shadows));
        c.insert("blocks", &p.blocks);
        c.insert("before", &p.around[0]);
        c.insert("after", &p.around[1]);
        c.insert("remainder", &p.remainder);
        guard_values(&mut c, p.guard);
        let s = self.render("c/time_blocks.c.tera", &c)?;
        Ok(s.trim_end_matches('\n').to_string())
    }

    /// One rewritten region (without a trailing newline: the file's own follows).
    pub fn region(&self, p: &RegionParts) -> Result<String> {
        let mut c = Context::new();
        c.insert("kind", &comment_text(p.kind));
        c.insert("input", &comment_text(p.input));
        c.insert("line", &p.line);
        c.insert("stages", &comment_texts(&p.stages));
        c.insert("schedule", &comment_text(&p.schedule));
        c.insert("indent", p.indent);
        c.insert("code", &p.code);
        c.insert("shadows", &shadow_values(&p.shadows));
        guard_values(&mut c, p.guard);
        let s = self.render("c/region.c.tera", &c)?;
        Ok(s.trim_end_matches('\n').to_string())
    }

    /// A region left as written, under a banner that says why (without a
    /// trailing newline).
    pub fn original(&self, p: &OriginalParts) -> Result<String> {
        let mut c = Context::new();
        c.insert("kind", &comment_text(p.kind));
        c.insert("input", &comment_text(p.input));
        c.insert("line", &p.line);
        c.insert("indent", p.indent);
        c.insert("why", &comment_text(p.why));
        c.insert("original", p.original);
        let s = self.render("c/original.c.tera", &c)?;
        Ok(s.trim_end_matches('\n').to_string())
    }
}

/// One kernel's launch (`cuda/launch.cu.tera`).
pub struct LaunchParts<'a> {
    /// Indentation of its lines.
    pub indent: &'a str,
    /// The kernel's name.
    pub kernel: &'a str,
    /// Blocks per grid along `x` and `y` (host expressions).
    pub grid: &'a [String; 2],
    /// Threads per block along `x` and `y`.
    pub block: [u32; 2],
    /// The arguments (host expressions).
    pub args: &'a [String],
    /// The file's CUDA error check function.
    pub check: &'a str,
    /// The region's `file:line`, as the contents of a C string literal.
    pub place: &'a str,
}

/// One array's device buffer (`cuda/setup.cu.tera`, `cuda/teardown.cu.tera`).
pub struct BufferParts {
    /// The array as the region names it.
    pub data: String,
    /// Its element type.
    pub element: String,
    /// The device pointer.
    pub pointer: String,
    /// The names of its first element's index and of its element count.
    pub first: String,
    pub count: String,
    /// The host address its elements are counted from.
    pub base: String,
    /// Whether its elements are copied in, and back out.
    pub copy_in: bool,
    pub copy_out: bool,
    /// Its rows' strides in elements: name and host expression.
    pub strides: Vec<(String, String)>,
    /// The first and last element the region touches (host expressions,
    /// from `base`).
    pub low: String,
    pub high: String,
}

/// A region's device buffers, set up before its launches and torn down
/// after them.
pub struct HostBuffers<'a> {
    pub indent: &'a str,
    pub check: &'a str,
    pub place: &'a str,
    /// Prefix of the file's helpers.
    pub prefix: &'a str,
    /// The device flag a data-dependent subscript outside its buffer sets,
    /// if the region has such subscripts.
    pub fault: Option<String>,
    pub arrays: &'a [BufferParts],
}

/// A kernel's definition (`cuda/kernel.cu.tera`).
pub struct KernelParts<'a> {
    /// Its number in the region, and the region's `file:line`.
    pub k: usize,
    pub place: &'a str,
    /// How its work is spread over the grid, in words.
    pub what: &'a str,
    pub name: &'a str,
    /// Its parameters' declarations.
    pub params: Vec<&'a str>,
    /// The scalars the region writes, as references to their device
    /// buffers: type, name, device pointer.
    pub scalars: Vec<[String; 3]>,
    /// With warp tiles: the C names of the thread's warp and lane, and the
    /// warp size.
    pub warps: Option<(String, String, u32)>,
    /// The thread's index in its block, flattened.
    pub thread: &'a str,
    /// The rest of its body, indented.
    pub body: &'a str,
}

/// A `__shared__` declaration (`cuda/shared.cu.tera`).
pub struct SharedDecl {
    /// Element type (or a union of the pool's arrays), name and extents.
    pub ty: String,
    pub name: String,
    pub dims: String,
    /// What it holds, for its comment.
    pub what: String,
    /// One per warp: the array of them all, the warps, and the C name of
    /// the thread's warp; `name` is then the thread's warp's part.
    pub per_warp: Option<(String, u32, String)>,
}

/// The values of an object of a template.
fn object(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<Map<String, Value>>(),
    )
}

/// `s` as a template value.
fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

impl Templates {
    /// Renders `name` as whole lines: each ends with a line break, and the
    /// template file's own last line break is not doubled.
    fn lines(&self, name: &str, c: &Context) -> Result<String> {
        let s = self.render(name, c)?;
        let s = s.trim_end_matches('\n');
        Ok(match s.is_empty() {
            true => String::new(),
            false => format!("{s}\n"),
        })
    }

    /// A kernel's launch and its error check.
    pub fn launch(&self, p: &LaunchParts) -> Result<String> {
        let mut c = Context::new();
        c.insert("indent", p.indent);
        c.insert("kernel", p.kernel);
        c.insert("grid", p.grid);
        c.insert("block", &p.block);
        c.insert("args", p.args);
        c.insert("check", p.check);
        c.insert("place", p.place);
        self.lines("cuda/launch.cu.tera", &c)
    }

    /// A region's device buffers: their setup (sizes, allocation, copies
    /// in) and teardown (copies out, freeing).
    pub fn buffers(&self, p: &HostBuffers) -> Result<(String, String)> {
        let arrays: Vec<Value> = p
            .arrays
            .iter()
            .map(|a| {
                let strides = a
                    .strides
                    .iter()
                    .map(|(n, v)| object(vec![("name", text(n)), ("value", text(v))]))
                    .collect();
                object(vec![
                    ("data", text(&a.data)),
                    ("type", text(&a.element)),
                    ("pointer", text(&a.pointer)),
                    ("first", text(&a.first)),
                    ("count", text(&a.count)),
                    ("base", text(&a.base)),
                    ("copy_in", Value::Bool(a.copy_in)),
                    ("copy_out", Value::Bool(a.copy_out)),
                    ("strides", Value::Array(strides)),
                    ("low", text(&a.low)),
                    ("high", text(&a.high)),
                ])
            })
            .collect();
        let mut c = Context::new();
        c.insert("indent", p.indent);
        c.insert("check", p.check);
        c.insert("place", p.place);
        c.insert("prefix", p.prefix);
        c.insert("fault", &p.fault);
        c.insert("arrays", &arrays);
        Ok((
            self.lines("cuda/setup.cu.tera", &c)?,
            self.lines("cuda/teardown.cu.tera", &c)?,
        ))
    }

    /// A kernel's definition, followed by an empty line.
    pub fn kernel(&self, p: &KernelParts) -> Result<String> {
        let scalars: Vec<Value> = p
            .scalars
            .iter()
            .map(|[t, n, d]| {
                object(vec![
                    ("type", text(t)),
                    ("name", text(n)),
                    ("pointer", text(d)),
                ])
            })
            .collect();
        let warps = p.warps.as_ref().map(|(w, l, n)| {
            object(vec![
                ("warp", text(w)),
                ("lane", text(l)),
                ("size", Value::from(*n)),
            ])
        });
        let mut c = Context::new();
        c.insert("k", &p.k);
        c.insert("place", &comment_text(p.place));
        c.insert("what", p.what);
        c.insert("name", p.name);
        c.insert("params", &p.params);
        c.insert("scalars", &scalars);
        c.insert("warps", &warps);
        c.insert("thread", p.thread);
        c.insert("body", p.body);
        Ok(format!("{}\n", self.lines("cuda/kernel.cu.tera", &c)?))
    }

    /// A `__shared__` declaration's lines at `indent`.
    pub fn shared(&self, indent: &str, d: &SharedDecl) -> Result<String> {
        let per_warp = d.per_warp.as_ref().map(|(all, n, w)| {
            object(vec![
                ("all", text(all)),
                ("warps", Value::from(*n)),
                ("warp", text(w)),
            ])
        });
        let mut c = Context::new();
        c.insert("indent", indent);
        c.insert("type", &d.ty);
        c.insert("name", &d.name);
        c.insert("dims", &d.dims);
        c.insert("what", &d.what);
        c.insert("per_warp", &per_warp);
        self.lines("cuda/shared.cu.tera", &c)
    }

    /// The barrier of a block's threads, or (`warp`) of a warp's.
    pub fn barrier(&self, warp: bool) -> Result<String> {
        let mut c = Context::new();
        c.insert("warp", &warp);
        Ok(self.render("cuda/barrier.cu.tera", &c)?.trim().to_string())
    }
}

/// The alias guard's template values (`guarded` is false without one).
fn guard_values(c: &mut Context, guard: Option<&GuardParts>) {
    c.insert("guarded", &guard.is_some());
    let empty = Vec::new();
    c.insert("guard_decls", guard.map_or(&empty, |g| &g.decls));
    c.insert("guard_terms", guard.map_or(&empty, |g| &g.terms));
    c.insert("guard_original", guard.map_or("", |g| g.original.as_str()));
    c.insert("guard_wraps", guard.map_or(&empty, |g| &g.wraps));
    c.insert("guard_alias", &guard.is_some_and(|g| !g.pairs.is_empty()));
}

/// `s` made safe to print inside a `/* ... */` comment on one line: no
/// `*/` (which would end it: `* /`), no `/*` (`/ *`, which gcc warns
/// about), no line breaks or other control characters (a space), and no
/// backslash or trigraph `??/` at its end (a line continuation when a line
/// break follows).
pub fn comment_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let c = if c.is_control() { ' ' } else { c };
        let prev = out.chars().last();
        if (prev == Some('*') && c == '/') || (prev == Some('/') && c == '*') {
            out.push(' ');
        }
        out.push(c);
    }
    if out.ends_with('\\') || out.ends_with("??/") {
        out.push(' ');
    }
    out
}

/// [`comment_text`] of each string.
fn comment_texts(v: &[String]) -> Vec<String> {
    v.iter().map(|s| comment_text(s)).collect()
}

/// The shadows as template values.
fn shadow_values(shadows: &[ShadowParts]) -> Vec<std::collections::BTreeMap<&str, String>> {
    shadows
        .iter()
        .map(|s| {
            std::collections::BTreeMap::from([
                ("name", s.name.clone()),
                ("array", s.array.clone()),
                ("rows", s.rows.clone()),
                ("nested", if s.nested { "yes" } else { "" }.to_string()),
            ])
        })
        .collect()
}

/// A user error without a place in the input.
fn user_error(message: String) -> Error {
    Error::user(Diagnostic::error_global(message))
}
