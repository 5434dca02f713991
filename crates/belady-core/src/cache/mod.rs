//! A cache level and its parts: the frame table that owns every block's state, the admission
//! filter, the cache model (blocks or objects) and how a size resolves under it, and the builder
//! that makes the policy a specification names.

pub mod admission;
pub mod builder;
pub mod cache_model;
pub mod frames;
pub mod level;
pub mod size;
