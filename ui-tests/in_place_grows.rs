// O8: in place, src1 [2, 3] would grow src0 [1, 3], which is also the destination.
use shaped::primitive::{Alg, Binary};
use shaped::{Shape, Tensor};

fn main() {
    let mut x = Tensor::<f32, Shape![1, 3]>::splat(0.0);
    let two_rows = Tensor::<f32, Shape![2, 3]>::splat(0.0);
    let _ = Binary::new(Alg::Add).apply_in_place(&mut x, &two_rows);
}
