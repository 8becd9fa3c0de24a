// An index needs one coordinate per dim.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3, 4]>::splat(0.0);
    let _ = a[[1, 2]];
}
