//! Small helpers with no knowledge of shapes or rules: the always-inlined array builder,
//! row-major offsets, and the numpy-style text writer that every tensor type shares.

pub(crate) mod fmt;

/// Row-major offset of `index` in `dims`, or `None` when a coordinate is out of range.
#[inline]
pub(crate) fn row_major_offset(dims: &[usize], index: &[usize]) -> Option<usize> {
    debug_assert_eq!(dims.len(), index.len());
    let mut offset = 0usize;
    for (&d, &i) in dims.iter().zip(index) {
        if i >= d {
            return None;
        }
        // Cannot overflow: offset < product of the dims so far, which fits (the buffer exists).
        offset = offset * d + i;
    }
    Some(offset)
}

/// Row-major strides of `dims` (in elements) in the first `dims.len()` slots. Always inlined,
/// so a static shape's strides are constants; a `const fn`, so a static product's layout is
/// computed with it at compile time. The products wrap rather than panic: every caller's
/// shape has its elements, so the ones it reads are exact.
#[inline(always)]
pub(crate) const fn row_major_strides<const N: usize>(dims: &[usize]) -> [usize; N] {
    let mut out = [0; N];
    let mut step = 1usize;
    let mut i = dims.len();
    while i > 0 {
        i -= 1;
        out[i] = step;
        step = step.wrapping_mul(dims[i]);
    }
    out
}

/// Builds `[T; N]` by calling `f(0)`, `f(1)`, ... in order: `core::array::from_fn`, but always
/// inlined.
///
/// Why not `core::array::from_fn`: nested three deep, LLVM stops inlining its internal closure
/// wrapper in multi-codegen-unit builds, and a static 2x3x4 add then runs 3-4x slower than a
/// hand-written loop (`benches/README.md`). Here every level is `inline(always)`.
#[inline(always)]
pub(crate) fn array_from_fn<T, const N: usize>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    use core::mem::MaybeUninit;

    /// Drops the elements written so far if `f` panics, so nothing leaks and nothing is
    /// dropped twice.
    struct Guard<'a, T, const N: usize> {
        array: &'a mut MaybeUninit<[T; N]>,
        initialized: usize,
    }

    impl<T, const N: usize> Drop for Guard<'_, T, N> {
        fn drop(&mut self) {
            let first = self.array.as_mut_ptr().cast::<T>();
            // SAFETY: exactly the first `initialized` elements were written, each once, and
            // nothing else refers to them; dropping them in place leaves the storage unused.
            unsafe {
                core::ptr::drop_in_place(core::ptr::slice_from_raw_parts_mut(
                    first,
                    self.initialized,
                ));
            }
        }
    }

    let mut array = MaybeUninit::<[T; N]>::uninit();
    let mut guard = Guard {
        array: &mut array,
        initialized: 0,
    };
    while guard.initialized < N {
        let value = f(guard.initialized);
        // SAFETY: `initialized < N`, so the pointer is inside the array, whose layout is N
        // consecutive `T`s; the slot has not been written yet, so nothing is overwritten.
        unsafe {
            guard
                .array
                .as_mut_ptr()
                .cast::<T>()
                .add(guard.initialized)
                .write(value);
        }
        guard.initialized += 1;
    }
    core::mem::forget(guard);
    // SAFETY: the loop wrote all N elements.
    unsafe { array.assume_init() }
}

/// Builds a nested array `B` of exactly `len` elements `T` in place: `fill` calls
/// [`Push::push`] once per element, in row-major order, and each value is written straight to
/// its final slot.
///
/// Why not nested [`array_from_fn`]: each level returned its sub-arrays by value, and LLVM
/// copied them into the level above (a `[2, 16, 64]` `f32` result was written, then copied
/// again). In a transformer block on static shapes those copies were 16% of all instructions
/// (`benches/transformer_probe.rs`).
///
/// # Safety
/// `B` must be laid out as `len` consecutive `T`s (a nested array of `T` holding `len` of
/// them), and `fill` must call [`Push::push`] at most `len` times. (Fewer than `len` panics
/// after `fill` returns; if `fill` panics, the elements pushed so far are dropped.)
#[inline(always)]
pub(crate) unsafe fn nested_in_place<B, T>(len: usize, fill: impl FnOnce(&mut Push<T>)) -> B {
    // What the contract says, where it can be checked (constants once inlined).
    assert!(
        core::mem::size_of::<B>() == len.wrapping_mul(core::mem::size_of::<T>())
            && core::mem::align_of::<B>() == core::mem::align_of::<T>(),
        "the buffer is not `len` consecutive elements"
    );
    let mut out = core::mem::MaybeUninit::<B>::uninit();
    let mut push = Push {
        first: out.as_mut_ptr().cast::<T>(),
        written: 0,
        len,
    };
    fill(&mut push);
    assert!(push.written == len, "fewer elements than the shape holds");
    core::mem::forget(push);
    // SAFETY: all `len` elements of `B` were written (checked just above), each once.
    unsafe { out.assume_init() }
}

/// Writes the elements of [`nested_in_place`]'s buffer in order; on a panic before the end,
/// drops the ones written so far, so nothing leaks and nothing is dropped twice.
pub(crate) struct Push<T> {
    first: *mut T,
    written: usize,
    len: usize,
}

