// `pow` is for floating-point elements.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<i32, Shape![2]>::splat(3);
    let _ = a.pow(2);
}
