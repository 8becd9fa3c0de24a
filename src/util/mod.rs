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

/// `index` moved to the next multi-index of `dims` in row-major order (last axis fastest);
/// `false`, with `index` back at zeros, past the last.
#[inline]
pub(crate) fn next_index(index: &mut [usize], dims: &[usize]) -> bool {
    for (i, &d) in index.iter_mut().zip(dims).rev() {
        *i += 1;
        if *i < d {
            return true;
        }
        *i = 0;
    }
    false
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

/// The first `len` elements of `buffer`, unchecked in release builds: for a tensor's buffer,
/// `len` its static shape's element count ([`Tensor::as_slice`](crate::Tensor::as_slice)
/// says why).
///
/// # Safety
/// `buffer` holds at least `len` elements.
#[inline(always)]
pub(crate) unsafe fn static_prefix<T>(buffer: &[T], len: usize) -> &[T] {
    debug_assert!(buffer.len() >= len, "a buffer shorter than its shape");
    // SAFETY: `len <= buffer.len()` (this function's contract).
    unsafe { buffer.get_unchecked(..len) }
}

/// [`static_prefix`], mutably.
///
/// # Safety
/// `buffer` holds at least `len` elements.
#[inline(always)]
pub(crate) unsafe fn static_prefix_mut<T>(buffer: &mut [T], len: usize) -> &mut [T] {
    debug_assert!(buffer.len() >= len, "a buffer shorter than its shape");
    // SAFETY: `len <= buffer.len()` (this function's contract).
    unsafe { buffer.get_unchecked_mut(..len) }
}

/// `out`'s bytes as `len` uninitialised slots of `T`, after checking what the callers'
/// contracts say where it can be checked (constants once inlined): `B` is `len` consecutive
/// `T`s.
#[inline(always)]
fn slots_of<B, T>(
    out: &mut core::mem::MaybeUninit<B>,
    len: usize,
) -> &mut [core::mem::MaybeUninit<T>] {
    assert!(
        core::mem::size_of::<B>() == len.wrapping_mul(core::mem::size_of::<T>())
            && core::mem::align_of::<B>() == core::mem::align_of::<T>(),
        "the buffer is not `len` consecutive elements"
    );
    // SAFETY: `B` is `len` consecutive `T`s (checked above), so the `len` slots cover exactly
    // its bytes, which `out` borrows mutably; `MaybeUninit<T>` has `T`'s layout and needs no
    // initialisation.
    unsafe { core::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), len) }
}

/// Builds a nested array `B` of exactly `len` elements `T` whose elements `fill` writes,
/// given as `len` uninitialised slots in row-major order (element by element through a
/// [`Push`], or by a kernel that takes an output slice).
///
/// Why: each value is written straight to its final slot. Nested [`array_from_fn`] returned
/// every sub-array by value and LLVM copied it into the level above; and a result filled
/// with zeros first, or written through a pointer kept in a struct, was built in a
/// temporary and copied (`memcpy` was 16% of the instructions of a transformer block on
/// static shapes, `benches/transformer_probe.rs`). Given the slots as the arguments of the
/// call that fills them, LLVM writes them in the variable that receives the result.
///
/// # Safety
/// `B` must be laid out as `len` consecutive `T`s, and `fill` must write every slot when it
/// returns. (If it panics, nothing is dropped: the written elements leak.)
#[inline(always)]
pub(crate) unsafe fn written_in_place<B, T>(
    len: usize,
    fill: impl FnOnce(&mut [core::mem::MaybeUninit<T>]),
) -> B {
    let mut out = core::mem::MaybeUninit::<B>::uninit();
    fill(slots_of::<B, T>(&mut out, len));
    // SAFETY: `fill` wrote every slot (this function's contract).
    unsafe { out.assume_init() }
}

