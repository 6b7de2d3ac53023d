# Hand-written functions for the importer's round trip (tests/tests/import.rs): one per family of forms,
# each a leaf with the System V landing pad, only caller-saved registers, and a loop.
	.intel_syntax noprefix
	.text

	.globl	imp_sha_ni
	.type	imp_sha_ni, @function
imp_sha_ni:
	endbr64
	movdqu	xmm1, xmmword ptr [rdi]
	movdqu	xmm2, xmmword ptr [rdi + 16]
	pshufd	xmm1, xmm1, 0x1b
	# The message schedule: one step of each part.
	palignr	xmm2, xmm1, 8
	sha256msg1	xmm1, xmm2		# W[t-16] + sigma0(W[t-15])
	sha256msg2	xmm1, xmm2
	sha256rnds2	xmm2, xmm1, xmm0
	movdqu	xmmword ptr [rdi], xmm2
	ret
	.size	imp_sha_ni, .-imp_sha_ni

	.globl	imp_aes
	.type	imp_aes, @function
imp_aes:
	endbr64
	movdqa	xmm0, xmmword ptr [rsi]
1:
	aesenc	xmm0, xmmword ptr [rdi]
	aesenclast	xmm0, xmm1
	aesdec	xmm0, xmm2
	aesdeclast	xmm0, xmm3
	vaesenc	ymm4, ymm5, ymm6
	vaesenclast	xmm4, xmm5, xmm6
	vaesimc	xmm7, xmm8
	vaeskeygenassist	xmm9, xmm10, 0x36
	pxor	xmm0, xmm9
	add	rdi, 16
	sub	rdx, 1
	jnz	1b
	movdqa	xmmword ptr [rsi], xmm0
	ret
	.size	imp_aes, .-imp_aes

	.globl	imp_bignum
	.type	imp_bignum, @function
imp_bignum:
	endbr64
	mov	rdx, qword ptr [rsi]
	mulx	r9, r8, qword ptr [rsi + 8]
	adcx	r8, rax
	adox	r9, rcx
	mov	rax, qword ptr [rdi]
	mul	qword ptr [rsi]
	imul	rcx, r10
	sbb	r11, rcx
	rorx	r10, r9, 14
	rol	r10, 3
	ror	r11, 1
	shld	r8, r9, 7
	shrd	r8, r9, 9
	mov	qword ptr [rdi], r8
	ret
	.size	imp_bignum, .-imp_bignum

	.globl	imp_avx2_lanes
	.type	imp_avx2_lanes, @function
imp_avx2_lanes:
	endbr64
	vmovdqu	ymm0, ymmword ptr [rdi]
	vperm2i128	ymm1, ymm0, ymm0, 0x01
	vpermq	ymm2, ymm1, 0x4e
	vpblendd	ymm3, ymm2, ymm0, 0xf0
	vpxor	ymm3, ymm3, ymmword ptr [rip + imp_mask]
	vmovdqu	ymmword ptr [rdi], ymm3
	vzeroupper
	ret
	.size	imp_avx2_lanes, .-imp_avx2_lanes

	.globl	imp_scalar32
	.type	imp_scalar32, @function
imp_scalar32:
	endbr64
	mov	eax, dword ptr [rdi]
	add	eax, ecx
	ror	eax, 7
	rorx	edx, eax, 11
	.byte	0x0f, 0x1f, 0x00	# nop dword ptr [rax], as perlasm writes it: a lone nop that aligns nothing
	shld	eax, edx, 3
	xor	edx, dword ptr [rdi + 4]
	andn	r8d, eax, edx
	lea	r9d, [rax + rdx]
	movzx	ecx, byte ptr [rsi]
	shl	r10, cl
	cmp	eax, edx
	cmovb	r10, r11
	setz	al
	bswap	r9d
	movbe	r11, qword ptr [rsi + 8]
	mov	dword ptr [rdi], r9d
	ret
	.size	imp_scalar32, .-imp_scalar32

	.globl	imp_sse_sha1_avx512
	.type	imp_sse_sha1_avx512, @function
imp_sse_sha1_avx512:
	endbr64
	movups	xmm0, xmmword ptr [rdi]
	por	xmm0, xmm1
	psrld	xmm0, 3
	pslldq	xmm1, 4
	punpcklqdq	xmm2, xmm0
	sha1rnds4	xmm0, xmm1, 2
	sha1nexte	xmm1, xmm2
	sha1msg1	xmm2, xmm3
	vpternlogd	zmm4, zmm5, zmm6, 0x96
	vpxord	zmm4, zmm4, zmm7
	kmovq	k1, rax
	vmovdqu8	zmm8{k1}{z}, zmmword ptr [rsi]
	vpxord	zmm8, zmm8, zmm4
	vmovdqu8	zmmword ptr [rsi], zmm8
	vzeroupper
	ret
	.size	imp_sse_sha1_avx512, .-imp_sse_sha1_avx512

	.globl	imp_strings_xchg
	.type	imp_strings_xchg, @function
imp_strings_xchg:
	endbr64
	xchg	rax, rcx
	xchg	r8, r9
	xchg	edx, eax
	xchg	qword ptr [rsi + 8], r10
	rdrand	r11
	cld
	mov	rcx, 4
	rep movsb
	movsq
	stosb
	rep stosq
	std
	movsb
	stosq
	cld
1:
	dec	rcx
	jrcxz	2f
	jmp	1b
