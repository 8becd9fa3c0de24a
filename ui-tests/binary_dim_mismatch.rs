// O2: [2, 3] with [2, 4]: axis 1 has neither equal dims nor a 1.
use shaped::primitive::{Alg, Binary};
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::splat(0.0);
    let b = Tensor::<f32, Shape![2, 4]>::splat(0.0);
    let _ = Binary::new(Alg::Mul).apply(&a, &b);
}
