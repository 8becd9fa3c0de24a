//! Shape-generic helpers as a user writes them from the `bounds` module's docs: softmax, layer
//! normalization, a linear layer and attention scores over a batch dim of any size, called on
//! static and mixed (runtime batch) tensors alike.
#![cfg(any(feature = "std", feature = "libm"))]

use shaped::bounds::{Const, Data, Dim, MatMulShape, Out, Storable, TransposeIf};
use shaped::{Shape, Tensor};

fn softmax<B: Dim, const N: usize>(x: &Tensor<f32, (B, Const<N>)>) -> Out<f32, (B, Const<N>)>
where
    (B, Const<N>): Storable,
{
    x.softmax::<-1>()
}

fn layer_norm<B: Dim, const N: usize>(x: &Tensor<f32, (B, Const<N>)>) -> Out<f32, (B, Const<N>)>
where
    (B, Const<N>): Storable,
{
    x.layer_norm::<-1>(1e-5)
}

fn linear<B: Dim, const I: usize, const O: usize>(
    x: &Tensor<f32, (B, Const<I>)>,
    w: &Tensor<f32, (Const<I>, Const<O>)>,
) -> Out<f32, (B, Const<O>)>
where
    (B, Const<I>): MatMulShape<(Const<I>, Const<O>), Output = (B, Const<O>)>,
    (B, Const<O>): Storable,
{
    x.matmul(w)
}

/// `softmax(q kᵀ)` per batch element, over the keys (scale `q` first for the usual
/// `1 / sqrt(d)`). A result computed from another computed result is stored like it, in a
/// storage the signature leaves to the compiler (`impl Data`).
fn attention_scores<B: Dim, const T: usize, const D: usize>(
    q: &Tensor<f32, (B, Const<T>, Const<D>)>,
    k: &Tensor<f32, (B, Const<T>, Const<D>)>,
) -> Tensor<f32, (B, Const<T>, Const<T>), impl Data<f32>>
where
    (B, Const<T>, Const<D>): TransposeIf<true, Output = (B, Const<D>, Const<T>)>
        + MatMulShape<(B, Const<D>, Const<T>), Output = (B, Const<T>, Const<T>)>,
    (B, Const<T>, Const<T>): Storable,
{
    q.matmul_nt(k).softmax::<-1>()
}

#[test]
fn generic_helpers_run_on_static_and_mixed_batches() {
    let x = Tensor::<f32, Shape![2, 3]>::from([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]);
    let p = softmax(&x);
    assert!((p[[0, 2]] - 0.66524094).abs() < 1e-6);
    assert_eq!(&p.as_slice()[3..], &[1.0 / 3.0; 3]);
    let n = layer_norm(&x);
    assert!(n.as_slice()[3..].iter().all(|&v| v == 0.0));
    let w = Tensor::<f32, Shape![3, 2]>::from([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]);
    assert_eq!(linear(&x, &w).as_slice(), &[4.0, 5.0, 0.0, 0.0]);

    // The batch size known only at run time: the same functions.
    let m = Tensor::<f32, Shape![_, 3]>::from_shape_vec([2, 3], x.as_slice().to_vec()).unwrap();
    assert_eq!(softmax(&m).as_slice(), p.as_slice());
    assert_eq!(layer_norm(&m).as_slice(), n.as_slice());
    let y: Tensor<f32, Shape![_, 2]> = linear(&m, &w);
    assert_eq!(y.as_slice(), &[4.0, 5.0, 0.0, 0.0]);

    let q = Tensor::<f32, Shape![2, 4, 8]>::from_fn(|[b, t, d]| ((b + t * d) % 5) as f32 * 0.1);
    let s = attention_scores(&q, &q);
    assert_eq!(s.shape().as_ref(), &[2, 4, 4]);
    let rows = s.sum_axis::<-1>();
    assert!(rows.as_slice().iter().all(|r| (r - 1.0).abs() < 1e-6));
    let qm =
        Tensor::<f32, Shape![_, 4, 8]>::from_shape_vec([2, 4, 8], q.as_slice().to_vec()).unwrap();
    assert_eq!(attention_scores(&qm, &qm).as_slice(), s.as_slice());
}