2:
	call	r11
	kmovq	k1, rax
	vmovdqu8	zmmword ptr [rdi + 64]{k1}, zmm8
	vmovdqu8	zmmword ptr [rip + imp_mask]{k7}, zmm31
	vzeroupper
	ret
	.size	imp_strings_xchg, .-imp_strings_xchg

	.globl	imp_gcrypt_scalar
	.type	imp_gcrypt_scalar, @function
imp_gcrypt_scalar:
	endbr64
	push	rbp
	mov	rbp, rsp
	xor	rax, qword ptr [rdi + 8]
	sub	ecx, dword ptr [rsi]
	adc	edx, 5
	adc	r8d, r9d
	cmp	dword ptr [rdi + 4], 1000
	cmp	dword ptr [rdi], -3
	rol	eax, cl
	cmove	ecx, edx
	leave
	ret
	int3
	.size	imp_gcrypt_scalar, .-imp_gcrypt_scalar

	.globl	imp_gcrypt_vex
	.type	imp_gcrypt_vex, @function
imp_gcrypt_vex:
	endbr64
	vmovd	xmm0, dword ptr [rdi]
	vpinsrd	xmm0, xmm0, dword ptr [rdi + 4], 1
	vpinsrd	xmm0, xmm0, eax, 2
	vpextrd	ecx, xmm0, 3
	vmovq	qword ptr [rsi], xmm0
	vpsubw	xmm1, xmm2, xmm3
	vmovddup	xmm4, qword ptr [rdi + 8]
	paddq	xmm5, xmm6
	paddb	xmm5, xmmword ptr [rdi]
	vpbroadcastd	xmm7, dword ptr [rdi + 12]
	vpbroadcastb	ymm8, byte ptr [rdi + 3]
	vpbroadcastb	ymm9, xmm1
	vpaddb	ymm1, ymm2, ymm3
	vpsubw	ymm1, ymm2, ymmword ptr [rsi]
	vpabsb	ymm4, ymm5
	vpcmpgtb	ymm6, ymm7, ymm8
	vzeroupper
	ret
	.size	imp_gcrypt_vex, .-imp_gcrypt_vex

	.globl	imp_gcrypt_avx512vl
	.type	imp_gcrypt_avx512vl, @function
imp_gcrypt_avx512vl:
	endbr64
	vmovdqu64	xmm0, xmmword ptr [rdi]
	vmovdqu64	ymm1, ymmword ptr [rdi + 32]
	vmovdqa64	xmm2, xmm0
	vpxorq	xmm0, xmm0, xmm2
	vpxorq	ymm1, ymm1, ymmword ptr [rsi]
	vpternlogq	xmm3, xmm0, xmm2, 0x96
	vpternlogq	ymm4, ymm1, ymm5, 0xe8
	vprold	xmm0, xmm0, 7
	vprold	ymm1, ymm1, 12
	vprord	xmm2, xmm3, 8
	vprord	ymm4, ymm5, 16
	vprolq	xmm6, xmm7, 1
	vprolq	ymm6, ymm7, 3
	vprorq	xmm8, xmm9, 28
	vprorq	ymm8, ymm9, 41
	vmovdqu64	xmmword ptr [rsi], xmm0
	vmovdqu64	ymmword ptr [rsi + 32], ymm1
	vzeroupper
	ret
	.size	imp_gcrypt_avx512vl, .-imp_gcrypt_avx512vl

	.globl	imp_gcrypt_zmm
	.type	imp_gcrypt_zmm, @function
imp_gcrypt_zmm:
	endbr64
	vmovdqu32	zmm0, zmmword ptr [rdi]
	vmovdqa64	zmm1, zmm0
	vmovdqa32	zmm2, zmmword ptr [rdi + 64]
	vpaddb	zmm3, zmm1, zmm2
	vpaddw	zmm4, zmm3, zmmword ptr [rsi]
	vshufi32x4	zmm5, zmm4, zmm3, 0x4e
	vpbroadcastb	zmm6, byte ptr [rdi + 1]
	vpbroadcastb	zmm7, xmm1
	vpbroadcastq	zmm8, qword ptr [rdi + 8]
	vpbroadcastq	zmm9, xmm2
	vmovdqu32	zmmword ptr [rsi], zmm5
	vzeroupper
	ret
	.size	imp_gcrypt_zmm, .-imp_gcrypt_zmm

	.globl	imp_gcrypt_more
	.type	imp_gcrypt_more, @function
imp_gcrypt_more:
	endbr64
	xor	qword ptr [rdi], rax
	xor	qword ptr [rdi + 8], 5
	add	qword ptr [rsi], rcx
	add	qword ptr [rsi + 16], 1
	add	cl, 3
	add	byte ptr [rdi + 2], 7
	adc	dl, 0
	adc	al, 1
	tzcnt	eax, ecx
	vmovdqu	xmm1, xmm2
	vmovdqu	ymm3, ymm12
	vpsrlw	xmm4, xmm5, 4
	vpaddw	ymm6, ymm7, ymm8
	vpcmpgtb	xmm9, xmm10, xmm11
	vpabsb	xmm12, xmmword ptr [rdi]
	vzeroupper
	ret
	.size	imp_gcrypt_more, .-imp_gcrypt_more

	.section	.rodata
	.p2align	5
imp_mask:
	.quad	1, 2, 3, 4
	.section	.note.GNU-stack, "", @progbits
