// `+` in a shape-generic function without the bound that the shapes broadcast: the error
// names the bound to add.
use shaped::bounds::{Const, Dim, Out, Storable};
use shaped::Tensor;

fn add_bias<B: Dim, const N: usize>(
    x: &Tensor<f32, (B, Const<N>)>,
    bias: &Tensor<f32, (Const<N>,)>,
) -> Out<f32, (B, Const<N>)>
where
    (B, Const<N>): Storable,
{
    x + bias
}

fn main() {
    let _ = add_bias::<Const<2>, 3>;
}
