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
/// (`benches/parallel.rs`, a contiguous f32 add shared as shaped shares it): 2^15 elements
/// 4.4 us shared against 3.5 us on one thread, 2^16 4.9 against 7.2, 2^17 10.4 against 18.0.
/// The threshold sits one doubling above the break-even, for machines whose threads wake
/// slower.
pub const MIN_PARALLEL: usize = 1 << 17;

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

/// Whether work of `elements` is below [`MIN_PARALLEL`], so never split (always, without the
/// `rayon` feature): the only test a small call pays for the feature.
#[inline(always)]
pub(crate) const fn small(elements: usize) -> bool {
    !cfg!(feature = "rayon") || elements < MIN_PARALLEL
}

/// How many tasks to split `elements` of work into, at most `max` (the length of the axis being
/// split): 1 (run here) below [`MIN_PARALLEL`], inside [`single_threaded`], or in a pool of one
/// thread; otherwise up to four tasks a thread (so a core slowed by a neighbour does not hold
/// the others up), none smaller than `MIN_TASK` elements.
#[inline]
pub(crate) fn tasks(elements: usize, max: usize) -> usize {
    tasks_per_thread(elements, max, 4)
}

/// [`tasks`] with `per_thread` tasks a thread at most: one, for work whose tasks get slower as
/// they get narrower (column stripes of a matrix, each row a separate page).
#[inline(always)]
pub(crate) fn tasks_per_thread(elements: usize, max: usize, per_thread: usize) -> usize {
    // The size test comes first and alone: it keeps small work from touching the pool, and
    // the rest stays out of line so that a small call pays one comparison for the feature.
    if small(elements) {
        return 1;
    }
    #[cfg(feature = "rayon")]
    {
        large_tasks(elements, max, per_thread)
    }
    #[cfg(not(feature = "rayon"))]
    {
        let _ = (max, per_thread);
        1
    }
}

/// The rest of [`tasks_per_thread`], for work of at least [`MIN_PARALLEL`] elements.
#[cfg(feature = "rayon")]
#[cold]
#[inline(never)]
fn large_tasks(elements: usize, max: usize, per_thread: usize) -> usize {
    if max < 2 || SEQUENTIAL.with(Cell::get) {
        return 1;
    }
    let threads = rayon::current_num_threads();
    if threads < 2 {
        return 1;
    }
    (threads * per_thread)
        .min(elements / MIN_TASK)
        .min(max)
        .max(1)
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
        if rayon::current_thread_index().is_some() {
            return rayon::join(a, b);
        }
        return shared::join(a, b);
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
        if rayon::current_thread_index().is_some() {
            use rayon::prelude::*;
            out.par_chunks_mut(chunk_len)
                .enumerate()
                .for_each(|(i, c)| task(i, c));
        } else {
            shared::for_each_chunk(out, chunk_len, task);
        }
        return;
    }
    let _ = parallel;
    for (i, c) in out.chunks_mut(chunk_len.max(1)).enumerate() {
        task(i, c);
    }
}

