//! flextile: a polyhedral source-to-source compiler for annotated C loop chains.
//!
//! Pipeline: [`frontend`] (libclang, pragmas) → [`model`] (isl domains, accesses,
//! dependences, schedule tree) → [`transform`] passes (schedule-tree edits) →
//! [`backend`] (isl AST → C). [`driver`] lists the passes in order.

pub mod backend;
pub mod diag;
pub mod driver;
pub mod files;
pub mod frontend;
pub mod model;
pub mod transform;
pub mod verify;
