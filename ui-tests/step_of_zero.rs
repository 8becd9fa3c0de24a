// M8: a static step of 0 takes no element, a compile error naming the rule.
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<i32, Shape![2, 5]>::zeros();
    let _ = x.step::<1, 0>();
}
