//! Transformation passes: each one an edit of the isl schedule tree.
//!
//! The driver runs them in order: fusion ([`fuse`]), tiling ([`tile`]) or
//! overlapped tiling ([`overlap`], its tree in [`overlap_tree`], with [`align`] for sampling stages and
//! [`storage`] for tile-local scratchpads, and [`time_blocks`] for time-iterated
//! stencils, [`shadow`] for arrays updated in place), then the choice of parallel loops
//! ([`parallel`]) and of the innermost loops marked `omp simd` ([`simd`]). Before overlapped tiling with the model's grouping,
//! [`inline`] inlines point-wise producers into their consumers; after the
//! grouping, [`intra_fusion`] picks the stages that share a point loop in a
//! tile, and [`multi_level`] the inner tiles of scalene tiles sized for L2. [`legality`] checks a schedule against the dependences;
//! [`band`] holds the tree-walking helpers. [`validity`] checks every final
//! schedule against the dependences before it is printed.

pub mod align;
pub mod band;
pub mod contract;
pub mod cost;
pub mod dp_grouping;
pub mod footprint;
pub mod fuse;
pub mod gpu_cost;
pub mod gpu_occupancy;
pub mod hybrid;
pub mod inline;
pub mod intra_fusion;
pub mod legality;
pub mod missed;
pub mod multi_level;
pub mod overlap;
pub mod overlap_groups;
pub mod overlap_tree;
pub mod parallel;
pub mod pipeline;
pub mod reductions;
pub mod shadow;
pub mod sharing;
pub mod simd;
pub mod storage;
pub mod threads;
pub mod tile;
pub mod time_blocks;
pub mod time_choice;
pub mod validity;
