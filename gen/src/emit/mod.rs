//! Emitters: from [`Listing`](crate::ir::Listing)s to text.
//!
//! * [`gas`]: GNU as listings (`generated/<target>/<kernel>.S`), one flavour table per target.
//! * [`layout`]: function alignment, emission order and the constant pool, shared with the JIT lowering.
//! * [`rust`]: the Rust `extern` declarations of the listings' functions, so no one writes them by hand.

pub mod gas;
pub mod layout;
pub mod rust;

pub use gas::listing;
