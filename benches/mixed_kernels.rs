//! The mixed-shape path against the fully static one: `[_, 64] + [1, 64]` with batch 1024
//! (`try_add`, runtime batch) against `[1024, 64] + [1, 64]` (operator, all dims static, heap
//! storage). Both allocate their result.

// By-reference operators are what the benchmark measures.
#![allow(clippy::op_ref)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use shaped::{HeapTensor, Shape, Tensor};

fn bench(c: &mut Criterion) {
    let batch = 1024;
    let data: Vec<f32> = (0..batch * 64).map(|i| (i % 97) as f32 * 0.5).collect();
    let bias = Tensor::<f32, Shape![1, 64]>::from_fn(|[_, j]| j as f32 * 0.25);
    let mixed = Tensor::<f32, Shape![_, 64]>::from_shape_vec([batch, 64], data.clone()).unwrap();
    // The static shape on the heap: an inline `Tensor<f32, Shape![1024, 64]>` (256 KiB) moved
    // by value crashes LLVM's instruction selection in release builds (see benches/README.md).
    let heap = HeapTensor::<f32, Shape![1024, 64]>::from_vec(data).unwrap();
    assert_eq!(
        mixed.try_add(&bias).unwrap().as_slice(),
        (&heap + &bias).as_slice()
    );

    let mut group = c.benchmark_group("batch 1024 x 64 + 1 x 64");
    group.bench_function("static", |b| {
        b.iter(|| black_box(black_box(&heap) + black_box(&bias)))
    });
    group.bench_function("mixed", |b| {
        b.iter(|| black_box(black_box(&mixed).try_add(black_box(&bias)).unwrap()))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
