//! Typed views over bytes (feature `bytemuck`): `TensorView::from_bytes` (static shapes),
//! `from_bytes_with_shape` (mixed shapes), their `_mut` forms, `ArrayRef::from_bytes` and the
//! copying `DynTensor::from_bytes`, for elements of 1, 2, 4 and 8 bytes, over buffers of any
//! length starting at any address, with shapes of any rank (huge dims, a zero beside them,
//! past the rank limit). Checked against the rule of `src/interop/bytemuck.rs`: a view exists
//! exactly when the rank is supported, the count and byte size do not overflow, the length is
//! the byte size and (for views, when non-empty) the start is aligned; otherwise the error is
//! the one that rule names first; every element read is the element at its bytes.
use super::super::{count, Input};
use shaped::runtime::ArrayRef;
use shaped::{DynTensor, ErrorKind, Shape, TensorView, TensorViewMut};

/// The error the rule names for `dims` over `bytes` as `T`s (`aligned`: whether the check
/// includes the start), or `None` when the view is valid.
fn expected<T>(dims: &[usize], bytes: &[u8], aligned: bool) -> Option<ErrorKind> {
    let size = size_of::<T>();
    if dims.len() > shaped::rules::MAX_RANK {
        return Some(ErrorKind::RankLimit {
            max: shaped::rules::MAX_RANK,
        });
    }
    let Some(need) = count(dims).and_then(|n| n.checked_mul(size)) else {
        return Some(ErrorKind::Overflow);
    };
    if bytes.len() != need {
        return Some(ErrorKind::ByteLength {
            expected: need,
            actual: bytes.len(),
        });
    }
    if aligned && need != 0 && !(bytes.as_ptr() as usize).is_multiple_of(align_of::<T>()) {
        return Some(ErrorKind::Misaligned {
            align: align_of::<T>(),
        });
    }
    None
}

/// The elements `bytes` hold, read one by one with no cast.
fn elements<T: bytemuck::Pod>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

/// Every constructor for element type `T`.
fn views<T: bytemuck::Pod + PartialEq + core::fmt::Debug>(dims: &[usize], bytes: &mut [u8]) {
    let want = elements::<T>(bytes);
    // Compared as bytes: a NaN is not equal to itself.
    let same =
        |got: &[T]| bytemuck::cast_slice::<T, u8>(got) == bytemuck::cast_slice::<T, u8>(&want);
    let check =
        |got: Result<&[T], &shaped::Error>, dims: &[usize], aligned: bool, bytes: &[u8]| match (
            got,
            expected::<T>(dims, bytes, aligned),
        ) {
            (Ok(got), None) => assert!(same(got)),
            (Err(e), Some(kind)) => assert_eq!(e.kind(), kind, "{e}"),
            (got, want) => panic!(
                "{dims:?} over {} bytes: {got:?}, wanted {want:?}",
                bytes.len()
            ),
        };
    let with_shape = TensorView::<T, Shape![_, _]>::from_bytes_with_shape(dims, bytes);
    // The type's rank is 2: another rank is a shape error before the bytes are looked at.
    if dims.len() == 2 {
        check(with_shape.as_ref().map(|v| v.as_slice()), dims, true, bytes);
    } else {
        assert!(with_shape.is_err());
    }
    let array = ArrayRef::<T>::from_bytes(dims, bytes);
    check(array.as_ref().map(|_| &want[..]), dims, true, bytes);
    if let Ok(a) = array {
        assert_eq!(a.shape(), dims);
    }
    let copied = DynTensor::<T>::from_bytes(dims, bytes);
    check(copied.as_ref().map(|t| t.as_slice()), dims, false, bytes);
    // The static shape [2, 3] over the same bytes, whatever `dims` is.
    let fixed = TensorView::<T, Shape![2, 3]>::from_bytes(bytes);
    check(fixed.as_ref().map(|v| v.as_slice()), &[2, 3], true, bytes);
    // Writable: what is written through the view lands in the bytes.
    let ok = expected::<T>(dims, bytes, true).is_none();
    match TensorViewMut::<T, Shape![_, _]>::from_bytes_mut_with_shape(dims, bytes) {
        Ok(mut v) => {
            assert!(ok && dims.len() == 2);
            if let Some(first) = v.as_mut_slice().first_mut() {
                *first = T::zeroed();
            }
            let len = size_of::<T>().min(bytes.len());
            assert!(bytes[..len].iter().all(|&b| b == 0));
        }
        Err(e) => {
            if dims.len() == 2 {
                assert_eq!(Some(e.kind()), expected::<T>(dims, bytes, true));
            }
        }
    }
}

/// One fuzz input: a shape, an element size, and bytes of any length at any offset from an
/// 8-byte boundary.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let mut dims = input.shape(3, true);
    // Now and then the shape the static view wants, so that its success path is reached.
    if input.below(4) == 0 {
        dims = vec![2, 3];
    }
    let kind = input.below(4);
    let offset = input.below(8);
    let len = input.below(64);
    let mut backing = vec![0u64; 10];
    let bytes = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut backing)[offset..offset + len];
    for b in bytes.iter_mut() {
        *b = input.byte();
    }
    match kind {
        0 => views::<u8>(&dims, bytes),
        1 => views::<i16>(&dims, bytes),
        2 => views::<f32>(&dims, bytes),
        _ => views::<u64>(&dims, bytes),
    }
}
