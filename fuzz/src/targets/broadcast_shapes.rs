//! `broadcast_shapes` in every mode with any axis, against RULES.md's text; its error value
//! formats without panicking.
use super::super::{reference_shape, Input};
use shaped::broadcast_shapes;

/// One fuzz input.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let a = input.shape(10, true);
    let b = input.shape(10, true);
    let mode = input.mode();
    let got = broadcast_shapes(&a, &b, mode);
    // Past the runtime rank limit every mode is an error.
    let too_deep = a.len().max(b.len()) > shaped::rules::MAX_RANK;
    let want = reference_shape(&a, &b, mode).filter(|_| !too_deep);
    match (&got, &want) {
        (Ok(s), Some(r)) => assert_eq!(s.as_slice(), &r.out[..], "{a:?} {b:?} {mode:?}"),
        (Err(e), None) => {
            let _ = e.to_string();
        }
        _ => panic!(
            "{a:?} {b:?} {mode:?}: got {:?}, reference {:?}",
            got.map(|s| s.to_vec()),
            want.map(|r| r.out)
        ),
    }
}
