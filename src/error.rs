//! The one error type of the crate, [`Error`], and what it is made of.
//!
//! Every fallible function of every path (static tensors, mixed shapes, runtime shapes, the
//! binary primitive) returns this type: `Copy`, no allocation (shapes are kept inline), and a
//! `Display` that names the operation, both shapes and what failed, citing the rule ids of the
//! [rules document](crate::rules).

use core::fmt;

use crate::op::ReduceOp;

/// How many dims of a shape an error keeps; longer shapes are shown with an ellipsis.
const KEPT_DIMS: usize = 8;

/// A shape held inline for error messages: no allocation, `Copy`. Keeps the first
/// eight dims and the true rank.
// The rank first (`repr(C)`): see `Error`'s layout.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Dims {
    rank: usize,
    dims: [usize; KEPT_DIMS],
}

impl Dims {
    /// Copies up to the first eight dims of `dims` and remembers its rank.
    // Always in line, for `Error::in_caller`. A loop over all eight (not `copy_from_slice`,
    // whose copy of a length known at run time is a `memcpy` call).
    #[inline(always)]
    pub fn new(dims: &[usize]) -> Self {
        let mut kept = [0; KEPT_DIMS];
        let mut i = 0;
        while i < KEPT_DIMS {
            kept[i] = if i < dims.len() { dims[i] } else { 0 };
            i += 1;
        }
        Dims {
            dims: kept,
            rank: dims.len(),
        }
    }

    /// The rank of the shape.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The dims that were kept (all of them when the rank is at most eight).
    pub fn kept(&self) -> &[usize] {
        &self.dims[..self.rank.min(KEPT_DIMS)]
    }
}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.kept().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        if self.rank > KEPT_DIMS {
            write!(f, ", … ({} dims)", self.rank)?;
        }
        f.write_str("]")
    }
}

/// In the expected shape of an [`ErrorKind::ShapeMismatch`] ([`Error::rhs`]): a `Dyn`
/// position of the shape type, which any dim fits (printed `_`).
pub const DYN_DIM: usize = usize::MAX;

/// The operation an error came from: a broadcast mode, or another shape operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operation {
    /// Elementwise NONE (EXPLICIT) broadcasting.
    None,
    /// Elementwise NUMPY broadcasting.
    Numpy,
    /// Elementwise PDPD broadcasting with the axis as given.
    Pdpd {
        /// The axis as given (-1 is the default).
        axis: i64,
    },
    /// Bidirectional broadcasting of an input to a target shape.
    Bidirectional,
    /// The one-directional `numpy` mode of the Broadcast op (`np.broadcast_to`).
    BroadcastToNumpy,
    /// The `explicit` mode of the Broadcast op, with an axes mapping.
    BroadcastToExplicit,
    /// The `pdpd` mode of the Broadcast op.
    BroadcastToPdpd {
        /// The axis as given.
        axis: i64,
    },
    /// Building a tensor or a strided input from a buffer and a shape.
    Layout,
    /// Taking an ndarray array as a tensor (feature `ndarray`).
    FromNdarray,
    /// Giving a tensor to ndarray as an array (feature `ndarray`).
    ToNdarray,
    /// A shape manipulation (`reshape`, `squeeze`, `permute`, `concat`, ...; M1-M13).
    Shape {
        /// Which manipulation.
        op: crate::op::ShapeOp,
    },
    /// An elementwise computation (the shapes were fine; the values were not).
    Compute,
    /// Converting a dynamic tensor to a static shape.
    ToStatic,
    /// The binary primitive's sources and destination (O1-O3).
    Binary,
    /// The binary primitive run in place: the destination is src0 (O8).
    BinaryInPlace,
    /// A binary post-op's operand against the destination (O4).
    BinaryPostOp {
        /// The post-op's position in the chain.
        index: usize,
    },
    /// A matrix product (`matmul`; G1-G6).
    MatMul,
    /// A reduction over axes (`sum`, `max`, ...), or `sum_to`.
    Reduce {
        /// Which reduction.
        op: crate::op::ReduceOp,
    },
    /// Quantization parameters, or what an operation derives from them (Q1-Q7).
    Quantize,
    /// A fused layer's output against its input (G7, Q19).
    Dense,
    /// A conversion between element types (C3).
    Cast {
        /// The source element type.
        from: crate::cast::DType,
        /// The target element type.
        to: crate::cast::DType,
    },
    /// A convolution or a pool (K1-K8): its first shape is the input, its second the filter
    /// (a pool's: its window, height and width).
    Window {
        /// Which one.
        op: WindowOp,
    },
}

/// The operations over a sliding 2-D window ([`Operation::Window`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WindowOp {
    /// TFLite's `CONV_2D`.
    Conv2d,
    /// TFLite's `DEPTHWISE_CONV_2D`.
    DepthwiseConv2d,
    /// TFLite's `AVERAGE_POOL_2D`.
    AvgPool2d,
    /// TFLite's `MAX_POOL_2D`.
    MaxPool2d,
}

impl WindowOp {
    /// MAX_POOL_2D when `largest`, else AVERAGE_POOL_2D: the pool a `largest` flag names.
    #[inline(always)]
    pub(crate) const fn pool(largest: bool) -> WindowOp {
        if largest {
            WindowOp::MaxPool2d
        } else {
            WindowOp::AvgPool2d
        }
    }

    /// The operation's name, as the methods spell it.
    pub const fn name(self) -> &'static str {
        match self {
            WindowOp::Conv2d => "conv2d",
            WindowOp::DepthwiseConv2d => "depthwise_conv2d",
            WindowOp::AvgPool2d => "avg_pool2d",
            WindowOp::MaxPool2d => "max_pool2d",
        }
    }
}

/// What is wrong with a convolution's or a pool's operands or window ([`ErrorKind::Window`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WindowProblem {
    /// The input (`filter: false`) or the filter is not of rank 4 (K3).
    Rank {
        /// Whether it is the filter.
        filter: bool,
        /// Its rank.
        rank: usize,
    },
    /// A kernel size of 0 along an axis (0 height, 1 width) (K2).
    ZeroKernel {
        /// The axis.
        axis: usize,
    },
    /// A stride of 0 (K2).
    ZeroStride {
        /// The axis.
        axis: usize,
    },
    /// A dilation of 0 (K2).
    ZeroDilation {
        /// The axis.
        axis: usize,
    },
    /// VALID padding with a dilated kernel wider than the input (K1).
    KernelTooLarge {
        /// The axis.
        axis: usize,
        /// The dilated kernel's span, `(kernel - 1) * dilation + 1`.
        span: usize,
        /// The input's size there.
        input: usize,
    },
    /// The filter's input channels are not the input's (K3).
    Channels {
        /// The input's channels.
        input: usize,
        /// The filter's.
        filter: usize,
    },
    /// A depthwise filter whose channels are not a multiple of the input's (K4).
    DepthMultiplier {
        /// The input's channels.
        input: usize,
        /// The filter's channels.
        filter: usize,
    },
    /// A depthwise filter whose first dim is not 1 (K4).
    DepthwiseFilter {
        /// Its first dim.
        first: usize,
    },
    /// A bias whose length is not the output's channels (K3).
    BiasLength {
        /// The bias's length.
        bias: usize,
        /// The output channels.
        channels: usize,
    },
    /// More products per output than an `i32` accumulator sums without overflow (K7).
    Accumulator {
        /// Products per output: kernel height x width x input channels.
        terms: usize,
    },
    /// A size that does not fit in `usize` (K2).
    Overflow,
}

