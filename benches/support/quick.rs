//! The criterion settings of the benches with many groups (`reductions.rs`, `matmul.rs`): a
//! short warm-up and 30 samples over two seconds, so one run of every group stays short.

use std::time::Duration;

use criterion::Criterion;

/// Warm-up 0.5 s, 2 s of measurement, 30 samples.
pub fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
}
