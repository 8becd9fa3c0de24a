use shaped::{Shape, Tensor};

fn main() {
    let s = Tensor::<f32, Shape![]>::splat(1.0);
    let v = Tensor::<f32, Shape![3]>::splat(1.0);
    let _ = s.matmul(&v);
}