impl fmt::Display for WindowProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let axis_name = |axis: usize| if axis == 0 { "height" } else { "width" };
        match *self {
            WindowProblem::Rank { filter, rank } => write!(
                f,
                "the {} has rank {rank}; it must have rank 4 ({}) (K3)",
                if filter { "filter" } else { "input" },
                if filter {
                    "[out channels, height, width, in channels]"
                } else {
                    "NHWC"
                }
            ),
            WindowProblem::ZeroKernel { axis } => write!(
                f,
                "the kernel's {} is 0; kernels, strides and dilations are at least 1 (K2)",
                axis_name(axis)
            ),
            WindowProblem::ZeroStride { axis } => write!(
                f,
                "the stride along the {} is 0; kernels, strides and dilations are at least 1 (K2)",
                axis_name(axis)
            ),
            WindowProblem::ZeroDilation { axis } => write!(
                f,
                "the dilation along the {} is 0; kernels, strides and dilations are at least 1 \
                 (K2)",
                axis_name(axis)
            ),
            WindowProblem::KernelTooLarge { axis, span, input } => write!(
                f,
                "the kernel spans {span} along the {} but the input has {input}; VALID padding \
                 needs the input at least as large as the dilated kernel (K1)",
                axis_name(axis)
            ),
            WindowProblem::Channels { input, filter } => write!(
                f,
                "the input has {input} channels but the filter takes {filter} (K3)"
            ),
            WindowProblem::DepthMultiplier { input, filter } => write!(
                f,
                "the filter's {filter} channels are not a multiple of the input's {input} (K4)"
            ),
            WindowProblem::DepthwiseFilter { first } => write!(
                f,
                "a depthwise filter is [1, height, width, channels]; its first dim is {first} \
                 (K4)"
            ),
            WindowProblem::BiasLength { bias, channels } => write!(
                f,
                "a bias of {bias} values for {channels} output channels; it needs one per \
                 channel (K3)"
            ),
            WindowProblem::Accumulator { terms } => write!(
                f,
                "{terms} products per output; an i32 accumulator sums at most 65536 of them \
                 without overflow (K7)"
            ),
            WindowProblem::Overflow => f.write_str("a size overflows usize (K2)"),
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operation::None => f.write_str("none"),
            Operation::Numpy => f.write_str("numpy"),
            Operation::Pdpd { axis } => write!(f, "pdpd, axis {axis}"),
            Operation::Bidirectional => f.write_str("bidirectional"),
            Operation::BroadcastToNumpy => f.write_str("broadcast_to numpy"),
            Operation::BroadcastToExplicit => f.write_str("broadcast_to explicit"),
            Operation::BroadcastToPdpd { axis } => write!(f, "broadcast_to pdpd, axis {axis}"),
            Operation::Layout => f.write_str("layout"),
            Operation::FromNdarray => f.write_str("from ndarray"),
            Operation::ToNdarray => f.write_str("to ndarray"),
            Operation::Shape { op } => f.write_str(op.name()),
            Operation::Compute => f.write_str("compute"),
            Operation::ToStatic => f.write_str("to static shape"),
            Operation::Binary => f.write_str("binary"),
            Operation::BinaryInPlace => f.write_str("binary in place"),
            Operation::BinaryPostOp { index } => write!(f, "binary post-op {index}"),
            Operation::Reduce { op } => f.write_str(op.name()),
            Operation::Quantize => f.write_str("quantize"),
            Operation::MatMul => f.write_str("matmul"),
            Operation::Dense => f.write_str("dense"),
            Operation::Cast { from, to } => write!(f, "cast from {from} to {to}"),
            Operation::Window { op } => f.write_str(op.name()),
        }
    }
}

