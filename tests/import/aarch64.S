// Hand-written functions for the importer's round trip (tests/tests/import.rs): one per family of forms,
// each a leaf with the AAPCS64 landing pad, only caller-saved registers, and a loop.
	.arch	armv8.2-a+crypto+sha2+sha3+sm4
	.text

	.globl	imp_sha
	.type	imp_sha, %function
imp_sha:
	hint	#34
	ldr	q0, [x0]
	ldr	q1, [x0, #16]
1:
	ld1	{v4.16b, v5.16b, v6.16b, v7.16b}, [x1], #64
	sha256su0	v4.4s, v5.4s
	sha256su1	v4.4s, v6.4s, v7.4s
	sha256h	q0, q1, v4.4s
	sha256h2	q1, q0, v4.4s
	sha512su0	v4.2d, v5.2d
	sha512h	q2, q3, v4.2d
	sha1h	s16, s17
	sha1c	q0, s16, v4.4s
	subs	x2, x2, #1
	b.ne	1b
	str	q0, [x0]
	ret
	.size	imp_sha, .-imp_sha

	.globl	imp_scalar
	.type	imp_scalar, %function
imp_scalar:
	hint	#34
	ldp	x3, x4, [x1]
	adds	x3, x3, x4
	adcs	x4, x4, x5
	sbc	x5, x5, x6
	sbcs	x6, x6, x7
	mul	x7, x3, x4
	umulh	x8, x3, x4
	extr	x9, x3, x4, #13
	ror	x10, x9, #7
	ror	x11, x9, x10
	csel	x12, x3, x4, eq
	ldrb	w13, [x1, #3]
	strb	w13, [x0, #5]
	stp	x7, x8, [x0]
	ret
	.size	imp_scalar, .-imp_scalar

	.globl	imp_permutes
	.type	imp_permutes, %function
imp_permutes:
	hint	#34
	ld4r	{v0.4s, v1.4s, v2.4s, v3.4s}, [x1]
	zip1	v4.4s, v0.4s, v1.4s
	zip2	v5.2d, v2.2d, v3.2d
	trn1	v6.16b, v4.16b, v5.16b
	uzp2	v7.4s, v6.4s, v4.4s
	sli	v7.4s, v6.4s, #7
	adrp	x2, imp_table
	add	x2, x2, :lo12:imp_table
	ldr	q16, [x2]
	eor	v7.16b, v7.16b, v16.16b
	str	q7, [x0]
	ret
	.size	imp_permutes, .-imp_permutes

	.globl	imp_words
	.type	imp_words, %function
imp_words:
	hint	#34
	ldp	w3, w4, [x1]
	add	w5, w3, w4
	eor	w6, w5, w3, ror #7
	ror	w7, w6, #13
	and	x8, x3, #0xff00ff00ff00ff00
	orr	x9, x8, #1
	ld1	{v0.16b, v1.16b, v2.16b, v3.16b}, [x2], #64
	ld1	{v4.4s, v5.4s}, [x2]
	cmp	x8, x9
	cset	x10, eq
	tbz	w7, #3, 1f
	add	w7, w7, #1
1:
	str	w7, [x0]
	ret
	.size	imp_words, .-imp_words

	.globl	imp_tables
	.type	imp_tables, %function
imp_tables:
	hint	#34
	movi	v16.8h, #0
1:
	ldr	w3, [x1, x2]
	and	w4, w3, w5, lsr #8
	and	w6, w3, w5, lsl #2
	orr	w7, w4, w6, ror #24
	add	w8, w7, w4, lsl #1
	adc	w8, w8, wzr
	clz	w9, w8
	rbit	w10, w9
	cinc	x11, x11, cc
	add	x12, x0, #1, lsl #12
	dsb	sy
	isb
	ld1	{v0.16b, v1.16b}, [x1]
	ld1	{v2.16b, v3.16b, v4.16b}, [x1], #48
	ld1	{v5.2d, v6.2d, v7.2d}, [x1], #48
	rev16	v0.16b, v0.16b
	rev32	v1.8b, v1.8b
	add	v2.16b, v2.16b, v3.16b
	add	v16.8h, v16.8h, v4.8h
	add	v5.2s, v5.2s, v6.2s
	cmhi	v7.4s, v7.4s, v5.4s
	addv	s17, v7.4s
	mov	w13, v7.s[2]
	ld1r	{v18.2d}, [x2]
	ld1	{v18.d}[1], [x2]
	ldr	s19, [x2, #4]
	str	s19, [x0, #8]
	st1	{v0.16b, v1.16b}, [x0]
	st1	{v2.16b, v3.16b, v4.16b}, [x0], #48
	st1	{v16.4s}, [x0]
	st1	{v3.16b}, [x0], x5
	and	w15, w3, #0x3
	and	w16, w3, #0xfffffff0
	mov	x17, #0x400000000000000
	mov	w17, #0x1000000
	subs	x14, x14, #1
	b.mi	2f
	tbnz	x14, #40, 1b
2:
	ret
	.size	imp_tables, .-imp_tables

	.globl	imp_sm3
	.type	imp_sm3, %function
imp_sm3:
	hint	#34
	ld1	{v0.4s, v1.4s}, [x0]
1:
	ld1	{v4.16b, v5.16b, v6.16b, v7.16b}, [x1], #64
	sm3partw1	v8.4s, v4.4s, v7.4s
	sm3partw2	v8.4s, v5.4s, v6.4s
	sm3ss1	v9.4s, v0.4s, v16.4s, v1.4s
	sm3tt1a	v0.4s, v9.4s, v4.s[0]
	sm3tt1b	v0.4s, v9.4s, v4.s[1]
	sm3tt2a	v1.4s, v9.4s, v5.s[2]
	sm3tt2b	v1.4s, v9.4s, v5.s[3]
	subs	x2, x2, #1
	b.ne	1b
	st1	{v0.4s, v1.4s}, [x0]
	ret
	.size	imp_sm3, .-imp_sm3

	.section	.rodata
	.p2align	4
imp_table:
	.quad	0x0123456789abcdef, 0xfedcba9876543210
	.section	.note.GNU-stack, "", %progbits