/// Calls `fill(slots, inputs)` out of line: for results of [`LARGE_BYTES`] and more, chosen
/// with `if const { large::<T>(LEN) }` so that a small result never compiles the call.
///
/// Why: LLVM writes a result straight into the variable that receives it when the slots are
/// the arguments of a call that returns right before the result is used; with the loop
/// inlined it often built the result in a temporary and copied it (in a transformer block on
/// static shapes, 8 KiB `memcpy`s after elementwise operations and head splits,
/// `benches/transformer_probe.rs`). Small results stay inline: a call costs more than their
/// copy, and a Cortex-M controller's code doubled when its loops were called. `fill` should
/// capture nothing and take what it reads as `inputs`, re-sliced inside to their constant
/// lengths: a slice captured from outside has a length loaded at run time there, its bounds
/// checks stay, and the loop does not vectorize (7 instructions an element instead of 1 for
/// a broadcast add).
#[inline(never)]
pub(crate) fn fill_out_of_line<T, I, F: FnOnce(&mut [core::mem::MaybeUninit<T>], I)>(
    slots: &mut [core::mem::MaybeUninit<T>],
    inputs: I,
    fill: F,
) {
    fill(slots, inputs)
}

/// Where a kernel writes an output element: an initialized element, or a slot of a result
/// being built in place (`ResultStorage::written`), so that one kernel serves both without a
/// zero fill first.
pub(crate) trait Slot<T> {
    /// Stores `value` here.
    fn set(&mut self, value: T);
}

impl<T> Slot<T> for T {
    #[inline(always)]
    fn set(&mut self, value: T) {
        *self = value;
    }
}

impl<T> Slot<T> for core::mem::MaybeUninit<T> {
    #[inline(always)]
    fn set(&mut self, value: T) {
        self.write(value);
    }
}

/// `f` on each row of `IN` elements of `x` with the matching row of `OUT` of `out`, as
/// arrays: their sizes are constants in `f`, so its loops need no bounds checks and no
/// division (`chunks_exact` divides the length by the chunk size, and where LLVM keeps the
/// `zip` of two of them out of line, as at opt-level "z", that division's panic linked 2.5 kB
/// of `core::fmt` into a Cortex-M4 model firmware). Stops at the end of either; nothing for
/// `OUT == 0`.
#[inline(always)]
pub(crate) fn for_rows<A, B, const IN: usize, const OUT: usize>(
    mut x: &[A],
    mut out: &mut [B],
    mut f: impl FnMut(&[A; IN], &mut [B; OUT]),
) {
    if OUT == 0 {
        return;
    }
    while let Some((y, rest)) = core::mem::take(&mut out).split_first_chunk_mut::<OUT>() {
        let Some((row, more)) = x.split_first_chunk::<IN>() else {
            return;
        };
        f(row, y);
        (x, out) = (more, rest);
    }
}

/// Whether `len` elements `T` are at least [`LARGE_BYTES`]: filled by [`fill_out_of_line`].
pub(crate) const fn large<T>(len: usize) -> bool {
    len.saturating_mul(core::mem::size_of::<T>()) >= LARGE_BYTES
}

/// The size from which results are filled out of line ([`fill_out_of_line`]): a copy of this
/// many bytes costs more than a call.
pub(crate) const LARGE_BYTES: usize = 2048;

/// Writes slots in order (for [`written_in_place`]); on a panic before the end, drops the
/// ones written so far, so nothing leaks and nothing is dropped twice.
pub(crate) struct Push<T> {
    first: *mut T,
    written: usize,
    len: usize,
}

impl<T> Push<T> {
    /// A writer of the `len` elements `T` of the nested array `out` (`B`), to build it in
    /// place: [`Push::push`] once per element, in row-major order, writes each value straight
    /// to its final slot, then [`Push::finish`], then `out.assume_init()`.
    ///
    /// Why not nested [`array_from_fn`]: each level returned its sub-arrays by value, and LLVM
    /// copied them into the level above (a `[2, 16, 64]` `f32` result was written, then copied
    /// again). In a transformer block on static shapes those copies were 16% of all
    /// instructions (`benches/transformer_probe.rs`). Large results of kernels are written
    /// through [`written_in_place`] and [`fill_out_of_line`] instead, which LLVM writes in
    /// place more reliably; this form keeps small ones inline (the same writes as slots passed
    /// to a closure, it kept a Cortex-M controller's loops in line at opt-level "s", where the
    /// slot form had them called). The caller's loops push directly, with no closure between
    /// them and the writes: without LTO at opt-level "s" such a closure stayed out of line, and
    /// the element function's indexing inside it kept bounds checks whose panic linked
    /// `core::fmt` (3.4 kB of a Cortex-M4 firmware adding two `[4, 4]` tensors).
    ///
    /// `B` must be laid out as `len` consecutive `T`s (a nested array of `T` holding `len` of
    /// them): checked, a panic otherwise, which folds away for constants.
    #[inline(always)]
    pub(crate) fn of<B>(out: &mut core::mem::MaybeUninit<B>, len: usize) -> Self {
        Self::new(slots_of::<B, T>(out, len))
    }

