// A product in a function generic over its dims, without the shape rule as a bound: the
// error says to state it and names it (`MatMulShape`).
use shaped::bounds::{Const, Dim, Out, Storable};
use shaped::Tensor;

fn linear<B: Dim, const I: usize, const O: usize>(
    x: &Tensor<f32, (B, Const<I>)>,
    w: &Tensor<f32, (Const<I>, Const<O>)>,
) -> Out<f32, (B, Const<O>)>
where
    (B, Const<O>): Storable,
{
    x.matmul(w)
}

fn main() {
    let _ = linear::<Const<2>, 3, 4>;
}
