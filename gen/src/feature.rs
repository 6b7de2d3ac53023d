//! CPU features (ISA extensions) and sets of them: what an instruction requires and what a function may use.
//! A leaf module: it imports nothing else of the crate.

use std::fmt::Debug;

/// A CPU feature (ISA extension) an instruction may require.
pub trait Feature: Copy + Eq + Ord + Debug + 'static {
    /// Every feature of the ISA, in declaration order.
    const ALL: &'static [Self];
    /// The conventional name (`AVX`, `PCLMULQDQ`, `zbc`, ...).
    fn name(self) -> &'static str;
    /// Bit position in a [`FeatureSet`].
    fn bit(self) -> u32;
}

/// A set of features of one ISA.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FeatureSet<F: Feature> {
    bits: u64,
    _f: std::marker::PhantomData<F>,
}

impl<F: Feature> FeatureSet<F> {
    /// The empty set.
    pub const fn empty() -> Self {
        FeatureSet { bits: 0, _f: std::marker::PhantomData }
    }
    /// The set of the given features.
    pub fn of(features: &[F]) -> Self {
        let mut s = Self::empty();
        for &f in features {
            s.insert(f);
        }
        s
    }
    /// Adds a feature.
    pub fn insert(&mut self, f: F) {
        self.bits |= 1 << f.bit();
    }
    /// Whether `f` is in the set.
    pub fn contains(&self, f: F) -> bool {
        self.bits & (1 << f.bit()) != 0
    }
    /// Whether every feature of `other` is in this set.
    pub fn contains_all(&self, other: &Self) -> bool {
        other.bits & !self.bits == 0
    }
    /// Union.
    pub fn union(mut self, other: Self) -> Self {
        self.bits |= other.bits;
        self
    }
    /// Features of `self` not in `other`.
    pub fn difference(mut self, other: Self) -> Self {
        self.bits &= !other.bits;
        self
    }
    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }
    /// The features, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = F> + '_ {
        F::ALL.iter().copied().filter(|f| self.contains(*f))
    }
    /// Names joined with `sep`.
    pub fn names(&self, sep: &str) -> String {
        self.iter().map(|f| f.name()).collect::<Vec<_>>().join(sep)
    }
}

impl<F: Feature> Debug for FeatureSet<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{{{}}}", self.names(", "))
    }
}

/// Defines an ISA's feature enum with its printed names.
#[macro_export]
macro_rules! define_features {
    ($(#[$doc:meta])* $enum:ident { $( $(#[$vdoc:meta])* $v:ident = $name:literal ),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $enum { $( $(#[$vdoc])* $v ),* }
        impl $crate::feature::Feature for $enum {
            const ALL: &'static [Self] = &[$($enum::$v),*];
            fn name(self) -> &'static str {
                match self { $($enum::$v => $name),* }
            }
            fn bit(self) -> u32 { self as u32 }
        }
    };
}
