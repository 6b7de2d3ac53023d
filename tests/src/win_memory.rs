//! Windows memory queries for the JIT tests: a page's protection (`VirtualQuery`).

/// PAGE_EXECUTE_READ (winnt.h).
pub const PAGE_EXECUTE_READ: u32 = 0x20;

/// MEMORY_BASIC_INFORMATION (winnt.h).
#[repr(C)]
struct MemoryBasicInformation {
    base: *mut u8,
    allocation_base: *mut u8,
    allocation_protect: u32,
    partition_id: u16,
    region_size: usize,
    state: u32,
    protect: u32,
    kind: u32,
}

#[link(name = "kernel32")]
extern "system" {
    fn VirtualQuery(address: *const u8, info: *mut MemoryBasicInformation, length: usize) -> usize;
}

/// The protection of the page holding address `at` (MEMORY_BASIC_INFORMATION.Protect).
pub fn protection(at: usize) -> u32 {
    let mut info = std::mem::MaybeUninit::<MemoryBasicInformation>::zeroed();
    // SAFETY: VirtualQuery writes at most `length` bytes of the structure it is given.
    let n = unsafe { VirtualQuery(at as *const u8, info.as_mut_ptr(), std::mem::size_of::<MemoryBasicInformation>()) };
    assert_eq!(n, std::mem::size_of::<MemoryBasicInformation>(), "VirtualQuery failed");
    // SAFETY: VirtualQuery filled it (zeroed before in any case).
    unsafe { info.assume_init() }.protect
}
