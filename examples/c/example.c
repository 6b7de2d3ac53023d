/* A C program using asmgen's headers and listings (generated/<target>/asmgen_{ghash,sm4}.h, ghash.S, sm4.S):
 * picks the kernel sets the CPU has (x86_64: __builtin_cpu_supports; aarch64: getauxval(AT_HWCAP); riscv64:
 * no detection, see detect()) and checks each against published vectors, one line per check. Build: ./build.sh
 * Covered: GHASH, POLYVAL, SM4 (ECB), SM4-CTR, SM4-GCM encrypt/decrypt (glue over ECB + CTR + GHASH).
 * Not done yet: SM4-XTS, the gcm_enc kernel, the riscv64 vector sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "asmgen_ghash.h"
#include "asmgen_sm4.h"

typedef void (*expand_fn)(uint8_t *, uint8_t *, const uint8_t *);
typedef void (*ecb_fn)(const uint8_t *, uint8_t *, const uint8_t *, size_t);
typedef void (*ctr_fn)(const uint8_t *, uint8_t *, const uint8_t *, size_t, uint8_t *);
struct sm4_set { const char *name; int have; expand_fn expand; ecb_fn ecb; ctr_fn ctr; };

#if defined(__x86_64__)
#define GHASH_INIT asmgen_ghash_init_avx
#define GHASH_UPDATE asmgen_ghash_update_avx
#define POLYVAL_INIT asmgen_polyval_init_avx
#define POLYVAL_UPDATE asmgen_polyval_update_avx
/* Kernel sets, best last; the first is the baseline every set's key expansion uses. */
static struct sm4_set sets[] = {
    {"avx", 0, asmgen_sm4_expand_key_avx, asmgen_sm4_ecb_avx, asmgen_sm4_ctr_avx},
    {"avx2", 0, asmgen_sm4_expand_key_avx, asmgen_sm4_ecb_avx2, asmgen_sm4_ctr_avx2},
    {"vaes", 0, asmgen_sm4_expand_key_avx, asmgen_sm4_ecb_vaes, asmgen_sm4_ctr_vaes},
    {"gfni", 0, asmgen_sm4_expand_key_avx, asmgen_sm4_ecb_gfni, asmgen_sm4_ctr_gfni},
};
/* 1 when the CPU has what the GHASH kernels and the baseline set need; marks the sets it has. */
static int detect(void) {
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("avx") && __builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul")))
        return 0;
    sets[0].have = 1;
    sets[1].have = __builtin_cpu_supports("avx2");
    sets[2].have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vaes");
    sets[3].have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("gfni");
    return 1;
}
#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_PMULL
#define HWCAP_PMULL (1 << 4)
#endif
#ifndef HWCAP_SM4
#define HWCAP_SM4 (1 << 19)
#endif
#define GHASH_INIT asmgen_ghash_init_pmull
#define GHASH_UPDATE asmgen_ghash_update_pmull
#define POLYVAL_INIT asmgen_polyval_init_pmull
#define POLYVAL_UPDATE asmgen_polyval_update_pmull
static struct sm4_set sets[] = {
    {"neon", 0, asmgen_sm4_expand_key_neon, asmgen_sm4_ecb_neon, asmgen_sm4_ctr_neon},
    {"ce", 0, asmgen_sm4_expand_key_ce, asmgen_sm4_ecb_ce, asmgen_sm4_ctr_ce},
};
static int detect(void) {
    unsigned long hw = getauxval(AT_HWCAP);
    if (!(hw & HWCAP_PMULL)) return 0;
    sets[0].have = 1;
    sets[1].have = (hw & HWCAP_SM4) != 0;
    return 1;
}
#elif defined(__riscv) && __riscv_xlen == 64
#define GHASH_INIT asmgen_ghash_init_zbc
#define GHASH_UPDATE asmgen_ghash_update_zbc
#define POLYVAL_INIT asmgen_polyval_init_zbc
#define POLYVAL_UPDATE asmgen_polyval_update_zbc
static struct sm4_set sets[] = {
    {"zksed", 0, asmgen_sm4_expand_key_zksed, asmgen_sm4_ecb_zksed, asmgen_sm4_ctr_zksed},
};
/* No detection here yet (riscv_hwprobe would do it): the scalar sets need Zbc and Zksed, so the program
 * runs them only when ASMGEN_EXAMPLE_RISCV_SCALAR is set (the test sets it under a qemu -cpu with both). */
