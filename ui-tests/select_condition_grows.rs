// Select (W2): the condition broadcasts one way onto the values' broadcast, [2, 3] would grow
// [3].
use shaped::{Shape, Tensor};

fn main() {
    let mask = Tensor::<bool, Shape![2, 3]>::splat(true);
    let a = Tensor::<f32, Shape![3]>::splat(1.0);
    let _ = mask.select(&a, &a);
}
