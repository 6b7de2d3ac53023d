//! Labels of code and constants. A leaf module: it imports nothing else of the crate.

use std::borrow::Borrow;
use std::sync::Arc;

/// A code or constant label. Names are unique within a listing; the emitter adds the target's local-label prefix.
/// One pointer wide (the name is boxed behind the shared count), so that the memory operands and the
/// instructions that hold one stay small: the JIT builds thousands at startup. Equal, ordered and hashed by name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(pub(crate) Arc<Box<str>>);

impl Label {
    /// A label with a fixed name, for tools and tests; kernels get unique labels from the builder.
    pub fn named(name: &str) -> Label {
        Label(Arc::new(Box::from(name)))
    }

    /// The label's name without the local prefix.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Label {
    /// The name, so that a set of labels is searched by name.
    fn borrow(&self) -> &str {
        &self.0
    }
}
