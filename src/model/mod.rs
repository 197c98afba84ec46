//! The program model: what the front end found, and its polyhedral (isl) form.

pub mod cxx_fixes;
pub mod deps;
pub mod expr;
pub mod isl_ext;
pub mod limits;
pub mod marks;
pub mod mdg;
pub mod polyhedral;
pub mod program;
pub mod relations;
pub mod sequence;
pub mod storage;
pub mod wrap;
