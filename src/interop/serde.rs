//! `Serialize` and `Deserialize` (feature `serde`).
//!
//! Every tensor is written the same way, as a struct `Tensor { shape, data }`: the dims, then the
//! elements in row-major order. So a static tensor, a mixed-shape one, a `HeapTensor`, a view
//! and a `DynTensor` of the same shape serialize to the same bytes, and any of them reads what
//! another wrote. Reading checks what the type knows: a static dim that differs, or a data
//! length that is not the element count of the shape, is an error naming both, never a panic.
//! [`ShapeBuf`] is a sequence of dims.
//!
//! Without `alloc`, static tensors still read: the elements go straight into the inline array
//! (which needs `T: Default` to start from).

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;
use crate::rules::ShapeBuf;
use crate::tensor::Tensor;
use crate::typed::shape::Shape;
use crate::typed::storage::fits_inline;
use crate::typed::storage::Data;

/// The struct's name and its fields, in the order they are written.
const NAME: &str = "Tensor";
const FIELDS: &[&str] = &["shape", "data"];

/// Writes `{ shape, data }`.
fn write_tensor<Z: Serializer, T: Serialize>(
    z: Z,
    dims: &[usize],
    data: &[T],
) -> Result<Z::Ok, Z::Error> {
    let mut s = z.serialize_struct(NAME, 2)?;
    s.serialize_field("shape", dims)?;
    s.serialize_field("data", data)?;
    s.end()
}

/// `{ shape, data }`: the dims, then the elements in row-major order. Every storage writes
/// the same form, views included.
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<T: Serialize, S: Shape, D: Data<T>> Serialize for Tensor<T, S, D> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        write_tensor(z, self.shape().as_ref(), self.as_slice())
    }
}

/// A sequence of dims.
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<const CAP: usize> Serialize for ShapeBuf<CAP> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        let mut s = z.serialize_seq(Some(self.len()))?;
        for d in self.iter() {
            s.serialize_element(d)?;
        }
        s.end()
    }
}

/// A sequence of at most `CAP` dims; a longer one is an error.
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, const CAP: usize> Deserialize<'de> for ShapeBuf<CAP> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Dims<const CAP: usize>;
        impl<'de, const CAP: usize> Visitor<'de> for Dims<CAP> {
            type Value = ShapeBuf<CAP>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a sequence of at most {CAP} dims")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = ShapeBuf::new();
                while let Some(d) = seq.next_element::<usize>()? {
                    if !out.push(d) {
                        return Err(de::Error::invalid_length(CAP + 1, &self));
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Dims::<CAP>)
    }
}

/// Where a tensor's elements go while it is read, and how it is built from them and the dims.
trait Sink<'de>: Sized {
    type Out;
    fn new() -> Self;
    /// Reads the `data` sequence.
    fn read<A: SeqAccess<'de>>(&mut self, seq: A) -> Result<(), A::Error>;
    /// Builds the tensor, or the error naming what does not fit.
    fn finish(self, dims: &[usize]) -> Result<Self::Out, Error>;
}

/// Reads `{ shape, data }` (a map in self-describing formats, in any order; two elements in
/// order in compact ones) into the sink `K`.
fn read_tensor<'de, D: Deserializer<'de>, K: Sink<'de>>(d: D) -> Result<K::Out, D::Error> {
    d.deserialize_struct(NAME, FIELDS, TensorVisitor::<K>(PhantomData))
}

struct TensorVisitor<K>(PhantomData<K>);

impl<'de, K: Sink<'de>> Visitor<'de> for TensorVisitor<K> {
    type Value = K::Out;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tensor: its shape, then its elements in row-major order")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<K::Out, A::Error> {
        let dims: ShapeBuf = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let mut sink = K::new();
        seq.next_element_seed(DataSeed(&mut sink))?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        sink.finish(&dims).map_err(de::Error::custom)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<K::Out, A::Error> {
        let mut dims: Option<ShapeBuf> = None;
        let mut sink: Option<K> = None;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Shape if dims.is_some() => return Err(de::Error::duplicate_field("shape")),
                Field::Data if sink.is_some() => return Err(de::Error::duplicate_field("data")),
                Field::Shape => dims = Some(map.next_value()?),
                Field::Data => {
                    let mut k = K::new();
                    map.next_value_seed(DataSeed(&mut k))?;
                    sink = Some(k);
                }
            }
        }
        let dims = dims.ok_or_else(|| de::Error::missing_field("shape"))?;
        let sink = sink.ok_or_else(|| de::Error::missing_field("data"))?;
        sink.finish(&dims).map_err(de::Error::custom)
    }
}

