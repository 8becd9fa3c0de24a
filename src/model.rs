//! What the models [`include_model!`](crate::include_model) writes have in common: the arena
//! their intermediate tensors live in. Feature `model`.
//!
//! TFLM's int8 sine model, from its `.tflite` (the crate's `examples/sine/`):
//!
//! ```
//! use shaped::model::Arena;
//! use shaped::{Shape, Tensor};
//!
//! shaped::include_model!(Sine, "examples/sine/sine_int8.tflite");
//!
//! // x = 0, quantized by the model's input parameters, and TFLM's output for it.
//! assert_eq!(Sine::INPUT.zero_point(), -128);
//! let y = Sine::predict(&Tensor::<i8, Shape![1, 1]>::from([[-128]]));
//! assert_eq!(y.values().as_slice(), &[8]);
//! assert_eq!(y.quant(), Sine::OUTPUT); // `y.dequantize()`: the real values
//!
//! // The whole inference in one buffer: the input, the output and the layers between.
//! let mut arena = Arena::<{ Sine::ARENA_WITH_IO_BYTES }>::new();
//! Sine::input_mut(&mut arena).as_mut_slice()[0] = -128;
//! Sine::run(&mut arena);
//! assert_eq!(Sine::output(&arena).as_slice(), &[8]);
//! ```

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
