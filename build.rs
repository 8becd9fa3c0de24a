//! Generates the map from `Const<N>` to a typenum number for every `N` that the
//! compile-time broadcast checks accept (see `src/dim.rs` for why a table is needed).
//!
//! The set is: every N in 0..=2048, then every multiple of 64 up to 65536, then every
//! power of two up to 2^31. Keep this in sync with the `STATIC_DIM_LIMIT` docs.

use std::fmt::Write;

fn typenum_of(n: u64) -> String {
    if n == 0 {
        return "::typenum::UTerm".to_string();
    }
    let bit = if n & 1 == 1 { "B1" } else { "B0" };
    format!("::typenum::UInt<{}, ::typenum::{bit}>", typenum_of(n >> 1))
}

/// For every rank 1..=8 and axis below it: the shape with that axis removed (`RemoveAxis`), kept
/// as a 1 (`KeepAxis`), and the check that it is not empty (`NonEmptyAxis`).
fn axis_impls() -> String {
    let mut out = String::new();
    for rank in 1..=8usize {
        let dims: Vec<String> = (0..rank).map(|i| format!("D{i}")).collect();
        let params = dims
            .iter()
            .map(|d| format!("{d}: Dim"))
            .collect::<Vec<_>>()
            .join(", ");
        let tuple = format!("({},)", dims.join(", "));
        for axis in 0..rank {
            let removed: Vec<&str> = (0..rank)
                .filter(|&i| i != axis)
                .map(|i| dims[i].as_str())
                .collect();
            let kept: Vec<String> = (0..rank)
                .map(|i| {
                    if i == axis {
                        "Const<1>".to_string()
                    } else {
                        dims[i].clone()
                    }
                })
                .collect();
            let removed = if removed.is_empty() {
                "()".to_string()
            } else {
                format!("({},)", removed.join(", "))
            };
            writeln!(
                out,
                "impl<{params}> RemoveAxis<{axis}> for {tuple} {{ type Output = {removed}; }}"
            )
            .unwrap();
            writeln!(
                out,
                "impl<{params}> KeepAxis<{axis}> for {tuple} {{ type Output = ({},); }}",
                kept.join(", ")
            )
            .unwrap();
            writeln!(
                out,
                "impl<{params}> NonEmptyAxis<{axis}> for {tuple} where D{axis}: NonEmptyDim {{}}"
            )
            .unwrap();
        }
    }
    out
}

fn main() {
    let mut values: Vec<u64> = (0..=2048).collect();
    values.extend((2048..=65536).step_by(64).skip(1));
    values.extend((12..=31).map(|k| 1u64 << k).filter(|v| *v > 65536));
    let mut out = String::new();
    for n in values {
        writeln!(
            out,
            "impl ToUnsigned for Const<{n}> {{ type Output = {}; }}",
            typenum_of(n)
        )
        .unwrap();
    }
    let dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(format!("{dir}/const_table.rs"), out).expect("write dims table");
    std::fs::write(format!("{dir}/axis_impls.rs"), axis_impls()).expect("write axis impls");
    println!("cargo:rerun-if-changed=build.rs");
}