/// What went wrong; the shapes involved are in [`Error`]. New kinds may be added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Two dims that must match (or contain a 1) do not. `axis` counts in the output shape
    /// (NUMPY, Bidirectional), in the first shape (PDPD, NONE) or in the target (Broadcast op).
    DimMismatch {
        /// The axis where the dims meet.
        axis: usize,
        /// The dim of the first shape there.
        lhs: usize,
        /// The dim of the second shape there.
        rhs: usize,
    },
    /// NONE needs equal ranks (N1, N2).
    RankMismatch,
    /// PDPD: the second shape has a larger rank than the first (D1, A9).
    SecondRankTooLarge,
    /// PDPD: a negative axis other than -1 (D2).
    NegativeAxis,
    /// PDPD: the trimmed second shape does not fit at the axis (D4, D8, A6).
    AxisOutOfRange {
        /// The largest axis that would have fitted.
        max: usize,
    },
    /// Broadcast op, numpy mode: the target has a smaller rank than the data (B5).
    TargetRankTooSmall,
    /// Broadcast op, explicit mode: the axes mapping has the wrong length (B5).
    AxesMappingLength {
        /// The mapping's length.
        len: usize,
        /// The data rank it must equal.
        rank: usize,
    },
    /// Broadcast op, explicit mode: a mapping whose values are not known has more entries
    /// than the target has axes, so no increasing mapping of that length exists (A23).
    AxesMappingTooLong {
        /// The mapping's length.
        len: usize,
        /// The target's rank.
        rank: usize,
    },
    /// Broadcast op, explicit mode: the axes mapping is not strictly increasing (B5).
    AxesMappingOrder {
        /// The first entry that is not larger than the one before.
        index: usize,
    },
    /// Broadcast op, explicit mode: an axis of the mapping is not below the target rank (B5).
    AxesMappingRange {
        /// The entry's position in the mapping.
        index: usize,
        /// The entry.
        axis: usize,
    },
    /// A rank above what this build supports ([`MAX_RANK`](crate::rules::MAX_RANK), or the
    /// binary primitive's [`MAX_NDIMS`](crate::primitive::MAX_NDIMS)).
    RankLimit {
        /// The supported maximum.
        max: usize,
    },
    /// An element count or byte size does not fit in `usize` / `isize::MAX` bytes.
    Overflow,
    /// The allocator refused the memory for a result (its shape is the error's first shape).
    OutOfMemory {
        /// The bytes asked for.
        bytes: usize,
    },
    /// A buffer has the wrong number of elements for its shape.
    LengthMismatch {
        /// Elements the shape needs.
        expected: usize,
        /// Elements the buffer holds.
        actual: usize,
    },
    /// Bytes viewed as elements (feature `bytemuck`) whose length is not the shape's size in
    /// bytes.
    ByteLength {
        /// Bytes the shape needs.
        expected: usize,
        /// Bytes given.
        actual: usize,
    },
    /// Bytes viewed as elements (feature `bytemuck`) that start at an address the element
    /// type's alignment does not divide.
    Misaligned {
        /// The alignment the element type needs, in bytes.
        align: usize,
    },
    /// An array whose elements are not contiguous in row-major order (a transposed, sliced
    /// or reversed ndarray view, feature `ndarray`) where a view without a copy was asked for.
    NotContiguous,
    /// Strides whose count differs from the rank, or that address past the end of the data.
    BadStrides,
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// An integer raised to a negative power.
    NegativeExponent,
    /// An operation this build cannot compute (float `Pow` needs `std` or `libm`).
    Unsupported,
    /// Two shapes that must be equal (a reshape's element counts, a static conversion).
    ShapeMismatch,
    /// Select (W2): the condition would grow the broadcast of the two values (its shape is
    /// the error's first, that broadcast its second).
    ConditionGrows,
    /// Select (W2) under a broadcast mode it does not take (`Bidirectional`).
    SelectMode,
    /// The binary primitive: more post-ops than [`MAX_POST_OPS`](crate::primitive::MAX_POST_OPS).
    TooManyPostOps {
        /// The supported maximum.
        max: usize,
    },
    /// The binary primitive: a source given with [`Layout::Any`](crate::primitive::Layout::Any),
    /// which only a destination may have (O5).
    AnySource,
    /// A reduction axis outside the shape: numpy counts negative axes from the end, so a rank-R
    /// shape takes axes `-R..R`.
    BadAxis {
        /// The axis as given.
        axis: i64,
        /// The rank of the shape.
        rank: usize,
    },
    /// An element with no value in a cast's target type (C3): NaN into an integer, or a value
    /// outside the target's range.
    CastOutOfRange {
        /// The element's position in row-major order.
        index: usize,
    },
    /// Two tensors of different element types given to one operation of
    /// `AnyTensor` (feature `any-tensor`), or a typed view asked of the wrong one.
    ElementTypes {
        /// The operation.
        op: crate::op::AnyOp,
        /// The first tensor's element type (the tensor's own, for a typed view).
        lhs: crate::cast::DType,
        /// The second's (the type asked for, for a typed view).
        rhs: crate::cast::DType,
    },
    /// An operation of `AnyTensor` (feature `any-tensor`) that its element type does not have
    /// (arithmetic on `bool`, `sqrt` on integers, a logical operation on numbers).
    UnsupportedDType {
        /// The operation.
        op: crate::op::AnyOp,
        /// The element type.
        dtype: crate::cast::DType,
    },
    /// A slice with a step of 0 (M8).
    ZeroStep {
        /// The axis.
        axis: usize,
    },
    /// More slices than axes (M8).
    SliceCount {
        /// The slices given.
        given: usize,
        /// The rank.
        rank: usize,
    },
    /// A view asked to step backwards along an axis (strides are not negative); the tensor's
    /// `slice` copies instead (M8).
    NegativeStepView {
        /// The axis.
        axis: usize,
    },
    /// Part sizes that do not add up to the axis (M9).
    SplitSizes {
        /// The axis.
        axis: usize,
        /// Their sum (`usize::MAX` if it overflows).
        sum: usize,
        /// The axis's dim.
        dim: usize,
    },
    /// A count of equal parts that does not divide the axis (M9).
    SplitParts {
        /// The axis.
        axis: usize,
        /// The parts asked for.
        parts: usize,
        /// The axis's dim.
        dim: usize,
    },
    /// An index outside its axis (M10, M11).
    IndexOutOfRange {
        /// The axis indexed.
        axis: usize,
        /// The index's position among the indices (row-major).
        position: usize,
        /// The index (clamped to `i64` for a `u64` past it).
        index: i64,
        /// The axis's dim.
        dim: usize,
    },
    /// A layout tag or GPU format name that does not parse (O7): the position of the first
    /// character not understood (the length when something is missing at the end).
    LayoutTag {
        /// The byte position.
        at: usize,
    },
    /// A blocked format that does not fit a memory's rank (O7): it names a dim at or past the
    /// rank, or leaves dims out with no `x` to hold them.
    LayoutRank {
        /// The memory's rank.
        rank: usize,
    },
    /// A reduction given an empty list of axes, which numpy and ONNX read in opposite ways
    /// (R5): [`Axes::All`](crate::rules::Axes::All) or
    /// [`Axes::Nothing`](crate::rules::Axes::Nothing) says which.
    NoAxes,
    /// A reduction axis given twice.
    DuplicateAxis {
        /// The axis (counted from 0).
        axis: usize,
    },
    /// A matrix product with a rank-0 operand (G1).
    RankZero,
    /// A matrix product whose inner dims differ (G4).
    InnerDims {
        /// The left operand's columns.
        lhs: usize,
        /// The right operand's rows.
        rhs: usize,
    },
    /// A matrix product whose batch dims do not broadcast (G5).
    BatchDims {
        /// The axis of the broadcast batch shape.
        axis: usize,
        /// The left operand's dim there.
        lhs: usize,
        /// The right operand's dim there.
        rhs: usize,
    },
    /// `squeeze` of an axis that is not 1 (M3).
    NotOne {
        /// The axis.
        axis: usize,
        /// Its dim.
        dim: usize,
    },
    /// A runtime `reshape` target with a second [`INFER`](crate::rules::INFER) dim: one dim
    /// may be inferred (M2).
    SecondInferred {
        /// The position of the second one in the target.
        index: usize,
    },
    /// A runtime `reshape` target whose `-1` cannot be inferred: the other dims multiply to
    /// `known`, which does not divide the element count `count` (M2).
    InferredDim {
        /// The product of the given dims.
        known: usize,
        /// The element count.
        count: usize,
    },
    /// A permutation that does not name every axis (M4).
    PermutationLength {
        /// How many axes were given.
        len: usize,
        /// The rank.
        rank: usize,
    },
    /// `narrow` past the end of an axis (M5).
    OutOfBounds {
        /// The axis.
        axis: usize,
        /// The first element kept.
        start: usize,
        /// How many are kept.
        len: usize,
        /// The axis's dim.
        dim: usize,
    },
    /// `concat` or `stack` of no tensors (M6, M7).
    NoTensors,
    /// A range whose delta is 0: no count of steps reaches the limit (M12).
    ZeroDelta,
    /// A float range whose count `(limit - start) / delta` is NaN (M12).
    RangeNaN,
    /// A value given as a tensor (`AnyTensor::range`'s inputs, `AnyTensor::pad`'s constant)
    /// that does not hold exactly one element (M12, M13).
    NotScalar {
        /// Which input of a range: 0 the start, 1 the limit, 2 the delta (0 for a pad).
        position: usize,
    },
    /// Pads whose count is not twice the number of axes padded: a begin and an end each (M13).
    PadsLength {
        /// The pads given.
        len: usize,
        /// The axes padded (the rank, or the axes given).
        axes: usize,
    },
    /// Negative pads that remove more elements than an axis has (M13).
    PadCrop {
        /// The axis.
        axis: usize,
        /// Its pad at the beginning.
        begin: i64,
        /// Its pad at the end.
        end: i64,
        /// Its dim.
        dim: usize,
    },
    /// Edge, reflect or wrap padding of an axis left with no elements to pad from (M13).
    PadEmptyAxis {
        /// The axis.
        axis: usize,
        /// The mode.
        mode: crate::op::PadMode,
    },
    /// A reduction with no identity (`max`, `min`, `argmax`, `argmin`) over an axis with no
    /// elements.
    EmptyReduction {
        /// The axis.
        axis: usize,
    },
    /// Partial shapes: two interval dims that cannot be merged (I1, I2, D11).
    IntervalMismatch {
        /// The axis where the dims meet.
        axis: usize,
        /// The first shape's dim there.
        lhs: crate::interval::Interval,
        /// The second shape's dim there.
        rhs: crate::interval::Interval,
    },
    /// Quantization parameters, or a value derived from them, outside the contract (Q1-Q7).
    Quant(QuantProblem),
    /// A convolution's or a pool's operands or window outside the contract (K1-K8).
    Window(WindowProblem),
}