static int detect(void) {
    if (!getenv("ASMGEN_EXAMPLE_RISCV_SCALAR")) return 0;
    sets[0].have = 1;
    return 1;
}
#else
#error "examples/c covers x86_64, aarch64 and riscv64"
#endif

static int failures;

static void hex(const char *s, uint8_t *out) {
    unsigned v;
    for (; *s; s += 2, out++) { sscanf(s, "%2x", &v); *out = (uint8_t)v; }
}

static void expect(const char *what, const uint8_t *got, const char *want_hex) {
    uint8_t want[16];
    hex(want_hex, want);
    if (memcmp(got, want, 16) != 0) { printf("FAIL %s\n", what); failures++; }
    else printf("ok %s\n", what);
}

/* GCM specification (McGrew & Viega), test case 2: GHASH(H, {}, C) over C and the lengths block. */
static void ghash_case_2(void) {
    uint8_t h[ASMGEN_GHASH_KEY_BYTES], data[2 * ASMGEN_GHASH_BLOCK_BYTES] = {0};
    uint8_t table[ASMGEN_GHASH_KEY_TABLE_BYTES], state[ASMGEN_GHASH_STATE_BYTES] = {0};
    hex("66e94bd4ef8a2c3b884cfa59ca342b2e", h);
    hex("0388dace60b6a392f328c2b971b2fe78", data);
    data[31] = 0x80; /* len(A) = 0, len(C) = 128 bits */
    GHASH_INIT(table, h);
    GHASH_UPDATE(state, table, data, 2);
    expect("ghash (GCM spec test case 2)", state, "f38cbb1ad69223dcc3457ae5b6b0f885");
}

/* RFC 8452, appendix A: POLYVAL(H, X_1, X_2). */
static void polyval_rfc8452(void) {
    uint8_t h[16], data[32], table[ASMGEN_GHASH_KEY_TABLE_BYTES], state[16] = {0};
    hex("25629347589242761d31f826ba4b757b", h);
    hex("4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362", data);
    POLYVAL_INIT(table, h);
    POLYVAL_UPDATE(state, table, data, 2);
    expect("polyval (RFC 8452 appendix A)", state, "f7a3b47b846119fae5b7866cf5e5b77e");
}

/* GB/T 32907-2016, example 1: key = plaintext = 0123456789abcdeffedcba9876543210. */
static void sm4_example(const struct sm4_set *set) {
    uint8_t key[ASMGEN_SM4_KEY_BYTES], block[ASMGEN_SM4_BLOCK_BYTES];
    uint8_t rk_enc[ASMGEN_SM4_ROUND_KEYS_BYTES], rk_dec[ASMGEN_SM4_ROUND_KEYS_BYTES];
    char what[80];
    hex("0123456789abcdeffedcba9876543210", key);
    memcpy(block, key, 16);
    set->expand(rk_enc, rk_dec, key);
    set->ecb(rk_enc, block, block, 1);
    snprintf(what, sizeof what, "sm4 encrypt %s (GB/T 32907 example 1)", set->name);
    expect(what, block, "681edf34d206965e86b3e94f536e4246");
    set->ecb(rk_dec, block, block, 1);
    snprintf(what, sizeof what, "sm4 decrypt %s (GB/T 32907 example 1)", set->name);
    expect(what, block, "0123456789abcdeffedcba9876543210");
}

/* draft-ribose-cfrg-sm4 (section "SM4-CTR" examples, as in OpenSSL's evpciph_sm4.txt): key = IV =
 * 0123456789abcdeffedcba9876543210, 64 bytes; the counter block is big-endian and advances by 4. */
