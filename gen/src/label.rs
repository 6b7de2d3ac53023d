//! Labels of code and constants. A leaf module: it imports nothing else of the crate.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A code or constant label. Names are unique within a listing; the emitter adds the target's local-label prefix.
/// One pointer wide (the name is boxed behind the shared count), so that the memory operands and the
/// instructions that hold one stay small: the JIT builds thousands at startup. Equal, ordered and hashed by name.
#[derive(Clone)]
pub struct Label(pub(crate) Arc<Named>);

/// What a [`Label`] points to: its name, and the number a lowering gave it ([`Label::mark`]).
pub(crate) struct Named {
    name: Box<str>,
    mark: AtomicU64,
}

impl Label {
    /// A label with a fixed name, for tools and tests; kernels get unique labels from the builder.
    pub fn named(name: &str) -> Label {
        Label(Arc::new(Named { name: Box::from(name), mark: AtomicU64::new(0) }))
    }

    /// The label's name without the local prefix.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The number the lowering `session` gave this label, if the last one to mark it was that session
    /// ([`Label::set_mark`]): a lowering numbers a label once by name and then reads the number off the label
    /// rather than hashing it per reference. Session 0 has no marks (an unmarked label reads 0).
    pub(crate) fn mark(&self, session: u64) -> Option<u32> {
        let m = self.0.mark.load(Ordering::Relaxed);
        (session != 0 && m >> 24 == session).then_some((m & 0xff_ffff) as u32)
    }

    /// Marks the label with number `id` of lowering `session` (a session below 2^40, a number below 2^24; a
    /// number too large, or session 0, is not recorded). Another session may mark it again: it is a cache,
    /// not the numbering, and one word, so a lowering on another thread reads a whole mark or none of its own.
    pub(crate) fn set_mark(&self, session: u64, id: u32) {
        if session != 0 && session < 1 << 40 && id < 1 << 24 {
            self.0.mark.store(session << 24 | id as u64, Ordering::Relaxed);
        }
    }
}

impl fmt::Debug for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Label").field(&self.name()).finish()
    }
}

impl PartialEq for Label {
    fn eq(&self, other: &Label) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Label {}

impl Hash for Label {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.name().hash(h)
    }
}

impl PartialOrd for Label {
    fn partial_cmp(&self, other: &Label) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Label {
    fn cmp(&self, other: &Label) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

impl Borrow<str> for Label {
    /// The name, so that a set of labels is searched by name.
    fn borrow(&self) -> &str {
        self.name()
    }
}
