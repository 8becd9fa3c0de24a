// M8: a static step along an axis outside the shape.
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<i32, Shape![2, 5]>::zeros();
    let _ = x.step::<2, 2>();
}
