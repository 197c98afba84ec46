//! The program model: what the front end found, and its polyhedral (isl) form.

pub mod expr;
pub mod program;
