//! One cell's program, set up and run once, and the judgment of that run:
//! the one way `run`, `check` and `ws` set up a variant's program and judge
//! what it did.
//!
//! [`Program`] is a variant's program for one benchmark: its toolchain
//! caches, its `prepare` commands run in its private copy, the placeholders
//! of a run. [`Program::attempt`] runs its build steps and run once in a
//! build directory ([`steps`]) and judges it ([`judge`]: the records'
//! status words). [`measure`] is one measured run of a cell: the attempt,
//! its figures and verdict in a record. [`remembered`] searches the places
//! a variant's runs can keep things in (its caches, its prepared copy) for
//! the answer a run printed. [`work`] is one counted run (issue #62: its
//! instructions under valgrind, in the same sandbox).
//!
//! Its face: [`Program`] (`new`, `set_caches`, `needs_prepare`, `prepare`,
//! `vars`, and `attempt` with the attempt's `totals`, `ended` and `verdict`)
//! for `check`, the suite and `ws`; [`Cell`] (`measure`, `identity`) for the
//! suite, and `count` with its [`Counter`] for `work`; [`Verdict`] and
//! [`Ended`] for `check`; the rest is its inside.

mod judge;
mod measure;
mod program;
pub(crate) mod remembered;
mod steps;
mod work;

pub(crate) use judge::Verdict;
pub(crate) use measure::Cell;
pub(crate) use program::Program;
pub(crate) use steps::Ended;
pub(crate) use work::Counter;

#[cfg(test)]
mod tests;
