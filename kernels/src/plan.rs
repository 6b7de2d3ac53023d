//! Loop plans: how many times a kernel's loop runs, known when the kernel is generated (a fixed-size kernel,
//! [`crate::Blocks::Fixed`]) or in a register at run time (`nblocks`). The kernels ask a [`Trips`] instead of
//! matching on [`crate::Blocks`]: it splits a known count into full batches and a tail, emits the zero-length
//! check and its landing label only when the count is not known, and runs a body a known number of times with
//! the ISA's counted loop ([`Loops`], implemented in `arch/<isa>.rs`).

use crate::Blocks;
use asmgen::{Builder, Isa, Label};

/// A loop's trip count: known when generating, or in `reg` (the register `nblocks` arrived in, which a known
/// count's counted loop uses as its counter too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Trips<R> {
    /// The count's register (`nblocks`; the counter of a known count's loop).
    pub(crate) reg: R,
    known: Option<usize>,
}

impl<R: Copy> Trips<R> {
    /// The plan of a kernel built for `blocks`, with `nblocks` in `reg`.
    pub(crate) fn new(blocks: Blocks, reg: R) -> Trips<R> {
        let known = match blocks {
            Blocks::Arg => None,
            Blocks::Fixed(n) => Some(n),
        };
        Trips { reg, known }
    }

    /// The same count with `reg` as its register (a plan made before the kernel's parameters are).
    pub(crate) fn with_reg<S>(self, reg: S) -> Trips<S> {
        Trips { reg, known: self.known }
    }

    /// The count, when known.
    pub(crate) fn known(self) -> Option<usize> {
        self.known
    }

    /// A known count as `(full batches of per, tail blocks)`; `None` when the count is in a register.
    pub(crate) fn split(self, per: usize) -> Option<(usize, usize)> {
        self.known.map(|n| (n / per, n % per))
    }

    /// Emits `f` only when the count is in a register (checks a known count makes unnecessary).
    pub(crate) fn when_reg<B>(self, b: &mut B, f: impl FnOnce(&mut B, R)) {
        if self.known.is_none() {
            f(b, self.reg)
        }
    }
}

impl<G: Copy> Trips<G> {
    /// The zero-length check: branches to `to` when the count in the register is zero; nothing when known.
    pub(crate) fn skip_if_zero<I: Loops<Gpr = G>>(self, b: &mut Builder<I>, to: &Label) {
        self.when_reg(b, |b, n| I::branch_if_zero(b, n, to));
    }

    /// Loads a known count into the register (for code that still counts at run time); nothing when the count
    /// is already there.
    pub(crate) fn load_known<I: Loops<Gpr = G>>(self, b: &mut Builder<I>) {
        if let Some(count) = self.known {
            I::load_count(b, self.reg, count);
        }
    }

    /// Binds the zero-length check's target ([`Trips::skip_if_zero`]); nothing when the count is known.
    pub(crate) fn bind_skip<I: Isa>(self, b: &mut Builder<I>, to: &Label) {
        self.when_reg(b, |b, _| {
            b.bind(to);
        });
    }

    /// The code for a known count, `known(b, reg, count)`, or for a count in the register, `reg(b, reg)`: where
    /// the two share no structure (a software-pipelined fixed loop, the straight-line tail of a general one).
    pub(crate) fn either<B, T>(
        self,
        b: &mut B,
        known: impl FnOnce(&mut B, G, usize) -> T,
        reg: impl FnOnce(&mut B, G) -> T,
    ) -> T {
        match self.known {
            Some(count) => known(b, self.reg, count),
            None => reg(b, self.reg),
        }
    }

    /// A known count in batches of `per`: `count / per` runs of `full(b, step)` in the ISA's counted loop
    /// (labelled `name`; straight-line for one; `step`: more blocks follow, so the body steps its pointers),
    /// then `tail(b, count % per)` when that is not zero. A count in a register: `general(b, reg)`.
    pub(crate) fn batches<I: Loops<Gpr = G>>(
        self,
        b: &mut Builder<I>,
        per: usize,
        name: &str,
        full: &mut dyn FnMut(&mut Builder<I>, bool),
        tail: impl FnOnce(&mut Builder<I>, usize),
        general: impl FnOnce(&mut Builder<I>, G),
    ) {
        let Some((batches, rest)) = self.split(per) else {
            return general(b, self.reg);
        };
        let step = batches > 1 || rest > 0;
        I::counted_loop(b, self.reg, batches, name, &mut |b| full(b, step));
        if rest > 0 {
            tail(b, rest);
        }
    }
}

/// An ISA's loop primitives for [`Trips`].
pub(crate) trait Loops: Isa {
    /// `n = v`, a count known when the kernel is generated.
    fn load_count(b: &mut Builder<Self>, n: Self::Gpr, v: usize);

    /// Branches to `to` when `n` is zero.
    fn branch_if_zero(b: &mut Builder<Self>, n: Self::Gpr, to: &Label);

    /// The bottom of a counted loop: decrements `n` and branches back to `top` while it is not zero.
    fn decrement_and_loop(b: &mut Builder<Self>, n: Self::Gpr, top: &Label);

    /// `body` `times` times: nothing for zero, once as straight-line code, else a loop labelled `name` with
    /// the count loaded into `n` ([`Loops::load_count`]), aligned to 16 bytes, and the ISA's decrement and
    /// branch at the bottom ([`Loops::decrement_and_loop`]).
    fn counted_loop(
        b: &mut Builder<Self>,
        n: Self::Gpr,
        times: usize,
        name: &str,
        body: &mut dyn FnMut(&mut Builder<Self>),
    ) {
        match times {
            0 => {}
            1 => body(b),
            _ => {
                let top = b.label(name);
                Self::load_count(b, n, times);
                b.align(4);
                b.bind(&top);
                body(b);
                Self::decrement_and_loop(b, n, &top);
            }
        }
    }
}
