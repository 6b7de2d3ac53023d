//! Emitters: from [`Listing`](crate::ir::Listing)s to text.
//!
//! * [`gas`]: GNU as listings (`generated/<target>/<kernel>.S`), spelled as [`crate::syntax`] says.
//! * [`rust`]: the Rust `extern` declarations of the listings' functions, so no one writes them by hand.

pub mod gas;
pub mod rust;

pub use gas::listing;
