use shaped::{Shape, Tensor};

fn main() {
    // The largest of no elements has no value: a static empty axis does not compile.
    let x = Tensor::<f32, Shape![2, 0]>::splat(1.0);
    let _ = x.max_axis::<1>();
}
