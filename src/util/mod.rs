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
/// so a static shape's strides are constants. The products wrap rather than panic: every
/// caller's shape has its elements, so the ones it reads are exact.
#[inline(always)]
pub(crate) fn row_major_strides<const N: usize>(dims: &[usize]) -> [usize; N] {
    let mut out = [0; N];
    let mut step = 1usize;
    for (s, &d) in out[..dims.len()].iter_mut().zip(dims).rev() {
        *s = step;
        step = step.wrapping_mul(d);
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

#[cfg(test)]
mod tests {
    use super::*;

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
        extern crate std;
        use core::sync::atomic::{AtomicUsize, Ordering};
        use std::boxed::Box;
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        struct Counted(#[allow(dead_code)] Box<usize>);
        impl Drop for Counted {
            fn drop(&mut self) {
                DROPS.fetch_add(1, Ordering::SeqCst);
            }
        }
        let result = std::panic::catch_unwind(|| {
            let _: [Counted; 5] = array_from_fn(|i| {
                assert!(i < 3, "stop at 3");
                Counted(Box::new(i))
            });
        });
        assert!(result.is_err());
        assert_eq!(DROPS.load(Ordering::SeqCst), 3);
        let built: [Counted; 2] = array_from_fn(|i| Counted(Box::new(i)));
        drop(built);
        assert_eq!(DROPS.load(Ordering::SeqCst), 5);
    }

    #[test]
    fn row_major_offset_checks_each_coordinate() {
        assert_eq!(row_major_offset(&[2, 3, 4], &[1, 2, 3]), Some(23));
        assert_eq!(row_major_offset(&[2, 3, 4], &[1, 3, 0]), None);
        assert_eq!(row_major_offset(&[], &[]), Some(0));
        assert_eq!(row_major_offset(&[0], &[0]), None);
    }
}
