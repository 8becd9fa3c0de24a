// A sum and a product whose results are too large to be stored inline are each reported at
// the line that asks for them, naming the size, the limit and HeapTensor.
use shaped::{Shape, Tensor};

fn main() {
    let column = Tensor::<f32, Shape![128, 1]>::zeros();
    let row = Tensor::<f32, Shape![1, 768]>::zeros();
    let sum = &column + &row;
    let weight = Tensor::<f32, Shape![1, 256]>::zeros();
    let product = column.matmul(&weight);
    let _ = (sum, product);
}
