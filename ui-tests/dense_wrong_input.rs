// A dense layer with 3 inputs applied to rows of 4 (G7).
use shaped::layer::{Dense, Relu};
use shaped::{Shape, Tensor};

static W: [[f32; 2]; 3] = [[0.5; 2]; 3];

fn main() {
    let layer: Dense<'_, f32, Relu, 3, 2> = Dense::new(&W, None, Relu);
    let x = Tensor::<f32, Shape![1, 4]>::zeros();
    let _ = layer.forward(&x);
}
