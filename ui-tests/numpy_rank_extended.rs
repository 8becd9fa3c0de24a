// P1/P7: (2, 3) with (2): the (2) is right-aligned against the 3.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<i32, Shape![2, 3]>::splat(1);
    let b = Tensor::<i32, Shape![2]>::splat(1);
    let _ = &a * &b;
}
