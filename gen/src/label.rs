//! Labels of code and constants. A leaf module: it imports nothing else of the crate.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A code or constant label. Names are unique within a listing; the emitter adds the target's local-label prefix.
/// One pointer wide (the name, kept in the same allocation when short, is behind the shared count), so that the memory operands and the
/// instructions that hold one stay small: the JIT builds thousands at startup. Equal, ordered and hashed by name.
#[derive(Clone)]
pub struct Label(pub(crate) Arc<Named>);

/// What a [`Label`] points to: its name, and the number a lowering gave it ([`Label::mark`]).
pub(crate) struct Named {
    name: Name,
    mark: AtomicU64,
}

/// The most bytes of a name kept in the label's own allocation (the kernels' are at most about 45).
const INLINE: usize = 54;

/// A label's name: in the label's allocation when short (one allocation per label, not two: the JIT makes
/// about 1,400 at startup), else boxed.
enum Name {
    Inline { len: u8, bytes: [u8; INLINE] },
    Boxed(Box<str>),
}

impl Label {
    /// A label with a fixed name, for tools and tests; kernels get unique labels from the builder.
    pub fn named(name: &str) -> Label {
        let name = match u8::try_from(name.len()) {
            Ok(len) if name.len() <= INLINE => {
                let mut bytes = [0; INLINE];
                bytes[..name.len()].copy_from_slice(name.as_bytes());
                Name::Inline { len, bytes }
            }
            _ => Name::Boxed(Box::from(name)),
        };
        Label(Arc::new(Named { name, mark: AtomicU64::new(0) }))
    }

    /// The name's bytes (no UTF-8 check: for comparisons).
    fn bytes(&self) -> &[u8] {
        match &self.0.name {
            Name::Inline { len, bytes } => &bytes[..*len as usize],
            Name::Boxed(b) => b.as_bytes(),
        }
    }

    /// Whether the label's name is `prefix` followed by `rest` (no UTF-8 check: the builder finds its
    /// constants by name this way).
    pub(crate) fn is_named(&self, prefix: &str, rest: &str) -> bool {
        self.bytes().strip_prefix(prefix.as_bytes()) == Some(rest.as_bytes())
    }

    /// The label's name without the local prefix.
    pub fn name(&self) -> &str {
        match &self.0.name {
            // Copied from a `str` whole (`Label::named`): the check passes, on ASCII a few words at a time.
            Name::Inline { .. } => std::str::from_utf8(self.bytes()).unwrap_or_default(),
            Name::Boxed(b) => b,
        }
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
        Arc::ptr_eq(&self.0, &other.0) || self.bytes() == other.bytes()
    }
}

impl Eq for Label {}

impl Hash for Label {
    /// As `str` hashes the name (its bytes, then 0xff: what `Borrow<str>` requires), without checking UTF-8.
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write(self.bytes());
        h.write_u8(0xff);
    }
}

impl PartialOrd for Label {
    fn partial_cmp(&self, other: &Label) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Label {
    fn cmp(&self, other: &Label) -> std::cmp::Ordering {
        // Byte order is `str` order.
        self.bytes().cmp(other.bytes())
    }
}

impl Borrow<str> for Label {
    /// The name, so that a set of labels is searched by name.
    fn borrow(&self) -> &str {
        self.name()
    }
}

#[cfg(test)]
mod tests {
    use super::Label;
    use std::hash::{BuildHasher, BuildHasherDefault};

    /// A label hashes, compares and orders as its name (`Borrow<str>` relies on it), whether the name is kept in
    /// the label (short) or boxed (long).
    #[test]
    fn labels_behave_as_their_names() {
        let long = "x".repeat(super::INLINE + 1);
        let names = ["", "a", "loop2", "const_sm4_sbox", "é_label", long.as_str()];
        let std_state = std::collections::hash_map::RandomState::new();
        let fast_state = BuildHasherDefault::<crate::hash::FastHasher>::default();
        for n in names {
            let l = Label::named(n);
            assert_eq!(l.name(), n);
            assert_eq!(std_state.hash_one(&l), std_state.hash_one(n));
            assert_eq!(fast_state.hash_one(&l), fast_state.hash_one(n));
            for m in names {
                let k = Label::named(m);
                assert_eq!(l == k, n == m);
                assert_eq!(l.cmp(&k), n.cmp(m));
            }
        }
        // The mark (an atomic) is a cache the hash and equality never read.
        #[allow(clippy::mutable_key_type)]
        let set: std::collections::HashSet<Label> = names.iter().map(|n| Label::named(n)).collect();
        assert!(names.iter().all(|n| set.contains(*n)));
    }
}