/// A field name (or its index, as some formats write them); any other is an error.
enum Field {
    Shape,
    Data,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`shape` or `data`")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Field, E> {
                match v {
                    0 => Ok(Field::Shape),
                    1 => Ok(Field::Data),
                    _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                match v {
                    "shape" => Ok(Field::Shape),
                    "data" => Ok(Field::Data),
                    _ => Err(E::unknown_field(v, FIELDS)),
                }
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Field, E> {
                match v {
                    b"shape" => Ok(Field::Shape),
                    b"data" => Ok(Field::Data),
                    _ => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
                }
            }
        }
        d.deserialize_identifier(Name)
    }
}

/// The `data` field, read into a sink.
struct DataSeed<'a, K>(&'a mut K);

impl<'de, K: Sink<'de>> DeserializeSeed<'de> for DataSeed<'_, K> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, K: Sink<'de>> Visitor<'de> for DataSeed<'_, K> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence of elements")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.0.read(seq)
    }
}

/// The elements of a static shape written straight into its inline array: no allocator. Counts
/// what it reads past the end, so that the error can say how many there were.
#[cfg(not(feature = "alloc"))]
struct Inline<T, S: crate::typed::shape::StaticShape> {
    tensor: Tensor<T, S>,
    count: usize,
}

#[cfg(not(feature = "alloc"))]
impl<'de, T, S> Sink<'de> for Inline<T, S>
where
    T: Deserialize<'de> + Default,
    S: crate::typed::shape::StaticShape,
{
    type Out = Tensor<T, S>;

    fn new() -> Self {
        Inline {
            tensor: Tensor::from_fn(|_| T::default()),
            count: 0,
        }
    }

    fn read<A: SeqAccess<'de>>(&mut self, mut seq: A) -> Result<(), A::Error> {
        let slots = self.tensor.as_mut_slice();
        while let Some(x) = seq.next_element::<T>()? {
            if let Some(slot) = slots.get_mut(self.count) {
                *slot = x;
            }
            self.count = self.count.saturating_add(1);
        }
        Ok(())
    }

    fn finish(self, dims: &[usize]) -> Result<Self::Out, Error> {
        if dims != S::DIMS {
            return Err(crate::tensor::shape_mismatch::<S>(dims));
        }
        if self.count != S::LEN {
            use crate::error::{ErrorKind, Operation};
            let kind = ErrorKind::LengthMismatch {
                expected: S::LEN,
                actual: self.count,
            };
            return Err(Error::new(kind, Operation::Layout, S::DIMS, &[]));
        }
        Ok(self.tensor)
    }
}

/// The elements in a `Vec`, then built into a tensor of any shape.
#[cfg(feature = "alloc")]
struct Elements<T, Out> {
    data: alloc::vec::Vec<T>,
    out: PhantomData<fn() -> Out>,
}

/// How a tensor type is built from dims and a `Vec` of its elements.
#[cfg(feature = "alloc")]
trait FromVec<T>: Sized {
    fn from_vec(dims: &[usize], data: alloc::vec::Vec<T>) -> Result<Self, Error>;
}

#[cfg(feature = "alloc")]
impl<T, S: Shape> FromVec<T> for Tensor<T, S> {
    fn from_vec(dims: &[usize], data: alloc::vec::Vec<T>) -> Result<Self, Error> {
        Tensor::from_shape_vec(dims, data)
    }
}

#[cfg(feature = "alloc")]
impl<T, S: crate::typed::shape::StaticShape> FromVec<T> for crate::tensor::HeapTensor<T, S> {
    fn from_vec(dims: &[usize], data: alloc::vec::Vec<T>) -> Result<Self, Error> {
        if dims != S::DIMS {
            return Err(crate::tensor::shape_mismatch::<S>(dims));
        }
        Self::from_vec(data)
    }
}

#[cfg(feature = "alloc")]
impl<T> FromVec<T> for crate::DynTensor<T> {
    fn from_vec(dims: &[usize], data: alloc::vec::Vec<T>) -> Result<Self, Error> {
        crate::DynTensor::from_shape_vec(dims, data)
    }
}

#[cfg(feature = "alloc")]
impl<'de, T: Deserialize<'de>, Out: FromVec<T>> Sink<'de> for Elements<T, Out> {
    type Out = Out;

    fn new() -> Self {
        Elements {
            data: alloc::vec::Vec::new(),
            out: PhantomData,
        }
    }

    fn read<A: SeqAccess<'de>>(&mut self, mut seq: A) -> Result<(), A::Error> {
        // A length announced by the input is a hint, not a promise: reserve at most 64 KiB of
        // elements up front, so a hostile prefix cannot make the reader allocate much more than
        // the input it actually holds.
        let cap = 65536 / core::mem::size_of::<T>().max(1);
        self.data.reserve(seq.size_hint().unwrap_or(0).min(cap));
        while let Some(x) = seq.next_element::<T>()? {
            // Growth is fallible too: an input holding more elements than memory can is an
            // error, not an abort.
            if self.data.len() == self.data.capacity() && self.data.try_reserve(1).is_err() {
                let bytes = self
                    .data
                    .len()
                    .saturating_mul(2 * core::mem::size_of::<T>());
                return Err(de::Error::custom(format_args!(
                    "cannot allocate {bytes} bytes for the {} elements read so far",
                    self.data.len() + 1
                )));
            }
            self.data.push(x);
        }
        Ok(())
    }

    fn finish(self, dims: &[usize]) -> Result<Out, Error> {
        Out::from_vec(dims, self.data)
    }
}

