// O1: the binary primitive never extends ranks; [2, 3] with [3] does not compile.
use shaped::primitive::{Alg, Binary};
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::splat(0.0);
    let b = Tensor::<f32, Shape![3]>::splat(0.0);
    let _ = Binary::new(Alg::Add).apply(&a, &b);
}
