//! What the tests share: RFC 8439's vectors, an independent reference and a small random generator.

#![allow(dead_code)]

/// `(name, key, nonce, counter, plaintext, ciphertext)`, hex, from RFC 8439: section 2.4.2 and appendix A.2.
pub const VECTORS: &[(&str, &str, &str, u32, &str, &str)] = &[
    (
        "2.4.2",
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "000000000000004a00000000",
        1,
        "4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c\
         64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e2077\
         6f756c642062652069742e",
        "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d6\
         24e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35b\
         e6b40b8eedf2785e42874d",
    ),
    (
        "A.2 #1",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000",
        0,
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
         000000000000000000000000",
        "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a376a43b8f4\
         1518a11cc387b669b2ee6586",
    ),
    (
        "A.2 #2",
        "0000000000000000000000000000000000000000000000000000000000000001",
        "000000000000000000000002",
        1,
        "416e79207375626d697373696f6e20746f20746865204945544620696e74656e6465642062792074686520436f6e7472696275\
         746f7220666f72207075626c69636174696f6e20617320616c6c206f722070617274206f6620616e204945544620496e746572\
         6e65742d4472616674206f722052464320616e6420616e792073746174656d656e74206d6164652077697468696e2074686520\
         636f6e74657874206f6620616e204945544620616374697669747920697320636f6e7369646572656420616e20224945544620\
         436f6e747269627574696f6e222e20537563682073746174656d656e747320696e636c756465206f72616c2073746174656d65\
         6e747320696e20494554462073657373696f6e732c2061732077656c6c206173207772697474656e20616e6420656c65637472\
         6f6e696320636f6d6d756e69636174696f6e73206d61646520617420616e792074696d65206f7220706c6163652c2077686963\
         68206172652061646472657373656420746f",
        "a3fbf07df3fa2fde4f376ca23e82737041605d9f4f4f57bd8cff2c1d4b7955ec2a97948bd3722915c8f3d337f7d370050e9e96\
         d647b7c39f56e031ca5eb6250d4042e02785ececfa4b4bb5e8ead0440e20b6e8db09d881a7c6132f420e52795042bdfa7773d8\
         a9051447b3291ce1411c680465552aa6c405b7764d5e87bea85ad00f8449ed8f72d0d662ab052691ca66424bc86d2df80ea41f\
         43abf937d3259dc4b2d0dfb48a6c9139ddd7f76966e928e635553ba76c5c879d7b35d49eb2e62b0871cdac638939e25e8a1e0e\
         f9d5280fa8ca328b351c3c765989cbcf3daa8b6ccc3aaf9f3979c92b3720fc88dc95ed84a1be059c6499b9fda236e7e818b04b\
         0bc39c1e876b193bfe5569753f88128cc08aaa9b63d1a16f80ef2554d7189c411f5869ca52c5b83fa36ff216b9c1d30062bebc\
         fd2dc5bce0911934fda79a86f6e698ced759c3ff9b6477338f3da4f9cd8514ea9982ccafb341b2384dd902f3d1ab7ac61dd29c\
         6f21ba5b862f3730e37cfdc4fd806c22f221",
    ),
    (
        "A.2 #3",
        "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
        "000000000000000000000002",
        42,
        "2754776173206272696c6c69672c20616e642074686520736c6974687920746f7665730a446964206779726520616e64206769\
         6d626c6520696e2074686520776162653a0a416c6c206d696d737920776572652074686520626f726f676f7665732c0a416e64\
         20746865206d6f6d65207261746873206f757467726162652e",
        "62e6347f95ed87a45ffae7426f27a1df5fb69110044c0d73118effa95b01e5cf166d3df2d721caf9b21e5fb14c616871fd84c5\
         4f9d65b283196c7fe4f60553ebf39c6402c42234e32a356b3e764312a61a5532055716ead6962568f87d3f3f7704c6a8d1bcd1\
         bf4d50d6154b6da731b187b58dfd728afa36757a797ac188d1",
    ),
];

/// The bytes of a hex string.
pub fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

/// A vector's parts: key, nonce, counter, plaintext, ciphertext.
pub fn vector(v: &(&str, &str, &str, u32, &str, &str)) -> ([u8; 32], [u8; 12], u32, Vec<u8>, Vec<u8>) {
    let (_, k, n, c, p, x) = *v;
    (hex(k).try_into().unwrap(), hex(n).try_into().unwrap(), c, hex(p), hex(x))
}

/// A reference ChaCha20 of its own (not the crate's portable code): the state as a byte-built matrix, the
/// rounds as RFC 8439 section 2.3's inner_block, the counter wrapping as the kernels' does.
pub fn reference(key: &[u8; 32], nonce: &[u8; 12], counter: u32, input: &[u8]) -> Vec<u8> {
    fn word(b: &[u8]) -> u32 {
        u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16 | u32::from(b[3]) << 24
    }
    fn qr(x: &mut [u32; 16], i: [usize; 4]) {
        let [a, b, c, d] = i;
        for (s, t, u, r) in [(a, b, d, 16), (c, d, b, 12), (a, b, d, 8), (c, d, b, 7)] {
            x[s] = x[s].wrapping_add(x[t]);
            x[u] = (x[u] ^ x[s]).rotate_left(r);
        }
    }
    let mut out = Vec::with_capacity(input.len());
    for (n, chunk) in input.chunks(64).enumerate() {
        let mut init = [0u32; 16];
        init[0] = word(b"expa");
        init[1] = word(b"nd 3");
        init[2] = word(b"2-by");
        init[3] = word(b"te k");
        for i in 0..8 {
            init[4 + i] = word(&key[4 * i..]);
        }
        init[12] = counter.wrapping_add(n as u32);
        for i in 0..3 {
            init[13 + i] = word(&nonce[4 * i..]);
        }
        let mut x = init;
        for _ in 0..10 {
            for q in [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]] {
                qr(&mut x, q);
            }
            for q in [[0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]] {
                qr(&mut x, q);
            }
        }
        let ks: Vec<u8> = (0..16).flat_map(|i| x[i].wrapping_add(init[i]).to_le_bytes()).collect();
        out.extend(chunk.iter().zip(ks).map(|(p, k)| p ^ k));
    }
    out
}

/// xorshift64*: reproducible test data without a dependency.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Lengths to test: every length up to 600 that ends a batch or a block (0, 1, 63, 64, 65, ... 511, 512,
/// 513, ...), and `random` more below 2000.
pub fn lengths(rng: &mut Rng, random: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..=600).filter(|n| matches!(n % 64, 0 | 1 | 63)).collect();
    v.extend((0..random).map(|_| rng.below(2000) as usize));
    v
}
