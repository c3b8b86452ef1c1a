//! The ws load: langbench's own WebSocket load client (`client`), and the
//! phases every ws mode drives it through (`drive`: where the client and
//! the server run, warm-up, measured window, sampling of the server's
//! process tree, the client-bound rule).
//!
//! Its face, to `ws`'s two commands: [`client`] (see its head) and
//! [`drive`]'s `phases` (a `PhaseResult` per phase), `client_options`,
//! `Server` and `Pid`, `affinity`, `split_cpus`, `own_cpus` and
//! `client_bound` (which `ws` re-exports); the rest is its inside.

pub(crate) mod client;
pub(crate) mod drive;
