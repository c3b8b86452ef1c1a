//! langbench: runs the yearly cross-language comparison and measures every
//! run the way `/usr/bin/time` does.

pub mod bench;
pub mod cell;
pub mod check;
pub mod cli;
pub mod compare;
pub mod config;
pub mod derived;
pub mod dist;
pub mod document;
pub mod estimate;
pub mod export;
pub mod history;
pub mod hygiene;
pub mod identity;
pub mod import;
pub mod list;
pub mod machine;
pub mod maven;
pub mod measure;
pub mod merge;
pub mod noise;
pub mod progress;
pub mod record;
pub mod resume;
pub mod scaffold;
pub mod schedule;
pub mod scratch;
pub mod session;
pub mod shard;
pub mod signals;
pub mod spawn;
pub mod state;
pub mod step;
pub mod store;
pub mod suggest;
pub mod suite;
pub mod summary;
#[cfg(test)]
mod testing;
pub mod toolchain;
pub mod toolchain_dir;
pub mod verify;
pub mod version_cache;
pub mod ws;