/// Reads `{ shape, data }` into a tensor of shape type `S`: every static dim of `S` must match
/// and the data must hold the element count, or the error names both shapes (or the shape and
/// the count). Static and mixed shapes alike; without `alloc`, static shapes only (the
/// elements go into the inline array, which starts from `T::default()`).
///
/// ```
/// use shaped::{Shape, Tensor};
/// use serde::de::{value::{Error, MapDeserializer}, Deserialize, IntoDeserializer};
/// // A map `{ shape: [2, 2], data: [1, 2, 3, 4] }`, as any self-describing format gives it.
/// let fields = [("shape", vec![2, 2]), ("data", vec![1, 2, 3, 4])];
/// let input = MapDeserializer::<_, Error>::new(fields.into_iter());
/// let t = Tensor::<i32, Shape![2, 2]>::deserialize(input).unwrap();
/// assert_eq!(t, Tensor::from([[1, 2], [3, 4]]));
///
/// let fields = [("shape", vec![2, 3]), ("data", vec![0; 6])];
/// let input = MapDeserializer::<_, Error>::new(fields.into_iter());
/// let err = Tensor::<i32, Shape![2, 2]>::deserialize(input).unwrap_err();
/// assert_eq!(err.to_string(), "shape [2, 3] is not the static shape [2, 2]");
/// ```
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, T: Deserialize<'de>, S: Shape> Deserialize<'de> for Tensor<T, S> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        fits_inline!(Self);
        read_tensor::<D, Elements<T, Self>>(d)
    }
}

/// Reads `{ shape, data }` into an inline tensor: the shape must be `S` and the data must hold
/// its element count, or the error names both.
#[cfg(not(feature = "alloc"))]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, T, S> Deserialize<'de> for Tensor<T, S>
where
    T: Deserialize<'de> + Default,
    S: crate::typed::shape::StaticShape,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        fits_inline!(Self);
        read_tensor::<D, Inline<T, S>>(d)
    }
}

/// Reads `{ shape, data }` into a `HeapTensor`: the shape must be `S`, the data its element
/// count.
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "serde", feature = "alloc"))))]
impl<'de, T, S> Deserialize<'de> for crate::tensor::HeapTensor<T, S>
where
    T: Deserialize<'de>,
    S: crate::typed::shape::StaticShape,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_tensor::<D, Elements<T, Self>>(d)
    }
}

/// Reads `{ shape, data }`: any shape, with the data holding its element count (checked, as
/// `DynTensor::from_shape_vec` checks it).
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "serde", feature = "alloc"))))]
impl<'de, T: Deserialize<'de>> Deserialize<'de> for crate::DynTensor<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_tensor::<D, Elements<T, Self>>(d)
    }
}

/// `{ shape, data }`, as every other tensor.
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "serde", feature = "alloc"))))]
impl<T: Serialize> Serialize for crate::DynTensor<T> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        write_tensor(z, self.shape(), self.as_slice())
    }
}

/// `{ shape, data }` with the elements in row-major order of the view's shape (a permuted,
/// narrowed or broadcast view writes what it shows), as every other tensor.
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "serde", feature = "alloc"))))]
impl<T: Serialize> Serialize for crate::runtime::DynView<'_, T> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        /// The view's elements in row-major order, as a sequence.
        struct Elements<'v, 'a, T>(&'v crate::runtime::DynView<'a, T>);
        impl<T: Serialize> Serialize for Elements<'_, '_, T> {
            fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
                let view = self.0;
                let mut s = z.serialize_seq(Some(view.len()))?;
                if !view.is_empty() {
                    let dims = view.shape();
                    let mut index = alloc::vec![0usize; dims.len()];
                    loop {
                        if let Some(x) = view.get(&index) {
                            s.serialize_element(x)?;
                        }
                        if !crate::util::next_index(&mut index, dims) {
                            break;
                        }
                    }
                }
                s.end()
            }
        }
        let mut s = z.serialize_struct(NAME, 2)?;
        s.serialize_field("shape", self.shape())?;
        s.serialize_field("data", &Elements(self))?;
        s.end()
    }
}

