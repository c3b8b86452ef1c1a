//! The ws load: langbench's own WebSocket load client (`client`), and the
//! phases every ws mode drives it through (`drive`: where the client and
//! the server run, warm-up, measured window, sampling of the server's
//! process tree, the client-bound rule).

pub(crate) mod client;
pub(crate) mod drive;