/// What is wrong with quantization parameters ([`ErrorKind::Quant`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QuantProblem {
    /// A scale that is not finite and positive (Q1).
    Scale {
        /// The scale's bits (`f32::from_bits` gives it back).
        bits: u32,
    },
    /// A zero point outside the element type's range (Q1).
    ZeroPoint {
        /// The zero point.
        zero_point: i32,
        /// The smallest value allowed.
        min: i32,
        /// The largest value allowed.
        max: i32,
    },
    /// A multiplier derived from the scales that the contract cannot represent (Q3).
    Multiplier {
        /// The real multiplier's bits (`f64::from_bits` gives it back).
        bits: u64,
    },
    /// An activation bound whose quantized value does not fit in `i32` (Q7).
    ActivationRange,
    /// Inputs of a maximum or minimum with different parameters (Q13).
    Mismatch,
    /// Operands whose parameters are not the ones a prepared operation was made for (Q1).
    NotPrepared,
    /// Per-axis parameters with a different number of scales and zero points (Q16).
    PerAxisCounts {
        /// The number of scales.
        scales: usize,
        /// The number of zero points.
        zero_points: usize,
    },
    /// Per-axis parameters whose count is not the size of the axis they quantize (Q16).
    PerAxisLength {
        /// The number of parameters.
        params: usize,
        /// The axis.
        axis: usize,
        /// Its size.
        dim: usize,
    },
    /// A per-axis quantization along an axis the tensor does not have (Q16).
    PerAxisAxis {
        /// The axis.
        axis: usize,
        /// The tensor's rank.
        rank: usize,
    },
    /// Per-channel weights of a product with a zero point that is not 0 (Q18).
    WeightZeroPoint {
        /// The output column.
        channel: usize,
        /// Its zero point.
        zero_point: i32,
    },
    /// A product's bias whose length is not the output's column count (Q17).
    BiasLength {
        /// The bias's length.
        bias: usize,
        /// The output's columns.
        columns: usize,
    },
    /// Output parameters other than the ones SOFTMAX's output always has (Q20). (The
    /// problems from here on carry no values: a variant with data changed the error type's
    /// layout, and a Cortex-M4 firmware's int8 dense layer then copied its `Result` through
    /// `memcpy`, 536 bytes of `.text` to 1,304 at opt-level "s", `qemu-tests/code_size.sh`.)
    SoftmaxOutput,
    /// Output parameters other than the ones LOGISTIC's output always has (Q21).
    LogisticOutput,
    /// Output parameters other than the ones TANH's output always has (Q22).
    TanhOutput,
    /// A softmax whose `beta * input_scale * 2^26` is not above 1 (Q20).
    SoftmaxScale,
    /// A softmax row whose exponentials add up to 512 or more (Q20).
    SoftmaxSum,
    /// A logistic input scale for which TFLM's input radius is undefined (Q21).
    LogisticScale,
    /// A tanh input scale for which TFLM's input radius is undefined (Q22).
    TanhScale,
    /// A concatenation input whose parameters are not the output's (Q25).
    ConcatParams,
}

/// The int8 operations whose output parameters are fixed (Q20-Q22), in [`QuantProblem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FixedOp {
    /// SOFTMAX (Q20).
    Softmax,
    /// LOGISTIC (Q21).
    Logistic,
    /// TANH (Q22).
    Tanh,
}

impl FixedOp {
    /// The problem of an output with other parameters than this operation's.
    pub const fn output_problem(self) -> QuantProblem {
        match self {
            FixedOp::Softmax => QuantProblem::SoftmaxOutput,
            FixedOp::Logistic => QuantProblem::LogisticOutput,
            FixedOp::Tanh => QuantProblem::TanhOutput,
        }
    }

    /// The problem of an input scale outside the operation's range (logistic and tanh).
    pub const fn scale_problem(self) -> QuantProblem {
        match self {
            FixedOp::Logistic => QuantProblem::LogisticScale,
            _ => QuantProblem::TanhScale,
        }
    }

    fn output_text(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, rule, want_scale, want_zero_point) = self.contract();
        write!(
            f,
            "the output of {name} must have scale {want_scale} and zero point {want_zero_point} \
             (Q{rule})"
        )
    }

    fn scale_text(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, rule, ..) = self.contract();
        write!(
            f,
            "the input scale of {name} is outside [2^-28, 2^35), where TFLM's input radius is \
             defined (Q{rule})"
        )
    }
    /// The operation's name, its rule's number, and the output's scale and zero point.
    pub const fn contract(self) -> (&'static str, u8, f32, i32) {
        match self {
            FixedOp::Softmax => ("softmax", 20, 1.0 / 256.0, -128),
            FixedOp::Logistic => ("logistic", 21, 1.0 / 256.0, -128),
            FixedOp::Tanh => ("tanh", 22, 1.0 / 128.0, 0),
        }
    }
}