    /// A writer of `slots`, from the first.
    #[inline(always)]
    pub(crate) fn new(slots: &mut [core::mem::MaybeUninit<T>]) -> Self {
        Push {
            first: slots.as_mut_ptr().cast::<T>(),
            written: 0,
            len: slots.len(),
        }
    }

    /// Hands the written slots over: they are no longer dropped here.
    ///
    /// Not checked in release builds: every caller pushes once per index of a static shape
    /// (`StaticShape::for_each_index`), a count fixed by the code, not by data. A check kept
    /// a panic path at opt-level "s" and "z" on a Cortex-M4 (LLVM did not prove the count of
    /// the nested loops), and its message linked `core::fmt`: 3.4 kB of a firmware adding two
    /// `[4, 4]` tensors without LTO, 2 kB with it (`qemu-tests/code_size.sh`).
    ///
    /// # Safety
    /// Every slot was written: `push` was called once per slot.
    #[inline(always)]
    pub(crate) unsafe fn finish(self) {
        debug_assert!(
            self.written == self.len,
            "fewer elements than the shape holds"
        );
        core::mem::forget(self);
    }

    /// Writes the next element. Unchecked: a bounds test here kept the static kernels from
    /// vectorizing (a transformer block's elementwise work took 1.6x the instructions).
    ///
    /// # Safety
    /// Fewer elements than there are slots have been pushed.
    #[inline(always)]
    pub(crate) unsafe fn push(&mut self, value: T) {
        debug_assert!(
            self.written < self.len,
            "more elements than the shape holds"
        );
        // SAFETY: `written < len` (this function's contract), and the `len` slots are
        // consecutive `T`s, so the slot is inside them; it has not been written yet, so
        // nothing is overwritten.
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
        /// A nested array built in place as the static shapes build theirs.
        ///
        /// # Safety
        /// `fill` pushes exactly `len` elements, unless it panics.
        unsafe fn nested_in_place<B, T>(len: usize, fill: impl FnOnce(&mut Push<T>)) -> B {
            let mut out = core::mem::MaybeUninit::<B>::uninit();
            let mut push = Push::of::<B>(&mut out, len);
            fill(&mut push);
            // SAFETY: `fill` pushed `len` elements (this function's contract).
            unsafe { push.finish() };
            // SAFETY: all `len` elements of `B` were written, each once.
            unsafe { out.assume_init() }
        }

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
        // Too few elements breaks the contract; debug builds catch it with a panic, and the
        // ones written are dropped.
        #[cfg(debug_assertions)]
        {
            let short = std::panic::catch_unwind(|| {
                // SAFETY: not met (2 `Counted`s, and `fill` pushes 1), which the debug check
                // turns into a panic before anything is read.
                let _: [Counted; 2] =
                    unsafe { nested_in_place(2, |out| out.push(Counted(&DROPS, Box::new(0)))) };
            });
            assert!(short.is_err());
            assert_eq!(DROPS.load(Ordering::SeqCst), 5);
        }
        let before = DROPS.load(Ordering::SeqCst);
        // SAFETY: as above, 3 of 3.
        let all: [Counted; 3] = unsafe {
            nested_in_place(3, |out| {
                (0..3).for_each(|i| out.push(Counted(&DROPS, Box::new(i))))
            })
        };
        drop(all);
        assert_eq!(DROPS.load(Ordering::SeqCst), before + 3);
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
