//! Slicing with steps (M8), split (M9), gather (M10), gather_elements (M11) and squeezing
//! several axes (M3): against numpy on random shapes (`tests/reference/indexing.py`, its
//! output in `tests/reference/indexing.txt`), views against copies, and each error's text.

use shaped::rules::Slice;
use shaped::{DynTensor, ErrorKind};

fn list(field: &str) -> Vec<i64> {
    if field.trim() == "-" {
        return Vec::new();
    }
    field
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

fn dims(field: &str) -> Vec<usize> {
    list(field).into_iter().map(|d| d as usize).collect()
}

fn arange(shape: &[usize]) -> DynTensor<i64> {
    let n: usize = shape.iter().product();
    DynTensor::from_shape_vec(shape, (0..n as i64).collect()).unwrap()
}

fn bound(v: &str) -> Option<i64> {
    (v != "_").then(|| v.parse().unwrap())
}

#[test]
fn m8_slices_match_numpy() {
    let mut checked = 0;
    for line in include_str!("reference/indexing.txt").lines() {
        let f: Vec<&str> = line.split(" | ").collect();
        if f[0] != "slice" {
            continue;
        }
        let x = arange(&dims(f[1]));
        let slices: Vec<Slice> = f[2]
            .split(';')
            .map(|s| {
                let p: Vec<&str> = s.split(',').collect();
                Slice::new(bound(p[0]), bound(p[1]), p[2].parse().unwrap())
            })
            .collect();
        let y = x.slice(&slices).unwrap();
        assert_eq!(y.shape(), &dims(f[3])[..], "{line}");
        assert_eq!(y.as_slice(), &list(f[4])[..], "{line}");
        // A view takes the same elements when no step runs backwards over more than one.
        match x.strided().slice(&slices) {
            Ok(v) => assert_eq!(v.to_tensor(), y, "{line}"),
            Err(e) => assert!(
                matches!(e.kind(), ErrorKind::NegativeStepView { .. }),
                "{line}"
            ),
        }
        checked += 1;
    }
    assert_eq!(checked, 400);
}

#[test]
fn m10_m11_gathers_match_numpy() {
    let (mut take, mut along) = (0, 0);
    for line in include_str!("reference/indexing.txt").lines() {
        let f: Vec<&str> = line.split(" | ").collect();
        if f[0] != "take" && f[0] != "along" {
            continue;
        }
        let x = arange(&dims(f[1]));
        let axis: i64 = f[2].parse().unwrap();
        let idims = dims(f[3]);
        let idx = list(f[4]);
        let i64s = DynTensor::from_shape_vec(&idims, idx.clone()).unwrap();
        let i8s =
            DynTensor::from_shape_vec(&idims, idx.iter().map(|&i| i as i8).collect()).unwrap();
        let (a, b) = if f[0] == "take" {
            take += 1;
            (
                x.gather(&i64s, axis).unwrap(),
                x.gather(&i8s, axis).unwrap(),
            )
        } else {
            along += 1;
            (
                x.gather_elements(&i64s, axis).unwrap(),
                x.gather_elements(&i8s, axis).unwrap(),
            )
        };
        assert_eq!(a.shape(), &dims(f[5])[..], "{line}");
        assert_eq!(a.as_slice(), &list(f[6])[..], "{line}");
        assert_eq!(a, b, "{line}: the index type does not matter");
    }
    assert_eq!((take, along), (300, 300));
}

#[test]
fn m8_edges_and_errors() {
    let x = arange(&[3, 4]);
    let e = x.slice(&[Slice::ALL, Slice::ALL, Slice::ALL]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot slice [3, 4]: 3 slices given for rank 2 (M8)"
    );
    let e = x.slice_axis(1, Slice::step(0)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot slice [3, 4]: the step along axis 1 is 0 (M8)"
    );
    assert_eq!(
        x.slice_axis(2, Slice::ALL).unwrap_err().to_string(),
        "cannot slice [3, 4]: axis 2 is out of range for rank 2 (M8)"
    );
    let e = x.strided().slice(&[Slice::step(-1)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot slice [3, 4]: a view cannot step backwards along axis 0; DynTensor::slice copies (M8)"
    );
    // Extreme bounds and steps clamp, never overflow.
    let s = Slice::new(Some(i64::MIN), Some(i64::MAX), i64::MAX);
    assert_eq!(x.slice_axis(1, s).unwrap().as_slice(), &[0, 4, 8]);
    let s = Slice::new(Some(i64::MAX), Some(i64::MIN), i64::MIN);
    assert_eq!(x.slice_axis(1, s).unwrap().as_slice(), &[3, 7, 11]);
    let v = x
        .strided()
        .slice(&[Slice::new(None, None, i64::MAX)])
        .unwrap();
    assert_eq!(v.shape(), [1, 4]);
    // One backwards element is still a view.
    let v = x
        .strided()
        .slice(&[Slice::new(Some(2), Some(1), -1)])
        .unwrap();
    assert_eq!(v.to_tensor().as_slice(), &[8, 9, 10, 11]);
    // Rank 0: no slices; an empty tensor with a huge dim.
    let s = DynTensor::scalar(5);
    assert_eq!(s.slice(&[]).unwrap().as_slice(), &[5]);
    let huge = DynTensor::<u8>::from_shape_vec([0, usize::MAX / 2], vec![]).unwrap();
    let h = huge
        .slice(&[Slice::ALL, Slice::new(None, None, -2)])
        .unwrap();
    assert_eq!(h.shape(), &[0, usize::MAX / 4 + 1]);
}

#[test]
fn m9_split_and_split_equal() {
    let x = arange(&[2, 6]);
    let p = x.split(-1, &[1, 0, 5]).unwrap();
    assert_eq!(
        p.iter().map(|t| t.shape().to_vec()).collect::<Vec<_>>(),
        [[2, 1], [2, 0], [2, 5]]
    );
    assert_eq!(p[2].as_slice(), &[1, 2, 3, 4, 5, 7, 8, 9, 10, 11]);
    let q = x.split_equal(1, 3).unwrap();
    assert_eq!(q[1].as_slice(), &[2, 3, 8, 9]);
    assert_eq!(
        x.split(0, &[1, usize::MAX]).unwrap_err().to_string(),
        "cannot split [2, 6]: the parts add up to 18446744073709551615, but axis 0 has 2 (M9)"
    );
    assert_eq!(
        x.split_equal(0, 0).unwrap_err().kind(),
        ErrorKind::SplitParts {
            axis: 0,
            parts: 0,
            dim: 2
        }
    );
    let e = DynTensor::<u8>::from_shape_vec([0, 4], vec![]).unwrap();
    assert_eq!(e.split_equal(0, 5).unwrap().len(), 5);
}

#[test]
fn m10_m11_errors_name_the_index() {
    let x = arange(&[2, 3]);
    let i = DynTensor::from_shape_vec([3], vec![0u64, 1, u64::MAX]).unwrap();
    assert_eq!(
        x.gather(&i, 0).unwrap_err().to_string(),
        "cannot gather [2, 3]: index 9223372036854775807 (at 2) is outside axis 0, which has 2 (M10)"
    );
    let i = DynTensor::from_shape_vec([1], vec![-3i32]).unwrap();
    assert_eq!(
        x.gather(&i, -1).unwrap().as_slice(),
        &[0, 3],
        "-3 is the first of 3"
    );
    let i = DynTensor::from_shape_vec([1], vec![-4i32]).unwrap();
    assert_eq!(
        x.gather(&i, -1).unwrap_err().kind(),
        ErrorKind::IndexOutOfRange {
            axis: 1,
            position: 0,
            index: -4,
            dim: 3
        }
    );
    // An empty axis has no index, even when the output would be empty.
    let e = DynTensor::<i64>::from_shape_vec([0, 0], vec![]).unwrap();
    let zero = DynTensor::from_shape_vec([1], vec![0i64]).unwrap();
    assert!(e.gather(&zero, 1).is_err());
    let none = DynTensor::<i64>::from_shape_vec([0], vec![]).unwrap();
    assert_eq!(e.gather(&none, 1).unwrap().shape(), &[0, 0]);
    // gather_elements: ranks and dims.
    let flat = DynTensor::from_shape_vec([2], vec![0i64, 1]).unwrap();
    assert_eq!(
        x.gather_elements(&flat, 0).unwrap_err().to_string(),
        "cannot gather_elements of [2, 3] by indices [2]: ranks 2 and 1 differ (M11)"
    );
    let bad = DynTensor::from_shape_vec([1, 2], vec![0i64, 3]).unwrap();
    assert_eq!(
        x.gather_elements(&bad, 1).unwrap_err().to_string(),
        "cannot gather_elements [2, 3]: index 3 (at 1) is outside axis 1, which has 3 (M11)"
    );
}

#[test]
fn m3_squeeze_several_axes_or_all() {
    let x = arange(&[1, 3, 1, 1]);
    assert_eq!(x.clone().squeeze_axes(&[2, 0]).unwrap().shape(), &[3, 1]);
    assert_eq!(x.clone().squeeze_all().shape(), &[3]);
    assert_eq!(x.strided().squeeze_all().shape(), [3]);
    assert_eq!(x.strided().squeeze_axes(&[-1]).unwrap().shape(), [1, 3, 1]);
    assert_eq!(
        x.clone().squeeze_axes(&[0, -4]).unwrap_err().to_string(),
        "cannot squeeze [1, 3, 1, 1]: axis 0 is given twice (M3)"
    );
    assert_eq!(x.clone().squeeze_axes(&[]).unwrap(), x);
    assert_eq!(DynTensor::scalar(1).squeeze_all().shape(), &[] as &[usize]);
    assert_eq!(arange(&[1, 1]).squeeze_all().as_slice(), &[0]);
}

/// M8 on static shapes: `narrow`, `step` and `flip` compose to the runtime slice, the
/// stepped dim computed at compile time.
#[test]
fn m8_static_step_and_flip_agree_with_the_runtime_slice() {
    use shaped::{Shape, Tensor};
    let x = Tensor::<i64, Shape![3, 7]>::from_fn(|[i, j]| (i * 7 + j) as i64);
    let d = arange(&[3, 7]);
    // x[:, 1:7:2]
    let a: Tensor<i64, Shape![3, 3]> = x.narrow::<1, 1, 6>().step::<1, 2>();
    let want = d
        .slice(&[Slice::ALL, Slice::new(Some(1), Some(7), 2)])
        .unwrap();
    assert_eq!(a.as_slice(), want.as_slice());
    // x[::-1, ::3]: ceil(7 / 3) = 3
    let b: Tensor<i64, Shape![3, 3]> = x.flip::<0>().step::<-1, 3>();
    let want = d.slice(&[Slice::step(-1), Slice::step(3)]).unwrap();
    assert_eq!(b.as_slice(), want.as_slice());
    // Steps past the dim keep the first element; a step of 1 keeps all.
    let c: Tensor<i64, Shape![1, 7]> = x.step::<0, 5>();
    assert_eq!(c.as_slice(), &d.as_slice()[..7]);
    assert_eq!(x.step::<1, 1>(), x);
    // x[:, ::-2]
    let e: Tensor<i64, Shape![3, 4]> = x.flip::<1>().step::<1, 2>();
    let want = d.slice(&[Slice::ALL, Slice::step(-2)]).unwrap();
    assert_eq!(e.as_slice(), want.as_slice());
    // An empty axis stays empty; a large one goes through the out-of-line fill.
    let z = Tensor::<i64, Shape![0, 3]>::from([]);
    let zs: Tensor<i64, Shape![0, 2]> = z.step::<1, 2>();
    assert!(zs.as_slice().is_empty());
    let big = Tensor::<u16, Shape![64, 130]>::from_fn(|[i, j]| (i * 130 + j) as u16);
    let bs: Tensor<u16, Shape![22, 130]> = big.step::<0, 3>().flip::<1>();
    let db = DynTensor::from_shape_vec([64, 130], big.as_slice().to_vec()).unwrap();
    let want = db.slice(&[Slice::step(3), Slice::step(-1)]).unwrap();
    assert_eq!(bs.as_slice(), want.as_slice());
}