impl fmt::Display for QuantProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            QuantProblem::Scale { bits } => write!(
                f,
                "the scale {} must be finite and positive (Q1)",
                f32::from_bits(bits)
            ),
            QuantProblem::ZeroPoint {
                zero_point,
                min,
                max,
            } => write!(
                f,
                "the zero point {zero_point} is outside the element range {min}..={max} (Q1)"
            ),
            QuantProblem::Multiplier { bits } => write!(
                f,
                "the multiplier {} derived from the scales is outside what the contract allows \
                 (Q3)",
                f64::from_bits(bits)
            ),
            QuantProblem::ActivationRange => {
                f.write_str("an activation bound does not fit in i32 at the output's scale (Q7)")
            }
            QuantProblem::NotPrepared => f.write_str(
                "the operands' scales or zero points are not the ones the operation was \
                 prepared for (Q1)",
            ),
            QuantProblem::Mismatch => f.write_str(
                "a maximum or minimum compares stored integers, so both inputs need the same \
                 scale and zero point (Q13)",
            ),
            QuantProblem::PerAxisCounts {
                scales,
                zero_points,
            } => write!(
                f,
                "{scales} scales but {zero_points} zero points; each index of the axis needs \
                 one of each (Q16)"
            ),
            QuantProblem::PerAxisLength { params, axis, dim } => write!(
                f,
                "{params} per-axis parameters for axis {axis} of size {dim}; the axis needs one \
                 per index (Q16)"
            ),
            QuantProblem::PerAxisAxis { axis, rank } => write!(
                f,
                "per-axis parameters along axis {axis} of a rank-{rank} tensor (Q16)"
            ),
            QuantProblem::WeightZeroPoint {
                channel,
                zero_point,
            } => write!(
                f,
                "the weights of output column {channel} have the zero point {zero_point}; \
                 per-channel weights are symmetric, every zero point 0 (Q18)"
            ),
            QuantProblem::BiasLength { bias, columns } => write!(
                f,
                "a bias of {bias} values for {columns} output columns; it needs one per column \
                 (Q17)"
            ),
            QuantProblem::SoftmaxOutput => FixedOp::Softmax.output_text(f),
            QuantProblem::LogisticOutput => FixedOp::Logistic.output_text(f),
            QuantProblem::TanhOutput => FixedOp::Tanh.output_text(f),
            QuantProblem::SoftmaxScale => {
                f.write_str("beta * input scale * 2^26 must be above 1 for the softmax (Q20)")
            }
            QuantProblem::SoftmaxSum => f.write_str(
                "a softmax row's exponentials add up to 512 or more, past TFLM's output shift \
                 (Q20)",
            ),
            QuantProblem::LogisticScale => FixedOp::Logistic.scale_text(f),
            QuantProblem::TanhScale => FixedOp::Tanh.scale_text(f),
            QuantProblem::ConcatParams => f.write_str(
                "an input has other parameters than the output; a concatenation copies bytes, \
                 so every input needs the output's parameters (Q25)",
            ),
        }
    }
}

/// The error of every fallible operation in the crate: shapes that do not broadcast, buffers
/// of the wrong length, bad strides, values an integer operation cannot compute.
///
/// `Copy`, needs no allocator (shapes are kept inline, eight dims at most, longer ones shown
/// with an ellipsis), and its `Display` names the operation, both shapes and what failed:
///
/// ```
/// use shaped::{broadcast_shapes, AutoBroadcast, ErrorKind, Shape, TensorView};
/// let err = broadcast_shapes(&[3, 1, 5], &[4, 4, 5], AutoBroadcast::Numpy).unwrap_err();
/// assert_eq!(err.to_string(), "cannot broadcast [3, 1, 5] with [4, 4, 5] (numpy): axis 0 has 3 vs 4");
/// assert_eq!(err.kind(), ErrorKind::DimMismatch { axis: 0, lhs: 3, rhs: 4 });
///
/// let data = [1.0f32; 5];
/// let err = TensorView::<f32, Shape![2, 3]>::new(&data).unwrap_err();
/// assert_eq!(err.to_string(), "shape [2, 3] needs 6 elements, but the buffer holds 5");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
// The field order is chosen for `Error::in_caller` (`repr(C)`; 128 bytes on a 32-bit target,
// as before): a caller's `?` moves an error built in its body as the runs of bytes between
// the values stored one by one, and on Cortex-M a run over 64 bytes (LLVM's limit for a copy
// in line on ARM) or not 4-aligned is a `memcpy` call, 0.9 kB linked. With each shape's rank
// before its dims and `partial` between the shapes, no run is longer than the kind and the
// operation together, none starts in the operation's padding, and each shape's dims are
// 4-aligned but not 8-aligned (zeros written at an 8-aligned address linked
// `__aeabi_memclr8`, 174 bytes, next to the `__aeabi_memclr4` a firmware already has).
#[repr(C)]
pub struct Error {
    kind: ErrorKind,
    operation: Operation,
    lhs: Dims,
    /// For partial shapes (only their ranks are kept): whether each rank is known.
    partial: Option<[bool; 2]>,
    rhs: Dims,
}

impl Error {
    /// An error with no shapes involved, in `const` context (quantization parameters).
    pub(crate) const fn new_const(kind: ErrorKind, operation: Operation) -> Self {
        let none = Dims {
            dims: [0; KEPT_DIMS],
            rank: 0,
        };
        Error {
            kind,
            operation,
            lhs: none,
            rhs: none,
            partial: None,
        }
    }

    /// Out of line: it copies both shapes, 170 bytes of code on Cortex-M at opt-level "s", and
    /// its callers build it on failing paths only (a convolution's `_into` form held two
    /// copies of it, 100 bytes more with LTO and 150 without).
    #[inline(never)]
    pub(crate) fn new(kind: ErrorKind, operation: Operation, lhs: &[usize], rhs: &[usize]) -> Self {
        Error {
            kind,
            operation,
            lhs: Dims::new(lhs),
            rhs: Dims::new(rhs),
            partial: None,
        }
    }

    /// [`Error::new`] built in the caller's body, for the errors a caller typically passes on
    /// with `?` into a `Result` of another type. Built out of line, the error is written by a
    /// call and the `?` moves all but its first few words as one block, a `memcpy` call on
    /// Cortex-M: 0.9 kB of code linked into a firmware that had no other.
    /// Built here, it is moved in short runs (see the layout above), which are copied in line.
    /// The int8 convolutions' `_into` forms and `ArrayRef::new` build their errors so: a
    /// firmware of either form at opt-level "s", 4.8 kB -> 3.5 kB with LTO (9.1 -> 8.3 kB
    /// without).
    #[inline(always)]
    pub(crate) fn in_caller(
        kind: ErrorKind,
        operation: Operation,
        lhs: &[usize],
        rhs: &[usize],
    ) -> Self {
        Error {
            kind,
            operation,
            lhs: Dims::new(lhs),
            rhs: Dims::new(rhs),
            partial: None,
        }
    }

    /// An error about partial (interval) shapes: only their ranks are kept, `None` for a
    /// rank that is not known.
    pub(crate) fn new_partial(
        kind: ErrorKind,
        operation: Operation,
        lhs: Option<&[usize]>,
        rhs: Option<&[usize]>,
    ) -> Self {
        Error {
            partial: Some([lhs.is_some(), rhs.is_some()]),
            ..Error::new(kind, operation, lhs.unwrap_or(&[]), rhs.unwrap_or(&[]))
        }
    }

