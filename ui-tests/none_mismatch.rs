// N1: NONE needs identical shapes; (2, 3) and (3, 2) have the same length but differ.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::splat(0.0);
    let b = Tensor::<f32, Shape![3, 2]>::splat(0.0);
    let _ = a.zip_map(&b, |x, y| x + y);
}
