// A shape-generic function that adds two tensors must say that their shapes broadcast; the
// error names the bound to add.
use shaped::bounds::{Const, Dim, Out, Storable};
use shaped::Tensor;

fn add_bias<B: Dim, const N: usize>(
    x: &Tensor<f32, (B, Const<N>)>,
    bias: &Tensor<f32, (Const<N>,)>,
) -> Out<f32, (B, Const<N>)>
where
    (B, Const<N>): Storable,
{
    x.maximum(bias)
}

fn main() {
    let _ = add_bias::<Const<2>, 3>;
}
