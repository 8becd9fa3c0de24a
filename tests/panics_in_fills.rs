//! A closure or a `Clone` that panics in the middle of a fill: what happens to the elements
//! already made, API by API. Never a double drop, never a read of an uninitialised slot (run
//! under Miri in CI); either every element made is dropped, or the ones written in place are
//! leaked, as each API's docs say.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use shaped::{AutoBroadcast, DynTensor, Shape, Tensor};

thread_local! {
    static MADE: Cell<usize> = const { Cell::new(0) };
    static DROPPED: Cell<usize> = const { Cell::new(0) };
    /// Clones left before a `Clone` panics (`usize::MAX`: never).
    static CLONES_LEFT: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Counts its making and dropping; its `Clone` panics when told to.
#[derive(Debug, PartialEq)]
struct Counted(u32);

impl Counted {
    fn new(v: u32) -> Self {
        MADE.with(|m| m.set(m.get() + 1));
        Counted(v)
    }
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        CLONES_LEFT.with(|c| {
            let left = c.get();
            assert!(left != 0, "Clone panics here");
            c.set(left.saturating_sub(1));
        });
        Counted::new(self.0)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        DROPPED.with(|d| d.set(d.get() + 1));
    }
}

/// What a panicking fill did: the elements made during it, and how many of them were dropped.
#[derive(Debug, PartialEq)]
struct Outcome {
    made: usize,
    dropped: usize,
}

/// Runs `fill`, which must panic, with the counters reset around it; the inputs it uses are
/// made before and dropped after, so only the fill's own elements count.
fn outcome(fill: impl FnOnce()) -> Outcome {
    MADE.with(|m| m.set(0));
    DROPPED.with(|d| d.set(0));
    let caught = catch_unwind(AssertUnwindSafe(fill));
    assert!(caught.is_err(), "the fill was meant to panic");
    CLONES_LEFT.with(|c| c.set(usize::MAX));
    Outcome {
        made: MADE.with(Cell::get),
        dropped: DROPPED.with(Cell::get),
    }
}

/// A closure that makes elements and panics on its `n`th call.
fn panics_at(n: usize) -> impl FnMut() -> Counted {
    let mut calls = 0;
    move || {
        calls += 1;
        assert!(calls != n, "the closure panics here");
        Counted::new(calls as u32)
    }
}

const DROPS_THEM: fn(usize) -> Outcome = |made| Outcome {
    made,
    dropped: made,
};
const LEAKS_THEM: fn(usize) -> Outcome = |made| Outcome { made, dropped: 0 };

#[test]
fn static_results_drop_the_elements_made() {
    let a = Tensor::<u8, Shape![2, 3]>::splat(1);
    let b = Tensor::<u8, Shape![3]>::splat(2);
    let mut next = panics_at(5);
    assert_eq!(
        outcome(|| drop(Tensor::<Counted, Shape![2, 3]>::from_fn(|_| next()))),
        DROPS_THEM(4)
    );
    let mut next = panics_at(4);
    assert_eq!(outcome(|| drop(a.map(|_| next()))), DROPS_THEM(3));
    let mut next = panics_at(6);
    assert_eq!(
        outcome(|| drop(a.broadcast_with(&b, |_, _| next()))),
        DROPS_THEM(5)
    );
}

#[test]
fn heap_and_mixed_results() {
    let a = Tensor::<u8, Shape![2, 3]>::splat(1).to_heap();
    let mut next = panics_at(4);
    assert_eq!(outcome(|| drop(a.map(|_| next()))), DROPS_THEM(3));
    let m = Tensor::<u8, Shape![_, 3]>::from_shape_vec([2, 3], vec![1; 6]).unwrap();
    let mut next = panics_at(5);
    assert_eq!(outcome(|| drop(m.map(|_| next()))), LEAKS_THEM(4));
    let col = Tensor::<u8, Shape![_, 1]>::from_shape_vec([2, 1], vec![1; 2]).unwrap();
    let mut next = panics_at(2);
    assert_eq!(
        outcome(|| drop(m.try_broadcast_with(&col, |_, _| next()))),
        LEAKS_THEM(1)
    );
    let mut next = panics_at(3);
    assert_eq!(
        outcome(|| drop(m.broadcast_with(&col, |_, _| next()))),
        LEAKS_THEM(2)
    );
    let mut next = panics_at(6);
    assert_eq!(
        outcome(|| drop(m.try_zip_map(&m, |_, _| next()))),
        LEAKS_THEM(5)
    );
    // With static shapes too, the `try_` forms write in place.
    let s = Tensor::<u8, Shape![2, 3]>::splat(1);
    let mut next = panics_at(6);
    assert_eq!(
        outcome(|| drop(s.try_zip_map(&s, |_, _| next()))),
        LEAKS_THEM(5)
    );
}

#[test]
fn dyn_tensor_results() {
    let t = DynTensor::from_shape_vec([2, 3], vec![1u8; 6]).unwrap();
    // `map` collects into a `Vec` as it goes: what it made is dropped.
    let mut next = panics_at(4);
    assert_eq!(outcome(|| drop(t.map(|_| next()))), DROPS_THEM(3));
    let mut next = panics_at(4);
    assert_eq!(outcome(|| drop(t.try_map(|_| next()))), DROPS_THEM(3));
    // `zip_with` and a view's `map` write in place: leaked.
    let mut next = panics_at(3);
    assert_eq!(
        outcome(|| drop(t.zip_with(&t, AutoBroadcast::Numpy, |_, _| next()))),
        LEAKS_THEM(2)
    );
    let v = t.strided().transpose();
    let mut next = panics_at(5);
    assert_eq!(outcome(|| drop(v.map(|_| next()))), LEAKS_THEM(4));
}

#[test]
fn copies_with_a_panicking_clone() {
    let t = DynTensor::from_shape_vec([2, 3], (0..6).map(Counted::new).collect()).unwrap();
    let clones_then_panic = |n: usize| CLONES_LEFT.with(|c| c.set(n));
    // Gathers (permute, a view copied out, broadcast) write in place: leaked.
    clones_then_panic(2);
    assert_eq!(outcome(|| drop(t.permute([1, 0]))), LEAKS_THEM(2));
    clones_then_panic(3);
    assert_eq!(
        outcome(|| drop(t.strided().transpose().to_tensor())),
        LEAKS_THEM(3)
    );
    clones_then_panic(4);
    assert_eq!(outcome(|| drop(t.broadcast_to([2, 2, 3]))), LEAKS_THEM(4));
    // Joins push into a `Vec`: dropped.
    clones_then_panic(7);
    assert_eq!(
        outcome(|| drop(DynTensor::concat(&[&t, &t], 0))),
        DROPS_THEM(7)
    );
    // Conversions clone into a `Vec`: dropped.
    clones_then_panic(1);
    assert_eq!(
        outcome(|| drop(t.try_to_shape::<Shape![_, 3]>())),
        DROPS_THEM(1)
    );
    drop(t);
}
