//! A panicking operator or method reports the caller's line, not a line inside shaped: each
//! case below panics, and the location the panic hook sees must be this file, on the line of
//! the call (`line!()` taken on that line).

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe, Location};
use std::sync::Once;

use shaped::{DynTensor, Shape, Tensor};

thread_local! {
    /// `Some` while a case runs: where its panic was reported.
    static SEEN: RefCell<Option<Option<(String, u32)>>> = const { RefCell::new(None) };
}

/// Runs `f`, which must panic, and returns the file and line the panic reported.
fn location_of(f: impl FnOnce()) -> (String, u32) {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let capturing = SEEN.with(|s| s.borrow().is_some());
            if capturing {
                let at = info.location().map(|l| (l.file().to_string(), l.line()));
                SEEN.with(|s| *s.borrow_mut() = Some(at));
            } else {
                default(info);
            }
        }))
    });
    SEEN.with(|s| *s.borrow_mut() = Some(None));
    let outcome = catch_unwind(AssertUnwindSafe(f));
    let seen = SEEN.with(|s| s.borrow_mut().take()).flatten();
    assert!(outcome.is_err(), "no panic");
    seen.expect("the hook saw the panic")
}

/// Checks that `$call` panics at this very line; a case that does not is added to `$wrong`
/// (every case runs, then the test lists those that failed).
macro_rules! panics_here {
    ($wrong:ident, $call:expr) => {{
        let line = line!();
        let (file, at) = location_of(|| {
            let _ = $call;
        });
        if (file.as_str(), at) != (Location::caller().file(), line) {
            $wrong.push(format!("{} at {file}:{at}", stringify!($call)));
        }
    }};
}

#[test]
fn mixed_shape_operations_panic_at_the_callers_line() {
    let mut wrong: Vec<String> = Vec::new();
    let a = Tensor::<f32, Shape![_]>::from_shape_vec([3], vec![1.0; 3]).unwrap();
    let b = Tensor::<f32, Shape![_]>::from_shape_vec([2], vec![1.0; 2]).unwrap();
    panics_here!(wrong, &a + &b);
    panics_here!(wrong, a.clone() * &b);
    panics_here!(wrong, a.broadcast_with(&b, |x, y| x - y));
    let m = Tensor::<f32, Shape![_, 2]>::from_shape_vec([3, 2], vec![1.0; 6]).unwrap();
    let k = Tensor::<f32, Shape![_, 4]>::from_shape_vec([3, 4], vec![1.0; 12]).unwrap();
    panics_here!(wrong, m.matmul(&k));
    panics_here!(wrong, m[[3, 0]]);
    let zero = Tensor::<i32, Shape![_]>::from_shape_vec([1], vec![0]).unwrap();
    let ones = Tensor::<i32, Shape![_]>::from_shape_vec([2], vec![1, 1]).unwrap();
    panics_here!(wrong, &ones / &zero);
    let mut acc = a.clone();
    panics_here!(wrong, acc += &b);
    panics_here!(wrong, ones.floor_mod(&zero));
    // A reduction with no identity over an empty `Dyn` axis.
    let empty = Tensor::<f32, Shape![_, 2]>::from_shape_vec([0, 2], vec![]).unwrap();
    panics_here!(wrong, empty.max_axis::<0>());
    panics_here!(wrong, empty.argmin_axis::<0>());
    // A result too large for memory (4 PiB).
    let huge = Tensor::<f32, Shape![_, 0]>::from_shape_vec([1 << 50, 0], vec![]).unwrap();
    panics_here!(wrong, huge.sum_axis::<1>());
    panics_here!(wrong, huge.mean_keepdims::<1>());
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn static_shape_operations_panic_at_the_callers_line() {
    let mut wrong: Vec<String> = Vec::new();
    let t = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]);
    panics_here!(wrong, t[[2, 0]]);
    let zero = Tensor::<i32, Shape![2]>::from([1, 0]);
    panics_here!(wrong, t / zero);
    panics_here!(wrong, t % zero);
    panics_here!(wrong, t.floor_mod(&zero));
    panics_here!(wrong, 1 / &zero);
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn runtime_operations_panic_at_the_callers_line() {
    let mut wrong: Vec<String> = Vec::new();
    let a = DynTensor::from_shape_vec([3], vec![1.0f32; 3]).unwrap();
    let b = DynTensor::from_shape_vec([2], vec![1.0f32; 2]).unwrap();
    panics_here!(wrong, &a + &b);
    panics_here!(wrong, a.clone() - &b);
    panics_here!(wrong, a[[3]]);
    let v = a.strided();
    panics_here!(wrong, v[[4]]);
    let mut acc = a.clone();
    panics_here!(wrong, acc *= &b);
    let i = DynTensor::from_shape_vec([2], vec![1, 2]).unwrap();
    let z = DynTensor::from_shape_vec([2], vec![0, 1]).unwrap();
    panics_here!(wrong, &i / &z);
    assert!(wrong.is_empty(), "{wrong:#?}");
}
