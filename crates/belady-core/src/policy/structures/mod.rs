//! The data structures the policies share: intrusive lists, rings, frequency buckets, OPT's
//! next-use index, S3-FIFO's queues, weighted lists and libCacheSim's random draws.

pub(crate) mod freq_buckets;
pub(crate) mod lcs_draws;
pub mod list;
pub(crate) mod next_use_index;
pub(crate) mod ring;
pub(crate) mod s3_queues;
pub(crate) mod weighted_lists;
