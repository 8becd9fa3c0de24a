//! Wider vectors for large work: on x86 and x86-64 with `std`, an elementwise kernel over at
//! least [`MIN_WIDE`] elements runs a copy of its loop nest compiled for AVX2 when the CPU has
//! it (detected once, then a cached load), and the baseline (SSE2) copy otherwise. The runtime
//! loop planner (`plan.rs`) and the binary primitive's single pass (`primitive/fused.rs`) both
//! choose here.
//!
//! Why: a large broadcast is bound by how fast one core moves bytes, and the baseline's
//! 16-byte loads and stores move half as many bytes per instruction, and per load- and
//! store-queue entry, as AVX2's 32-byte ones. On a Zen 5 core, one thread, f32
//! (`benches/parallel.rs`): the 1024x1+1x1024 outer sum took 49.0 us with the baseline loops
//! against a 41.9 us fill of the same output, and 37.6 us with these; the 1024x1024+1x1024
//! row add 85.8 against 79.3 us. Code placement alone moved the baseline outer sum between 48
//! and 70 us from one binary to the next; the AVX2 copy writes as fast as a fill.
//!
//! The cost is code: each elementwise kernel a program uses gets a second copy (8-12 KB with
//! its row-loop variants; a small program using 24 of them grew from 764 to 965 KB), and a
//! dependent crate's release build takes longer. The copy therefore holds five of the
//! baseline's eight row bodies, those that carry large work (`Nest::run_avx2` in `plan.rs`):
//! a small `DynTensor` program rebuilt in 2.0 s of CPU, 2.3 s with all eight, 1.8 s with no
//! copy at all.
//!
//! Results are those of the baseline loops: both copies compile the same source, IEEE
//! arithmetic rounds each lane exactly whatever the vector width, and Rust never fuses a
//! multiply and an add unless asked (AVX2 alone does not enable FMA). As everywhere in Rust,
//! which NaN an operation on two NaNs returns is unspecified (vector and scalar code already
//! chose differently); every other bit is the same (`tests/wide.rs`).
//!
//! Elsewhere (no `std` to detect with, other architectures) there is one copy, and this module
//! does not exist. In a build whose baseline already has AVX2 (`-C target-cpu=native`) both
//! copies are AVX2 code and the detection is a constant.

/// The fewest output elements for which a kernel checks for AVX2: below it a call runs the
/// baseline loops and pays one comparison, so the code of small calls does not change.
/// Measured (f32 add into a caller's buffer, one thread, Zen 5), AVX2 against baseline loops:
/// 256 elements 52.5 against 52.8 ns, 512 elements 53.6 against 71.9 ns, 1024 elements 75.0
/// against 113.5 ns. The threshold sits one doubling above the break-even.
pub(crate) const MIN_WIDE: usize = 1 << 9;

/// Whether work of `elements` should run the AVX2 copy of its kernel: it is large enough and
/// this CPU has AVX2. `false` below [`MIN_WIDE`] without asking the CPU.
#[inline(always)]
pub(crate) fn avx2(elements: usize) -> bool {
    elements >= MIN_WIDE && std::arch::is_x86_feature_detected!("avx2")
}
