//! Labels of code and constants. A leaf module: it imports nothing else of the crate.

use std::sync::Arc;

/// A code or constant label. Names are unique within a listing; the emitter adds the target's local-label prefix.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(pub(crate) Arc<str>);

impl Label {
    /// A label with a fixed name, for tools and tests; kernels get unique labels from the builder.
    pub fn named(name: &str) -> Label {
        Label(Arc::from(name))
    }

    /// The label's name without the local prefix.
    pub fn name(&self) -> &str {
        &self.0
    }
}
