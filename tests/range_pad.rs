//! Range (M12) and Pad (M13): against ONNX's reference evaluator on `Range` and `Pad` nodes
//! (`tests/reference/range_pad.py`, its output in `tests/reference/range_pad.txt`), bit for
//! bit; the static forms against the runtime ones on the same cases; the decisions A24-A27;
//! and each error's text.

use shaped::rules::{pad_shape, range_len, PadMode, RangeElement};
use shaped::{DynTensor, ErrorKind, Shape, Tensor};

use crate::written::Written;

const REFERENCE: &str = include_str!("reference/range_pad.txt");

fn list<T: Written>(field: &str) -> Vec<T> {
    if field.trim() == "-" {
        return Vec::new();
    }
    field.split_whitespace().map(T::read).collect()
}

fn bits<T: Written>(values: &[T]) -> Vec<u64> {
    values.iter().map(|v| v.bits()).collect()
}

fn dims(field: &str) -> Vec<usize> {
    list::<i64>(field).into_iter().map(|d| d as usize).collect()
}

fn mode(name: &str) -> PadMode {
    match name {
        "constant" => PadMode::Constant,
        "reflect" => PadMode::Reflect,
        "edge" => PadMode::Edge,
        "wrap" => PadMode::Wrap,
        _ => panic!("mode {name}"),
    }
}

/// The error kind the reference's refusal stands for.
fn refusal(why: &str) -> fn(ErrorKind) -> bool {
    match why {
        "error zero_delta" => |k| k == ErrorKind::ZeroDelta,
        "error nan" => |k| k == ErrorKind::RangeNaN,
        "error overflow" => |k| k == ErrorKind::Overflow,
        "error empty_axis" => |k| matches!(k, ErrorKind::PadEmptyAxis { .. }),
        _ => panic!("{why}"),
    }
}

/// One `range` line: `DynTensor::range`'s values, and the static range of the same count.
fn check_range<T: Written + RangeElement + Default>(f: &[&str], line: &str) {
    let (start, limit, delta) = (T::read(f[2]), T::read(f[3]), T::read(f[4]));
    let got = DynTensor::range(start, limit, delta);
    if f[5].starts_with("error") {
        let e = got.unwrap_err();
        assert!(refusal(f[5])(e.kind()), "{line}: {e}");
        return;
    }
    let want = list::<T>(f[5]);
    let got = got.unwrap();
    assert_eq!(got.shape(), &[want.len()], "{line}");
    assert_eq!(bits(got.as_slice()), bits(&want), "{line}");
    assert_eq!(range_len(start, limit, delta), Ok(want.len()), "{line}");
    static_range(start, delta, &want, line);
}

/// `Tensor::<T, Shape![N]>::range` for the counts that a static shape is written for here.
fn static_range<T: Written + RangeElement + Default>(start: T, delta: T, want: &[T], line: &str) {
    macro_rules! counts {
        ($($n:literal)*) => {
            match want.len() {
                $($n => bits(Tensor::<T, Shape![$n]>::range(start, delta).as_slice()),)*
                _ => return,
            }
        };
    }
    let got = counts!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 25 30 40 51);
    assert_eq!(got, bits(want), "{line}: the static range");
}

#[test]
fn m12_ranges_match_the_onnx_reference() {
    let mut checked = std::collections::BTreeMap::new();
    for line in REFERENCE.lines().filter(|l| l.starts_with("range")) {
        let f: Vec<&str> = line.split(" | ").collect();
        match f[1] {
            "int8" => check_range::<i8>(&f, line),
            "uint8" => check_range::<u8>(&f, line),
            "int16" => check_range::<i16>(&f, line),
            "uint16" => check_range::<u16>(&f, line),
            "int32" => check_range::<i32>(&f, line),
            "uint32" => check_range::<u32>(&f, line),
            "int64" => check_range::<i64>(&f, line),
            "float32" => check_range::<f32>(&f, line),
            "float64" => check_range::<f64>(&f, line),
            #[cfg(feature = "half")]
            "float16" => check_range::<shaped::f16>(&f, line),
            #[cfg(not(feature = "half"))]
            "float16" => continue,
            other => panic!("{other}"),
        }
        *checked.entry(f[1]).or_insert(0) += 1;
    }
    assert_eq!(checked.len(), 9 + usize::from(cfg!(feature = "half")));
    assert!(checked.values().all(|&n| n >= 30), "{checked:?}");
}