/// The element type names of [`AnyTensor`](crate::AnyTensor)'s serialized form, in variant
/// order (a format without names writes the index).
#[cfg(feature = "any-tensor")]
const DTYPES: [crate::cast::DType; 15] = {
    use crate::cast::DType::*;
    [
        Bool, I8, I16, I32, I64, ISize, U8, U16, U32, U64, USize, F16, BF16, F32, F64,
    ]
};

#[cfg(feature = "any-tensor")]
const DTYPE_NAMES: [&str; 15] = [
    "bool", "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f16", "bf16",
    "f32", "f64",
];

/// `{ "<dtype>": { shape, data } }`: the element type's name (`"f32"`, `"i8"`) tagging the
/// `DynTensor` (feature `any-tensor`); in JSON an `i8` tensor of shape `[2]` is
/// `{"i8":{"shape":[2],"data":[1,-2]}}`.
#[cfg(feature = "any-tensor")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "serde", feature = "any-tensor"))))]
impl Serialize for crate::AnyTensor {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        let dtype = self.dtype();
        let index = DTYPES.iter().position(|&d| d == dtype).unwrap_or(0);
        let name = DTYPE_NAMES[index];
        let index = index as u32;
        macro_rules! write {
            ($t:expr) => {
                z.serialize_newtype_variant("AnyTensor", index, name, $t)
            };
        }
        use crate::AnyTensor as A;
        match self {
            A::Bool(t) => write!(t),
            A::I8(t) => write!(t),
            A::I16(t) => write!(t),
            A::I32(t) => write!(t),
            A::I64(t) => write!(t),
            A::ISize(t) => write!(t),
            A::U8(t) => write!(t),
            A::U16(t) => write!(t),
            A::U32(t) => write!(t),
            A::U64(t) => write!(t),
            A::USize(t) => write!(t),
            #[cfg(feature = "half")]
            A::F16(t) => write!(t),
            #[cfg(feature = "half")]
            A::BF16(t) => write!(t),
            A::F32(t) => write!(t),
            A::F64(t) => write!(t),
        }
    }
}

/// Reads `{ "<dtype>": { shape, data } }`; an element type this build cannot hold (`f16` or
/// `bf16` without feature `half`) or an unknown name is an error.
#[cfg(feature = "any-tensor")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "serde", feature = "any-tensor"))))]
impl<'de> Deserialize<'de> for crate::AnyTensor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The variant: an element type by name or index.
        struct Tag(crate::cast::DType);
        impl<'de> Deserialize<'de> for Tag {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct TagVisitor;
                impl Visitor<'_> for TagVisitor {
                    type Value = Tag;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("an element type name such as \"f32\"")
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<Tag, E> {
                        DTYPE_NAMES
                            .iter()
                            .position(|&n| n == v)
                            .map(|i| Tag(DTYPES[i]))
                            .ok_or_else(|| E::unknown_variant(v, &DTYPE_NAMES))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Tag, E> {
                        DTYPES
                            .get(v as usize)
                            .map(|&d| Tag(d))
                            .ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &self))
                    }
                }
                d.deserialize_identifier(TagVisitor)
            }
        }

        struct AnyVisitor;
        impl<'de> Visitor<'de> for AnyVisitor {
            type Value = crate::AnyTensor;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tensor tagged with its element type")
            }
            fn visit_enum<A: de::EnumAccess<'de>>(
                self,
                data: A,
            ) -> Result<crate::AnyTensor, A::Error> {
                use crate::cast::DType;
                use de::VariantAccess;
                let (Tag(dtype), v) = data.variant::<Tag>()?;
                macro_rules! read {
                    ($t:ty) => {
                        v.newtype_variant::<crate::DynTensor<$t>>()
                            .map(crate::AnyTensor::from)
                    };
                }
                match dtype {
                    DType::Bool => read!(bool),
                    DType::I8 => read!(i8),
                    DType::I16 => read!(i16),
                    DType::I32 => read!(i32),
                    DType::I64 => read!(i64),
                    DType::ISize => read!(isize),
                    DType::U8 => read!(u8),
                    DType::U16 => read!(u16),
                    DType::U32 => read!(u32),
                    DType::U64 => read!(u64),
                    DType::USize => read!(usize),
                    #[cfg(feature = "half")]
                    DType::F16 => read!(half::f16),
                    #[cfg(feature = "half")]
                    DType::BF16 => read!(half::bf16),
                    DType::F32 => read!(f32),
                    DType::F64 => read!(f64),
                    #[allow(unreachable_patterns)]
                    other => Err(de::Error::custom(format_args!(
                        "{other} elements need feature `half`"
                    ))),
                }
            }
        }
        d.deserialize_enum("AnyTensor", &DTYPE_NAMES, AnyVisitor)
    }
}
