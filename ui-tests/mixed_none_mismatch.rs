// NONE with mixed shapes: two static dims that differ do not compile (N1).
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![_, 3]>::from_shape_vec([2, 3], vec![0.0; 6]).unwrap();
    let b = Tensor::<f32, Shape![2, 4]>::zeros();
    let _ = a.try_zip_map(&b, |x, y| x + y);
}
