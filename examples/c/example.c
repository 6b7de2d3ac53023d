/* A C program using asmgen's headers and listings (generated/<target>/asmgen_{ghash,sm4}.h, ghash.S, sm4.S):
 * picks the kernel sets the CPU has (x86_64: __builtin_cpu_supports; aarch64: getauxval(AT_HWCAP); riscv64:
 * the riscv_hwprobe system call) and checks each set against published vectors, one line per check.
 * Build: ./build.sh (gcc, clang, natively or cross; see there).
 * Covered, per kernel set: GHASH, POLYVAL, SM4 (ECB), SM4-CTR, SM4-XTS (IEEE 1619 and GB/T 17964), SM4-GCM
 * encrypt/decrypt (glue over ECB + CTR + GHASH, and the fused gcm_enc kernel where the set has one), and every
 * function taking nblocks called with 0, which must leave every buffer as it was. */
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
    gcm_fn gcm_enc;
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
/* The SM4 roles in groups, each group's functions from the listing functions with suffix s. The whole-block
 * XTS kernels (xts_*_ieee, xts_*_gb) are the ones used here: the caller encrypts the tweak and steals
 * ciphertext itself. */
#define SERIAL(s)                                                                                          \
    .cbc_enc = asmgen_sm4_cbc_enc_##s, .cfb_enc = asmgen_sm4_cfb_enc_##s, .cbc_mac = asmgen_sm4_cbc_mac_##s
#define PARALLEL(s)                                                                                        \
    .ecb = asmgen_sm4_ecb_##s, .ctr = asmgen_sm4_ctr_##s, .cbc_dec = asmgen_sm4_cbc_dec_##s,               \
    .cfb_dec = asmgen_sm4_cfb_dec_##s
#define XTS(s)                                                                                             \
    .xts_enc_ieee = asmgen_sm4_xts_enc_ieee_##s, .xts_dec_ieee = asmgen_sm4_xts_dec_ieee_##s,               \
    .xts_enc_gb = asmgen_sm4_xts_enc_gb_##s, .xts_dec_gb = asmgen_sm4_xts_dec_gb_##s
#define CCM(s) .ccm_enc = asmgen_sm4_ccm_enc_##s, .ccm_dec = asmgen_sm4_ccm_dec_##s

#if defined(__x86_64__)
static struct hash_set hash_sets[] = {HASH_SET("pclmulqdq-avx", avx), HASH_SET("vpclmul-avx2", vpclmul_avx2)};
/* Kernel sets, best last. Every set takes its key schedule from the AVX set, the AVX2 and VAES sets their
 * serial modes and CCM too. */
