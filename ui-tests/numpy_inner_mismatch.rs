// P7: (3, 1, 5) with (4, 4, 5): the leading 3 meets a 4.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![3, 1, 5]>::splat(0.0);
    let b = Tensor::<f32, Shape![4, 4, 5]>::splat(0.0);
    let _ = a.maximum(&b);
}
