//! What the table tests share: the rule for a missing external tool, from the one file the integration tests
//! use too (`tests/src/tools.rs`). Each test file includes it (`mod support;`) and uses part of it.

#[path = "../../../tests/src/tools.rs"]
mod tools;
#[allow(unused_imports)]
pub use tools::*;
