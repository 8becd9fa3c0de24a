//! Generates the map from `Const<N>` to a typenum number for every `N` that the
//! compile-time broadcast checks accept (see `src/dim.rs` for why a table is needed).
//!
//! The set is: every N in 0..=2048, then every multiple of 64 up to 65536, then every
//! power of two up to 2^31. Keep this in sync with the `STATIC_DIM_LIMIT` docs.

use std::fmt::Write;

/// A typenum number in the short names of the tables' own modules (`N` for `UInt`, `Z` for
/// `UTerm`, `O` and `I` for the bits): the tables hold thousands of them.
fn short_typenum_of(n: u64) -> String {
    if n == 0 {
        return "Z".to_string();
    }
    let bit = if n & 1 == 1 { "I" } else { "O" };
    format!("N<{},{bit}>", short_typenum_of(n >> 1))
}

/// For every rank 1..=8 and axis below it (named from the start and, negative, from the end):
/// the shape with that axis removed (`RemoveAxis`), kept as a 1 (`KeepAxis`), and the check
/// that it is not empty (`NonEmptyAxis`).
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
            // Each axis under both of its names: from the start, and negative from the end.
            for a in [axis as isize, axis as isize - rank as isize] {
                writeln!(
                    out,
                    "impl<{params}> RemoveAxis<{a}> for {tuple} {{ type Output = {removed}; }}"
                )
                .unwrap();
                writeln!(
                    out,
                    "impl<{params}> KeepAxis<{a}> for {tuple} {{ type Output = ({},); }}",
                    kept.join(", ")
                )
                .unwrap();
                writeln!(
                    out,
                    "impl<{params}> NonEmptyAxis<{a}> for {tuple} where D{axis}: NonEmptyDim {{}}"
                )
                .unwrap();
            }
        }
    }
    out
}

fn tuple(items: &[String]) -> String {
    if items.is_empty() {
        "()".to_string()
    } else {
        format!("({},)", items.join(", "))
    }
}

