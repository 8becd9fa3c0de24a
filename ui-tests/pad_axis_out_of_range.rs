// M13: a static pad of an axis the shape does not have is a compile error naming the rule.
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<i32, Shape![2, 3]>::zeros();
    let _ = x.pad_constant::<2, 1, 1>(0);
}
