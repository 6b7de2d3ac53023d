/* A C program using asmgen's headers and listings (generated/<target>/asmgen_{ghash,sm4}.h, ghash.S, sm4.S):
 * picks the kernel sets the CPU has (x86_64: __builtin_cpu_supports; aarch64: getauxval(AT_HWCAP); riscv64:
 * the riscv_hwprobe system call) and checks each set against published vectors, one line per check.
 * Build: ./build.sh (gcc, clang, natively or cross; see there).
 * Covered, per kernel set: GHASH, POLYVAL, SM4 (ECB), SM4-CTR, SM4-XTS (IEEE 1619 and GB/T 17964: whole data
 * units, ciphertext stealing included, through the xts_unit kernels), SM4-GCM encrypt/decrypt (glue over
 * ECB + CTR + GHASH, the fused gcm_enc kernel, and the fused gcm_dec kernel with its tag check and the restore
 * on a bad tag, where the set has them), and every function taking a count called with 0 (the xts_unit
 * kernels also with 15 bytes), which must leave every buffer as it was. */
#define _DEFAULT_SOURCE /* syscall() under -std=c99 (riscv64) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asmgen_ghash.h"
#include "asmgen_sm4.h"

/* The roles' C signatures (every kernel of a role has its role's). */
typedef void (*expand_fn)(uint8_t *, uint8_t *, const uint8_t *);
typedef void (*ecb_fn)(const uint8_t *, uint8_t *, const uint8_t *, size_t); /* ecb and cbc_mac */
/* ctr, cbc_*, cfb_*, xts_*: (rk, dst, src, nblocks, counter / IV / tweak) */
typedef void (*mode_fn)(const uint8_t *, uint8_t *, const uint8_t *, size_t, uint8_t *);
/* xts_unit_*: (rk, rk_tweak, dst, src, len in bytes, iv) */
typedef void (*xts_unit_fn)(const uint8_t *, const uint8_t *, uint8_t *, const uint8_t *, size_t, const uint8_t *);
/* gcm_enc, gcm_dec: (rk_enc, htable, dst, src, nblocks, state) */
typedef void (*gcm_fn)(const uint8_t *, const uint8_t *, uint8_t *, const uint8_t *, size_t, uint8_t *);
typedef void (*ccm_fn)(const uint8_t *, uint8_t *, const uint8_t *, size_t, uint8_t *, uint8_t *);
typedef void (*hinit_fn)(uint8_t *, const uint8_t *);
typedef void (*hupdate_fn)(uint8_t *, const uint8_t *, const uint8_t *, size_t);