/// The impls of shape manipulation (rules M1-M7, `src/typed/rules/manipulate.rs`) for every
/// rank 0..=8 and axis: `InsertAxis`, `ReplaceAxis`, `SelectAxis`, `SqueezeAxis`, `Narrow`,
/// `Step`, `PadAxis`, `PadFrom`, `Concat`, `Permute` and the element count as a typenum number
/// (`StaticCount`).
fn manipulate_impls() -> String {
    let mut out = String::new();
    for rank in 0..=8usize {
        let dims: Vec<String> = (0..rank).map(|i| format!("D{i}")).collect();
        let params: Vec<String> = dims.iter().map(|d| format!("{d}: Dim")).collect();
        let own = tuple(&dims);
        // The element count: a product of typenum numbers, one factor per dim.
        let mut count = "::typenum::U1".to_string();
        let mut bounds = Vec::new();
        for d in &dims {
            bounds.push(format!("{d}: ToUnsigned"));
            bounds.push(format!(
                "{count}: ::core::ops::Mul<<{d} as ToUnsigned>::Output>"
            ));
            count = format!("::typenum::Prod<{count}, <{d} as ToUnsigned>::Output>");
        }
        bounds.push(format!("{count}: ::typenum::Unsigned"));
        writeln!(
            out,
            "impl<{}> StaticCount for {own} where {} {{ type Count = {count}; }}",
            params.join(", "),
            bounds.join(", ")
        )
        .unwrap();
        // A new dim `N` before axis `a` (a dim of 1 for `insert_axis`, the count for `stack`).
        if rank < 8 {
            for a in 0..=rank {
                let mut v = dims.clone();
                v.insert(a, "N".to_string());
                let mut p = params.clone();
                p.push("N: Dim".to_string());
                // Negative: counted from the end of the result, as numpy's `expand_dims`.
                for name in [a as isize, a as isize - rank as isize - 1] {
                    writeln!(
                        out,
                        "impl<{}> InsertAxis<{name}, N> for {own} {{ type Output = {}; }}",
                        p.join(", "),
                        tuple(&v)
                    )
                    .unwrap();
                }
            }
        }
        // The axes reversed (numpy's `.T`), rank 0 included.
        let reversed: Vec<String> = dims.iter().rev().cloned().collect();
        let axes: Vec<String> = (0..rank).rev().map(|i| i.to_string()).collect();
        writeln!(
            out,
            "impl<{}> Reverse for {own} {{ type Output = {}; const AXES: &'static [usize] = &[{}]; }}",
            params.join(", "),
            tuple(&reversed),
            axes.join(", ")
        )
        .unwrap();
        if rank == 0 {
            continue;
        }
        let perm: Vec<String> = (0..rank).map(|i| format!("P{i}")).collect();
        for a in 0..rank {
            let with = |dim: &str| {
                let mut v = dims.clone();
                v[a] = dim.to_string();
                tuple(&v)
            };
            let mut p = params.clone();
            p.push("N: Dim".to_string());
            // Each axis under both of its names, as for the reductions.
            let names = [a as isize, a as isize - rank as isize];
            for name in names {
                writeln!(
                    out,
                    "impl<{}> ReplaceAxis<{name}, N> for {own} {{ type Output = {}; }}",
                    p.join(", "),
                    with("N")
                )
                .unwrap();
            }
            writeln!(
                out,
                "impl<{}> SelectAxis<{a}> for {own} {{ type Dim = D{a}; }}",
                params.join(", ")
            )
            .unwrap();
            for name in [a as isize, a as isize - rank as isize] {
                writeln!(
                    out,
                    "impl<{}> SqueezeAxis<{name}> for {own} where D{a}: UnitDim<{own}, {name}> {{}}",
                    params.join(", "),
                )
                .unwrap();
            }
            for name in names {
                writeln!(
                    out,
                    "impl<{}, const START: usize, const LEN: usize> Narrow<{name}, START, LEN> for {own} \
                     where D{a}: NarrowDim<{own}, {name}, START, LEN> {{ type Output = {}; }}",
                    params.join(", "),
                    with("Const<LEN>")
                )
                .unwrap();
            }
            for name in names {
                writeln!(
                    out,
                    "impl<{}, const STEP: usize> Step<{name}, STEP> for {own} \
                     where D{a}: StepDim<STEP> {{ type Output = {}; }}",
                    params.join(", "),
                    with(&format!("<D{a} as StepDim<STEP>>::Output"))
                )
                .unwrap();
            }
            // Padding by amounts fixed at compile time (M13): the sum, and for the modes that
            // repeat the axis's own elements, that it has some.
            for name in names {
                writeln!(
                    out,
                    "impl<{}, const BEFORE: usize, const AFTER: usize> PadAxis<{name}, BEFORE, AFTER> \
                     for {own} where D{a}: PadDim<BEFORE, AFTER> {{ type Output = {}; }}",
                    params.join(", "),
                    with(&format!("<D{a} as PadDim<BEFORE, AFTER>>::Output"))
                )
                .unwrap();
                writeln!(
                    out,
                    "impl<{}, const BEFORE: usize, const AFTER: usize> PadFrom<{name}, BEFORE, AFTER> \
                     for {own} where {own}: PadStatic<{name}, BEFORE, AFTER>, \
                     D{a}: PadFromDim<{own}, {name}, BEFORE, AFTER> {{}}",
                    params.join(", "),
                )
                .unwrap();
            }
            // The other operand's dims are its own parameters, each checked against ours, so a
            // mismatch reports the rule (M6) rather than a type mismatch.
            let others: Vec<String> = (0..rank).map(|i| format!("E{i}")).collect();
            let mut p = params.clone();
            p.extend(others.iter().map(|e| format!("{e}: Dim")));
            let rhs = tuple(&others);
            for name in names {
                let mut bounds = vec![format!("D{a}: AddDim<E{a}>")];
                for i in (0..rank).filter(|&i| i != a) {
                    bounds.push(format!("D{i}: JoinDim<E{i}, {own}, {rhs}, {name}>"));
                }
                writeln!(
                    out,
                    "impl<{}> Concat<{name}, {rhs}> for {own} where {} {{ type Output = {}; }}",
                    p.join(", "),
                    bounds.join(", "),
                    with(&format!("<D{a} as AddDim<E{a}>>::Output"))
                )
                .unwrap();
            }
        }
        // A permutation: every `P{i}` an axis of the shape, and no two equal (pairwise typenum
        // comparisons: shallow, unlike a bit mask, which overflows rustc's recursion limit).
        let mut p = params.clone();
        p.extend(perm.iter().map(|q| format!("const {q}: usize")));
        let axes = tuple(
            &perm
                .iter()
                .map(|q| format!("Axis<{q}>"))
                .collect::<Vec<_>>(),
        );
        let outputs: Vec<String> = perm
            .iter()
            .map(|q| format!("<{own} as SelectAxis<{q}>>::Dim"))
            .collect();
        let mut bounds: Vec<String> = perm
            .iter()
            .map(|q| format!("{own}: SelectAxis<{q}>"))
            .collect();
        let num = |q: &str| format!("<Const<{q}> as ToUnsigned>::Output");
        for (x, q) in perm.iter().enumerate() {
            bounds.push(format!("Const<{q}>: ToUnsigned"));
            for r in &perm[x + 1..] {
                bounds.push(format!("{}: ::typenum::IsNotEqual<{}>", num(q), num(r)));
                bounds.push(format!(
                    "::typenum::NotEq<{}, {}>: IsPermutation<{own}, {axes}>",
                    num(q),
                    num(r)
                ));
            }
        }
        writeln!(
            out,
            "impl<{}> Permute<{axes}> for {own} where {} {{ type Output = {}; const AXES: &'static [usize] = &[{}]; }}",
            p.join(", "),
            bounds.join(", "),
            tuple(&outputs),
            perm.join(", ")
        )
        .unwrap();
    }
    out
}

