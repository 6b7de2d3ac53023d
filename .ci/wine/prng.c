/* A stand-in for Windows' bcryptprimitives.dll, which wine 8.0 (Debian bookworm) lacks: Rust's std imports
 * ProcessPrng from it, and without it every Rust program exits 53 before main. Built and installed into the
 * tests' wine prefix by .ci/install-deps (see .ci/wine/setup.sh). ProcessPrng fills the buffer from
 * advapi32's RtlGenRandom (SystemFunction036), whose length is a ULONG: hence the chunks. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