    /// The same error reported for another operation.
    pub(crate) fn in_operation(mut self, operation: Operation) -> Self {
        self.operation = operation;
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The operation or broadcast mode.
    pub fn operation(&self) -> Operation {
        self.operation
    }

    /// The first shape (A, the data, or the buffer's shape).
    pub fn lhs(&self) -> &Dims {
        &self.lhs
    }

    /// The second shape (B, the target, or the other side).
    pub fn rhs(&self) -> &Dims {
        &self.rhs
    }
}

// By hand, to keep the fields in the order they had before the layout above.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind)
            .field("operation", &self.operation)
            .field("lhs", &self.lhs)
            .field("rhs", &self.rhs)
            .field("partial", &self.partial)
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lhs, rhs, op) = (&self.lhs, &self.rhs, &self.operation);
        if let Some(known) = self.partial {
            f.write_str("cannot broadcast partial shapes of ")?;
            match known {
                [true, true] => write!(f, "ranks {} and {}", lhs.rank(), rhs.rank())?,
                [true, false] => write!(f, "rank {} and an unknown rank", lhs.rank())?,
                [false, true] => write!(f, "an unknown rank and rank {}", rhs.rank())?,
                [false, false] => f.write_str("unknown ranks")?,
            }
            write!(f, " ({op}): ")?;
        }
        match self.kind {
            _ if self.partial.is_some() => {}
            ErrorKind::Quant(problem) => return write!(f, "invalid quantization: {problem}"),
            ErrorKind::Window(problem) => {
                return match op {
                    // A window resolved on its own (`Window2d::resolve`): no operands.
                    _ if lhs.rank() == 0 && rhs.rank() == 0 => write!(f, "{problem}"),
                    Operation::Window {
                        op: op @ (WindowOp::AvgPool2d | WindowOp::MaxPool2d),
                    } => write!(f, "cannot {} {lhs} with window {rhs}: {problem}", op.name()),
                    Operation::Window { op } => {
                        write!(f, "cannot {} {lhs} with filter {rhs}: {problem}", op.name())
                    }
                    _ => write!(f, "{problem}"),
                };
            }
            ErrorKind::ShapeMismatch if matches!(op, Operation::Window { .. }) => {
                return write!(f, "destination {lhs} is not {rhs}, the {op} output (K1)")
            }
            ErrorKind::LengthMismatch { expected, actual } => {
                write!(
                    f,
                    "shape {lhs} needs {expected} elements, but the buffer holds {actual}"
                )?;
                // A layout error is about the buffer alone; elsewhere the operation helps.
                return match op {
                    Operation::Layout => Ok(()),
                    _ => write!(f, " ({op})"),
                };
            }
            ErrorKind::ByteLength { expected, actual } => {
                return write!(
                    f,
                    "shape {lhs} needs {expected} bytes, but the buffer holds {actual}"
                )
            }
            ErrorKind::NotContiguous => {
                return write!(
                    f,
                    "the array of shape {lhs} is not contiguous in row-major order, so it cannot \
                     be viewed without a copy (copy it with `to_owned`, or convert by value)"
                )
            }
            ErrorKind::Misaligned { align } => {
                return write!(
                    f,
                    "the bytes for shape {lhs} must start at a multiple of {align} (the element \
                     type's alignment), and do not"
                )
            }
            ErrorKind::OutOfMemory { bytes } => {
                return write!(
                    f,
                    "cannot allocate {bytes} bytes for a result of shape {lhs}"
                )
            }
            ErrorKind::LayoutTag { at } => {
                return write!(f, "bad layout tag: character {at} is not understood (O7)")
            }
            ErrorKind::LayoutRank { rank } => {
                return write!(
                    f,
                    "bad layout for shape {lhs}: the blocked format does not fit rank {rank} (O7)"
                )
            }
            ErrorKind::ElementTypes {
                op: crate::op::AnyOp::Typed,
                lhs: found,
                rhs: want,
            } => return write!(f, "the elements of {lhs} are {found}, not {want}"),
            ErrorKind::ElementTypes { op, lhs: a, rhs: b } => {
                return write!(
                    f,
                    "cannot compute {} of {a} {lhs} and {b} {rhs}: the element types differ",
                    op.name()
                )
            }
            ErrorKind::UnsupportedDType { op, dtype } => {
                return write!(
                    f,
                    "cannot compute {} of {dtype} {lhs}: not defined for {dtype}",
                    op.name()
                )
            }
            ErrorKind::CastOutOfRange { index } => {
                let (from, to) = match op {
                    Operation::Cast { from, to } => (from.name(), to.name()),
                    _ => ("?", "?"),
                };
                return write!(
                    f,
                    "cannot cast {lhs} from {from} to {to}: element {index} (row-major) is NaN or \
                     outside {to}'s range (C3)"
                );
            }
            _ if matches!(op, Operation::Shape { .. }) => return self.fmt_shape_op(f),
            _ if *op == Operation::MatMul => {
                write!(f, "cannot multiply {lhs} by {rhs} (matmul): ")?
            }
            ErrorKind::ShapeMismatch if *op == Operation::Dense => {
                return write!(
                    f,
                    "output {lhs} is not {rhs}, the dense layer's output for its input (G7)"
                )
            }
            ErrorKind::ShapeMismatch if *op == Operation::Binary => {
                return write!(
                    f,
                    "destination {lhs} is not {rhs}, the broadcast of the sources (binary)"
                )
            }
            // The `_into` forms of one-tensor operations (an imported model's): the caller's
            // destination against the output's dims.
            ErrorKind::ShapeMismatch
                if matches!(
                    op,
                    Operation::Reduce { .. } | Operation::Compute | Operation::Quantize
                ) =>
            {
                return write!(f, "destination {lhs} is not {rhs}, the {op} output")
            }
            // A rank that differs says so: the expected dims of a `Dyn` position past the
            // given shape's end are unknown, and printing them as 0 would mislead.
            ErrorKind::ShapeMismatch if self.lhs.rank() != self.rhs.rank() => {
                return write!(
                    f,
                    "shape {lhs} has rank {}, but the shape type has rank {}",
                    self.lhs.rank(),
                    self.rhs.rank()
                )
            }
            ErrorKind::ShapeMismatch if rhs.kept().contains(&DYN_DIM) => {
                write!(f, "shape {lhs} does not fit the shape type [")?;
                for (i, &d) in rhs.kept().iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match d {
                        DYN_DIM => f.write_str("_")?,
                        d => write!(f, "{d}")?,
                    }
                }
                return f.write_str("]");
            }
            ErrorKind::ShapeMismatch => {
                return write!(f, "shape {lhs} is not the static shape {rhs}")
            }
            ErrorKind::ConditionGrows => {
                return write!(
                    f,
                    "cannot select: condition {lhs} would grow {rhs}, the broadcast of the two \
                     values ({op}, W2)"
                )
            }
            ErrorKind::SelectMode => {
                return write!(
                    f,
                    "cannot select {lhs} or {rhs}: select broadcasts by none, numpy or pdpd, \
                     not {op} (W2)"
                )
            }
            ErrorKind::TooManyPostOps { max } => {
                return write!(f, "the binary primitive takes at most {max} post-ops")
            }
            ErrorKind::AnySource => {
                return write!(
                    f,
                    "source {lhs} has layout `any`, which only a destination may have (binary, O5)"
                )
            }
            ErrorKind::DivisionByZero | ErrorKind::NegativeExponent | ErrorKind::Unsupported => {
                write!(f, "cannot compute {lhs} with {rhs}: ")?;
            }
            _ if *op
                == (Operation::Reduce {
                    op: ReduceOp::SumTo,
                }) =>
            {
                write!(f, "cannot sum {lhs} to {rhs} (sum_to): ")?;
            }
            _ if matches!(op, Operation::Reduce { .. }) => {
                write!(f, "cannot reduce {lhs} ({op}): ")?;
            }
            _ if *op == Operation::FromNdarray => {
                write!(f, "cannot take the array of shape {lhs} ({op}): ")?;
            }
            _ if *op == Operation::ToNdarray => {
                write!(f, "cannot give shape {lhs} to ndarray: ")?;
            }
            // Strides only where the caller gave some (a rank-0 shape has none to show).
            _ if *op == Operation::Layout && rhs.rank() == 0 => {
                write!(f, "bad layout for shape {lhs}: ")?;
            }
            ErrorKind::BadStrides | ErrorKind::Overflow if *op == Operation::Layout => {
                write!(f, "bad layout for shape {lhs} with strides {rhs}: ")?;
            }
            _ => write!(f, "cannot broadcast {lhs} with {rhs} ({op}): ")?,
        }
        match self.kind {
            // Returned from the first match; here for exhaustiveness.
            ErrorKind::Quant(problem) => write!(f, "{problem}"),
            ErrorKind::Window(problem) => write!(f, "{problem}"),
            ErrorKind::DimMismatch { axis, lhs, rhs } => {
                write!(f, "axis {axis} has {lhs} vs {rhs}")?;
                if let Operation::BinaryPostOp { .. } = op {
                    f.write_str("; a post-op operand dim must be 1 or the destination's (O4)")?;
                }
                if let Operation::BinaryInPlace = op {
                    f.write_str("; in place, src1 may not change src0's shape (O8)")?;
                }
                Ok(())
            }
            ErrorKind::RankMismatch => {
                write!(
                    f,
                    "ranks {} and {} differ",
                    self.lhs.rank(),
                    self.rhs.rank()
                )
            }
            ErrorKind::SecondRankTooLarge => f.write_str("the second shape has the larger rank"),
            ErrorKind::NegativeAxis => f.write_str("the axis must be -1 (the default) or >= 0"),
            ErrorKind::AxisOutOfRange { max } => {
                write!(
                    f,
                    "the second shape does not fit at that axis (at most {max})"
                )
            }
            ErrorKind::TargetRankTooSmall => f.write_str("target_shape has smaller rank"),
            ErrorKind::AxesMappingLength { len, rank } => {
                write!(f, "axes_mapping has {len} entries, the data rank is {rank}")
            }
            ErrorKind::AxesMappingTooLong { len, rank } => {
                write!(
                    f,
                    "axes_mapping has {len} entries, the target rank is {rank}"
                )
            }
            ErrorKind::AxesMappingOrder { index } => {
                write!(f, "axes_mapping is not increasing at entry {index}")
            }
            ErrorKind::AxesMappingRange { index, axis } => {
                write!(
                    f,
                    "axes_mapping entry {index} is {axis}, not below the target rank"
                )
            }
            ErrorKind::RankLimit { max } => write!(f, "rank above the supported {max}"),
            ErrorKind::Overflow => f.write_str("the element count or byte size overflows"),
            ErrorKind::BadStrides => {
                f.write_str("one stride per dim is needed, addressing only inside the buffer")
            }
            ErrorKind::DivisionByZero => f.write_str("integer division by zero"),
            ErrorKind::NegativeExponent => f.write_str("integer raised to a negative power"),
            ErrorKind::Unsupported => f.write_str("float Pow needs the `std` or `libm` feature"),
            ErrorKind::IntervalMismatch { axis, lhs, rhs } => {
                write!(f, "axis {axis} has {lhs} vs {rhs}")
            }
            ErrorKind::BadAxis { axis, rank } => {
                write!(f, "axis {axis} is out of range for rank {rank}")
            }
            ErrorKind::DuplicateAxis { axis } => write!(f, "axis {axis} is given twice"),
            ErrorKind::NoAxes => f.write_str(
                "no axes given: Axes::All reduces every axis (numpy's axis=None, ONNX's \
                 default), Axes::Nothing none (numpy's axis=()) (R5)",
            ),
            ErrorKind::EmptyReduction { axis } => write!(
                f,
                "axis {axis} has no elements, and {op} of no elements has no value"
            ),
            ErrorKind::RankZero => f.write_str("an operand has rank 0 (G1)"),
            ErrorKind::InnerDims { lhs, rhs } => write!(f, "inner dims {lhs} vs {rhs} (G4)"),
            ErrorKind::BatchDims { axis, lhs, rhs } => {
                write!(f, "batch axis {axis} has {lhs} vs {rhs} (G5)")
            }
            ErrorKind::NotOne { .. }
            | ErrorKind::SecondInferred { .. }
            | ErrorKind::InferredDim { .. }
            | ErrorKind::PermutationLength { .. }
            | ErrorKind::OutOfBounds { .. }
            | ErrorKind::NoTensors
            | ErrorKind::ZeroDelta
            | ErrorKind::RangeNaN
            | ErrorKind::NotScalar { .. }
            | ErrorKind::PadsLength { .. }
            | ErrorKind::PadCrop { .. }
            | ErrorKind::PadEmptyAxis { .. } => Ok(()),
            ErrorKind::LengthMismatch { .. }
            | ErrorKind::ByteLength { .. }
            | ErrorKind::Misaligned { .. }
            | ErrorKind::NotContiguous
            | ErrorKind::OutOfMemory { .. }
            | ErrorKind::ShapeMismatch
            | ErrorKind::TooManyPostOps { .. }
            | ErrorKind::AnySource
            | ErrorKind::ConditionGrows
            | ErrorKind::SelectMode
            | ErrorKind::CastOutOfRange { .. }
            | ErrorKind::ElementTypes { .. }
            | ErrorKind::UnsupportedDType { .. }
            | ErrorKind::ZeroStep { .. }
            | ErrorKind::SliceCount { .. }
            | ErrorKind::NegativeStepView { .. }
            | ErrorKind::SplitSizes { .. }
            | ErrorKind::SplitParts { .. }
            | ErrorKind::IndexOutOfRange { .. }
            | ErrorKind::LayoutTag { .. }
            | ErrorKind::LayoutRank { .. } => Ok(()),
        }
    }
}

