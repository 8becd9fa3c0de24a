// O2: the caller's destination must have the sources' broadcast shape, [4, 4] here.
use shaped::primitive::{Alg, Binary};
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![1, 4]>::splat(0.0);
    let b = Tensor::<f32, Shape![4, 1]>::splat(0.0);
    let mut dst = Tensor::<f32, Shape![1, 4]>::splat(0.0);
    let _ = Binary::new(Alg::Add).apply_into(&a, &b, &mut dst);
}
