//! `--emit mdg=FILE`: the regions' macro dataflow graphs in Graphviz DOT,
//! drawn as Davis et al. (CGO'18) draw them (§3.1: value nodes as boxes,
//! persistent ones shaded; statement nodes; §4.2: fused statements drawn
//! together), with the cost figures of §3.3 in the cluster labels; and the
//! SVG `dot -Tsvg` makes of it, when Graphviz is installed.
//!
//! One digraph; per region a cluster holding two clusters, "before" (one
//! statement node per stage) and "after" (one macro node per group of fused
//! stages, in a sub-cluster with the temporaries that never leave its tile
//! scratchpads; dashed edges do not reach memory).

use crate::files;
use crate::model::mdg::{Costs, Graph, Mdg, Node, ValueKind};
use log::{info, warn};
use petgraph::visit::EdgeRef;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The DOT text of `graphs` (each with its region's name), from `input`.
pub fn dot(input: &str, graphs: &[(String, Mdg)]) -> String {
    let mut s = String::from("digraph mdg {\n");
    let _ = writeln!(
        s,
        "  label=\"{}\";\n  labelloc=t;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\"];",
        esc(&format!("macro dataflow graphs of {input}"))
    );
    for (r, (name, m)) in graphs.iter().enumerate() {
        let _ = writeln!(s, "  subgraph cluster_r{r} {{");
        let _ = writeln!(
            s,
            "    label=\"{}\";",
            esc(&format!("region {}: {name}", r + 1))
        );
        cluster(
            &mut s,
            &format!("r{r}_before"),
            "before",
            m,
            &m.before,
            Some(m.costs_before()),
        );
        match &m.after {
            Some((g, _)) => cluster(
                &mut s,
                &format!("r{r}_after"),
                "after",
                m,
                g,
                m.costs_after(),
            ),
            None => {
                let _ = writeln!(s, "    subgraph cluster_r{r}_after {{");
                let _ = writeln!(s, "      label=\"after\";");
                let note = m.after_note.as_deref().unwrap_or("not known");
                let _ = writeln!(
                    s,
                    "      r{r}_after_note [shape=plaintext, label=\"{}\"];",
                    esc(note)
                );
                let _ = writeln!(s, "    }}");
            }
        }
        let _ = writeln!(s, "  }}");
    }
    s.push_str("}\n");
    s
}

/// One cluster (`id`) of graph `g` of `m`, titled `title` with `costs`;
/// macro nodes of several stages drawn in a sub-cluster.
fn cluster(s: &mut String, id: &str, title: &str, m: &Mdg, g: &Graph, costs: Option<Costs>) {
    let _ = writeln!(s, "    subgraph cluster_{id} {{");
    let label = match costs {
        Some(c) => format!(
            "{title}\\nS_R = {} elements read, S_C = {}\\nstorage {} bytes",
            esc(&c.s_r.to_string()),
            c.s_c,
            esc(&c.bytes.to_string())
        ),
        None => title.to_string(),
    };
    let _ = writeln!(s, "      label=\"{label}\";");
    let graph = &g.graph;
    // Values kept in one group's scratchpads are drawn inside its sub-cluster.
    let inside = |v: usize| -> Option<petgraph::graph::NodeIndex> {
        let n = g.value_node(v)?;
        let mut statements = graph.edges(n).map(|e| e.target()).chain(
            graph
                .edges_directed(n, petgraph::Direction::Incoming)
                .map(|e| e.source()),
        );
        let first = statements.next()?;
        let only_scratch = graph
            .edges(n)
            .chain(graph.edges_directed(n, petgraph::Direction::Incoming))
            .all(|e| !e.weight().memory);
        (only_scratch && statements.all(|t| t == first)).then_some(first)
    };
    for n in graph.node_indices() {
        match &graph[n] {
            Node::Value(v) => {
                if inside(*v).is_none() {
                    let _ = writeln!(s, "      {};", value_node(id, n.index(), m, *v));
                }
            }
            Node::Statement(stages) => {
                let node = statement_node(id, n.index(), m, stages);
                let held: Vec<usize> = graph
                    .node_indices()
                    .filter_map(|k| match graph[k] {
                        Node::Value(v) if inside(v) == Some(n) => Some(k.index()),
                        _ => None,
                    })
                    .collect();
                if stages.len() > 1 || !held.is_empty() {
                    let _ = writeln!(s, "      subgraph cluster_{id}_n{} {{", n.index());
                    let _ = writeln!(s, "        label=\"fused\";\n        style=dashed;");
                    let _ = writeln!(s, "        {node};");
                    for k in held {
                        if let Node::Value(v) = graph[petgraph::graph::NodeIndex::new(k)] {
                            let _ = writeln!(s, "        {};", value_node(id, k, m, v));
                        }
                    }
                    let _ = writeln!(s, "      }}");
                } else {
                    let _ = writeln!(s, "      {node};");
                }
            }
        }
    }
    for e in graph.edge_references() {
        let style = if e.weight().memory {
            ""
        } else {
            " [style=dashed]"
        };
        let _ = writeln!(
            s,
            "      {id}_n{} -> {id}_n{}{style};",
            e.source().index(),
            e.target().index()
        );
    }
    let _ = writeln!(s, "    }}");
}

/// A value node: a box, shaded when persistent, with its size.
fn value_node(id: &str, n: usize, m: &Mdg, v: usize) -> String {
    let value = &m.values[v];
    let style = match value.kind {
        ValueKind::Temporary => "",
        ValueKind::Input | ValueKind::Persistent => ", style=filled, fillcolor=gray80",
    };
    let kind = match value.kind {
        ValueKind::Input => "input",
        ValueKind::Persistent => "persistent",
        ValueKind::Temporary => "temporary",
    };
    format!(
        "{id}_n{n} [shape=box{style}, label=\"{}\\n{kind}, {} elements\\n{} bytes\"]",
        esc(&value.name),
        esc(&value.elements.to_string()),
        esc(&value.bytes.to_string())
    )
}

/// A statement node: an ellipse naming its stages.
fn statement_node(id: &str, n: usize, m: &Mdg, stages: &[usize]) -> String {
    let names: Vec<String> = stages
        .iter()
        .map(|k| esc(m.stages.get(*k).map_or("?", String::as_str)))
        .collect();
    format!("{id}_n{n} [shape=ellipse, label=\"{}\"]", names.join("\\n"))
}

/// `t` inside a DOT string.
fn esc(t: &str) -> String {
    t.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Where the SVG of the DOT file `path` goes: `g.dot` -> `g.svg`, else
/// `.svg` appended.
pub fn svg_path(path: &Path) -> PathBuf {
    if path.extension().is_some_and(|e| e == "dot") {
        path.with_extension("svg")
    } else {
        let mut p = path.as_os_str().to_owned();
        p.push(".svg");
        PathBuf::from(p)
    }
}

/// Writes the SVG of the DOT file `path` (see [`svg_path`]) with `dot
/// -Tsvg`, atomically. Without Graphviz it says so (`-v`); a `dot` that
/// fails gets a warning: the DOT file is the result asked for.
pub fn render_svg(path: &Path) {
    let svg = svg_path(path);
    match std::process::Command::new("dot").arg("-Tsvg").arg(path).output() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => info!(
            "--emit mdg: Graphviz's 'dot' is not on the PATH: '{}' is not drawn (make deps installs it)",
            svg.display()
        ),
        Err(e) => warn!("--emit mdg: cannot run 'dot': {e}: '{}' is not drawn", svg.display()),
        Ok(o) if !o.status.success() => warn!(
            "--emit mdg: 'dot -Tsvg {}' failed ({}): {}",
            path.display(),
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Ok(o) => {
            if let Err(e) = files::write_output(&svg, &o.stdout) {
                warn!("--emit mdg: {}", e.first_message());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_next_to_the_dot_file() {
        assert_eq!(svg_path(Path::new("d/g.dot")), PathBuf::from("d/g.svg"));
        assert_eq!(svg_path(Path::new("d/g.gv")), PathBuf::from("d/g.gv.svg"));
        assert_eq!(esc("a \"b\"\\"), "a \\\"b\\\"\\\\");
    }
}