/// Work shared between a thread outside the pool (the usual caller: `main`, a server's
/// request thread) and the pool.
///
/// Handing the whole operation to the pool, as `rayon::join` and parallel iterators do from
/// outside it, costs three thread wake-ups per call: a worker to start, a second to steal, the
/// caller to resume. On 2 cores that held a 94 us broadcast add to 61-72 us on two threads. Here
/// the caller works from the first instant, `threads - 1` workers join as they wake, and tasks
/// are claimed one at a time from a counter, so a late worker just takes fewer of them; the
/// caller spins (briefly) for the last task in flight rather than sleeping. The same add: 50 us
/// (`benches/parallel.rs`). Which thread runs a task never changes what it computes.
#[cfg(feature = "rayon")]
mod shared {
    use core::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Mutex, PoisonError};
    use std::vec::Vec;

    /// Runs `run(0..count)`, each index once, on the calling thread and up to `threads - 1`
    /// pool workers. Work started inside a task stays on its thread: the split made here is the
    /// only one.
    fn share(count: usize, run: &(dyn Fn(usize) + Sync)) {
        let next = AtomicUsize::new(0);
        let in_flight = AtomicUsize::new(0);
        // Nested work stays on its thread (`single_threaded` restores the setting, also when a
        // task panics).
        let work = || {
            super::single_threaded(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                run(i);
            })
        };
        let helpers = (rayon::current_num_threads().saturating_sub(1)).min(count - 1);
        rayon::in_place_scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(|_| {
                    /// Marks this worker done, also when a task panics (the scope then
                    /// re-raises the panic on the caller).
                    struct Leave<'a>(&'a AtomicUsize);
                    impl Drop for Leave<'_> {
                        fn drop(&mut self) {
                            self.0.fetch_sub(1, Ordering::Release);
                        }
                    }
                    in_flight.fetch_add(1, Ordering::Acquire);
                    let _leave = Leave(&in_flight);
                    work();
                });
            }
            work();
            // Every task is claimed; a worker may still be running its last one. Spin for it
            // (a task is a few microseconds) instead of sleeping until the scope wakes us: a
            // wake-up costs more than the wait. A worker that has not started yet finds no
            // task left, and the scope waits for it.
            let mut spins = 0u32;
            while in_flight.load(Ordering::Acquire) != 0 {
                if spins < 1 << 20 {
                    core::hint::spin_loop();
                    spins += 1;
                } else {
                    std::thread::yield_now();
                }
            }
        });
    }

    /// [`super::for_each_chunk`] from outside the pool.
    pub(super) fn for_each_chunk<V: Send>(
        out: &mut [V],
        chunk_len: usize,
        task: impl Fn(usize, &mut [V]) + Sync,
    ) {
        // Each chunk is taken out of its slot once, by the thread that claimed its index.
        let slots: Vec<Mutex<Option<&mut [V]>>> = out
            .chunks_mut(chunk_len)
            .map(|c| Mutex::new(Some(c)))
            .collect();
        share(slots.len(), &|i| {
            let chunk = slots[i]
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(chunk) = chunk {
                task(i, chunk);
            }
        });
    }

    /// [`super::join`] from outside the pool.
    pub(super) fn join<RA: Send, RB: Send>(
        a: impl FnOnce() -> RA + Send,
        b: impl FnOnce() -> RB + Send,
    ) -> (RA, RB) {
        let (a, b) = (Mutex::new(Some(a)), Mutex::new(Some(b)));
        let (ra, rb) = (Mutex::new(None), Mutex::new(None));
        share(2, &|i| {
            if i == 0 {
                if let Some(f) = a.lock().unwrap_or_else(PoisonError::into_inner).take() {
                    *ra.lock().unwrap_or_else(PoisonError::into_inner) = Some(f());
                }
            } else if let Some(f) = b.lock().unwrap_or_else(PoisonError::into_inner).take() {
                *rb.lock().unwrap_or_else(PoisonError::into_inner) = Some(f());
            }
        });
        fn take<R>(m: Mutex<Option<R>>) -> Option<R> {
            m.into_inner().unwrap_or_else(PoisonError::into_inner)
        }
        match (take(ra), take(rb)) {
            (Some(ra), Some(rb)) => (ra, rb),
            // `share` runs every index; a task that panicked was re-raised before this.
            _ => unreachable!("both halves of a join ran"),
        }
    }
}

#[cfg(all(test, feature = "rayon"))]
mod tests {
    use super::*;
    use std::{vec, vec::Vec};

    /// From outside every pool: each chunk once, at its own index, whoever runs it.
    #[test]
    fn shared_chunks_cover_the_output_once() {
        let mut out = vec![0usize; 1000];
        for_each_chunk(&mut out, 64, true, |i, c| {
            for (j, o) in c.iter_mut().enumerate() {
                *o += i * 64 + j + 1;
            }
        });
        assert_eq!(out, (1..=1000).collect::<Vec<_>>());
        let (a, b) = join(true, || 6 * 7, || "right");
        assert_eq!((a, b), (42, "right"));
    }

    /// A task that panics: the panic reaches the caller once every other task has finished,
    /// and the calling thread's setting is restored.
    #[test]
    fn a_panicking_task_reaches_the_caller() {
        let mut out = vec![0u8; 4096];
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for_each_chunk(&mut out, 256, true, |i, c| {
                assert!(i != 5, "task 5 fails");
                c.fill(1);
            })
        }));
        let message = caught.unwrap_err();
        assert_eq!(message.downcast_ref::<&str>(), Some(&"task 5 fails"));
        // With workers, they take every task the caller does not; alone (a pool of one
        // thread), the caller stops at the panic.
        let done = if rayon::current_num_threads() > 1 {
            15
        } else {
            5
        };
        assert_eq!(out.iter().filter(|&&x| x == 1).count(), done * 256);
        assert!(!SEQUENTIAL.with(Cell::get));
        let caught = std::panic::catch_unwind(|| join(true, || 1, || -> u8 { panic!("right") }));
        assert!(caught.is_err());
        assert!(!SEQUENTIAL.with(Cell::get));
    }
}
