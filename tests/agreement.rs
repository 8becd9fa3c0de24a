//! The static and the dynamic path agree: every seed example and 60 generated pairs (ranks
//! 0-5, dims 0-3, made once with a fixed seed) go through both, and shapes and values must be
//! equal. Pairs the static path rejects are compile errors (ui-tests/); the dynamic path must
//! reject the same pairs (checked at the end).

use shaped::{
    broadcast_shapes, AutoBroadcast, BinaryOp, BroadcastToMode, DynTensor, Shape, StaticShape,
    Tensor,
};

fn numbered<S: StaticShape>(base: i64) -> Tensor<i64, S> {
    let mut k = base;
    Tensor::from_fn(|_| {
        k += 1;
        k - 1
    })
}

macro_rules! agree {
    ($([$($a:tt)*] [$($b:tt)*] [$($o:tt)*]),* $(,)?) => {{
        let mut n = 0;
        $({
            let a = numbered::<Shape![$($a)*]>(1);
            let b = numbered::<Shape![$($b)*]>(1000);
            // NUMPY: operator on the static path, BinaryOp on the dynamic path.
            let s: Tensor<i64, Shape![$($o)*]> = &a + &b;
            let d = a.to_dyn().binary(&b.to_dyn(), BinaryOp::Add, AutoBroadcast::Numpy).unwrap();
            assert_eq!(d.shape(), &s.shape()[..]);
            assert_eq!(d.as_slice(), s.as_slice());
            // Bidirectional: `broadcast_to` on both paths.
            let sb: Tensor<i64, Shape![$($o)*]> = a.broadcast_bidirectional::<Shape![$($b)*]>();
            let db = a.to_dyn().broadcast(&b.shape(), BroadcastToMode::Bidirectional).unwrap();
            assert_eq!(db.as_slice(), sb.as_slice());
            // NONE: identical shapes on both paths.
            let sn = s.zip_map(&s, |x, y| x - y);
            let dn = d.binary(&d, BinaryOp::Sub, AutoBroadcast::None).unwrap();
            assert_eq!(dn.as_slice(), sn.as_slice());
            // And the back conversion.
            assert_eq!(d.try_to_shape::<Shape![$($o)*]>().unwrap(), s);
            n += 1;
        })*
        n
    }};
}

#[test]
fn seed_examples_agree() {
    let n = agree!(
        [] [] [],
        [2, 3] [1] [2, 3],
        [3] [2, 3] [2, 3],
        [2, 3, 5] [] [2, 3, 5],
        [2, 1, 5] [1, 4, 5] [2, 4, 5],
        [6, 5] [2, 1, 5] [2, 6, 5],
        [2, 1, 5] [4, 1] [2, 4, 5],
        [3, 2, 1, 4] [5, 4] [3, 2, 5, 4],
        [1, 5, 3] [5, 2, 1, 3] [5, 2, 5, 3],
        [8, 1, 6, 1] [7, 1, 5] [8, 7, 6, 5],
        [1] [0] [0],
        [1, 0] [0, 1] [0, 0],
        [1, 1] [3] [1, 3],
        [1, 4, 1] [1, 4] [1, 4, 4],
    );
    assert_eq!(n, 14);
}

