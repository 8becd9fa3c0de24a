// P5: 0 against n > 1 is an error (only a 1 stretches to 0).
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![0]>::splat(0.0);
    let b = Tensor::<f32, Shape![3]>::splat(0.0);
    let _ = a.lt(&b);
}
