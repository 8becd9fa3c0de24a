//! Feature `serde`: every tensor as `{ shape, data }`, round-tripped through a self-describing
//! format (JSON) and a compact one (postcard), read across storages, and malformed input
//! refused with an error naming what does not fit.

use shaped::{DynTensor, HeapTensor, Shape, ShapeBuf, Tensor, TensorView};

fn json<X: serde::Serialize>(x: &X) -> String {
    serde_json::to_string(x).unwrap()
}

fn from_json<'a, X: serde::Deserialize<'a>>(text: &'a str) -> Result<X, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

fn bytes<X: serde::Serialize>(x: &X) -> Vec<u8> {
    postcard::to_allocvec(x).unwrap()
}

fn from_bytes<'a, X: serde::Deserialize<'a>>(b: &'a [u8]) -> Result<X, String> {
    postcard::from_bytes(b).map_err(|e| e.to_string())
}

#[test]
fn static_tensors_round_trip_in_json_and_postcard() {
    let t = Tensor::<f32, Shape![2, 3]>::from([[1.0, 2.5, -3.0], [4.0, 0.0, 6.25]]);
    let text = json(&t);
    assert_eq!(
        text,
        r#"{"shape":[2,3],"data":[1.0,2.5,-3.0,4.0,0.0,6.25]}"#
    );
    assert_eq!(from_json::<Tensor<f32, Shape![2, 3]>>(&text).unwrap(), t);

    let b = bytes(&t);
    // postcard: the rank and dims as varints, then the count and the six f32s.
    assert_eq!(&b[..4], &[2, 2, 3, 6]);
    assert_eq!(b.len(), 4 + 6 * 4);
    assert_eq!(from_bytes::<Tensor<f32, Shape![2, 3]>>(&b).unwrap(), t);
}

#[test]
fn every_storage_writes_the_same_form_and_reads_each_others() {
    let data: Vec<i64> = (0..24).map(|x| x * 3 - 7).collect();
    let stat = Tensor::<i64, Shape![2, 3, 4]>::try_from(&data[..]).unwrap();
    let heap = HeapTensor::<i64, Shape![2, 3, 4]>::from_vec(data.clone()).unwrap();
    let mixed = Tensor::<i64, Shape![_, 3, 4]>::from_shape_vec([2, 3, 4], data.clone()).unwrap();
    let view = TensorView::<i64, Shape![2, 3, 4]>::new(&data).unwrap();
    let dynt = DynTensor::from_shape_vec([2, 3, 4], data.clone()).unwrap();

    let text = json(&stat);
    for other in [json(&heap), json(&mixed), json(&view), json(&dynt)] {
        assert_eq!(other, text);
    }
    let b = bytes(&stat);
    for other in [bytes(&heap), bytes(&mixed), bytes(&view), bytes(&dynt)] {
        assert_eq!(other, b);
    }

    // Each type reads what any of them wrote.
    assert_eq!(
        from_json::<Tensor<i64, Shape![2, 3, 4]>>(&text).unwrap(),
        stat
    );
    assert_eq!(
        from_json::<HeapTensor<i64, Shape![2, 3, 4]>>(&text).unwrap(),
        heap
    );
    assert_eq!(
        from_json::<Tensor<i64, Shape![_, 3, 4]>>(&text).unwrap(),
        mixed
    );
    assert_eq!(
        from_json::<Tensor<i64, Shape![2, _, _]>>(&text)
            .unwrap()
            .as_slice(),
        &data[..]
    );
    assert_eq!(from_json::<DynTensor<i64>>(&text).unwrap(), dynt);
    assert_eq!(
        from_bytes::<Tensor<i64, Shape![2, 3, 4]>>(&b).unwrap(),
        stat
    );
    assert_eq!(
        from_bytes::<HeapTensor<i64, Shape![2, 3, 4]>>(&b).unwrap(),
        heap
    );
    assert_eq!(
        from_bytes::<Tensor<i64, Shape![_, 3, 4]>>(&b).unwrap(),
        mixed
    );
    assert_eq!(from_bytes::<DynTensor<i64>>(&b).unwrap(), dynt);
}

#[test]
fn rank_zero_and_zero_size_dims_round_trip() {
    let s = Tensor::<u8, Shape![]>::scalar(7);
    assert_eq!(json(&s), r#"{"shape":[],"data":[7]}"#);
    assert_eq!(from_json::<Tensor<u8, Shape![]>>(&json(&s)).unwrap(), s);
    assert_eq!(
        from_bytes::<DynTensor<u8>>(&bytes(&s)).unwrap().shape(),
        &[] as &[usize]
    );

    let empty = Tensor::<f64, Shape![3, 0, 2]>::from_fn(|_| unreachable!());
    assert_eq!(json(&empty), r#"{"shape":[3,0,2],"data":[]}"#);
    assert_eq!(
        from_json::<Tensor<f64, Shape![3, 0, 2]>>(&json(&empty)).unwrap(),
        empty
    );
    let d = from_bytes::<DynTensor<f64>>(&bytes(&empty)).unwrap();
    assert_eq!((d.shape(), d.len()), (&[3, 0, 2][..], 0));
    let m = from_json::<Tensor<f64, Shape![_, 0, 2]>>(&json(&empty)).unwrap();
    assert_eq!(m.shape(), [3, 0, 2]);
}

#[test]
fn fields_may_come_in_any_order_in_self_describing_formats() {
    let t: Tensor<i32, Shape![2, 2]> = from_json(r#"{"data":[1,2,3,4],"shape":[2,2]}"#).unwrap();
    assert_eq!(t, Tensor::from([[1, 2], [3, 4]]));
    let d: DynTensor<i32> = from_json(r#"{"data":[1,2,3],"shape":[3,1]}"#).unwrap();
    assert_eq!((d.shape(), d.as_slice()), (&[3, 1][..], &[1, 2, 3][..]));
}

#[test]
fn a_wrong_static_shape_is_an_error_naming_both_shapes() {
    let text = r#"{"shape":[2,3],"data":[1,2,3,4,5,6]}"#;
    let err = from_json::<Tensor<i32, Shape![3, 2]>>(text).unwrap_err();
    assert_eq!(
        err,
        "shape [2, 3] is not the static shape [3, 2] at line 1 column 36"
    );
    let err = from_json::<HeapTensor<i32, Shape![6]>>(text).unwrap_err();
    assert_eq!(
        err,
        "shape [2, 3] has rank 2, but the shape type has rank 1 at line 1 column 36"
    );
    let err = from_json::<Tensor<i32, Shape![_, 2]>>(text).unwrap_err();
    assert_eq!(
        err,
        "shape [2, 3] does not fit the shape type [_, 2] at line 1 column 36"
    );
    // The rank counts too.
    let err = from_json::<Tensor<i32, Shape![2, 3, 1]>>(text).unwrap_err();
    assert_eq!(
        err,
        "shape [2, 3] has rank 2, but the shape type has rank 3 at line 1 column 36"
    );
    // And in postcard, whose error type keeps no custom message (only that one was raised).
    let b = bytes(&DynTensor::from_shape_vec([2, 3], vec![0i32; 6]).unwrap());
    let err = from_bytes::<Tensor<i32, Shape![3, 2]>>(&b).unwrap_err();
    assert_eq!(err, "Serde Deserialization Error");
    assert!(from_bytes::<Tensor<i32, Shape![2, 3]>>(&b).is_ok());
}

#[test]
fn a_wrong_data_length_is_an_error_naming_the_shape_and_the_count() {
    for text in [
        r#"{"shape":[2,2],"data":[1,2,3]}"#,
        r#"{"shape":[2,2],"data":[1,2,3,4,5]}"#,
    ] {
        let n = text.matches(',').count() - 1;
        let expected = format!("shape [2, 2] needs 4 elements, but the buffer holds {n}");
        for err in [
            from_json::<Tensor<i32, Shape![2, 2]>>(text).unwrap_err(),
            from_json::<HeapTensor<i32, Shape![2, 2]>>(text).unwrap_err(),
            from_json::<Tensor<i32, Shape![_, 2]>>(text).unwrap_err(),
            from_json::<DynTensor<i32>>(text).unwrap_err(),
        ] {
            assert!(err.starts_with(&expected), "{err}");
        }
    }
}

#[test]
fn hostile_shapes_are_errors_not_allocations() {
    // An element count that overflows, and one far beyond the data given.
    let err =
        from_json::<DynTensor<u8>>(r#"{"shape":[4294967296,4294967296,4294967296],"data":[1]}"#)
            .unwrap_err();
    assert!(
        err.starts_with("bad layout for shape [4294967296, 4294967296, 4294967296]: the element count or byte size overflows"),
        "{err}"
    );
    let err = from_json::<DynTensor<u8>>(r#"{"shape":[1000000000000],"data":[1]}"#).unwrap_err();
    assert!(
        err.starts_with(
            "shape [1000000000000] needs 1000000000000 elements, but the buffer holds 1"
        ),
        "{err}"
    );
    // A rank above 64.
    let dims = vec!["1"; 65].join(",");
    let err =
        from_json::<DynTensor<u8>>(&format!(r#"{{"shape":[{dims}],"data":[1]}}"#)).unwrap_err();
    assert!(
        err.starts_with("invalid length 65, expected a sequence of at most 64 dims"),
        "{err}"
    );
    // postcard announcing 2^60 elements, then ending: an error, after at most a small reserve.
    let mut b = vec![1u8, 1]; // shape [1]
    b.extend([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]); // varint 2^60
    let err = from_bytes::<DynTensor<f64>>(&b).unwrap_err();
    assert_eq!(err, "Hit the end of buffer, expected more data");
    // An empty tensor with huge dims reads at once, in every kind that allows its shape.
    let text = r#"{"shape":[1125899906842624,0],"data":[]}"#;
    let t = from_json::<DynTensor<f32>>(text).unwrap();
    assert_eq!((t.shape(), t.len()), (&[1 << 50, 0][..], 0));
    let m = from_json::<Tensor<f32, Shape![_, 0]>>(text).unwrap();
    assert_eq!(m.shape().as_ref(), &[1 << 50, 0]);
    let again = from_bytes::<DynTensor<f32>>(&bytes(&t)).unwrap();
    assert_eq!(again.shape(), &[1 << 50, 0]);
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    let cases: [(&str, &str); 8] = [
        (r#"{"shape":[2]}"#, "missing field `data`"),
        (r#"{"data":[1,2]}"#, "missing field `shape`"),
        (
            r#"{"shape":[2],"shape":[2],"data":[1,2]}"#,
            "duplicate field `shape`",
        ),
        (
            r#"{"shape":[2],"data":[1,2],"strides":[1]}"#,
            "unknown field `strides`, expected `shape` or `data`",
        ),
        (
            r#"{"shape":[-2],"data":[]}"#,
            "invalid value: integer `-2`, expected usize",
        ),
        (
            r#"{"shape":[2],"data":[1,"x"]}"#,
            "invalid type: string \"x\", expected i32",
        ),
        (
            r#"[[2],[1,2,3]]"#,
            "shape [2] needs 2 elements, but the buffer holds 3",
        ),
        (r#"{"shape":[2],"data":[1,2"#, "EOF while parsing a list"),
    ];
    for (text, expected) in cases {
        let err = from_json::<DynTensor<i32>>(text).unwrap_err();
        assert!(err.starts_with(expected), "{text}: {err}");
        let err = from_json::<Tensor<i32, Shape![2]>>(text).unwrap_err();
        assert!(
            err.starts_with(expected) || err.starts_with("shape [2] needs 2 elements"),
            "{text}: {err}"
        );
    }
    // Truncated postcard bytes, at every length.
    let b = bytes(&Tensor::<u16, Shape![2, 2]>::from([[1, 2], [300, 4]]));
    for cut in 0..b.len() {
        assert!(from_bytes::<Tensor<u16, Shape![2, 2]>>(&b[..cut]).is_err());
        assert!(from_bytes::<DynTensor<u16>>(&b[..cut]).is_err());
    }
}

#[test]
fn shape_bufs_round_trip_and_refuse_too_many_dims() {
    let s = ShapeBuf::<8>::from([2, 1, 5]);
    assert_eq!(json(&s), "[2,1,5]");
    assert_eq!(from_json::<ShapeBuf<8>>("[2,1,5]").unwrap(), s);
    assert_eq!(from_bytes::<ShapeBuf<8>>(&bytes(&s)).unwrap(), s);
    assert_eq!(
        from_json::<ShapeBuf<8>>("[]").unwrap(),
        ShapeBuf::<8>::new()
    );
    let err = from_json::<ShapeBuf<2>>("[2,1,5]").unwrap_err();
    assert_eq!(
        err,
        "invalid length 3, expected a sequence of at most 2 dims at line 1 column 7"
    );
}

/// A xorshift generator: the mutations below are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Flips, inserts and drops bytes of a valid encoding.
fn mutate(valid: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = valid.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(4) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = [0, 1, 0x7f, 0x80, 0xff][rng.below(5)];
            }
            2 => {
                let i = rng.below(b.len() + 1);
                b.insert(i, rng.next() as u8);
            }
            _ if !b.is_empty() => {
                let i = rng.below(b.len());
                b.remove(i);
            }
            _ => {}
        }
    }
    b
}

/// Whatever a reader accepts is a well-formed tensor: its element count is its shape's.
fn well_formed(shape: &[usize], len: usize) {
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    assert_eq!(
        count,
        Some(len),
        "accepted shape {shape:?} with {len} elements"
    );
}

#[test]
fn mutated_inputs_are_errors_or_well_formed_tensors_never_panics() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let t = Tensor::<i16, Shape![2, 3]>::from([[1, -2, 300], [4, 5, -6]]);
    let d = DynTensor::from_shape_vec([3, 1, 2], vec![0.5f32, -1.0, 2.0, 0.0, 7.25, -3.5]).unwrap();
    let (pt, pd) = (bytes(&t), bytes(&d));
    let (jt, jd) = (json(&t).into_bytes(), json(&d).into_bytes());
    let mut accepted = 0;
    for _ in 0..4000 {
        let m = mutate(&pt, &mut rng);
        if let Ok(x) = postcard::from_bytes::<Tensor<i16, Shape![2, 3]>>(&m) {
            accepted += 1;
            assert_eq!(x.as_slice().len(), 6);
        }
        if let Ok(x) = postcard::from_bytes::<Tensor<i16, Shape![_, 3]>>(&m) {
            well_formed(&x.shape(), x.as_slice().len());
        }
        let m = mutate(&pd, &mut rng);
        if let Ok(x) = postcard::from_bytes::<DynTensor<f32>>(&m) {
            accepted += 1;
            well_formed(x.shape(), x.len());
        }
        let m = mutate(&jt, &mut rng);
        if let Ok(x) = serde_json::from_slice::<Tensor<i16, Shape![2, 3]>>(&m) {
            accepted += 1;
            assert_eq!(x.as_slice().len(), 6);
        }
        let m = mutate(&jd, &mut rng);
        if let Ok(x) = serde_json::from_slice::<DynTensor<f32>>(&m) {
            accepted += 1;
            well_formed(x.shape(), x.len());
        }
        if let Ok(x) = serde_json::from_slice::<HeapTensor<f32, Shape![3, 1, 2]>>(&m) {
            assert_eq!(x.as_slice().len(), 6);
        }
    }
    // Some mutations keep the input valid (a changed element value, say): both outcomes occur.
    assert!(accepted > 100, "only {accepted} mutated inputs accepted");
}

#[test]
fn strided_views_write_what_they_show() {
    let t = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
    let v = t.strided().transpose();
    assert_eq!(json(&v), r#"{"shape":[3,2],"data":[1,4,2,5,3,6]}"#);
    let back: DynTensor<i32> = from_json(&json(&v)).unwrap();
    assert_eq!(back, v.to_tensor());
    let n = t.strided().narrow(1, 1, 2).unwrap();
    assert_eq!(
        from_bytes::<Tensor<i32, Shape![2, 2]>>(&bytes(&n)).unwrap(),
        Tensor::from([[2, 3], [5, 6]])
    );
    let s = DynTensor::from_shape_vec([], vec![9]).unwrap();
    assert_eq!(json(&s.strided()), r#"{"shape":[],"data":[9]}"#);
    let e = DynTensor::<i32>::from_shape_vec([2, 0], vec![]).unwrap();
    assert_eq!(json(&e.strided()), r#"{"shape":[2,0],"data":[]}"#);
}

/// Audit finding: this 40-byte document decodes (a valid shape with no elements), and summing
/// it over both axes reduced axis by axis through a `[2^50]` intermediate: the process aborted
/// on a 4 PiB allocation. The sum of no elements is one 0, computed at once; over one axis
/// the 4 PiB result is an error value.
#[test]
fn a_tiny_document_with_huge_empty_dims_reduces_without_an_abort() {
    let t: DynTensor<f32> =
        serde_json::from_str(r#"{"shape":[1125899906842624,0],"data":[]}"#).unwrap();
    assert_eq!(t.sum(&[0, 1], false).unwrap().as_slice(), &[0.0]);
    let e = t.sum(&[1], false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot allocate 4503599627370496 bytes for a result of shape [1125899906842624]"
    );
}

/// `AnyTensor` (feature `any-tensor`): the element type's name tags the `DynTensor`, in JSON
/// and in postcard (which writes the variant's index); every element type comes back as it
/// went, and an unknown type is an error naming the known ones.
#[test]
fn any_tensor_round_trips_tagged_with_its_element_type() {
    use shaped::{AnyTensor, DType, DynTensor};
    let a = AnyTensor::from(DynTensor::from_shape_vec([2], vec![1i8, -2]).unwrap());
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(json, r#"{"i8":{"shape":[2],"data":[1,-2]}}"#);
    assert_eq!(serde_json::from_str::<AnyTensor>(&json).unwrap(), a);
    let x =
        AnyTensor::from(DynTensor::from_shape_vec([2, 2], vec![0.5f64, -1.0, 3.0, 1e-3]).unwrap());
    for d in [
        DType::Bool,
        DType::I16,
        DType::I64,
        DType::ISize,
        DType::U8,
        DType::U32,
        DType::U64,
        DType::USize,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ] {
        let y = x.cast(d);
        let back: AnyTensor = serde_json::from_str(&serde_json::to_string(&y).unwrap()).unwrap();
        assert_eq!(back, y, "{d} json");
        let bytes = postcard::to_allocvec(&y).unwrap();
        let back: AnyTensor = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, y, "{d} postcard");
    }
    let e = serde_json::from_str::<AnyTensor>(r#"{"i7":{"shape":[1],"data":[1]}}"#).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("unknown variant `i7`, expected one of `bool`, `i8`"),
        "{e}"
    );
    // The shape is checked against the data, as for DynTensor.
    let e = serde_json::from_str::<AnyTensor>(r#"{"u8":{"shape":[3],"data":[1]}}"#).unwrap_err();
    assert!(e.to_string().contains("needs 3 elements"), "{e}");
}
