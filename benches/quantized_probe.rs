//! Instruction-count probe for callgrind: a quantized int8 add (double rounding) of 1024 x 1024
//! outputs, same-shape or broadcast, chosen by `PROBE`: `none` (setup only), `same`
//! (`[1024, 1024] + [1024, 1024]`), `row` (`[1024, 1024] + [1, 1024]`), `outer`
//! (`[1024, 1] + [1, 1024]`). Per element = (variant - none) / 2^20.
//!
//! ```text
//! cargo bench --no-run --bench quantized_probe
//! PROBE=row valgrind --tool=callgrind target/release/deps/quantized_probe-*[^.d]
//! ```

use std::hint::black_box;

use shaped::quant::{Activation, QAdd, Quant, Rounding};
use shaped::{HeapTensor, Shape};

fn main() {
    let which = std::env::var("PROBE").unwrap_or_else(|_| "none".into());
    let (qa, qb, qo) = (
        Quant::<i8>::new(0.02, -5).unwrap(),
        Quant::new(0.03, 7).unwrap(),
        Quant::new(0.05, 3).unwrap(),
    );
    let add = QAdd::new(qa, qb, qo, Activation::None, Rounding::Double).unwrap();
    let n = 1 << 20;
    let full = |k: usize| {
        let v: Vec<i8> = (0..n).map(|i| (i * k % 251) as i8).collect();
        HeapTensor::<i8, Shape![1024, 1024]>::from_vec(v).unwrap()
    };
    let a = full(7).quantized(qa);
    let b = full(11).quantized(qb);
    let row = HeapTensor::<i8, Shape![1, 1024]>::from_vec(
        (0..1024).map(|i| (i * 3 % 249) as i8).collect(),
    )
    .unwrap()
    .quantized(qb);
    let col = HeapTensor::<i8, Shape![1024, 1]>::from_vec(
        (0..1024).map(|i| (i * 5 % 253) as i8).collect(),
    )
    .unwrap()
    .quantized(qa);
    let out = match which.as_str() {
        "same" => add.run(black_box(&a), black_box(&b)),
        "row" => add.run(black_box(&a), black_box(&row)),
        "outer" => add.run(black_box(&col), black_box(&row)),
        _ => {
            println!("{which}: 0");
            return;
        }
    };
    let sum: i64 = out
        .unwrap()
        .values()
        .as_slice()
        .iter()
        .map(|&x| x as i64)
        .sum();
    println!("{which}: {sum}");
}