/// One `pad` line through `DynTensor::pad` (or `pad_axes`).
fn check_pad<T: Written + Clone>(f: &[&str], line: &str) {
    let x = DynTensor::from_shape_vec(dims(f[3]), list::<T>(f[7])).unwrap();
    let pads = list::<i64>(f[4]);
    let value = T::read(f[6]);
    let got = match f[5] {
        "all" => x.pad(&pads, mode(f[2]), value),
        axes => x.pad_axes(&pads, &list::<i64>(axes), mode(f[2]), value),
    };
    if f[8].starts_with("error") {
        let e = got.unwrap_err();
        assert!(refusal(f[8])(e.kind()), "{line}: {e}");
        return;
    }
    let got = got.unwrap();
    assert_eq!(got.shape(), &dims(f[8])[..], "{line}");
    assert_eq!(bits(got.as_slice()), bits(&list::<T>(f[9])), "{line}");
    let axes = (f[5] != "all").then(|| list::<i64>(f[5]));
    let shape = pad_shape(x.shape(), &pads, axes.as_deref(), mode(f[2])).unwrap();
    assert_eq!(&shape[..], got.shape(), "{line}");
}

#[test]
fn m13_pads_match_the_onnx_reference() {
    let (mut checked, mut refused) = (0, 0);
    for line in REFERENCE.lines().filter(|l| l.starts_with("pad")) {
        let f: Vec<&str> = line.split(" | ").collect();
        match f[1] {
            "int8" => check_pad::<i8>(&f, line),
            "uint8" => check_pad::<u8>(&f, line),
            "int32" => check_pad::<i32>(&f, line),
            "int64" => check_pad::<i64>(&f, line),
            "float32" => check_pad::<f32>(&f, line),
            "float64" => check_pad::<f64>(&f, line),
            "bool" => check_pad::<bool>(&f, line),
            other => panic!("{other}"),
        }
        checked += 1;
        refused += usize::from(f[8].starts_with("error"));
    }
    assert_eq!(checked, 386);
    assert!(refused >= 10, "{refused}");
}

/// The reference's output for the `pad` line of `dtype`, `mode`, `dims` and `pads` (the
/// input is in that line too).
fn reference_pad<T: Written>(dtype: &str, mode: &str, dims: &str, pads: &str) -> (Vec<T>, Vec<T>) {
    let key = format!("pad | {dtype} | {mode} | {dims} | {pads} | ");
    let line = REFERENCE
        .lines()
        .find(|l| l.starts_with(&key))
        .unwrap_or_else(|| panic!("no line {key}"));
    let f: Vec<&str> = line.split(" | ").collect();
    (list(f[7]), list(f[9]))
}

/// The static pads of one axis give the reference's output, and padding axes one after the
/// other gives what padding them together gives (M13).
#[test]
fn m13_static_pads_match_the_reference() {
    let bits32 = |t: &[i32]| t.iter().map(|&v| v as u64).collect::<Vec<_>>();
    for mode in ["reflect", "wrap", "edge", "constant"] {
        let (input, want) = reference_pad::<i32>("int32", mode, "3", "5 5");
        let x = Tensor::<i32, Shape![3]>::try_from(&input[..]).unwrap();
        let got: Tensor<i32, Shape![13]> = match mode {
            "reflect" => x.pad_reflect::<0, 5, 5>(),
            "wrap" => x.pad_wrap::<0, 5, 5>(),
            "edge" => x.pad_edge::<0, 5, 5>(),
            _ => x.pad_constant::<0, 5, 5>(want[0]),
        };
        assert_eq!(bits32(got.as_slice()), bits32(&want), "{mode}");
    }
    for mode in ["reflect", "wrap"] {
        let (input, want) = reference_pad::<i32>("int32", mode, "1", "2 3");
        let x = Tensor::<i32, Shape![1]>::try_from(&input[..]).unwrap();
        let got: Tensor<i32, Shape![6]> = match mode {
            "reflect" => x.pad_reflect::<0, 2, 3>(),
            _ => x.pad_wrap::<0, 2, 3>(),
        };
        assert_eq!(got.as_slice(), &want[..], "{mode}");
    }
    // Two axes of a rank-3 tensor, padded together by the reference (axes [2, 0]) and one
    // after the other here.
    let (input, want) = reference_pad::<f64>("float64", "reflect", "2 3 4", "2 1 3 2");
    let x = Tensor::<f64, Shape![2, 3, 4]>::try_from(&input[..]).unwrap();
    let got: Tensor<f64, Shape![5, 3, 9]> = x.pad_reflect::<2, 2, 3>().pad_reflect::<0, 1, 2>();
    assert_eq!(bits(got.as_slice()), bits(&want));
    let (input, want) = reference_pad::<f64>("float64", "wrap", "2 3 4", "5 5");
    let x = Tensor::<f64, Shape![2, 3, 4]>::try_from(&input[..]).unwrap();
    let got: Tensor<f64, Shape![2, 13, 4]> = x.pad_wrap::<1, 5, 5>();
    assert_eq!(bits(got.as_slice()), bits(&want));
    let (input, want) = reference_pad::<f64>("float64", "constant", "2 3 4", "1 2");
    let x = Tensor::<f64, Shape![2, 3, 4]>::try_from(&input[..]).unwrap();
    let value = want[0];
    let got: Tensor<f64, Shape![5, 3, 4]> = x.pad_constant::<-3, 1, 2>(value);
    assert_eq!(bits(got.as_slice()), bits(&want));
}

