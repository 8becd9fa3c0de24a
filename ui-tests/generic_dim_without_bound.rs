// A function generic over a dim must state the rule it needs as a bound
// (`where Shape![{ N }, 3]: Broadcasts<Shape![1, 3]>`); without it, the dim has no value to check.
use shaped::{Shape, Tensor};

fn add_bias<const N: usize>(
    x: &Tensor<f32, Shape![{ N }, 3]>,
    b: &Tensor<f32, Shape![1, 3]>,
) -> Tensor<f32, Shape![{ N }, 3]> {
    x + b
}

fn main() {}
