use shaped::conv::SAME;
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![1, 8, 8, 3]>::splat(1.0);
    let w = Tensor::<f32, Shape![4, 3, 3, 5]>::splat(0.5);
    let _ = x.conv2d(&w, (), SAME);
}