/// The static and runtime pads agree on every mode and amount up to twice the axis, on each
/// axis of a rank-3 tensor, and on a zero-size axis that is not padded.
#[test]
fn m13_static_and_runtime_pads_agree() {
    let x = Tensor::<i64, Shape![2, 3, 2]>::from_fn(|[i, j, k]| (i * 100 + j * 10 + k) as i64);
    let d = DynTensor::from_shape_vec([2, 3, 2], x.as_slice().to_vec()).unwrap();
    macro_rules! agree {
        ($($a:literal $b:literal $e:literal;)*) => {$(
            let mut pads = [0i64; 6];
            pads[$a] = $b;
            pads[3 + $a] = $e;
            for (mode, got) in [
                (PadMode::Constant, x.pad_constant::<$a, $b, $e>(-7).as_slice().to_vec()),
                (PadMode::Edge, x.pad_edge::<$a, $b, $e>().as_slice().to_vec()),
                (PadMode::Reflect, x.pad_reflect::<$a, $b, $e>().as_slice().to_vec()),
                (PadMode::Wrap, x.pad_wrap::<$a, $b, $e>().as_slice().to_vec()),
            ] {
                let want = d.pad(&pads, mode, -7).unwrap();
                assert_eq!(got, want.as_slice(), "axis {} by {} and {}, {mode}", $a, $b, $e);
                let one = d.pad_axes(&[$b, $e], &[$a], mode, -7).unwrap();
                assert_eq!(one, want);
            }
        )*};
    }
    agree! {
        0 0 0; 0 1 0; 0 0 3; 0 4 4; 1 2 1; 1 3 3; 1 6 5; 2 1 1; 2 4 0; 2 0 4;
    }
    // An empty axis that is not padded, in a mode that pads from its elements.
    let e = Tensor::<i64, Shape![2, 0]>::zeros();
    let got: Tensor<i64, Shape![4, 0]> = e.pad_edge::<0, 1, 1>();
    assert!(got.as_slice().is_empty());
    let got: Tensor<i64, Shape![2, 3]> = e.pad_constant::<1, 1, 2>(5);
    assert_eq!(got.as_slice(), &[5; 6]);
    let de = DynTensor::<i64>::from_shape_vec([2, 0], vec![]).unwrap();
    assert_eq!(
        de.pad(&[0, 1, 0, 2], PadMode::Constant, 5)
            .unwrap()
            .as_slice(),
        &[5; 6]
    );
}

#[test]
fn m12_errors() {
    let e = DynTensor::range(3, 9, 0).unwrap_err();
    assert_eq!(e.to_string(), "cannot range: the delta is 0 (M12)");
    let e = DynTensor::range(0.0f32, 1.0, f32::NAN).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot range: the count (limit - start) / delta is NaN (M12)"
    );
    let e = DynTensor::range(0.0, f64::INFINITY, 1.0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot range: the element count or byte size overflows (M12)"
    );
    // A count that fits `usize` whose bytes do not.
    let e = DynTensor::range(0u64, u64::MAX, 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot range: the element count or byte size overflows (M12)"
    );
    let e = range_len(0u128, u128::MAX, 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
    // A count that fits in bytes but not in memory is the allocator's refusal, not a panic.
    let e = DynTensor::range(0u8, 1, 1).map(|t| t.len());
    assert_eq!(e, Ok(1));
}

