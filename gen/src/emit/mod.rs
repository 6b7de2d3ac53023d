//! Emitters: from [`Listing`](crate::ir::Listing)s to text.
//!
//! * [`gas`]: GNU as listings (`generated/<target>/<kernel>.S`), spelled as [`crate::syntax`] says.
//! * [`nasm`]: NASM listings of the x86_64-windows functions (`generated/x86_64-windows/<kernel>.asm`), with
//!   their SEH unwind data written out.
//! * [`rust`]: the Rust `extern` declarations of the listings' functions, so no one writes them by hand.
//! * [`c_header`]: the C header of each listing (`generated/<target>/asmgen_<listing>.h`): prototypes, the
//!   roles' contracts, size macros and the kernel sets.

pub mod c_header;
pub mod gas;
pub mod nasm;
mod origin;
pub mod rust;

pub use gas::listing;

pub use origin::Origin;