/// The reverse table: `impl ToConst for <typenum of N>` for each `N` of `values`, the `Const<N>`
/// dims that type-level arithmetic makes (a flattened count, a concatenated axis).
///
/// Coherence compares every two impls of a trait whose self types share a head: thousands of
/// `UInt<..>` impls of one trait took seconds of each build of the crate. So a number of 8 or
/// more is looked up in two steps, its lowest four bits picking one of 16 traits (`Low0` to
/// `Low15`, one generic `ToConst` impl each), its remaining bits the impl of that trait: each
/// trait holds a sixteenth of the table. Numbers below 8 (fewer than four bits) are direct
/// impls.
fn reverse_table(values: &[u64]) -> String {
    let mut out = String::new();
    let bit = |b: u64| if b & 1 == 1 { "I" } else { "O" };
    for low in 0..16u64 {
        writeln!(
            out,
            "#[diagnostic::on_unimplemented(\n\
             message = \"a computed dim is outside the static-dim table, so it has no `Const<N>`\",\n\
             label = \"a flattened element count or a concatenated dim beyond the table\",\n\
             note = \"computed dims cover every N in 0..=2048 and the powers of two up to 2^31; \
             name the shape with `reshape::<S>()`, or use the runtime forms\")]\n\
             pub trait Low{low} {{ type Output: Dim; }}\n\
             impl<U: Low{low}> ToConst for N<N<N<N<U,{}>,{}>,{}>,{}> {{ \
             type Output = <U as Low{low}>::Output; }}",
            bit(low >> 3),
            bit(low >> 2),
            bit(low >> 1),
            bit(low)
        )
        .unwrap();
    }
    for &n in values {
        if n < 8 {
            writeln!(
                out,
                "impl ToConst for {} {{ type Output = Const<{n}>; }}",
                short_typenum_of(n)
            )
            .unwrap();
        } else {
            writeln!(
                out,
                "impl Low{} for {} {{ type Output = Const<{n}>; }}",
                n & 15,
                short_typenum_of(n >> 4)
            )
            .unwrap();
        }
    }
    out
}

