// M13: edge, reflect and wrap pad from an axis's own elements, so padding an empty static axis
// with them is a compile error naming the rule.
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<i32, Shape![2, 0]>::zeros();
    let _ = x.pad_reflect::<1, 1, 0>();
}
