//! Running a kernel through the interpreter (`asmgen::sem::interp`) on the process's own buffers, for the
//! tests that compare it with a native kernel (tests/tests/interp_*.rs): [`interpret`], and [`call_native`] for
//! the native side; [`compare_with_native`], every kernel of an ISA's sets interpreted beside a native x86_64
//! kernel of the same role; and [`sm4_backend_matches_rustcrypto`], the check of an interpreter backend
//! (`interp/<set>`) through the API.

use crate::kernel_calls::{is_setup, Buffers, BUFFER_BLOCKS, COUNTS};
use crate::Rng;
use asmgen::sem::interp::{Interp, Program};
use asmgen::sem::{Fault, Memory};
use asmgen::{Abi, CType, Function, Label};
use asmgen_kernels::catalog::KernelSet;
use std::collections::HashMap;

/// The process's own memory, read and written through raw pointers, and the function's constants.
struct Host {
    labels: HashMap<String, u64>,
}

impl Memory for Host {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        // SAFETY: `interpret`'s contract: the addresses are the caller's buffers, the stack and the constants.
        unsafe { std::ptr::copy_nonoverlapping(addr as usize as *const u8, out.as_mut_ptr(), out.len()) };
        Ok(())
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        // SAFETY: as for `read`.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), addr as usize as *mut u8, data.len()) };
        Ok(())
    }
    fn label(&self, l: &Label) -> Option<u64> {
        self.labels.get(l.name()).copied()
    }
}

/// Interprets `f` on `args` on a machine of `model` (riscv64: VLEN) with a private 64 KiB stack, its stack
/// pointer on entry as a call leaves it; panics where the run stops early.
///
/// # Safety
/// `args` must be what `f`'s role takes: pointers to buffers as large as the role reads and writes for the
/// counts in `args`, which the kernel then accesses as its native twin would.
pub unsafe fn interpret<I: Interp>(f: &Function<I>, args: &[u64], model: I::Model) {
    let p = Program::new(f);
    let labels = p.consts.iter().map(|(l, b)| (l.name().to_string(), b.as_ptr() as u64)).collect();
    let mut stack = vec![0u8; 1 << 16];
    let top = ((stack.as_mut_ptr() as u64 + (1 << 16)) & !15) - I::ENTRY_MISALIGN;
    p.call(&mut Host { labels }, args, top, model, 1 << 32).unwrap_or_else(|e| panic!("{}: {e:?}", f.name));
}

/// Calls the native kernel at `entry` on `args` (at most six integer or pointer arguments).
///
/// # Safety
/// `entry` must be an `extern "C"` kernel of this target that takes at most six such arguments (System V or
/// AAPCS64: in registers, so passing six is harmless), and `args` what its role takes, as for [`interpret`].
pub unsafe fn call_native(entry: *const (), args: &[u64]) {
    let mut six = [0u64; 6];
    six[..args.len()].copy_from_slice(args);
    // SAFETY: the caller's contract.
    let f: extern "C" fn(u64, u64, u64, u64, u64, u64) = unsafe { std::mem::transmute(entry) };
    f(six[0], six[1], six[2], six[3], six[4], six[5]);
}

/// The linked x86_64 kernels, by role, of the first x86_64 set this CPU runs for which `pick(name, listing)`
/// holds; `None` where there is none.
pub fn native_set(pick: impl Fn(&str, &str) -> bool) -> Option<HashMap<&'static str, *const ()>> {
    let linked = asmgen_runtime::abi_test::kernels();
    let set = asmgen_kernels::catalog::X86_64_SETS.iter().filter(|s| pick(s.name, s.listing)).find(|s| {
        let of_set: Vec<_> = linked.iter().filter(|k| k.set == s.name).collect();
        !of_set.is_empty() && of_set.iter().all(|k| k.available)
    })?;
    Some(linked.iter().filter(|k| k.set == set.name).map(|k| (k.role, k.entry)).collect())
}

/// The bytes of the outputs of a call (the parameters that are neither keys, key tables, inputs nor sizes).
fn outputs(params: &[(&str, CType)], args: &[u64]) -> Vec<Vec<u8>> {
    let out = params.iter().zip(args).filter(|((name, ty), _)| {
        *ty != CType::Size
            && !matches!(*name, "rk" | "rk_enc" | "rk_dec" | "rk_tweak" | "key" | "h" | "src" | "data")
            && !name.contains("table")
    });
    out.map(|((name, _), &p)| {
        let len = if *name == "dst" { 16 * BUFFER_BLOCKS } else { 64 };
        // SAFETY: `Buffers` holds BUFFER_BLOCKS (+1) blocks of destination and 64 bytes of each state.
        unsafe { std::slice::from_raw_parts(p as *const u8, len) }.to_vec()
    })
    .collect()
}

