// P8: a chain of broadcasts fails at the step that is incompatible: (1,2),(3,1),(3,2),(10,5).
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![1, 2]>::splat(1.0);
    let b = Tensor::<f32, Shape![3, 1]>::splat(1.0);
    let c = Tensor::<f32, Shape![3, 2]>::splat(1.0);
    let d = Tensor::<f32, Shape![10, 5]>::splat(1.0);
    let _ = &(&(&a + &b) + &c) + &d;
}
