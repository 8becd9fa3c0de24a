// In a mixed shape, two static dims that differ are still a compile error (P2).
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![_, 3]>::from_shape_vec([2, 3], vec![0.0; 6]).unwrap();
    let b = Tensor::<f32, Shape![_, 4]>::from_shape_vec([2, 4], vec![0.0; 8]).unwrap();
    let _ = a.try_add(&b);
}