/// Interprets every kernel of every set of `sets` (built for `abi`, on a machine of `model`) over the block
/// counts of [`COUNTS`] on [`Buffers`], beside the native x86_64 kernel of its role from `reference(set)` (a
/// set without one is left out) on a copy of those buffers, setup roles (key schedule, key tables, whose layouts
/// may differ) first; every output buffer must come out equal. Returns one line per mismatch and the number of
/// calls compared.
pub fn compare_with_native<I: Interp>(
    sets: &[KernelSet<I>],
    abi: Abi,
    model: I::Model,
    reference: impl Fn(&KernelSet<I>) -> Option<HashMap<&'static str, *const ()>>,
) -> (Vec<String>, usize) {
    let (mut bad, mut compared) = (Vec::new(), 0);
    for set in sets {
        let Some(natives) = reference(set) else { continue };
        let kernels = set.build_all(abi).unwrap();
        let (mut ours, mut theirs) = (Buffers::new(&mut Rng::new(7)), Buffers::new(&mut Rng::new(7)));
        let setup = kernels.iter().filter(|k| is_setup(k.role.name()));
        for k in setup.chain(kernels.iter().filter(|k| !is_setup(k.role.name()))) {
            let role = k.role.name();
            let Some(&native) = natives.get(role) else { continue };
            for n in if is_setup(role) { &[0][..] } else { &COUNTS[..] } {
                let (a, b) = (ours.args(role, *n), theirs.args(role, *n));
                // SAFETY: `Buffers` is as large as every role needs for the counts of `COUNTS`, and `native` is a
                // linked kernel of the role.
                unsafe {
                    interpret(&k.function, &a, model);
                    call_native(native, &b);
                }
                if outputs(k.role.params(), &a) != outputs(k.role.params(), &b) {
                    bad.push(format!("{} {role} ({}), {n} blocks", set.name, k.function.name));
                }
                compared += 1;
            }
        }
    }
    (bad, compared)
}

/// ECB, CTR (across a carry out of the counter's low 64 bits), XTS (IEEE, with a partial last block) and GCM of
/// the SM4 backend `backend` (`interp/<set>`, or any other) through the safe API against RustCrypto, on random
/// keys and data of `lengths` bytes (each at least 21) from `rng`.
pub fn sm4_backend_matches_rustcrypto(backend: &str, lengths: &[usize], rng: &mut Rng) {
    use aead::{AeadInOut, KeyInit};
    use asmgen_runtime::{Sm4, Sm4Gcm, Sm4Xts};
    use cipher::{BlockCipherEncrypt, KeyIvInit, StreamCipher};
    let (key, key2, iv) = (rng.block(), rng.block(), rng.block());
    let s = Sm4::with_backend(&key, backend).unwrap();
    assert_eq!(s.backend(), backend);
    let rc = sm4::Sm4::new(&key.into());
    for &len in lengths {
        let mut data = vec![0u8; len];
        rng.fill(&mut data);
        // ECB.
        let mut buf = data.clone();
        s.encrypt_ecb(&mut buf).unwrap();
        let mut want = data.clone();
        want.chunks_mut(16).for_each(|b| rc.encrypt_block(b.try_into().unwrap()));
        assert_eq!(buf, want, "{backend} ECB, {len} bytes");
        // CTR (a counter that carries out of its low 64 bits).
        let mut ctr = [0xff; 16];
        ctr[0] = 1;
        let mut buf = data.clone();
        s.apply_ctr(&mut ctr.clone(), &mut buf);
        let mut want = data.clone();
        ctr::Ctr128BE::<sm4::Sm4>::new(&key.into(), &ctr.into()).apply_keystream(&mut want);
        assert_eq!(buf, want, "{backend} CTR, {len} bytes");
        // XTS (IEEE), with a partial last block.
        let x = Sm4Xts::with_backend(&key, &key2, backend).unwrap();
        let mut buf = data[..len - 5].to_vec();
        x.encrypt(&iv, &mut buf).unwrap();
        assert_eq!(
            buf,
            crate::rc_xts_ieee(&key, &key2, &iv, &data[..len - 5], false),
            "{backend} XTS, {} bytes",
            len - 5
        );
        // GCM.
        let g = Sm4Gcm::with_backend(&key, backend).unwrap();
        let nonce = &iv[..12];
        let mut buf = data.clone();
        let tag = g.encrypt(nonce, b"aad", &mut buf).unwrap();
        let rc_gcm = aes_gcm::AesGcm::<sm4::Sm4, cipher::consts::U12>::new(&key.into());
        let mut want = data.clone();
        let want_tag =
            rc_gcm.encrypt_inout_detached(nonce.try_into().unwrap(), b"aad", want.as_mut_slice().into()).unwrap();
        assert_eq!((buf, tag), (want, want_tag.into()), "{backend} GCM, {len} bytes");
    }
}
