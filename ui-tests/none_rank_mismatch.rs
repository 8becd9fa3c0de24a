// N2: [1] against [] is a rank mismatch under NONE, even though NUMPY would accept it.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![1]>::splat(0.0);
    let b = Tensor::<f32, Shape![]>::scalar(0.0);
    let _ = a.zip_map(&b, |x, y| x + y);
}
