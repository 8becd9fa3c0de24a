//! One version of one program, run once after a warm-up, for callgrind:
//!
//! ```sh
//! programs_count mlp shaped     # or ndarray, hand; the programs are listed by `programs_count`
//! programs_count check          # the three versions of every program compared
//! ```
//!
//! The measured call is `measure`, so `--toggle-collect='*programs_count::measure*'` counts
//! exactly one run (the result's drop included); `count.sh` does this for every pair.

mod common;
mod controller;
mod image;
mod mlp;
mod signal;
mod stats;
mod transformer;

use std::hint::black_box;

/// The one call callgrind counts.
#[inline(never)]
fn measure<R>(f: impl FnOnce() -> R) {
    drop(black_box(f()));
}

macro_rules! run {
    ($m:ident, $version:expr) => {{
        let inp = $m::inputs();
        match $version {
            "shaped" => {
                let _ = black_box($m::shaped(black_box(&inp.shaped)));
                measure(|| $m::shaped(black_box(&inp.shaped)));
            }
            "ndarray" => {
                let _ = black_box($m::ndarray(black_box(&inp.ndarray)));
                measure(|| $m::ndarray(black_box(&inp.ndarray)));
            }
            "hand" => {
                let _ = black_box($m::hand(black_box(&inp.hand)));
                measure(|| $m::hand(black_box(&inp.hand)));
            }
            other => return Err(format!("unknown version {other}: shaped, ndarray or hand")),
        }
    }};
}

const PROGRAMS: [&str; 6] = [
    "mlp",
    "transformer",
    "image",
    "stats",
    "signal",
    "controller",
];

fn checks() -> Vec<common::Check> {
    vec![
        mlp::check(),
        transformer::check(),
        image::check(),
        stats::check(),
        signal::check(),
        controller::check(),
    ]
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["check"] => {
            let mut ok = true;
            for c in checks() {
                println!("{}", c.report());
                ok &= c.passes();
            }
            if ok {
                Ok(())
            } else {
                Err("a program's versions disagree".into())
            }
        }
        [program, version] => {
            match program {
                "mlp" => run!(mlp, version),
                "transformer" => run!(transformer, version),
                "image" => run!(image, version),
                "stats" => run!(stats, version),
                "signal" => run!(signal, version),
                "controller" => run!(controller, version),
                other => return Err(format!("unknown program {other}: {PROGRAMS:?}")),
            }
            Ok(())
        }
        _ => Err(format!(
            "usage: programs_count <program> <shaped|ndarray|hand> | check; programs: {PROGRAMS:?}"
        )),
    }
}
