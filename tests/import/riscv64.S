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

	.section	.rodata
	.p2align	4
imp_consts:
	.word	1, 2, 3, 4
	.section	.note.GNU-stack, "", @progbits