static void sm4_ctr_example(const struct sm4_set *set) {
    uint8_t key[16], iv[16], rk_enc[ASMGEN_SM4_ROUND_KEYS_BYTES], rk_dec[ASMGEN_SM4_ROUND_KEYS_BYTES];
    uint8_t buf[64], want[64];
    char what[80];
    hex("0123456789abcdeffedcba9876543210", key);
    memcpy(iv, key, 16);
    hex("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
        "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa", buf);
    hex("c2b4759e78ac3cf43d0852f4e8d5f9fd7256e8a5fcb65a350ee00630912e4449"
        "2a0b17e1b85b060d0fba612d8a95831638b361fd5ffacd942f081485a83ca35d", want);
    set->expand(rk_enc, rk_dec, key);
    set->ctr(rk_enc, buf, buf, 4, iv);
    snprintf(what, sizeof what, "sm4-ctr %s (draft-ribose-cfrg-sm4)", set->name);
    if (memcmp(buf, want, 64) != 0 || iv[15] != 0x14) { printf("FAIL %s\n", what); failures++; }
    else printf("ok %s\n", what);
}

/* RFC 8998 appendix A.1: SM4-GCM with a 12-byte IV. The glue: H = E(0), J0 = IV || 00000001, the data
 * under CTR from inc32(J0), S = GHASH(A padded || C || len(A) || len(C)), tag = E(J0) xor S. Encryption
 * runs CTR then GHASH over C; decryption GHASHes C before CTR overwrites it (here the output is a
 * separate buffer; in place, GHASH must see C first). */
static void sm4_gcm_rfc8998(void) {
    uint8_t key[16], rk_enc[ASMGEN_SM4_ROUND_KEYS_BYTES], rk_dec[ASMGEN_SM4_ROUND_KEYS_BYTES];
    uint8_t h[16] = {0}, table[ASMGEN_GHASH_KEY_TABLE_BYTES], j0[16] = {0}, ctr[16], s[16], tag[16];
    uint8_t aad[32] = {0}, lens[16] = {0}, pt[64], ct[64], want[64];
    int i, dec;
    hex("0123456789abcdeffedcba9876543210", key);
    hex("00001234567800000000abcd", j0);
    j0[15] = 1;
    hex("feedfacedeadbeeffeedfacedeadbeefabaddad2", aad); /* 20 bytes, zero-padded to 32 */
    hex("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
        "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa", pt);
    hex("17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735"
        "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d", want);
    lens[7] = 20 * 8;          /* len(A) in bits, big-endian */
    lens[14] = (64 * 8) >> 8;  /* len(C) = 512 bits */
    sets[0].expand(rk_enc, rk_dec, key);
    sets[0].ecb(rk_enc, h, h, 1);
    GHASH_INIT(table, h);
    for (dec = 0; dec < 2; dec++) {
        uint8_t *in = dec ? want : pt, *out = dec ? pt : ct;
        memcpy(ctr, j0, 16);
        ctr[15] = 2; /* inc32(J0) */
        memset(s, 0, 16);
        GHASH_UPDATE(s, table, aad, 2);
        if (dec) GHASH_UPDATE(s, table, in, 4);
        sets[0].ctr(rk_enc, out, in, 4, ctr);
        if (!dec) GHASH_UPDATE(s, table, out, 4);
        GHASH_UPDATE(s, table, lens, 1);
        sets[0].ecb(rk_enc, tag, j0, 1);
        for (i = 0; i < 16; i++) tag[i] ^= s[i];
        expect(dec ? "sm4-gcm decrypt tag (RFC 8998 A.1)" : "sm4-gcm encrypt tag (RFC 8998 A.1)", tag,
               "83de3541e4c2b58177e065a9bf7b62ec");
    }
    if (memcmp(ct, want, 64) != 0) { printf("FAIL sm4-gcm ciphertext\n"); failures++; }
    else printf("ok sm4-gcm ciphertext (RFC 8998 A.1)\n");
    hex("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
        "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa", want);
    if (memcmp(pt, want, 64) != 0) { printf("FAIL sm4-gcm decrypt\n"); failures++; }
    else printf("ok sm4-gcm decrypt plaintext (RFC 8998 A.1)\n");
}

int main(void) {
    size_t i;
    if (!detect()) {
        printf("skip: the CPU lacks the baseline kernel set\n");
        return 0;
    }
    ghash_case_2();
    polyval_rfc8452();
    sm4_gcm_rfc8998();
    for (i = 0; i < sizeof sets / sizeof sets[0]; i++)
        if (sets[i].have) sm4_example(&sets[i]), sm4_ctr_example(&sets[i]);
    printf("failures %d\n", failures);
    return failures != 0;
}
