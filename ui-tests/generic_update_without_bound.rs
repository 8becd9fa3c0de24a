// A shape-generic function that adds into a tensor must say that the right side broadcasts
// onto it; the error names the bound to add.
use shaped::bounds::{Const, Dim};
use shaped::Tensor;

fn add_bias<B: Dim, const N: usize>(x: &mut Tensor<f32, (B, Const<N>)>, bias: &Tensor<f32, (Const<N>,)>) {
    *x += bias;
}

fn main() {
    let _ = add_bias::<Const<2>, 3>;
}