#[test]
fn generated_pairs_agree() {
    let n = agree!(
        [1, 1, 1] [1] [1, 1, 1],
        [2, 1, 1, 1] [3, 1, 3] [2, 3, 1, 3],
        [2, 3, 1, 3, 1] [1, 1] [2, 3, 1, 3, 1],
        [0, 0, 2, 1, 2] [2] [0, 0, 2, 1, 2],
        [1, 1, 3] [] [1, 1, 3],
        [2] [] [2],
        [2, 0] [1, 1] [2, 0],
        [1] [1] [1],
        [0, 1] [0, 1] [0, 1],
        [] [1, 1, 1] [1, 1, 1],
        [0, 1, 3] [1, 3] [0, 1, 3],
        [0, 2, 3, 3] [] [0, 2, 3, 3],
        [0, 0, 1, 0, 0] [] [0, 0, 1, 0, 0],
        [] [1] [1],
        [] [1, 2] [1, 2],
        [] [1, 2, 3] [1, 2, 3],
        [1, 2, 3, 0] [1, 0] [1, 2, 3, 0],
        [] [1, 0, 1, 1, 1] [1, 0, 1, 1, 1],
        [1, 1, 1] [1, 1] [1, 1, 1],
        [0, 0] [] [0, 0],
        [0, 3, 3, 0] [] [0, 3, 3, 0],
        [3] [] [3],
        [1, 0, 0, 2] [1, 0, 0, 2] [1, 0, 0, 2],
        [2, 1, 2, 3] [1, 1] [2, 1, 2, 3],
        [] [0, 1, 2] [0, 1, 2],
        [] [1, 0, 2, 1] [1, 0, 2, 1],
        [3, 1, 2, 1, 0] [] [3, 1, 2, 1, 0],
        [1] [] [1],
        [1, 3, 1, 3] [1, 1] [1, 3, 1, 3],
        [1, 3] [1, 3] [1, 3],
        [1, 2, 2, 1, 3] [3] [1, 2, 2, 1, 3],
        [1, 2, 3, 1] [] [1, 2, 3, 1],
        [1, 3] [3] [1, 3],
        [0, 1, 1] [1] [0, 1, 1],
        [1, 0, 0, 0] [1, 0, 0, 0] [1, 0, 0, 0],
        [0] [] [0],
        [0] [3, 1, 1, 1] [3, 1, 1, 0],
        [1, 0, 0, 1] [2, 1, 1, 1, 2] [2, 1, 0, 0, 2],
        [0] [1, 3, 0] [1, 3, 0],
        [3, 1] [1] [3, 1],
        [1, 2, 1, 3, 3] [1, 2, 1, 1, 3] [1, 2, 1, 3, 3],
        [] [] [],
        [1, 1] [1, 1] [1, 1],
        [] [1, 3] [1, 3],
        [3, 2, 1, 1] [2, 3] [3, 2, 2, 3],
        [] [2, 0, 1, 0, 1] [2, 0, 1, 0, 1],
        [1, 3] [] [1, 3],
        [2, 1] [2, 1] [2, 1],
        [2] [2] [2],
        [2, 1] [] [2, 1],
        [2, 0, 0] [] [2, 0, 0],
        [1] [3, 1] [3, 1],
        [1, 0, 3, 1, 0] [0] [1, 0, 3, 1, 0],
        [] [3, 0] [3, 0],
        [] [0, 1, 1, 0, 0] [0, 1, 1, 0, 0],
        [0, 1, 3, 1, 1] [3, 1, 1, 1] [0, 3, 3, 1, 1],
        [1, 0, 1, 2] [1, 1, 1] [1, 0, 1, 2],
        [] [3, 3, 0, 1] [3, 3, 0, 1],
        [] [2] [2],
        [3, 2, 1, 3, 0] [1, 1, 1, 0] [3, 2, 1, 3, 0]

    );
    assert_eq!(n, 60);
}

#[test]
fn rejected_seed_pairs_are_rejected_at_run_time_too() {
    // Each of these is a compile error on the static path (ui-tests/numpy_*.rs, bidirectional_mismatch.rs).
    for (a, b) in [
        (&[3][..], &[2][..]),
        (&[3, 1, 5], &[4, 4, 5]),
        (&[2, 3], &[2]),
        (&[1, 3, 4], &[2, 3, 3]),
        (&[0], &[3]),
        (&[4, 3, 2], &[8, 6, 4]),
    ] {
        assert!(
            broadcast_shapes(a, b, AutoBroadcast::Numpy).is_err(),
            "{a:?} {b:?}"
        );
        let d = DynTensor::from_shape_vec(a, vec![0i64; a.iter().product()]).unwrap();
        assert!(d.broadcast(b, BroadcastToMode::Bidirectional).is_err());
    }
}
