// A shape-generic function whose result has a generic dim must say the result can be stored;
// the error names the bound to add (`shaped::bounds::Storable`).
use shaped::bounds::{Const, Dim, Out};
use shaped::Tensor;

fn column_sums<B: Dim, const N: usize>(x: &Tensor<f32, (B, Const<N>)>) -> Out<f32, (B,)> {
    x.sum_axis::<-1>()
}

fn main() {}