/* A kernel set of each listing, as the headers' set tables list them; a role the set lacks is NULL. */
struct sm4_set {
    const char *name;
    int have;
    expand_fn expand;
    ecb_fn ecb, cbc_mac;
    mode_fn ctr, cbc_enc, cbc_dec, cfb_enc, cfb_dec, xts_enc_ieee, xts_dec_ieee, xts_enc_gb, xts_dec_gb;
    xts_unit_fn xts_unit_enc_ieee, xts_unit_dec_ieee, xts_unit_enc_gb, xts_unit_dec_gb;
    gcm_fn gcm_enc, gcm_dec;
    ccm_fn ccm_enc, ccm_dec;
};
struct hash_set {
    const char *name;
    int have;
    hinit_fn ghash_init, polyval_init;
    hupdate_fn ghash_update, polyval_update;
};
#define HASH_SET(n, s)                                                                                     \
    {.name = n, .ghash_init = asmgen_ghash_init_##s, .ghash_update = asmgen_ghash_update_##s,               \
     .polyval_init = asmgen_polyval_init_##s, .polyval_update = asmgen_polyval_update_##s}
/* The SM4 roles in groups, each group's functions from the listing functions with suffix s. Every set with
 * XTS has both the whole-block kernels (xts_*_ieee, xts_*_gb: the caller encrypts the tweak and steals
 * ciphertext itself) and the unit kernels (xts_unit_*: one call per data unit, tweak and stealing inside);
 * the vectors go through the unit kernels, the whole-block ones get the zero-count check only. */
#define SERIAL(s)                                                                                          \
    .cbc_enc = asmgen_sm4_cbc_enc_##s, .cfb_enc = asmgen_sm4_cfb_enc_##s, .cbc_mac = asmgen_sm4_cbc_mac_##s
#define PARALLEL(s)                                                                                        \
    .ecb = asmgen_sm4_ecb_##s, .ctr = asmgen_sm4_ctr_##s, .cbc_dec = asmgen_sm4_cbc_dec_##s,               \
    .cfb_dec = asmgen_sm4_cfb_dec_##s
#define XTS(s)                                                                                             \
    .xts_enc_ieee = asmgen_sm4_xts_enc_ieee_##s, .xts_dec_ieee = asmgen_sm4_xts_dec_ieee_##s,               \
    .xts_enc_gb = asmgen_sm4_xts_enc_gb_##s, .xts_dec_gb = asmgen_sm4_xts_dec_gb_##s,                       \
    .xts_unit_enc_ieee = asmgen_sm4_xts_unit_enc_ieee_##s,                                                 \
    .xts_unit_dec_ieee = asmgen_sm4_xts_unit_dec_ieee_##s,                                                 \
    .xts_unit_enc_gb = asmgen_sm4_xts_unit_enc_gb_##s, .xts_unit_dec_gb = asmgen_sm4_xts_unit_dec_gb_##s
#define GCM(s) .gcm_enc = asmgen_sm4_gcm_enc_##s, .gcm_dec = asmgen_sm4_gcm_dec_##s
#define CCM(s) .ccm_enc = asmgen_sm4_ccm_enc_##s, .ccm_dec = asmgen_sm4_ccm_dec_##s

#if defined(__x86_64__)
static struct hash_set hash_sets[] = {HASH_SET("pclmulqdq-avx", avx), HASH_SET("vpclmul-avx2", vpclmul_avx2),
                                      HASH_SET("vpclmul-avx512", vpclmul_avx512)};
/* Kernel sets, best last. Every set takes its key schedule from the AVX set, the AVX2 and VAES sets their
 * serial modes and CCM too; the VAES + AVX-512 and GFNI + AVX-512 sets have their own batch modes only, the rest
 * is the VAES or the GFNI set's. */
static struct sm4_set sets[] = {
    {.name = "avx", .expand = asmgen_sm4_expand_key_avx, SERIAL(avx), PARALLEL(avx),
     XTS(avx), GCM(avx), CCM(avx)},
    {.name = "avx2", .expand = asmgen_sm4_expand_key_avx, SERIAL(avx), PARALLEL(avx2),
     XTS(avx2), GCM(avx2), CCM(avx)},
    {.name = "vaes", .expand = asmgen_sm4_expand_key_avx, SERIAL(avx), PARALLEL(vaes),
     XTS(vaes), GCM(vaes), CCM(avx)},
    {.name = "vaes512", .expand = asmgen_sm4_expand_key_avx, SERIAL(avx), PARALLEL(vaes512),
     XTS(vaes), GCM(vaes), CCM(avx)},
    {.name = "gfni", .expand = asmgen_sm4_expand_key_avx, SERIAL(gfni), PARALLEL(gfni),
     XTS(gfni), GCM(gfni), CCM(gfni)},
    {.name = "gfni512", .expand = asmgen_sm4_expand_key_avx, SERIAL(gfni), PARALLEL(gfni512),
     XTS(gfni), GCM(gfni), CCM(gfni)},
};
/* Marks the sets the CPU has (their `requires` lines in the headers). */
static void detect(void) {
    int base, avx2;
    __builtin_cpu_init();
    base = __builtin_cpu_supports("avx") && __builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul");
    avx2 = base && __builtin_cpu_supports("avx2");
    hash_sets[0].have = __builtin_cpu_supports("avx") && __builtin_cpu_supports("pclmul");
    hash_sets[1].have =
        hash_sets[0].have && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq");
    hash_sets[2].have =
        hash_sets[1].have && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    sets[0].have = base;
    sets[1].have = avx2;
    sets[2].have = avx2 && __builtin_cpu_supports("vaes");
    sets[3].have = sets[2].have && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    sets[4].have = avx2 && __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("gfni");
    sets[5].have = sets[4].have && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("bmi2");
}
#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_PMULL
#define HWCAP_PMULL (1 << 4)
#endif
#ifndef HWCAP_SM4
#define HWCAP_SM4 (1 << 19)
#endif
static struct hash_set hash_sets[] = {HASH_SET("pmull", pmull)};
static struct sm4_set sets[] = {
    {.name = "neon", .expand = asmgen_sm4_expand_key_neon, SERIAL(neon), PARALLEL(neon)},
    {.name = "ce", .expand = asmgen_sm4_expand_key_ce, SERIAL(ce), PARALLEL(ce), XTS(ce), GCM(ce), CCM(ce)},
};
static void detect(void) {
    unsigned long hw = getauxval(AT_HWCAP);
    hash_sets[0].have = (hw & HWCAP_PMULL) != 0;
    sets[0].have = 1; /* Advanced SIMD is baseline */
    sets[1].have = (hw & HWCAP_PMULL) && (hw & HWCAP_SM4);
}
#elif defined(__riscv) && __riscv_xlen == 64
#include <unistd.h>
/* riscv_hwprobe (Linux 6.4 and later, system call 258): key 4, RISCV_HWPROBE_KEY_IMA_EXT_0, answers a bit per
 * extension (Linux's uapi asm/hwprobe.h). A kernel without the call answers ENOSYS: no set is used then. */
#define EXT_V (1ull << 2)
#define EXT_ZBB (1ull << 4)
#define EXT_ZBC (1ull << 7)
#define EXT_ZKSED (1ull << 14)
#define EXT_ZVKB (1ull << 19)
#define EXT_ZVKG (1ull << 20)
#define EXT_ZVKSED (1ull << 24)
static unsigned long long hwprobe_ext0(void) {
    struct { long long key; unsigned long long value; } pair = {4, 0};
    if (syscall(258, &pair, 1, 0, NULL, 0) != 0 || pair.key != 4) return 0;
    return pair.value;
}
static int has(unsigned long long ext, unsigned long long want) { return (ext & want) == want; }
static struct hash_set hash_sets[] = {HASH_SET("zbc", zbc), HASH_SET("zvkg", zvkg)};
static struct sm4_set sets[] = {
    {.name = "zksed", .expand = asmgen_sm4_expand_key_zksed, SERIAL(zksed), PARALLEL(zksed)},
    {.name = "zvksed", .expand = asmgen_sm4_expand_key_zvksed, SERIAL(zvksed), PARALLEL(zvksed), XTS(zvksed)},
};
static void detect(void) {
    unsigned long long ext = hwprobe_ext0();
    hash_sets[0].have = has(ext, EXT_ZBB | EXT_ZBC);
    hash_sets[1].have = has(ext, EXT_V | EXT_ZVKB | EXT_ZVKG);
    sets[0].have = has(ext, EXT_ZBB | EXT_ZKSED);
    sets[1].have = has(ext, EXT_V | EXT_ZVKB | EXT_ZVKG | EXT_ZVKSED);
}
#else
#error "examples/c covers x86_64, aarch64 and riscv64"
#endif
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int failures;

static void hex(const char *s, uint8_t *out) {
    unsigned v;
    for (; *s; s += 2, out++) { sscanf(s, "%2x", &v); *out = (uint8_t)v; }
}

/* Reports a check, good or not; what is a printf format naming the set with %s. */
static void check(const char *what, const char *set, int good) {
    failures += !good;
    printf(good ? "ok " : "FAIL ");
    printf(what, set);
    printf("\n");
}

/* Reports a check of got (len bytes) against want_hex. */
static void expect_n(const char *what, const char *set, const uint8_t *got, const char *want_hex, size_t len) {
    uint8_t want[64];
    hex(want_hex, want);
    check(what, set, memcmp(got, want, len) == 0);
}

static void expect(const char *what, const char *set, const uint8_t *got, const char *want_hex) {
    expect_n(what, set, got, want_hex, 16);
}

/* GCM specification (McGrew & Viega), test case 2: GHASH(H, {}, C) over C and the lengths block. */
static void ghash_case_2(const struct hash_set *g) {
    uint8_t h[ASMGEN_GHASH_KEY_BYTES], data[2 * ASMGEN_GHASH_BLOCK_BYTES] = {0};
    uint8_t table[ASMGEN_GHASH_KEY_TABLE_BYTES], state[ASMGEN_GHASH_STATE_BYTES] = {0};
    hex("66e94bd4ef8a2c3b884cfa59ca342b2e", h);
    hex("0388dace60b6a392f328c2b971b2fe78", data);
    data[31] = 0x80; /* len(A) = 0, len(C) = 128 bits */
    g->ghash_init(table, h);
    g->ghash_update(state, table, data, 2);
    expect("ghash %s (GCM spec test case 2)", g->name, state, "f38cbb1ad69223dcc3457ae5b6b0f885");
}

/* RFC 8452, appendix A: POLYVAL(H, X_1, X_2). */
static void polyval_rfc8452(const struct hash_set *g) {
    uint8_t h[16], data[32], table[ASMGEN_GHASH_KEY_TABLE_BYTES], state[16] = {0};
    hex("25629347589242761d31f826ba4b757b", h);
    hex("4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362", data);
    g->polyval_init(table, h);
    g->polyval_update(state, table, data, 2);
    expect("polyval %s (RFC 8452 appendix A)", g->name, state, "f7a3b47b846119fae5b7866cf5e5b77e");
}

/* GB/T 32907-2016, example 1: key = plaintext = 0123456789abcdeffedcba9876543210. */
static void sm4_example(const struct sm4_set *set) {
    uint8_t key[ASMGEN_SM4_KEY_BYTES], block[ASMGEN_SM4_BLOCK_BYTES];
    uint8_t rk_enc[ASMGEN_SM4_ROUND_KEYS_BYTES], rk_dec[ASMGEN_SM4_ROUND_KEYS_BYTES];
    hex("0123456789abcdeffedcba9876543210", key);
    memcpy(block, key, 16);
    set->expand(rk_enc, rk_dec, key);
    set->ecb(rk_enc, block, block, 1);
    expect("sm4 encrypt %s (GB/T 32907 example 1)", set->name, block, "681edf34d206965e86b3e94f536e4246");
    set->ecb(rk_dec, block, block, 1);
    expect("sm4 decrypt %s (GB/T 32907 example 1)", set->name, block, "0123456789abcdeffedcba9876543210");
}

/* draft-ribose-cfrg-sm4 (section "SM4-CTR" examples, as in OpenSSL's evpciph_sm4.txt): key = IV =
 * 0123456789abcdeffedcba9876543210, 64 bytes; the counter block is big-endian and advances by 4. */
static void sm4_ctr_example(const struct sm4_set *set) {
    uint8_t key[16], iv[16], rk_enc[ASMGEN_SM4_ROUND_KEYS_BYTES], rk_dec[ASMGEN_SM4_ROUND_KEYS_BYTES];
    uint8_t buf[64];
    hex("0123456789abcdeffedcba9876543210", key);
    memcpy(iv, key, 16);
    hex("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
        "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa", buf);
    set->expand(rk_enc, rk_dec, key);
    set->ctr(rk_enc, buf, buf, 4, iv);
    expect_n("sm4-ctr %s (draft-ribose-cfrg-sm4)", set->name, buf,
             "c2b4759e78ac3cf43d0852f4e8d5f9fd7256e8a5fcb65a350ee00630912e4449"
             "2a0b17e1b85b060d0fba612d8a95831638b361fd5ffacd942f081485a83ca35d", 64);
    expect("sm4-ctr %s counter + 4", set->name, iv, "0123456789abcdeffedcba9876543214");
}

/* The batch kernels past their widest loop (the zmm sets run 48 blocks at a time, the ymm sets 16): ECB,
 * CTR (from a counter whose increment carries across bytes) and CBC decryption over LONG_BLOCKS blocks,
 * against the same set's one-block ECB, which GB/T 32907 example 1 checks above. */
#define LONG_BLOCKS 100
static void sm4_long_batches(const struct sm4_set *set) {
    static uint8_t pt[LONG_BLOCKS * 16], out[LONG_BLOCKS * 16], want[LONG_BLOCKS * 16];
    uint8_t key[16], rk_enc[ASMGEN_SM4_ROUND_KEYS_BYTES], rk_dec[ASMGEN_SM4_ROUND_KEYS_BYTES];
    uint8_t ctr[16], next[16], iv[16], ks[16];
    size_t i, j;
    for (i = 0; i < sizeof pt; i++) pt[i] = (uint8_t)(i * 31 + 7);
    for (i = 0; i < 16; i++) key[i] = (uint8_t)(0xa5 ^ i);
    set->expand(rk_enc, rk_dec, key);
    for (i = 0; i < LONG_BLOCKS; i++) set->ecb(rk_enc, want + 16 * i, pt + 16 * i, 1);
    set->ecb(rk_enc, out, pt, LONG_BLOCKS);
    check("sm4-ecb %s, 100 blocks in one call against one block per call", set->name,
          memcmp(out, want, sizeof out) == 0);
    memset(ctr, 0, 16);
    ctr[0] = 0x01, ctr[13] = 0xff, ctr[14] = 0xff, ctr[15] = 0xd0;
    memcpy(next, ctr, 16);
    for (i = 0; i < LONG_BLOCKS; i++) {
        set->ecb(rk_enc, ks, next, 1);
        for (j = 0; j < 16; j++) want[16 * i + j] = pt[16 * i + j] ^ ks[j];
        for (j = 16; j-- > 0 && ++next[j] == 0;) {
        }
    }
    set->ctr(rk_enc, out, pt, LONG_BLOCKS, ctr);
    check("sm4-ctr %s, 100 blocks (a carry into byte 12) against one-block ECB", set->name,
          memcmp(out, want, sizeof out) == 0 && memcmp(ctr, next, 16) == 0);
    memset(iv, 0x3c, 16);
    for (i = 0; i < LONG_BLOCKS; i++) {
        set->ecb(rk_dec, want + 16 * i, pt + 16 * i, 1);
        for (j = 0; j < 16; j++) want[16 * i + j] ^= i ? pt[16 * (i - 1) + j] : iv[j];
    }
    set->cbc_dec(rk_dec, out, pt, LONG_BLOCKS, iv);
    check("sm4-cbc decrypt %s, 100 blocks against one-block ECB", set->name,
          memcmp(out, want, sizeof out) == 0 && memcmp(iv, pt + 16 * (LONG_BLOCKS - 1), 16) == 0);
}

/* SM4-XTS as OpenSSL's evpciph_sm4.txt carries it (IEEE 1619 and GB/T 17964-2021 tweaks): K1 || K2 =
 * 2b7e151628aed2a6abf7158809cf4f3c || 000102030405060708090a0b0c0d0e0f, IV f0f1..ff, one 56-byte data unit:
 * three whole blocks and an 8-byte tail, so ciphertext stealing rewrites the third block and makes the tail.
 * The unit kernels take K1's schedule (rk_enc to encrypt, rk_dec to decrypt), K2's rk_enc for the tweak and
 * the IV itself; each direction runs out of place (src and dst apart) and in place (dst = src). */
static void sm4_xts_openssl(const struct sm4_set *set) {
    static const char pt_hex[] = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                                 "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17";
    static const char *const ct_hex[2] = {
        "e9538251c71d7b80bbe4483fef497bd1b3db1a3e60408c575d63ff7db39f8326" /* IEEE 1619 */
        "0869f9e2585fec9f0b863bf8fd784b8627d16c0db6d2cfc7",
        "e9538251c71d7b80bbe4483fef497bd12c5c581bd6242fc51e08964fb4f60fdb" /* GB/T 17964 */
        "0ba42f63499279213d318d2c11f6886e903be7f93a1b3479",
    };
    static const char *const what[2][2][2] = {
        {{"sm4-xts ieee encrypt %s out of place (evpciph_sm4.txt, 56 bytes)", "sm4-xts ieee encrypt %s in place"},
         {"sm4-xts ieee decrypt %s out of place", "sm4-xts ieee decrypt %s in place"}},
        {{"sm4-xts gb encrypt %s out of place (evpciph_sm4.txt, 56 bytes)", "sm4-xts gb encrypt %s in place"},
         {"sm4-xts gb decrypt %s out of place", "sm4-xts gb decrypt %s in place"}},
    };
    uint8_t k1[16], k2[16], rk1_enc[128], rk1_dec[128], rk2_enc[128], rk2_dec[128];
    uint8_t iv[16], pt[56], ct[56], buf[56];
    int gb, in_place;
    hex("2b7e151628aed2a6abf7158809cf4f3c", k1);
    hex("000102030405060708090a0b0c0d0e0f", k2);
    hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", iv);
    hex(pt_hex, pt);
    set->expand(rk1_enc, rk1_dec, k1);
    set->expand(rk2_enc, rk2_dec, k2);
    for (gb = 0; gb < 2; gb++)
        for (in_place = 0; in_place < 2; in_place++) {
            xts_unit_fn enc = gb ? set->xts_unit_enc_gb : set->xts_unit_enc_ieee;
            xts_unit_fn dec = gb ? set->xts_unit_dec_gb : set->xts_unit_dec_ieee;
            hex(ct_hex[gb], ct);
            memcpy(buf, pt, 56);
            enc(rk1_enc, rk2_enc, buf, in_place ? buf : pt, 56, iv);
            expect_n(what[gb][0][in_place], set->name, buf, ct_hex[gb], 56);
            memset(buf, 0, 56);
            if (in_place) memcpy(buf, ct, 56);
            dec(rk1_dec, rk2_enc, buf, in_place ? buf : ct, 56, iv);
            expect_n(what[gb][1][in_place], set->name, buf, pt_hex, 56);
        }
    /* A 17-byte GB unit (tests/tests/sm4_xts.rs checks it too): one whole block and a 1-byte tail. */
    hex("fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0", k1);
    hex("bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0", k2);
    hex("9a785634120000000000000000000000", iv);
    hex("000102030405060708090a0b0c0d0e0f10", buf);
    set->expand(rk1_enc, rk1_dec, k1);
    set->expand(rk2_enc, rk2_dec, k2);
    set->xts_unit_enc_gb(rk1_enc, rk2_enc, buf, buf, 17, iv);
    expect_n("sm4-xts gb encrypt %s 17 bytes", set->name, buf, "9e52443a35410ca0ba5637b94c0766f469", 17);
    set->xts_unit_dec_gb(rk1_dec, rk2_enc, buf, buf, 17, iv);
    expect_n("sm4-xts gb decrypt %s 17 bytes", set->name, buf, "000102030405060708090a0b0c0d0e0f10", 17);
}

/* RFC 8998 appendix A.1: SM4-GCM with a 12-byte IV, 20 bytes of AAD and 64 of text, and what the glue
 * derives from them: H = E(0) (into the GHASH key table), J0 = IV || 00000001 and E(J0). */
struct gcm_case {
    uint8_t rk_enc[ASMGEN_SM4_ROUND_KEYS_BYTES], rk_dec[ASMGEN_SM4_ROUND_KEYS_BYTES];
    uint8_t table[ASMGEN_GHASH_KEY_TABLE_BYTES], j0[16], ej0[16], aad[32], lens[16], pt[64], ct[64];
};
static const char gcm_pt_hex[] = "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
                                 "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa";
static const char gcm_ct_hex[] = "17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735"
                                 "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d";
static const char gcm_tag_hex[] = "83de3541e4c2b58177e065a9bf7b62ec";

static void gcm_case_init(struct gcm_case *c, const struct sm4_set *set, const struct hash_set *g) {
    uint8_t key[16], h[16] = {0};
    memset(c, 0, sizeof *c);
    hex("0123456789abcdeffedcba9876543210", key);
    hex("00001234567800000000abcd", c->j0);
    c->j0[15] = 1;
    hex("feedfacedeadbeeffeedfacedeadbeefabaddad2", c->aad); /* 20 bytes, zero-padded to 32 */
    hex(gcm_pt_hex, c->pt);
    hex(gcm_ct_hex, c->ct);
    c->lens[7] = 20 * 8;         /* len(A) in bits, big-endian */
    c->lens[14] = (64 * 8) >> 8; /* len(C) = 512 bits */
    set->expand(c->rk_enc, c->rk_dec, key);
    set->ecb(c->rk_enc, h, h, 1);
    set->ecb(c->rk_enc, c->ej0, c->j0, 1);
    g->ghash_init(c->table, h);
}

/* The glue: the data under CTR from inc32(J0), S = GHASH(A padded || C || len(A) || len(C)), tag = E(J0) xor S.
 * Encryption runs CTR then GHASH over C; decryption GHASHes C before CTR overwrites it (here the output is a
 * separate buffer; in place, GHASH must see C first). Where the set has gcm_enc, it encrypts once more in
 * one pass: its state is the counter block inc32(J0) and the GHASH state after the AAD. */
static void sm4_gcm_rfc8998(const struct sm4_set *set, const struct hash_set *g) {
    struct gcm_case c;
    uint8_t ctr[16], s[16], tag[16], out[64], state[ASMGEN_SM4_GCM_STATE_BYTES];
    int i, pass;
    gcm_case_init(&c, set, g);
    for (pass = 0; pass < 3; pass++) { /* encrypt, decrypt, encrypt with gcm_enc */
        const uint8_t *in = pass == 1 ? c.ct : c.pt;
        if (pass == 2 && !set->gcm_enc) break;
        memcpy(ctr, c.j0, 16);
        ctr[15] = 2; /* inc32(J0) */
        memset(s, 0, 16);
        g->ghash_update(s, c.table, c.aad, 2);
        if (pass == 1) g->ghash_update(s, c.table, in, 4);
        if (pass == 2) {
            memcpy(state, ctr, 16);
            memcpy(state + 16, s, 16);
            set->gcm_enc(c.rk_enc, c.table, out, in, 4, state);
            memcpy(s, state + 16, 16);
        } else
            set->ctr(c.rk_enc, out, in, 4, ctr);
        if (pass == 0) g->ghash_update(s, c.table, out, 4);
        g->ghash_update(s, c.table, c.lens, 1);
        for (i = 0; i < 16; i++) tag[i] = c.ej0[i] ^ s[i];
        expect(pass == 0 ? "sm4-gcm encrypt tag %s (RFC 8998 A.1)"
               : pass == 1 ? "sm4-gcm decrypt tag %s (RFC 8998 A.1)"
                           : "sm4-gcm gcm_enc tag %s (RFC 8998 A.1)",
               set->name, tag, gcm_tag_hex);
        expect_n(pass == 0   ? "sm4-gcm ciphertext %s"
                 : pass == 1 ? "sm4-gcm decrypt plaintext %s"
                             : "sm4-gcm gcm_enc ciphertext %s",
                 set->name, out, pass == 1 ? gcm_pt_hex : gcm_ct_hex, 64);
    }
}

/* GCM decryption in place with gcm_dec, as asmgen_sm4.h's gcm_dec doc describes: one pass writes the
 * plaintext over buf (nblocks whole blocks) while GHASH absorbs the ciphertext, then the tag is checked. The
 * plaintext is there before the tag is known, so on a bad tag the keystream is applied once more, gcm_enc
 * over buf from a copy of the starting state, and buf holds the ciphertext again. Returns 1 if tag matched. */
static int gcm_open(const struct sm4_set *set, const struct hash_set *g, const struct gcm_case *c, uint8_t *buf,
                    size_t nblocks, const uint8_t *tag) {
    uint8_t state[ASMGEN_SM4_GCM_STATE_BYTES], start[ASMGEN_SM4_GCM_STATE_BYTES], diff = 0;
    int i;
    memcpy(state, c->j0, 16);
    state[15] = 2; /* inc32(J0) */
    memset(state + 16, 0, 16);
    g->ghash_update(state + 16, c->table, c->aad, 2);
    memcpy(start, state, sizeof state);
    set->gcm_dec(c->rk_enc, c->table, buf, buf, nblocks, state);
    g->ghash_update(state + 16, c->table, c->lens, 1);
    for (i = 0; i < 16; i++) diff |= (uint8_t)(c->ej0[i] ^ state[16 + i] ^ tag[i]); /* no early exit */
    if (diff == 0) return 1;
    set->gcm_enc(c->rk_enc, c->table, buf, buf, nblocks, start); /* restore: buf is the ciphertext again */
    return 0;
}

/* RFC 8998 A.1 through gcm_open: the right tag opens to the plaintext; a wrong one (last bit flipped) is
 * refused and leaves the ciphertext in the buffer. */
static void sm4_gcm_dec_rfc8998(const struct sm4_set *set, const struct hash_set *g) {
    struct gcm_case c;
    uint8_t buf[64], tag[16];
    int opened;
    gcm_case_init(&c, set, g);
    hex(gcm_tag_hex, tag);
    memcpy(buf, c.ct, 64);
    opened = gcm_open(set, g, &c, buf, 4, tag);
    check("sm4-gcm gcm_dec tag %s accepted (RFC 8998 A.1)", set->name, opened);
    expect_n("sm4-gcm gcm_dec plaintext %s", set->name, buf, gcm_pt_hex, 64);
    tag[15] ^= 1;
    memcpy(buf, c.ct, 64);
    opened = gcm_open(set, g, &c, buf, 4, tag);
    check("sm4-gcm gcm_dec wrong tag %s refused", set->name, !opened);
    expect_n("sm4-gcm gcm_dec wrong tag %s: ciphertext restored", set->name, buf, gcm_ct_hex, 64);
}

/* Every function taking a count (nblocks, or len in bytes for the xts_unit kernels), called with 0 on six
 * distinct buffers, must leave them all as they were; the xts_unit kernels also with len 15, under a block. */
static uint8_t zb[6][512], zsaved[6][512];
static int zero_calls, zero_failures;

static void zero_fill(void) {
    int i, j;
    for (i = 0; i < 6; i++)
        for (j = 0; j < 512; j++) zsaved[i][j] = zb[i][j] = (uint8_t)(31 * i + 7 * j + 1);
}

static void zero_check(const char *set, const char *role) {
    int i;
    for (i = 0; i < 6; i++)
        if (memcmp(zsaved[i], zb[i], 512) != 0) {
            printf("FAIL zero-count %s %s changed argument %d\n", role, set, i + 1);
            zero_failures++;
        }
    zero_calls++;
}

/* Calls s->role args, args with a zero count, where the set has the role. */
#define ZERO(s, role, args)                                                                                \
    do {                                                                                                   \
        if ((s)->role) { zero_fill(); (s)->role args; zero_check((s)->name, #role); }                     \
    } while (0)

static void zero_counts(const struct sm4_set *s, const struct hash_set *g) {
    int before = zero_calls, failed = zero_failures;
    const char *name = s ? s->name : g->name;
    if (g) {
        ZERO(g, ghash_update, (zb[0], zb[1], zb[2], 0));
        ZERO(g, polyval_update, (zb[0], zb[1], zb[2], 0));
    }
    if (s) {
        ZERO(s, ecb, (zb[0], zb[1], zb[2], 0));
        ZERO(s, cbc_mac, (zb[0], zb[1], zb[2], 0));
        ZERO(s, ctr, (zb[0], zb[1], zb[2], 0, zb[3]));
        ZERO(s, cbc_enc, (zb[0], zb[1], zb[2], 0, zb[3]));
        ZERO(s, cbc_dec, (zb[0], zb[1], zb[2], 0, zb[3]));
        ZERO(s, cfb_enc, (zb[0], zb[1], zb[2], 0, zb[3]));
        ZERO(s, cfb_dec, (zb[0], zb[1], zb[2], 0, zb[3]));
        ZERO(s, xts_enc_ieee, (zb[0], zb[1], zb[2], 0, zb[3]));
        ZERO(s, xts_dec_ieee, (zb[0], zb[1], zb[2], 0, zb[3]));
        ZERO(s, xts_enc_gb, (zb[0], zb[1], zb[2], 0, zb[3]));
        ZERO(s, xts_dec_gb, (zb[0], zb[1], zb[2], 0, zb[3]));
        ZERO(s, xts_unit_enc_ieee, (zb[0], zb[1], zb[2], zb[3], 0, zb[4]));
        ZERO(s, xts_unit_dec_ieee, (zb[0], zb[1], zb[2], zb[3], 0, zb[4]));
        ZERO(s, xts_unit_enc_gb, (zb[0], zb[1], zb[2], zb[3], 0, zb[4]));
        ZERO(s, xts_unit_dec_gb, (zb[0], zb[1], zb[2], zb[3], 0, zb[4]));
        ZERO(s, xts_unit_enc_ieee, (zb[0], zb[1], zb[2], zb[3], 15, zb[4]));
        ZERO(s, xts_unit_dec_ieee, (zb[0], zb[1], zb[2], zb[3], 15, zb[4]));
        ZERO(s, xts_unit_enc_gb, (zb[0], zb[1], zb[2], zb[3], 15, zb[4]));
        ZERO(s, xts_unit_dec_gb, (zb[0], zb[1], zb[2], zb[3], 15, zb[4]));
        ZERO(s, gcm_enc, (zb[0], zb[1], zb[2], zb[3], 0, zb[4]));
        ZERO(s, gcm_dec, (zb[0], zb[1], zb[2], zb[3], 0, zb[4]));
        ZERO(s, ccm_enc, (zb[0], zb[1], zb[2], 0, zb[3], zb[4]));
        ZERO(s, ccm_dec, (zb[0], zb[1], zb[2], 0, zb[3], zb[4]));
    }
    if (zero_failures == failed) printf("ok zero-count %s (%d calls)\n", name, zero_calls - before);
    failures += zero_failures - failed;
}

int main(void) {
    const struct hash_set *g = NULL;
    size_t i, nsets = 0;
    detect();
    for (i = 0; i < COUNT(hash_sets); i++)
        if (hash_sets[i].have) {
            g = &hash_sets[i];
            ghash_case_2(g), polyval_rfc8452(g), zero_counts(NULL, g);
        }
    for (i = 0; i < COUNT(sets) && g; i++)
        if (sets[i].have) {
            sm4_example(&sets[i]), sm4_ctr_example(&sets[i]), sm4_long_batches(&sets[i]);
            sm4_gcm_rfc8998(&sets[i], g);
            if (sets[i].xts_unit_enc_ieee) sm4_xts_openssl(&sets[i]);
            if (sets[i].gcm_dec) sm4_gcm_dec_rfc8998(&sets[i], g);
            zero_counts(&sets[i], NULL);
            nsets++;
        }
    if (!nsets) {
        printf("skip: the CPU lacks every GHASH or every SM4 kernel set\n");
        return 0;
    }
    printf("sets %d failures %d\n", (int)nsets, failures);
    return failures != 0;
}