/// The impls of `MatMulShape` (rules G1-G5, `src/typed/rules/matmul.rs`) for every pair of
/// ranks 1..=8, and `Append` (a dim added at the end) for ranks 0..=7.
fn matmul_impls() -> String {
    let mut out = String::new();
    for rank in 0..8usize {
        let dims: Vec<String> = (0..rank).map(|i| format!("D{i}")).collect();
        let mut with = dims.clone();
        with.push("X".to_string());
        let mut params: Vec<String> = dims.iter().map(|d| format!("{d}: Dim")).collect();
        params.push("X: Dim".to_string());
        writeln!(
            out,
            "impl<{}> Append<X> for {} {{ type Output = {}; }}",
            params.join(", "),
            tuple(&dims),
            tuple(&with)
        )
        .unwrap();
        if rank < 7 {
            with.push("Y".to_string());
            params.push("Y: Dim".to_string());
            writeln!(
                out,
                "impl<{}> Append2<X, Y> for {} {{ type Output = {}; }}",
                params.join(", "),
                tuple(&dims),
                tuple(&with)
            )
            .unwrap();
        }
    }
    // G2: the last two dims swapped when `T` is true; a rank-1 shape is left as it is.
    for rank in 1..=8usize {
        let dims: Vec<String> = (0..rank).map(|i| format!("D{i}")).collect();
        let params: Vec<String> = dims.iter().map(|d| format!("{d}: Dim")).collect();
        let mut swapped = dims.clone();
        if rank >= 2 {
            swapped.swap(rank - 2, rank - 1);
        }
        writeln!(
            out,
            "impl<{}> TransposeIf<true> for {} {{ type Output = {}; }}",
            params.join(", "),
            tuple(&dims),
            tuple(&swapped)
        )
        .unwrap();
    }
    // A rank-0 right operand: an impl whose bound never holds carries the error (G1).
    for ra in 1..=8usize {
        let a: Vec<String> = (0..ra).map(|i| format!("A{i}")).collect();
        let params: Vec<String> = a.iter().map(|d| format!("{d}: Dim")).collect();
        let own = tuple(&a);
        writeln!(
            out,
            "impl<{}> MatMulShape<()> for {own} where {own}: RankZeroOperand<{own}, ()> {{ type Output = (); }}",
            params.join(", ")
        )
        .unwrap();
    }
    for ra in 1..=8usize {
        for rb in 1..=8usize {
            let a: Vec<String> = (0..ra).map(|i| format!("A{i}")).collect();
            let b: Vec<String> = (0..rb).map(|i| format!("B{i}")).collect();
            let (own_a, own_b) = (tuple(&a), tuple(&b));
            // G3: a rank-1 left operand is a row, a rank-1 right operand a column.
            let (batch_a, m, ka) = if ra == 1 {
                (Vec::new(), None, a[0].clone())
            } else {
                (
                    a[..ra - 2].to_vec(),
                    Some(a[ra - 2].clone()),
                    a[ra - 1].clone(),
                )
            };
            let (batch_b, kb, n) = if rb == 1 {
                (Vec::new(), b[0].clone(), None)
            } else {
                (
                    b[..rb - 2].to_vec(),
                    b[rb - 2].clone(),
                    Some(b[rb - 1].clone()),
                )
            };
            let (batch_a, batch_b) = (tuple(&batch_a), tuple(&batch_b));
            let mut params: Vec<String> = a.iter().chain(&b).map(|d| format!("{d}: Dim")).collect();
            params.sort();
            let mut bounds = vec![
                format!("{ka}: InnerDim<{kb}, {own_a}, {own_b}>"),
                format!("{batch_a}: BroadcastShape<{batch_b}, Numpy>"),
            ];
            // One projection for the matrix dims: a chain of two does not normalize in rustc.
            let batch = format!("NumpyOutput<{batch_a}, {batch_b}>");
            let append = match (m, n) {
                (Some(m), Some(n)) => Some(format!("Append2<{m}, {n}>")),
                (Some(d), None) | (None, Some(d)) => Some(format!("Append<{d}>")),
                (None, None) => None,
            };
            let output = match append {
                Some(ap) => {
                    bounds.push(format!("{batch}: {ap}"));
                    format!("<{batch} as {ap}>::Output")
                }
                None => batch,
            };
            writeln!(
                out,
                "impl<{}> MatMulShape<{own_b}> for {own_a} where {} {{ type Output = {output}; }}",
                params.join(", "),
                bounds.join(", ")
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
    for &n in &values {
        writeln!(
            out,
            "impl ToUnsigned for Const<{n}> {{ type Output = {}; }}",
            short_typenum_of(n)
        )
        .unwrap();
    }
    let dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(format!("{dir}/const_table.rs"), out).expect("write dims table");
    std::fs::write(format!("{dir}/axis_impls.rs"), axis_impls()).expect("write axis impls");
    std::fs::write(format!("{dir}/matmul_impls.rs"), matmul_impls()).expect("write matmul impls");
    std::fs::write(format!("{dir}/manipulate_impls.rs"), manipulate_impls())
        .expect("write manipulation impls");
    // The reverse table is smaller: each of its impls costs more to check than a forward one
    // (measured: the whole set adds 3.8 s to a rebuild of the crate, this subset 0.35 s).
    let reverse: Vec<u64> = values
        .iter()
        .copied()
        .filter(|&v| v <= 2048 || v.is_power_of_two())
        .collect();
    std::fs::write(format!("{dir}/reverse_table.rs"), reverse_table(&reverse))
        .expect("write the reverse table");
    // The Arm DSP extension (`SMLAD`, `SXTB16`, ...: src/conv/dsp.rs): every ARMv7E-M core
    // has it (the `thumbv7em` targets: Cortex-M4, M7). rustc's `target_feature = "dsp"` is
    // an unstable feature, invisible to `cfg` on stable, so the target's name decides, or the
    // feature where the toolchain shows it.
    let target = std::env::var("TARGET").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    if arch == "arm" && (target.starts_with("thumbv7em") || features.split(',').any(|f| f == "dsp"))
    {
        println!("cargo:rustc-cfg=shaped_arm_dsp");
    }
    // AVX-512 (src/conv/x86.rs, src/quant/elementwise/rows.rs): its intrinsics are stable
    // from Rust 1.89, above the crate's `rust-version`, so the kernels that use them build only
    // where the compiler has them; they run only where the CPU has them too (checked at run
    // time, feature `std`).
    if arch == "x86_64" && rustc_minor().is_some_and(|m| m >= 89) {
        println!("cargo:rustc-cfg=shaped_avx512");
    }
    // A build optimized for size ("s" or "z", Cargo's OPT_LEVEL for this package): the
    // Cortex-M kernels leave out two fast paths (src/conv/dsp.rs), 820 bytes of a depthwise
    // convolution's firmware and 370 of a convolution's, for more instructions per MAC at
    // "s" (the depthwise layer of qemu-tests/icount_conv.sh 6.4 -> 10.0, still under
    // CMSIS-NN's 10.9 at -Os).
    let opt_level = std::env::var("OPT_LEVEL").unwrap_or_default();
    if opt_level == "s" || opt_level == "z" {
        println!("cargo:rustc-cfg=shaped_opt_size");
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// The minor version of the `rustc` that builds the crate (`1.M.p`), if it says.
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC")?;
    let out = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split('.');
    match (parts.next(), parts.next()) {
        (Some("1"), Some(minor)) => minor.parse().ok(),
        _ => None,
    }
}
