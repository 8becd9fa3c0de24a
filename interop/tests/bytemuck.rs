//! Feature `bytemuck`: typed views over bytes without a copy, and tensors as bytes; wrong
//! lengths and misaligned starts are error values.

use shaped::runtime::{binary_into, ArrayRef};
use shaped::{
    AutoBroadcast, BinaryOp, DynTensor, ErrorKind, Shape, Tensor, TensorView, TensorViewMut,
};

/// Bytes at an address aligned for anything up to 8, so that offsets into them are known.
#[repr(C, align(8))]
struct Aligned<const N: usize>([u8; N]);

fn f32_bytes<const N: usize>(values: [f32; N]) -> Aligned<64> {
    let mut out = Aligned([0; 64]);
    for (i, v) in values.iter().enumerate() {
        out.0[i * 4..i * 4 + 4].copy_from_slice(&v.to_ne_bytes());
    }
    out
}

#[test]
fn static_views_read_the_bytes_in_place() {
    let b = f32_bytes([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let v = TensorView::<f32, Shape![2, 3]>::from_bytes(&b.0[..24]).unwrap();
    assert_eq!(v.as_slice(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(v.as_slice().as_ptr() as *const u8, b.0.as_ptr());
    // An operation on the view, against the same data as an owned tensor.
    let bias = Tensor::<f32, Shape![3]>::from([0.5, 0.25, 0.0]);
    let owned = Tensor::<f32, Shape![2, 3]>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    assert_eq!(v + bias, owned + bias);
    assert_eq!(v.as_bytes(), &b.0[..24]);
}

#[test]
fn mixed_and_runtime_views_and_copies() {
    let data: Vec<u32> = (0..12).collect();
    let bytes: &[u8] = bytemuck::cast_slice(&data);
    let m = TensorView::<u32, Shape![_, 4]>::from_bytes_with_shape([3, 4], bytes).unwrap();
    assert_eq!((m.shape(), m[[2, 1]]), ([3, 4], 9));
    let err = TensorView::<u32, Shape![_, 4]>::from_bytes_with_shape([4, 3], bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "shape [4, 3] does not fit the shape type [_, 4]"
    );

    let a = ArrayRef::<u32>::from_bytes(&[3, 4], bytes).unwrap();
    let one = [1u32];
    let mut out = [0u32; 12];
    binary_into(
        a,
        ArrayRef::new(&[1], &one).unwrap(),
        BinaryOp::Add,
        AutoBroadcast::Numpy,
        &mut out,
    )
    .unwrap();
    assert_eq!(out[11], 12);

    // A copy from bytes at any address: one byte past an aligned start.
    let mut shifted = vec![0u8; 1];
    shifted.extend_from_slice(bytes);
    let d = DynTensor::<u32>::from_bytes([4, 3], &shifted[1..]).unwrap();
    assert_eq!((d.shape(), d.as_slice()), (&[4, 3][..], &data[..]));
    assert_eq!(d.as_bytes(), bytes);
    assert!(TensorView::<u32, Shape![12]>::from_bytes(&shifted[1..]).is_err());
}

#[test]
fn writable_views_write_through_to_the_bytes() {
    let mut b = Aligned([0u8; 16]);
    {
        let mut v = TensorViewMut::<i32, Shape![2, 2]>::from_bytes_mut(&mut b.0).unwrap();
        v[[1, 0]] = -7;
        v += &Tensor::<i32, Shape![2]>::from([1, 2]);
    }
    let back: &[i32] = bytemuck::cast_slice(&b.0);
    assert_eq!(back, &[1, 2, -6, 2]);
    let mut t = Tensor::<u8, Shape![2]>::from([1, 2]);
    t.as_bytes_mut()[1] = 9;
    assert_eq!(t.as_slice(), &[1, 9]);
    let mut m = TensorViewMut::<i32, Shape![_]>::from_bytes_mut_with_shape([4], &mut b.0).unwrap();
    m[[0]] = 5;
    assert_eq!(b.0[..4], 5i32.to_ne_bytes());
}

#[test]
fn wrong_lengths_and_misaligned_starts_are_errors() {
    let b = Aligned([0u8; 64]);
    let short = TensorView::<f64, Shape![2, 2]>::from_bytes(&b.0[..24]).unwrap_err();
    assert_eq!(
        short.kind(),
        ErrorKind::ByteLength {
            expected: 32,
            actual: 24
        }
    );
    assert_eq!(
        short.to_string(),
        "shape [2, 2] needs 32 bytes, but the buffer holds 24"
    );
    let long = TensorView::<f64, Shape![2, 2]>::from_bytes(&b.0[..40]).unwrap_err();
    assert_eq!(
        long.to_string(),
        "shape [2, 2] needs 32 bytes, but the buffer holds 40"
    );
    // Not a whole number of elements either.
    let ragged = ArrayRef::<u16>::from_bytes(&[3], &b.0[..5]).unwrap_err();
    assert_eq!(
        ragged.to_string(),
        "shape [3] needs 6 bytes, but the buffer holds 5"
    );
    for offset in 1..8 {
        let err = TensorView::<f64, Shape![2]>::from_bytes(&b.0[offset..offset + 16]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Misaligned { align: 8 });
        assert_eq!(
            err.to_string(),
            "the bytes for shape [2] must start at a multiple of 8 (the element type's \
             alignment), and do not"
        );
    }
    // u8 needs no alignment.
    assert!(TensorView::<u8, Shape![3]>::from_bytes(&b.0[1..4]).is_ok());
    let mut m = Aligned([0u8; 16]);
    let err = TensorViewMut::<u32, Shape![3]>::from_bytes_mut(&mut m.0[2..14]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Misaligned { align: 4 });
    let err = DynTensor::<u32>::from_bytes([3], &m.0[..11]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "shape [3] needs 12 bytes, but the buffer holds 11"
    );
}

#[test]
fn hostile_shapes_rank_zero_and_empty_shapes() {
    let b = Aligned([0u8; 16]);
    let huge = usize::MAX / 2;
    let err = ArrayRef::<u32>::from_bytes(&[huge], &b.0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Overflow);
    let err = DynTensor::<u32>::from_bytes([huge, 4], &b.0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Overflow);
    let err = ArrayRef::<u8>::from_bytes(&[1; 65][..], &b.0[..1]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RankLimit { max: 64 });
    // Rank 0: one element.
    let s = TensorView::<f32, Shape![]>::from_bytes(&b.0[..4]).unwrap();
    assert_eq!(s.as_slice(), &[0.0]);
    // Zero elements: empty bytes at any address.
    let e = TensorView::<f64, Shape![0, 3]>::from_bytes(&b.0[3..3]).unwrap();
    assert_eq!(e.as_slice().len(), 0);
    let d = DynTensor::<f64>::from_bytes([2, 0], &[]).unwrap();
    assert_eq!(d.shape(), &[2, 0]);
}

/// The copying `DynTensor::from_bytes` allocates what the bytes hold, no more: an empty shape
/// with huge dims comes from no bytes at once, and a shape whose byte size overflows is an
/// `Overflow` error before any allocation.
#[test]
fn copies_from_bytes_allocate_only_what_the_bytes_hold() {
    let t = DynTensor::<f64>::from_bytes([1usize << 60, 0], &[]).unwrap();
    assert_eq!((t.shape(), t.len()), (&[1 << 60, 0][..], 0));
    let e = DynTensor::<f64>::from_bytes([1usize << 62], &[0u8; 8]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
    assert_eq!(
        e.to_string(),
        "bad layout for shape [4611686018427387904]: the element count or byte size overflows"
    );
    let e = DynTensor::<f64>::from_bytes([1usize << 40], &[0u8; 8]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape [1099511627776] needs 8796093022208 bytes, but the buffer holds 8"
    );
}
