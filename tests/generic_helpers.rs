//! Shape-generic helpers as a user writes them from the `bounds` module's docs: softmax, layer
//! normalization, a linear layer and attention scores over a batch dim of any size, called on
//! static and mixed (runtime batch) tensors alike.
#![cfg(any(feature = "std", feature = "libm"))]

use shaped::bounds::{
    BroadcastWith, Const, Dim, MatMulShape, MatMulShapeT, Out, Storable, UpdateWith,
};
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

/// `softmax(q kᵀ / sqrt(d))` per batch element, over the keys. A result computed from
/// another computed result is stored like it: `Out` names the end of the chain.
fn attention_scores<B: Dim, const T: usize, const D: usize>(
    q: &Tensor<f32, (B, Const<T>, Const<D>)>,
    k: &Tensor<f32, (B, Const<T>, Const<D>)>,
) -> Out<f32, (B, Const<T>, Const<T>)>
where
    (B, Const<T>, Const<D>):
        MatMulShapeT<(B, Const<T>, Const<D>), false, true, Output = (B, Const<T>, Const<T>)>,
    (B, Const<T>, Const<T>): Storable,
{
    (q.matmul_nt(k) * (1.0 / (D as f32).sqrt())).softmax::<-1>()
}

/// `gelu(x w + b)`: a broadcast add of a bias row, then unary math, over a batch of any size.
fn dense_gelu<B: Dim, const I: usize, const O: usize>(
    x: &Tensor<f32, (B, Const<I>)>,
    w: &Tensor<f32, (Const<I>, Const<O>)>,
    b: &Tensor<f32, (Const<O>,)>,
) -> Out<f32, (B, Const<O>)>
where
    (B, Const<I>): MatMulShape<(Const<I>, Const<O>), Output = (B, Const<O>)>,
    (B, Const<O>): BroadcastWith<(Const<O>,), Output = (B, Const<O>)> + Storable,
{
    (&x.matmul(w) + b).gelu()
}

/// `x + f(x)`, the residual connection: two tensors of the same generic shape broadcast
/// with each other, and `-x` and scalars need only `Storable`.
fn residual<B: Dim, const N: usize>(x: &Tensor<f32, (B, Const<N>)>) -> Out<f32, (B, Const<N>)>
where
    (B, Const<N>): BroadcastWith<(B, Const<N>), Output = (B, Const<N>)> + Storable,
{
    let f = (-x).relu() * 0.5;
    x + &f
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

/// `x = 0.9 x + 0.1 y` in place, `y` one row for the whole batch (an exponential average).
fn blend_in<B: Dim, const N: usize>(
    x: &mut Tensor<f32, (B, Const<N>)>,
    y: &Tensor<f32, (Const<N>,)>,
) where
    (B, Const<N>): UpdateWith<(Const<N>,)>,
{
    *x *= 0.9;
    *x += &(y * 0.1);
}

/// A batch of rows of `N` features.
type Rows<B, const N: usize> = Out<f32, (B, Const<N>)>;

/// Each row minus its mean, and the row sums: a reduction kept as 1 broadcasts back. The
/// bounds name the shapes of the results, as the compiler's notes do.
fn center<B: Dim, const N: usize>(x: &Tensor<f32, (B, Const<N>)>) -> (Rows<B, N>, Out<f32, (B,)>)
where
    (B, Const<1>): Storable,
    (B,): Storable,
    (B, Const<N>): BroadcastWith<(B, Const<1>), Output = (B, Const<N>)> + Storable,
{
    (x - &x.mean_keepdims::<-1>(), x.sum_axis::<-1>())
}

#[test]
fn generic_broadcasts_run_on_static_and_mixed_batches() {
    let x = Tensor::<f32, Shape![2, 2]>::from([[1.0, -2.0], [0.0, 4.0]]);
    let w = Tensor::<f32, Shape![2, 3]>::from([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]);
    let b = Tensor::<f32, Shape![3]>::from([0.0, 2.0, -1.0]);
    let y = dense_gelu(&x, &w, &b);
    // x w + b = [[1, 0, -2], [0, 6, 3]]; gelu(0) = 0, gelu(1) = 0.8413447 (exact form).
    assert_eq!(y.shape().as_ref(), &[2, 3]);
    assert_eq!(y[[0, 1]], 0.0);
    assert!((y[[0, 0]] - 0.8412).abs() < 1e-3, "{}", y[[0, 0]]);
    assert!((y[[1, 1]] - 6.0).abs() < 1e-6);
    let r = residual(&x);
    assert_eq!(r.as_slice(), &[1.0, -1.0, 0.0, 4.0]);

    let xm = Tensor::<f32, Shape![_, 2]>::from_shape_vec([2, 2], x.as_slice().to_vec()).unwrap();
    assert_eq!(dense_gelu(&xm, &w, &b).as_slice(), y.as_slice());
    let rm: Tensor<f32, Shape![_, 2]> = residual(&xm);
    assert_eq!(rm.as_slice(), r.as_slice());
    // An empty batch.
    let empty = Tensor::<f32, Shape![_, 2]>::from_shape_vec([0, 2], vec![]).unwrap();
    assert_eq!(residual(&empty).shape().as_ref(), &[0, 2]);

    let y = Tensor::<f32, Shape![2]>::from([10.0, 20.0]);
    let mut s = x;
    blend_in(&mut s, &y);
    let mut m = xm.clone();
    blend_in(&mut m, &y);
    let (a, b) = (10.0f32 * 0.1, 20.0f32 * 0.1);
    let expected = [
        1.0f32 * 0.9 + a,
        -2.0f32 * 0.9 + b,
        0.0f32 * 0.9 + a,
        4.0f32 * 0.9 + b,
    ];
    assert_eq!(s.as_slice(), &expected);
    assert_eq!(m.as_slice(), s.as_slice());

    let (c, sums) = center(&x);
    assert_eq!(c.as_slice(), &[1.5, -1.5, -2.0, 2.0]);
    assert_eq!(sums.as_slice(), &[-1.0, 4.0]);
    let (cm, sums_m) = center(&xm);
    assert_eq!(
        (cm.as_slice(), sums_m.as_slice()),
        (c.as_slice(), sums.as_slice())
    );
}