static struct sm4_set sets[] = {
    {.name = "avx", .expand = asmgen_sm4_expand_key_avx, SERIAL(avx), PARALLEL(avx), XTS(avx),
     .gcm_enc = asmgen_sm4_gcm_enc_avx, CCM(avx)},
    {.name = "avx2", .expand = asmgen_sm4_expand_key_avx, SERIAL(avx), PARALLEL(avx2), XTS(avx2),
     .gcm_enc = asmgen_sm4_gcm_enc_avx2, CCM(avx)},
    {.name = "vaes", .expand = asmgen_sm4_expand_key_avx, SERIAL(avx), PARALLEL(vaes), XTS(vaes),
     .gcm_enc = asmgen_sm4_gcm_enc_vaes, CCM(avx)},
    {.name = "gfni", .expand = asmgen_sm4_expand_key_avx, SERIAL(gfni), PARALLEL(gfni), XTS(gfni),
     .gcm_enc = asmgen_sm4_gcm_enc_gfni, CCM(gfni)},
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
    sets[0].have = base;
    sets[1].have = avx2;
    sets[2].have = avx2 && __builtin_cpu_supports("vaes");
    sets[3].have = avx2 && __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("gfni");
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
    {.name = "ce", .expand = asmgen_sm4_expand_key_ce, SERIAL(ce), PARALLEL(ce), XTS(ce),
     .gcm_enc = asmgen_sm4_gcm_enc_ce, CCM(ce)},
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

/* Reports a check of got (len bytes) against want_hex; what is a printf format naming the set with %s. */
static void expect_n(const char *what, const char *set, const uint8_t *got, const char *want_hex, size_t len) {
    uint8_t want[64];
    int bad;
    hex(want_hex, want);
    bad = memcmp(got, want, len) != 0;
    failures += bad;
    printf(bad ? "FAIL " : "ok ");
    printf(what, set);
    printf("\n");
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

/* SM4-XTS as OpenSSL's evpciph_sm4.txt carries it (IEEE 1619 and GB/T 17964-2021 tweaks): K1 || K2 =
 * 2b7e151628aed2a6abf7158809cf4f3c || 000102030405060708090a0b0c0d0e0f, IV f0f1..ff, a 56-byte unit. Its first
 * 32 bytes are whole-block XTS (ciphertext stealing changes only the last whole block and the partial one),
 * so two blocks through the whole-block kernels, from T[0] = E_K2(IV) computed with the ECB kernel. */
static void sm4_xts_openssl(const struct sm4_set *set) {
    static const char *const want[2] = {
        "e9538251c71d7b80bbe4483fef497bd1b3db1a3e60408c575d63ff7db39f8326", /* IEEE 1619 */
        "e9538251c71d7b80bbe4483fef497bd12c5c581bd6242fc51e08964fb4f60fdb", /* GB/T 17964 */
    };
    uint8_t k1[16], k2[16], rk1_enc[128], rk1_dec[128], rk2_enc[128], rk2_dec[128];
    uint8_t iv[16], t0[16], tweak[16], pt[32], buf[32];
    int gb;
    hex("2b7e151628aed2a6abf7158809cf4f3c", k1);
    hex("000102030405060708090a0b0c0d0e0f", k2);
    hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", iv);
    hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51", pt);
    set->expand(rk1_enc, rk1_dec, k1);
    set->expand(rk2_enc, rk2_dec, k2);
    set->ecb(rk2_enc, t0, iv, 1);
    for (gb = 0; gb < 2; gb++) {
        memcpy(tweak, t0, 16);
        (gb ? set->xts_enc_gb : set->xts_enc_ieee)(rk1_enc, buf, pt, 2, tweak);
        expect_n(gb ? "sm4-xts gb encrypt %s (evpciph_sm4.txt)" : "sm4-xts ieee encrypt %s (evpciph_sm4.txt)",
                 set->name, buf, want[gb], 32);
        memcpy(tweak, t0, 16);
        (gb ? set->xts_dec_gb : set->xts_dec_ieee)(rk1_dec, buf, buf, 2, tweak);
        expect_n(gb ? "sm4-xts gb decrypt %s" : "sm4-xts ieee decrypt %s", set->name, buf,
                 "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51", 32);
    }
}

/* RFC 8998 appendix A.1: SM4-GCM with a 12-byte IV. The glue: H = E(0), J0 = IV || 00000001, the data
 * under CTR from inc32(J0), S = GHASH(A padded || C || len(A) || len(C)), tag = E(J0) xor S. Encryption
 * runs CTR then GHASH over C; decryption GHASHes C before CTR overwrites it (here the output is a
 * separate buffer; in place, GHASH must see C first). Where the set has gcm_enc, it encrypts once more in
 * one pass: its state is the counter block inc32(J0) and the GHASH state after the AAD. */
static void sm4_gcm_rfc8998(const struct sm4_set *set, const struct hash_set *g) {
    static const char pt_hex[] = "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
                                 "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa";
    static const char ct_hex[] = "17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735"
                                 "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d";
    uint8_t key[16], rk_enc[ASMGEN_SM4_ROUND_KEYS_BYTES], rk_dec[ASMGEN_SM4_ROUND_KEYS_BYTES];
    uint8_t h[16] = {0}, table[ASMGEN_GHASH_KEY_TABLE_BYTES], j0[16] = {0}, ctr[16], s[16], ej0[16], tag[16];
    uint8_t aad[32] = {0}, lens[16] = {0}, pt[64], ct[64], out[64], state[ASMGEN_SM4_GCM_STATE_BYTES];
    int i, pass;
    hex("0123456789abcdeffedcba9876543210", key);
    hex("00001234567800000000abcd", j0);
    j0[15] = 1;
    hex("feedfacedeadbeeffeedfacedeadbeefabaddad2", aad); /* 20 bytes, zero-padded to 32 */
    hex(pt_hex, pt);
    hex(ct_hex, ct);
    lens[7] = 20 * 8;         /* len(A) in bits, big-endian */
    lens[14] = (64 * 8) >> 8; /* len(C) = 512 bits */
    set->expand(rk_enc, rk_dec, key);
    set->ecb(rk_enc, h, h, 1);
    set->ecb(rk_enc, ej0, j0, 1);
    g->ghash_init(table, h);
    for (pass = 0; pass < 3; pass++) { /* encrypt, decrypt, encrypt with gcm_enc */
        const uint8_t *in = pass == 1 ? ct : pt;
        if (pass == 2 && !set->gcm_enc) break;
        memcpy(ctr, j0, 16);
        ctr[15] = 2; /* inc32(J0) */
        memset(s, 0, 16);
        g->ghash_update(s, table, aad, 2);
        if (pass == 1) g->ghash_update(s, table, in, 4);
        if (pass == 2) {
            memcpy(state, ctr, 16);
            memcpy(state + 16, s, 16);
            set->gcm_enc(rk_enc, table, out, in, 4, state);
            memcpy(s, state + 16, 16);
        } else
            set->ctr(rk_enc, out, in, 4, ctr);
        if (pass == 0) g->ghash_update(s, table, out, 4);
        g->ghash_update(s, table, lens, 1);
        for (i = 0; i < 16; i++) tag[i] = ej0[i] ^ s[i];
        expect(pass == 0 ? "sm4-gcm encrypt tag %s (RFC 8998 A.1)"
               : pass == 1 ? "sm4-gcm decrypt tag %s (RFC 8998 A.1)"
                           : "sm4-gcm gcm_enc tag %s (RFC 8998 A.1)",
               set->name, tag, "83de3541e4c2b58177e065a9bf7b62ec");
        expect_n(pass == 0   ? "sm4-gcm ciphertext %s"
                 : pass == 1 ? "sm4-gcm decrypt plaintext %s"
                             : "sm4-gcm gcm_enc ciphertext %s",
                 set->name, out, pass == 1 ? pt_hex : ct_hex, 64);
    }
}

/* Every function taking nblocks, called with 0 on six distinct buffers, must leave them all as they were. */
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

/* Calls s->role(args...) with nblocks 0 where the set has the role. */
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
        ZERO(s, gcm_enc, (zb[0], zb[1], zb[2], zb[3], 0, zb[4]));
        ZERO(s, ccm_enc, (zb[0], zb[1], zb[2], 0, zb[3], zb[4]));
        ZERO(s, ccm_dec, (zb[0], zb[1], zb[2], 0, zb[3], zb[4]));
    }
    if (zero_failures == failed) printf("ok zero-count %s (%d functions)\n", name, zero_calls - before);
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
            sm4_example(&sets[i]), sm4_ctr_example(&sets[i]), sm4_gcm_rfc8998(&sets[i], g);
            if (sets[i].xts_enc_ieee) sm4_xts_openssl(&sets[i]);
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