#[test]
fn m12_every_integer_type_counts_without_overflow() {
    assert_eq!(DynTensor::range(-128i8, 127, 1).unwrap().len(), 255);
    assert_eq!(
        DynTensor::range(i8::MAX, i8::MIN, i8::MIN)
            .unwrap()
            .as_slice(),
        &[127, -1]
    );
    assert_eq!(
        DynTensor::range(u64::MAX - 2, u64::MAX, 1)
            .unwrap()
            .as_slice(),
        &[u64::MAX - 2, u64::MAX - 1]
    );
    assert_eq!(
        DynTensor::range(i128::MIN, i128::MAX, i128::MAX)
            .unwrap()
            .as_slice(),
        &[i128::MIN, -1, i128::MAX - 1]
    );
    assert_eq!(
        DynTensor::range(isize::MIN, 0, isize::MAX).unwrap().len(),
        2
    );
    assert_eq!(DynTensor::range(5usize, 0, 1).unwrap().len(), 0);
    assert_eq!(
        DynTensor::range(0u16, 10, 4).unwrap().as_slice(),
        &[0, 4, 8]
    );
    // The static form wraps past the type, as the crate's integers do.
    assert_eq!(
        Tensor::<u8, Shape![3]>::range(250, 5).as_slice(),
        &[250, 255, 4]
    );
}

#[test]
fn m12_floats_follow_numpy_fill() {
    // `d = (start + delta) - start` is not `delta` here: 1e16 + 1 rounds to 1e16.
    let r = DynTensor::range(1e16, 1e16 + 8.0, 3.0).unwrap();
    assert_eq!(r.as_slice(), &[1e16, 1e16 + 4.0, 1e16 + 8.0]);
    let r = DynTensor::range(0.1f32, 1.0, 0.3).unwrap();
    assert_eq!(
        r.as_slice()[2],
        (f64::from(0.1f32) + 2.0 * ((f64::from(0.1f32) + f64::from(0.3f32)) - f64::from(0.1f32)))
            as f32
    );
    // A huge delta: one value toward the limit, none away from it.
    assert_eq!(
        DynTensor::range(0.0, 1.0, f64::INFINITY)
            .unwrap()
            .as_slice(),
        &[0.0]
    );
    assert_eq!(
        DynTensor::range(0.0, 1.0, f64::NEG_INFINITY).unwrap().len(),
        0
    );
}

#[test]
fn m13_errors() {
    let x = DynTensor::from_shape_vec([2, 3], (0..6).collect::<Vec<i32>>()).unwrap();
    let e = x.pad(&[1, 1], PadMode::Constant, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot pad [2, 3]: 2 pads given for 2 axes; each axis takes a begin and an end (M13)"
    );
    let e = x.pad_axes(&[1, 1], &[2], PadMode::Edge, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot pad [2, 3]: axis 2 is out of range for rank 2 (M13)"
    );
    let e = x
        .pad_axes(&[1, 1, 1, 1], &[0, -2], PadMode::Edge, 0)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot pad [2, 3]: axis 0 is given twice (M13)"
    );
    let e = x.pad_axes(&[1, 1], &[0, 1], PadMode::Edge, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot pad [2, 3]: 2 pads given for 2 axes; each axis takes a begin and an end (M13)"
    );
    let e = x.pad(&[0, -2, 0, -2], PadMode::Constant, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot pad [2, 3]: pads -2 and -2 remove more elements than axis 1 has (3) (M13)"
    );
    let e = x.pad(&[0, -3, 0, 1], PadMode::Wrap, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot pad [2, 3]: axis 1 has no elements to pad from in wrap mode; only constant mode pads an empty axis (M13)"
    );
    // A crop of the whole axis is fine, and so is filling it in constant mode.
    assert_eq!(
        x.pad(&[0, -3, 0, 0], PadMode::Wrap, 0).unwrap().shape(),
        &[2, 0]
    );
    assert_eq!(
        x.pad(&[0, -3, 0, 1], PadMode::Constant, 7)
            .unwrap()
            .as_slice(),
        &[7, 7]
    );
    let e = x
        .pad(&[i64::MAX, 0, i64::MAX, 0], PadMode::Edge, 0)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot pad [2, 3]: the element count or byte size overflows (M13)"
    );
    let e = x.pad(&[1 << 60, 0, 0, 0], PadMode::Edge, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot pad [2, 3]: the element count or byte size overflows (M13)"
    );
}