impl Error {
    /// The message of a shape manipulation's error: the operation, the shapes, what failed and
    /// the rule (M1-M13).
    fn fmt_shape_op(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::op::ShapeOp;
        let Operation::Shape { op } = self.operation else {
            return Ok(());
        };
        let (lhs, rhs) = (&self.lhs, &self.rhs);
        let name = op.name();
        let mut rule = match op {
            ShapeOp::Reshape => "M1",
            ShapeOp::InsertAxis | ShapeOp::Squeeze => "M3",
            ShapeOp::Permute => "M4",
            ShapeOp::Narrow => "M5",
            ShapeOp::Concat => "M6",
            ShapeOp::Stack => "M7",
            ShapeOp::Slice => "M8",
            ShapeOp::Split => "M9",
            ShapeOp::Gather => "M10",
            ShapeOp::GatherElements => "M11",
            ShapeOp::Range => "M12",
            ShapeOp::Pad => "M13",
        };
        match (op, self.kind) {
            (
                ShapeOp::Reshape,
                ErrorKind::SecondInferred { .. } | ErrorKind::InferredDim { .. },
            ) => {
                rule = "M2";
                write!(f, "cannot reshape {lhs}: ")?;
            }
            (ShapeOp::Reshape, _) => write!(f, "cannot reshape {lhs} into {rhs}: ")?,
            (ShapeOp::GatherElements, ErrorKind::RankMismatch | ErrorKind::DimMismatch { .. }) => {
                write!(f, "cannot gather_elements of {lhs} by indices {rhs}: ")?
            }
            (ShapeOp::Concat | ShapeOp::Stack, ErrorKind::NoTensors) => {
                write!(f, "cannot {name}: ")?
            }
            // A range has no input shape: its inputs are values.
            (ShapeOp::Range, _) => f.write_str("cannot range: ")?,
            // Errors between two of the tensors name both; the others, the first.
            (
                ShapeOp::Concat | ShapeOp::Stack,
                ErrorKind::DimMismatch { .. }
                | ErrorKind::RankMismatch
                | ErrorKind::ShapeMismatch
                | ErrorKind::Overflow,
            ) => write!(f, "cannot {name} {lhs} with {rhs}: ")?,
            _ => write!(f, "cannot {name} {lhs}: ")?,
        }
        match self.kind {
            ErrorKind::ShapeMismatch if op == ShapeOp::Reshape => {
                f.write_str("the element counts differ")?
            }
            ErrorKind::ShapeMismatch => f.write_str("the shapes differ")?,
            ErrorKind::DimMismatch { axis, lhs, rhs } if op == ShapeOp::GatherElements => write!(
                f,
                "axis {axis} has {rhs} indices for {lhs} elements; off the gathered axis there \
                 may be no more"
            )?,
            ErrorKind::DimMismatch { axis, lhs, rhs } => write!(
                f,
                "axis {axis} has {lhs} vs {rhs}; every axis but the joined one must be equal"
            )?,
            ErrorKind::RankMismatch => write!(f, "ranks {} and {} differ", lhs.rank(), rhs.rank())?,
            ErrorKind::NotOne { axis, dim } => write!(f, "axis {axis} has {dim} elements, not 1")?,
            ErrorKind::SecondInferred { index } => write!(
                f,
                "target dim {index} is a second INFER; one dim may be inferred"
            )?,
            ErrorKind::InferredDim { known, count } => write!(
                f,
                "the other target dims multiply to {known}, which does not divide {count} elements"
            )?,
            ErrorKind::PermutationLength { len, rank } => write!(
                f,
                "{len} axes given for rank {rank}; a permutation names every axis once"
            )?,
            ErrorKind::OutOfBounds {
                axis,
                start,
                len,
                dim,
            } => write!(
                f,
                "{len} elements from {start} do not fit in axis {axis}, which has {dim}"
            )?,
            ErrorKind::NoTensors => f.write_str("no tensors given")?,
            ErrorKind::ZeroDelta => f.write_str("the delta is 0")?,
            ErrorKind::RangeNaN => f.write_str("the count (limit - start) / delta is NaN")?,
            ErrorKind::NotScalar { .. } if op == ShapeOp::Pad => write!(
                f,
                "the constant value has shape {rhs}; it holds one element"
            )?,
            ErrorKind::NotScalar { position } => write!(
                f,
                "the {} has shape {lhs}; start, limit and delta hold one element each",
                ["start", "limit", "delta"]
                    .get(position)
                    .unwrap_or(&"input")
            )?,
            ErrorKind::PadsLength { len, axes } => write!(
                f,
                "{len} pads given for {axes} axes; each axis takes a begin and an end"
            )?,
            ErrorKind::PadCrop {
                axis,
                begin,
                end,
                dim,
            } => write!(
                f,
                "pads {begin} and {end} remove more elements than axis {axis} has ({dim})"
            )?,
            ErrorKind::PadEmptyAxis { axis, mode } => write!(
                f,
                "axis {axis} has no elements to pad from in {} mode; only constant mode pads an \
                 empty axis",
                mode.name()
            )?,
            ErrorKind::ZeroStep { axis } => write!(f, "the step along axis {axis} is 0")?,
            ErrorKind::SliceCount { given, rank } => {
                write!(f, "{given} slices given for rank {rank}")?
            }
            ErrorKind::NegativeStepView { axis } => write!(
                f,
                "a view cannot step backwards along axis {axis}; DynTensor::slice copies"
            )?,
            ErrorKind::SplitSizes { axis, sum, dim } => {
                write!(f, "the parts add up to {sum}, but axis {axis} has {dim}")?
            }
            ErrorKind::SplitParts { axis, parts, dim } => write!(
                f,
                "{parts} equal parts do not divide axis {axis}, which has {dim}; give the sizes"
            )?,
            ErrorKind::IndexOutOfRange {
                axis,
                position,
                index,
                dim,
            } => write!(
                f,
                "index {index} (at {position}) is outside axis {axis}, which has {dim}"
            )?,
            ErrorKind::BadAxis { axis, rank } => {
                write!(f, "axis {axis} is out of range for rank {rank}")?
            }
            ErrorKind::DuplicateAxis { axis } => write!(f, "axis {axis} is given twice")?,
            ErrorKind::RankLimit { max } => write!(f, "rank above the supported {max}")?,
            ErrorKind::Overflow => f.write_str("the element count or byte size overflows")?,
            // Any other kind is not made by a shape manipulation; its name is still clear.
            kind => write!(f, "{kind:?}")?,
        }
        write!(f, " ({rule})")
    }
}

