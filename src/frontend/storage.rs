//! How the variables a region accesses are declared ([`Storage`]): which of
//! them may share memory, for the run-time alias guard (`backend::alias`).

use std::collections::BTreeMap;

use super::ast::Unit;
use super::clang::Cursor;
use crate::model::program::{Storage, StorageKind};

/// The storage of the variable `decl` (a `VarDecl` or `ParmDecl`), or
/// `None` for a type whose memory flextile does not lay out (a struct).
/// A parameter is a pointer even where clang reports the array type it was
/// written with.
pub fn storage_of(unit: &Unit<'_>, decl: Cursor<'_>) -> Option<Storage> {
    let layout = decl.layout()?;
    let param = decl.kind() == super::clang::CursorKind::ParmDecl;
    let kind = if layout.pointer || (param && layout.levels > 0) {
        StorageKind::Pointer {
            restrict: layout.restrict,
        }
    } else if layout.levels == 0 && decl.is_automatic() && !unit.address_taken(decl) {
        StorageKind::Private
    } else {
        StorageKind::Object
    };
    Some(Storage {
        kind,
        levels: layout.levels,
    })
}

/// The variables of one region, by name, with the location of the
/// declaration each name was first seen with (`None`: a declaration outside
/// the main file, which is at file scope: one per name).
#[derive(Clone, Debug, Default)]
pub struct Declared {
    seen: BTreeMap<String, (Option<usize>, Option<Storage>)>,
}

impl Declared {
    /// Notes that the region accesses `name`, declared by `decl`.
    pub fn note(&mut self, unit: &Unit<'_>, name: &str, decl: Cursor<'_>) {
        let at = decl.location();
        match self.seen.get_mut(name) {
            Some((first, storage)) => {
                if *first != at {
                    *storage = None;
                }
            }
            None => {
                self.seen
                    .insert(name.to_string(), (at, storage_of(unit, decl)));
            }
        }
    }

    /// Adds what `other` saw (a name declared differently in both has no storage).
    pub fn merge(&mut self, other: &Declared) {
        for (name, (at, storage)) in &other.seen {
            match self.seen.get_mut(name) {
                Some((first, mine)) => {
                    if first != at || mine != storage {
                        *mine = None;
                    }
                }
                None => {
                    self.seen.insert(name.clone(), (*at, *storage));
                }
            }
        }
    }

    /// The storage of each name (`None`: declared differently in different places).
    pub fn storage(&self) -> BTreeMap<String, Option<Storage>> {
        self.seen
            .iter()
            .map(|(n, (_, s))| (n.clone(), *s))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::clang::CursorKind;
    use crate::frontend::testutil;

    /// `name: kind levels` of every parameter and local of the first function.
    fn storages(src: &str) -> Vec<String> {
        testutil::with_unit(src, |unit| {
            let f = unit.functions[0];
            let mut decls: Vec<_> = f
                .children()
                .into_iter()
                .filter(|c| c.kind() == CursorKind::ParmDecl)
                .collect();
            decls.extend(testutil::find_all(unit, CursorKind::VarDecl));
            decls
                .iter()
                .map(|d| {
                    let s = match storage_of(unit, *d) {
                        Some(Storage {
                            kind: StorageKind::Pointer { restrict },
                            levels,
                        }) => format!(
                            "pointer{} {levels}",
                            if restrict { " restrict" } else { "" }
                        ),
                        Some(Storage { kind, levels }) => format!("{kind:?} {levels}"),
                        None => "none".to_string(),
                    };
                    format!("{}: {s}", d.spelling())
                })
                .collect()
        })
    }

    #[test]
    fn parameters_locals_and_globals() {
        let src = "#define M 8\ndouble G[4][M]; double *GP;\n\
            void f(int n, double *a, double *restrict b, double c[n][M], double d[restrict][M],\n\
                   const double e[restrict 10], double **p, float (*q)[M][3]) {\n\
              double loc[10]; double s = 0, t = 0; double *lp = a; int *ip = &n;\n\
              t = s + loc[0] + lp[0] + G[0][0] + GP[0] + *ip + t;\n\
            }\n";
        assert_eq!(
            storages(src),
            [
                "n: Object 0",
                "a: pointer 1",
                "b: pointer restrict 1",
                "c: pointer 2",
                "d: pointer restrict 2",
                "e: pointer restrict 1",
                "p: pointer 1",
                "q: pointer 3",
                "loc: Object 1",
                "s: Private 0",
                "t: Private 0",
                "lp: pointer 1",
                "ip: pointer 1",
            ]
        );
    }
}
