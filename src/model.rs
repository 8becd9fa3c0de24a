//! What the models [`include_model!`](crate::include_model) writes have in common: the arena
//! their intermediate tensors live in. Feature `model`.

/// `N` bytes aligned to 16: the memory a model imported by
/// [`include_model!`](crate::include_model) keeps its intermediate tensors in, at the offsets
/// its plan chose (float tensors at multiples of 16, so that the typed views of the bytes are
/// always aligned). Its contents before and after an inference mean nothing.
///
/// A model's arena is `Arena<{ Model::ARENA_BYTES }>`; in a `static`, it is RAM the linker
/// accounts for:
///
/// ```
/// use shaped::model::Arena;
/// static mut SCRATCH: Arena<256> = Arena::new();
/// let arena = Arena::<64>::new();
/// assert_eq!(arena.0.len(), 64);
/// assert_eq!(core::mem::align_of::<Arena<64>>(), 16);
/// ```
#[repr(C, align(16))]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Arena<const N: usize>(pub [u8; N]);

impl<const N: usize> Arena<N> {
    /// An arena of zeros (in a `static`, it goes to `.bss` and costs no flash).
    pub const fn new() -> Self {
        Arena([0; N])
    }
}

impl<const N: usize> Default for Arena<N> {
    fn default() -> Self {
        Arena::new()
    }
}
