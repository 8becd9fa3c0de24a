// Per-axis parameters need one scale and zero point per index of their axis: three do not
// quantize an axis of size 4.
use shaped::quant::PerAxis;
use shaped::{Shape, Tensor};

static SCALES: [f32; 3] = [0.5, 0.25, 0.125];
static ZEROS: [i32; 3] = [0, 0, 0];

fn main() {
    let p = PerAxis::<i8, 3>::new(&SCALES, &ZEROS).unwrap();
    let w = Tensor::<i8, Shape![2, 4]>::splat(1);
    let _ = w.quantized_per_axis::<1, 3>(p);
}