impl<T> Push<T> {
    /// Writes the next element. Unchecked: a bounds test here kept the static kernels from
    /// vectorizing (a transformer block's elementwise work took 1.6x the instructions).
    ///
    /// # Safety
    /// Fewer than `len` elements have been pushed ([`nested_in_place`]'s contract).
    #[inline(always)]
    pub(crate) unsafe fn push(&mut self, value: T) {
        debug_assert!(
            self.written < self.len,
            "more elements than the shape holds"
        );
        // SAFETY: `written < len` (this function's contract), and the buffer is `len`
        // consecutive `T`s (`nested_in_place`'s), so the slot is inside it; it has not been
        // written yet, so nothing is overwritten.
        unsafe { self.first.add(self.written).write(value) };
        self.written += 1;
    }
}

impl<T> Drop for Push<T> {
    fn drop(&mut self) {
        // SAFETY: exactly the first `written` elements were written, each once, and nothing
        // else refers to them; dropping them in place leaves the storage unused.
        unsafe {
            core::ptr::drop_in_place(core::ptr::slice_from_raw_parts_mut(
                self.first,
                self.written,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use core::sync::atomic::{AtomicUsize, Ordering};
    use std::boxed::Box;

    /// An element that counts its drops in its test's own counter (tests run in parallel)
    /// and owns a heap value, so that Miri sees a leak or a double drop.
    struct Counted(&'static AtomicUsize, #[allow(dead_code)] Box<usize>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn array_from_fn_calls_in_order() {
        let a: [usize; 4] = array_from_fn(|i| i * 10);
        assert_eq!(a, [0, 10, 20, 30]);
        let empty: [u8; 0] = array_from_fn(|_| unreachable!());
        assert_eq!(empty, []);
    }

    /// A panic part-way drops exactly the elements built so far (checked for leaks and double
    /// drops under Miri).
    #[test]
    fn array_from_fn_drops_the_built_prefix_on_panic() {
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(|| {
            let _: [Counted; 5] = array_from_fn(|i| {
                assert!(i < 3, "stop at 3");
                Counted(&DROPS, Box::new(i))
            });
        });
        assert!(result.is_err());
        assert_eq!(DROPS.load(Ordering::SeqCst), 3);
        let built: [Counted; 2] = array_from_fn(|i| Counted(&DROPS, Box::new(i)));
        drop(built);
        assert_eq!(DROPS.load(Ordering::SeqCst), 5);
    }

    /// The in-place builder writes each element once, in order, into a nested array; a panic
    /// part-way drops exactly the elements written so far (checked for leaks and double drops
    /// under Miri), and the built array owns all of them.
    #[test]
    fn nested_in_place_writes_in_order_and_drops_the_prefix_on_panic() {
        // SAFETY: `[[u16; 3]; 2]` is 6 consecutive `u16`s, and `fill` pushes 6.
        let built: [[u16; 3]; 2] = unsafe {
            nested_in_place::<_, u16>(6, |out| {
                for i in 0..6 {
                    out.push(i * 10);
                }
            })
        };
        assert_eq!(built, [[0, 10, 20], [30, 40, 50]]);
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(|| {
            // SAFETY: 2 x 3 `Counted`s, and `fill` pushes at most 6.
            let _: [[Counted; 3]; 2] = unsafe {
                nested_in_place(6, |out| {
                    for i in 0..6 {
                        assert!(i < 4, "stop at 4");
                        out.push(Counted(&DROPS, Box::new(i)));
                    }
                })
            };
        });
        assert!(result.is_err());
        assert_eq!(DROPS.load(Ordering::SeqCst), 4);
        // Too few elements: a panic, and the ones written are dropped.
        let short = std::panic::catch_unwind(|| {
            // SAFETY: 2 `Counted`s, and `fill` pushes 1.
            let _: [Counted; 2] =
                unsafe { nested_in_place(2, |out| out.push(Counted(&DROPS, Box::new(0)))) };
        });
        assert!(short.is_err());
        assert_eq!(DROPS.load(Ordering::SeqCst), 5);
        // SAFETY: as above, 3 of 3.
        let all: [Counted; 3] = unsafe {
            nested_in_place(3, |out| {
                (0..3).for_each(|i| out.push(Counted(&DROPS, Box::new(i))))
            })
        };
        drop(all);
        assert_eq!(DROPS.load(Ordering::SeqCst), 8);
        // A buffer that is not `len` elements of the pushed type is refused before any write.
        let wrong = std::panic::catch_unwind(|| {
            // SAFETY: the layout check refuses this call before `fill` runs.
            let _: [u16; 6] = unsafe { nested_in_place::<_, u32>(6, |_| unreachable!()) };
        });
        assert!(wrong.is_err());
    }

    #[test]
    fn row_major_offset_checks_each_coordinate() {
        assert_eq!(row_major_offset(&[2, 3, 4], &[1, 2, 3]), Some(23));
        assert_eq!(row_major_offset(&[2, 3, 4], &[1, 3, 0]), None);
        assert_eq!(row_major_offset(&[], &[]), Some(0));
        assert_eq!(row_major_offset(&[0], &[0]), None);
    }
}