impl core::error::Error for Error {}

/// The contract of the methods that return a tensor rather than a `Result`: an error is a
/// panic with its message, reported at the caller's line. Every function between the user's
/// call and this one is `#[track_caller]`; a closure (`unwrap_or_else(|e| ...)`) would be
/// reported instead, inside this crate.
#[cfg(feature = "alloc")]
pub(crate) trait OrPanic<V> {
    /// The value, or a panic with the error's message.
    fn or_panic(self) -> V;
}

#[cfg(feature = "alloc")]
impl<V> OrPanic<V> for Result<V, Error> {
    #[inline]
    #[track_caller]
    fn or_panic(self) -> V {
        match self {
            Ok(v) => v,
            Err(e) => panic_with(e),
        }
    }
}

/// Panics with the error's message, at the caller's line.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn panic_with(e: Error) -> ! {
    panic!("{e}")
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn dims_show_an_ellipsis_past_eight() {
        assert_eq!(Dims::new(&[]).to_string(), "[]");
        assert_eq!(Dims::new(&[3, 1]).to_string(), "[3, 1]");
        let long: [usize; 10] = core::array::from_fn(|i| i);
        assert_eq!(
            Dims::new(&long).to_string(),
            "[0, 1, 2, 3, 4, 5, 6, 7, … (10 dims)]"
        );
    }

    #[test]
    fn error_is_small_and_copy() {
        fn copy<T: Copy>() {}
        copy::<Error>();
        assert!(core::mem::size_of::<Error>() <= 224);
    }
}
