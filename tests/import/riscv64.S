# Hand-written functions for the importer's round trip (tests/tests/import.rs): one per family of forms,
# each a leaf with only caller-saved registers and a loop. Assembled for rv64g (no compressed forms) without
# linker relaxation, as the listings are.
	.text

	.globl	imp_bitmanip
	.type	imp_bitmanip, @function
imp_bitmanip:
	.option	push
	.option	arch, +zbb, +zbc, +zbkb, +zksed
	ld	t0, 0(a0)
	ld	t1, 8(a0)
1:
	rev8	t2, t0
	andn	t3, t1, t2
	rori	t4, t3, 17
	clmul	t5, t0, t1
	clmulh	t6, t0, t1
	pack	a3, t5, t6
	sm4ed	a4, a3, t0, 2
	addi	a2, a2, -1
	bnez	a2, 1b
	sd	a4, 0(a0)
	ret
	.option	pop
	.size	imp_bitmanip, .-imp_bitmanip

	.globl	imp_vector
	.type	imp_vector, @function
imp_vector:
	.option	push
	.option	arch, +v, +zvkg, +zvbb, +zvksed
	vsetivli	zero, 4, e32, m1, ta, ma
	vle32.v	v1, (a0)
	vle32.v	v2, (a1)
	vghsh.vv	v1, v2, v3
	vrev8.v	v4, v1
	vsm4k.vi	v5, v4, 0
	vxor.vv	v5, v5, v1
	lla	t0, imp_consts
	vle32.v	v6, (t0)
	vxor.vv	v5, v5, v6
	vse32.v	v5, (a0)
	ret
	.option	pop
	.size	imp_vector, .-imp_vector

	.globl	imp_crypto
	.type	imp_crypto, @function
imp_crypto:
	.option	push
	.option	arch, +zkne, +zknd, +zknh, +zksh, +zbkx, +v, +zvkned, +zvknhb, +zvksh, +zvbc, +zvbb
	# Scalar AES, SHA-2, SM3 and crossbar permutations.
	ld	t0, 0(a0)
	ld	t1, 8(a0)
	aes64es	t2, t0, t1
	aes64esm	t3, t1, t0
	aes64ds	t4, t0, t1
	aes64im	t5, t4
	aes64ks1i	t6, t5, 3
	aes64ks2	a3, t6, t0
	sha256sig0	a4, a3
	sha512sum1	a5, a4
	sm3p0	a6, a5
	xperm8	a7, a6, t0
	addw	a7, a7, t1
	sd	a7, 0(a0)
	# Vector AES, SHA-2 and SM3 on element groups.
	vsetivli	zero, 4, e32, m1, ta, ma
	vle32.v	v1, (a1)
	vaesef.vv	v1, v2
	vaesem.vs	v1, v3
	vaeskf1.vi	v4, v1, 1
	vsha2ms.vv	v5, v6, v7
	vsha2ch.vv	v5, v6, v7
	vsm3me.vv	v8, v9, v10
	vsm3c.vi	v8, v9, 2
	vclmul.vx	v11, v12, t0
	vwsll.vi	v14, v13, 3
	vse32.v	v8, (a1)
	ret
	.option	pop
	.size	imp_crypto, .-imp_crypto

# A call to a subroutine of its own, which keeps ra on the stack around it, and a call to another function.
	.globl	imp_calls
	.type	imp_calls, @function
imp_calls:
	addi	sp, sp, -16
	sd	ra, 8(sp)
	call	.Ldouble
	call	imp_bitmanip
	ld	ra, 8(sp)
	addi	sp, sp, 16
	ret
.Ldouble:
	add	a0, a0, a0
	ret
	.size	imp_calls, .-imp_calls

# No `.type` and no `.size` (hand-written assembly often has neither): a global label names the function,
# which ends where the section does. Its loop closes with
# a backward `j`, whose 20-bit offset the decoder inverts without a search.
	.globl	imp_untyped
imp_untyped:
	li	t0, 0
1:
	beqz	a1, 2f
	ld	t1, 0(a0)
	add	t0, t0, t1
	addi	a0, a0, 8
	addi	a1, a1, -1
	j	1b
2:
	mv	a0, t0
	ret

	.section	.rodata
	.p2align	4
imp_consts:
	.word	1, 2, 3, 4
	.section	.note.GNU-stack, "", @progbits

