// P7: (3) with (2) does not broadcast.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![3]>::splat(0.0);
    let b = Tensor::<f32, Shape![2]>::splat(0.0);
    let _ = &a + &b;
}
