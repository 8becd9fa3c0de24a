use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 5, 3]>::splat(1.0);
    let b = Tensor::<f32, Shape![4, 3, 7]>::splat(1.0);
    let _ = a.matmul(&b);
}
