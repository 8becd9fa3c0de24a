//! Reading tensors with serde (feature `serde`), in JSON (self-describing) and postcard
//! (compact): every tensor kind (`DynTensor`, static, mixed and rank-0 `Tensor`s, `HeapTensor`,
//! `ShapeBuf`) from the fuzzer's raw bytes, and from documents built with hostile shapes (huge
//! dims, a zero beside them, ranks past the limit) and data of any length, then damaged
//! (truncated, or a byte changed). Checked: whatever decodes is a valid tensor of its type (rank,
//! element count, static dims); a built document decodes exactly when its shape and length are
//! valid for the type, to the elements written; what decodes writes back to the same bytes.
use super::super::{count, Input};
use shaped::{DynTensor, HeapTensor, Shape, ShapeBuf, Tensor};

/// The document a built input describes, written by hand so that any shape and any length can
/// be expressed (a tensor of them could not be made).
struct Document {
    shape: Vec<usize>,
    data: Vec<i16>,
}

/// As shaped writes a tensor: a struct `Tensor { shape, data }`.
impl serde::Serialize for Document {
    fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        use serde::ser::SerializeStruct;
        let mut s = z.serialize_struct("Tensor", 2)?;
        s.serialize_field("shape", &self.shape)?;
        s.serialize_field("data", &self.data)?;
        s.end()
    }
}

/// Whether `dims` and `len` make a valid tensor whose static dims (`None` for a `_`) are
/// `pattern`: the rank limit, a count without overflow, the length equal to it.
fn valid(dims: &[usize], len: usize, pattern: Option<&[Option<usize>]>) -> bool {
    if dims.len() > shaped::rules::MAX_RANK || count(dims) != Some(len) {
        return false;
    }
    pattern.is_none_or(|p| {
        p.len() == dims.len() && p.iter().zip(dims).all(|(s, &d)| s.is_none_or(|s| s == d))
    })
}

/// Decodes `bytes` as `X` in both formats; each success must be valid (`check`) and write back
/// to a document that decodes to the same value.
fn decode_all<X>(bytes: &[u8], check: impl Fn(&X))
where
    X: serde::Serialize + for<'de> serde::Deserialize<'de> + PartialEq + core::fmt::Debug,
{
    if let Ok(x) = serde_json::from_slice::<X>(bytes) {
        check(&x);
        let again = serde_json::to_vec(&x).unwrap();
        assert_eq!(serde_json::from_slice::<X>(&again).unwrap(), x);
    }
    if let Ok(x) = postcard::from_bytes::<X>(bytes) {
        check(&x);
        let again = postcard::to_allocvec(&x).unwrap();
        assert_eq!(postcard::from_bytes::<X>(&again).unwrap(), x);
    }
}

fn check_dyn<T>(t: &DynTensor<T>) {
    assert!(t.rank() <= shaped::rules::MAX_RANK);
    assert_eq!(count(t.shape()), Some(t.len()));
}

/// Every kind of tensor from the same bytes.
fn every_kind(bytes: &[u8]) {
    decode_all::<DynTensor<i16>>(bytes, check_dyn);
    decode_all::<DynTensor<u8>>(bytes, check_dyn);
    decode_all::<Tensor<i16, Shape![2, 3]>>(bytes, |t| assert_eq!(t.as_slice().len(), 6));
    decode_all::<Tensor<i16, Shape![]>>(bytes, |t| assert_eq!(t.as_slice().len(), 1));
    decode_all::<Tensor<i16, Shape![_, 2]>>(bytes, |t| {
        let dims = t.shape();
        let [rows, two] = dims.as_ref() else {
            panic!("rank {}", dims.as_ref().len())
        };
        assert_eq!((*two, t.as_slice().len()), (2, rows * 2));
    });
    decode_all::<HeapTensor<i16, Shape![3, 0]>>(bytes, |t| assert!(t.as_slice().is_empty()));
    decode_all::<ShapeBuf>(bytes, |s| assert!(s.len() <= shaped::rules::MAX_RANK));
    decode_all::<ShapeBuf<2>>(bytes, |s| assert!(s.len() <= 2));
}

/// A document with a hostile shape and any length: decoded by each kind exactly when valid for
/// it, to the elements written.
fn built(input: &mut Input) {
    let shape = input.shape(5, true);
    let len = input.below(9);
    let data: Vec<i16> = (0..len).map(|_| input.byte() as i16 - 128).collect();
    let doc = Document { shape, data };
    let json = input.below(2) == 0;
    let mut bytes = if json {
        serde_json::to_vec(&doc).unwrap()
    } else {
        postcard::to_allocvec(&doc).unwrap()
    };
    let decode = |bytes: &[u8]| -> Option<DynTensor<i16>> {
        if json {
            serde_json::from_slice(bytes).ok()
        } else {
            postcard::from_bytes(bytes).ok()
        }
    };
    let (dims, len) = (&doc.shape[..], doc.data.len());
    let got = decode(&bytes);
    assert_eq!(
        got.is_some(),
        valid(dims, len, None),
        "{dims:?} with {len} elements"
    );
    if let Some(t) = got {
        assert_eq!((t.shape(), t.as_slice()), (dims, &doc.data[..]));
    }
    let fixed: Option<Tensor<i16, Shape![2, 3]>> = if json {
        serde_json::from_slice(&bytes).ok()
    } else {
        postcard::from_bytes(&bytes).ok()
    };
    let pattern = [Some(2), Some(3)];
    assert_eq!(fixed.is_some(), valid(dims, len, Some(&pattern)));
    let mixed: Option<Tensor<i16, Shape![_, 2]>> = if json {
        serde_json::from_slice(&bytes).ok()
    } else {
        postcard::from_bytes(&bytes).ok()
    };
    assert_eq!(mixed.is_some(), valid(dims, len, Some(&[None, Some(2)])));
    if let Some(m) = mixed {
        assert_eq!(m.as_slice(), &doc.data[..]);
    }
    // Damaged: truncated, or one byte changed. Whatever still decodes is valid.
    match input.below(3) {
        0 => bytes.truncate(input.below(bytes.len() + 1)),
        1 if !bytes.is_empty() => {
            let at = input.below(bytes.len());
            bytes[at] = input.byte();
        }
        _ => return,
    }
    every_kind(&bytes);
}

/// One fuzz input: its first byte chooses raw bytes or a built document.
pub fn run(bytes: &[u8]) {
    match bytes.split_first() {
        Some((&b, rest)) if b % 2 == 0 => every_kind(rest),
        Some((_, rest)) => built(&mut Input::new(rest)),
        None => {}
    }
}
