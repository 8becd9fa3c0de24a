//! Elements as the reference scripts write them (`tests/reference/*.py`): integers in decimal,
//! bools as 0/1, floats as the hex of their bits; read back and compared by their bits.

/// An element of a reference file.
pub trait Written: Copy + core::fmt::Debug {
    /// The element a field holds.
    fn read(field: &str) -> Self;
    /// Its bits, for an exact comparison (NaNs included).
    fn bits(self) -> u64;
}

macro_rules! written_int {
    ($($t:ty)*) => {$(
        impl Written for $t {
            fn read(field: &str) -> Self {
                field.parse().unwrap()
            }
            fn bits(self) -> u64 {
                self as u64
            }
        }
    )*};
}
written_int!(i8 i16 i32 i64 u8 u16 u32 u64);

macro_rules! written_float {
    ($($t:ty, $b:ty;)*) => {$(
        impl Written for $t {
            fn read(field: &str) -> Self {
                <$t>::from_bits(<$b>::from_str_radix(field, 16).unwrap())
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
        }
    )*};
}
written_float!(f32, u32; f64, u64;);
#[cfg(feature = "half")]
written_float!(shaped::f16, u16; shaped::bf16, u16;);

impl Written for bool {
    fn read(field: &str) -> Self {
        field == "1"
    }
    fn bits(self) -> u64 {
        self as u64
    }
}
