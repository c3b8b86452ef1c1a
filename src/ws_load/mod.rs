//! The ws load: langbench's own WebSocket load client (`client`), and the
//! phases every ws mode drives it through (`drive`: where the client and
//! the server run, warm-up, measured window, sampling of the server's
//! process tree, the client-bound rule).
//!
//! Its face, to `ws`'s two commands: [`client`] (see its head) and
//! [`drive`]'s `phases` (a `PhaseResult` per phase), `client_options`,
//! `Server` and `Pid`, `affinity`, `split_cpus`, `own_cpus` and
//! `client_bound` (which `ws` re-exports); the rest is its inside. Public
//! outside the crate only as far as benches/ws-client-crates drives it
//! (`client::Client` open, window and stop, its options, `Target::local`,
//! `drive::own_cpus`): that bench compares it with other clients.

pub mod client;
pub mod drive;
