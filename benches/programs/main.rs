//! Six programs written from shaped's API docs, each with an ndarray twin and a hand-written-loop
//! twin on the same inputs: one criterion group per program, one function per version.
//! `programs_count check` (and its tests) show that the three give the same results.

mod common;
mod controller;
mod image;
mod mlp;
mod signal;
mod stats;
mod transformer;

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

macro_rules! group {
    ($c:expr, $m:ident) => {{
        let check = $m::check();
        assert!(check.passes(), "{}", check.report());
        let inp = $m::inputs();
        let mut g = $c.benchmark_group(stringify!($m));
        g.bench_function("shaped", |b| b.iter(|| $m::shaped(black_box(&inp.shaped))));
        g.bench_function("ndarray", |b| {
            b.iter(|| $m::ndarray(black_box(&inp.ndarray)))
        });
        g.bench_function("hand", |b| b.iter(|| $m::hand(black_box(&inp.hand))));
        g.finish();
    }};
}

fn programs(c: &mut Criterion) {
    group!(c, mlp);
    group!(c, transformer);
    group!(c, image);
    group!(c, stats);
    group!(c, signal);
    group!(c, controller);
}

criterion_group!(benches, programs);
criterion_main!(benches);