#[test]
fn m13_rank_zero_and_zero_size_dims() {
    let s = DynTensor::scalar(4.5f32);
    assert_eq!(s.pad(&[], PadMode::Reflect, 0.0).unwrap(), s);
    let e = s.pad(&[1, 1], PadMode::Constant, 0.0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PadsLength { len: 2, axes: 0 });
    // Huge empty shapes walk no rows.
    let big = DynTensor::<u8>::from_shape_vec([1 << 40, 0], vec![]).unwrap();
    let p = big.pad(&[0, 0, 0, 0], PadMode::Wrap, 0).unwrap();
    assert_eq!(p.shape(), &[1 << 40, 0]);
    let p = big
        .pad(&[-(1 << 40), 0, 0, 5], PadMode::Constant, 3)
        .unwrap();
    assert_eq!((p.shape(), p.as_slice()), (&[0, 5][..], &[][..]));
}

#[test]
fn a24_integer_range_counts_are_exact() {
    // numpy divides in f64 and counts 1 value here.
    let r = DynTensor::range(0i64, (1 << 62) + 1, 1 << 62).unwrap();
    assert_eq!(r.as_slice(), &[0, 1 << 62]);
    let r = DynTensor::range(i64::MIN, i64::MAX, i64::MAX).unwrap();
    assert_eq!(r.as_slice(), &[i64::MIN, -1, i64::MAX - 1]);
}

#[test]
fn a27_f32_ranges_count_in_f64() {
    // In f64, 0.3f32 / 0.1f32 is a little above 3: four values, as ONNX's reference gives.
    // numpy's `arange` of float32 scalars divides in float32 and gives three.
    let r = DynTensor::range(0.0f32, 0.3, 0.1).unwrap();
    assert_eq!(r.len(), 4);
    assert_eq!(r.as_slice()[3], (3.0 * f64::from(0.1f32)) as f32);
}

#[test]
fn a25_negative_pads_come_first() {
    let x = DynTensor::from_shape_vec([4], vec![1, 2, 3, 4]).unwrap();
    let w = x.pad(&[-3, 2], PadMode::Wrap, 0).unwrap();
    assert_eq!(w.as_slice(), &[4, 4, 4]);
    let r = x.pad(&[2, -1], PadMode::Reflect, 0).unwrap();
    assert_eq!(r.as_slice(), &[3, 2, 1, 2, 3]);
}

#[test]
fn a26_reflect_and_wrap_repeat_past_the_axis() {
    let x = DynTensor::from_shape_vec([3], vec![1, 2, 3]).unwrap();
    let r = x.pad(&[6, 6], PadMode::Reflect, 0).unwrap();
    assert_eq!(r.as_slice(), &[3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1]);
    let w = x.pad(&[4, 4], PadMode::Wrap, 0).unwrap();
    assert_eq!(w.as_slice(), &[3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1]);
    let one = DynTensor::from_shape_vec([1], vec![9]).unwrap();
    assert_eq!(
        one.pad(&[2, 1], PadMode::Reflect, 0).unwrap().as_slice(),
        &[9; 4]
    );
}

/// M13 into a buffer: every axis padded at once, `before` placing the input, the rest the
/// constant; a `before` of another count, or a destination too small, is an error.
#[test]
fn m13_pad_into_places_the_input_at_before() {
    let x = Tensor::<i32, Shape![2, 1, 3]>::from_fn(|[a, _, c]| (a * 3 + c) as i32);
    let mut y = Tensor::<i32, Shape![3, 3, 4]>::zeros();
    x.pad_into(&[1, 2, 0], -1, &mut y).unwrap();
    let want = x
        .pad_constant::<0, 1, 0>(-1)
        .pad_constant::<1, 2, 0>(-1)
        .pad_constant::<2, 0, 1>(-1);
    assert_eq!(y.as_slice(), want.as_slice());
    let e = x.pad_into(&[1, 2], 0, &mut y).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::PadsLength { len: 2, axes: 3 }),
        "{e}"
    );
    let e = x.pad_into(&[2, 2, 0], 0, &mut y).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot pad [2, 1, 3]: the shapes differ (M13)"
    );
    // Rank 0: the one element.
    let mut s = Tensor::<i32, Shape![]>::scalar(0);
    Tensor::<i32, Shape![]>::scalar(9)
        .pad_into(&[], 0, &mut s)
        .unwrap();
    assert_eq!(s.into_inner(), 9);
}
