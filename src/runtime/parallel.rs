//! Splitting large work across threads (feature `rayon`), and the switch that keeps it on the
//! calling thread.
//!
//! Work is split only where the split cannot change a result: elementwise outputs along their
//! outermost merged axis (every element is computed as on one thread), reductions along the
//! same fixed recursion the single-threaded sums use (each partial sum covers the same
//! elements, in the same order, whatever the thread count). Anything smaller than
//! [`MIN_PARALLEL`] elements runs on the calling thread without touching the pool.

#[cfg(feature = "rayon")]
use core::cell::Cell;

/// The fewest output elements (or, for reductions, input elements) worth splitting: below it
/// an operation runs on the calling thread and never wakes the pool. Measured on 2 cores
/// (`benches/parallel.rs`): a pool round trip costs about 10-20 us, the time a single-threaded
/// f32 add takes for about 100K elements.
pub const MIN_PARALLEL: usize = 1 << 18;

/// The fewest elements of one task: splits stop here, so a task's work dwarfs its scheduling.
#[cfg(feature = "rayon")]
const MIN_TASK: usize = 1 << 15;

#[cfg(feature = "rayon")]
std::thread_local! {
    static SEQUENTIAL: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with every shaped operation it calls on this thread kept on this thread: no work
/// is split across the `rayon` pool, whatever the sizes. Results are the same either way
/// (bit for bit); this is for callers that already run one operation per core, or measure one
/// core. Without the `rayon` feature every operation runs on the calling thread and this just
/// calls `f`. A `rayon` pool of one thread (`ThreadPool::install`) has the same effect.
///
/// ```
/// use shaped::DynTensor;
/// let a = DynTensor::from_elem([1024, 1024], 1.0f32)?;
/// let b = shaped::runtime::single_threaded(|| &a + &a);
/// assert_eq!(b[[3, 4]], 2.0);
/// # Ok::<(), shaped::Error>(())
/// ```
pub fn single_threaded<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(feature = "rayon")]
    {
        /// Restores the previous setting, also when `f` panics.
        struct Restore(bool);
        impl Drop for Restore {
            fn drop(&mut self) {
                SEQUENTIAL.with(|s| s.set(self.0));
            }
        }
        let _restore = Restore(SEQUENTIAL.with(|s| s.replace(true)));
        f()
    }
    #[cfg(not(feature = "rayon"))]
    f()
}

/// How many tasks to split `elements` of work into, at most `max` (the length of the axis being
/// split): 1 (run here) below [`MIN_PARALLEL`], inside [`single_threaded`], or in a pool of one
/// thread; otherwise up to four tasks a thread (so a core slowed by a neighbour does not hold
/// the others up), none smaller than `MIN_TASK` elements.
#[inline]
pub(crate) fn tasks(elements: usize, max: usize) -> usize {
    #[cfg(feature = "rayon")]
    {
        // The size test comes first: it keeps small work from touching the pool at all.
        if elements < MIN_PARALLEL || max < 2 || SEQUENTIAL.with(Cell::get) {
            return 1;
        }
        let threads = rayon::current_num_threads();
        if threads < 2 {
            return 1;
        }
        (threads * 4).min(elements / MIN_TASK).min(max).max(1)
    }
    #[cfg(not(feature = "rayon"))]
    {
        let _ = (elements, max);
        1
    }
}

/// Whether work of `elements` should be split at all (see [`tasks`]).
#[inline]
pub(crate) fn worth_splitting(elements: usize) -> bool {
    tasks(elements, 2) > 1
}

/// `(a(), b())`, on two threads when `parallel` (and the `rayon` feature) allow; the results do
/// not depend on which.
#[inline]
pub(crate) fn join<RA: Send, RB: Send>(
    parallel: bool,
    a: impl FnOnce() -> RA + Send,
    b: impl FnOnce() -> RB + Send,
) -> (RA, RB) {
    #[cfg(feature = "rayon")]
    if parallel {
        return rayon::join(a, b);
    }
    let _ = parallel;
    (a(), b())
}

/// Calls `task(index, chunk)` for each of `out`'s consecutive chunks of `chunk_len` elements,
/// on the pool when `parallel` and there is more than one chunk.
#[inline]
pub(crate) fn for_each_chunk<V: Send>(
    out: &mut [V],
    chunk_len: usize,
    parallel: bool,
    task: impl Fn(usize, &mut [V]) + Sync + Send,
) {
    #[cfg(feature = "rayon")]
    if parallel && chunk_len < out.len() {
        use rayon::prelude::*;
        out.par_chunks_mut(chunk_len)
            .enumerate()
            .for_each(|(i, c)| task(i, c));
        return;
    }
    let _ = parallel;
    for (i, c) in out.chunks_mut(chunk_len.max(1)).enumerate() {
        task(i, c);
    }
}
