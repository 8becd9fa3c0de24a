//! From a checked [`Model`] and its arena plan to Rust tokens: the code `shaped::include_model!`
//! (crate `shaped-macros`) expands to. Feature `codegen`.
//!
//! Each operator becomes one block: its constant operands as `static`s (weights as byte
//! strings, read as `i8` at compile time), its prepared operation as a `const`, typed views of
//! its operands (the caller's tensors, the arena's bytes or the statics) and one call of
//! shaped's public `_into` form of the operation. Every shape in the generated code is a
//! static `Shape![..]`, so shaped checks each operator's shapes at compile time.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt::Write as _;

use crate::{Activation, DType, Model, Op, Operator, Padding, Plan, PlanOptions, Quantization};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

/// The model's code: the struct named `name`, its constants, `predict`, `predict_into` and
/// `run`. `file` is the path as the user wrote it (errors name it). The error is the text of
/// the `compile_error!` the macro reports: a model the reader refuses, or one the generator
/// does not write code for (naming the operator).
pub fn model(bytes: &[u8], file: &str, name: &Ident) -> Result<TokenStream, String> {
    let model = Model::read(bytes, file).map_err(|e| e.to_string())?;
    generate(&model, bytes, name)
}

/// The code of a checked `model` whose constants' bytes are in `bytes`.
pub fn generate(model: &Model, bytes: &[u8], name: &Ident) -> Result<TokenStream, String> {
    let file = &model.file;
    let plan = Plan::new(model).map_err(|e| e.to_string())?;
    let options = PlanOptions { include_io: true };
    let io_plan = Plan::with_options(model, options).map_err(|e| e.to_string())?;
    // The weights and prepared operations, once for both bodies, in a module of their own.
    let module = format_ident!("__{}_parameters", name);
    let items = RefCell::new(Items::default());
    let g = Gen {
        model,
        plan: &plan,
        bytes,
        module: &module,
        items: &items,
    };
    // The same operators over the plan that holds the input and output too (`run`).
    let g_io = Gen {
        plan: &io_plan,
        ..g
    };
    let (input, output) = match (&model.inputs[..], &model.outputs[..]) {
        ([i], [o]) => (*i, *o),
        _ => {
            return Err(format!(
                "{file}: the generator takes models of one input and one output"
            ))
        }
    };
    let (in_t, out_t) = (&model.tensors[input], &model.tensors[output]);
    let in_elem = g.io_elem(input, "input")?;
    let out_elem = g.io_elem(output, "output")?;
    let in_shape = shape_type(&in_t.shape);
    let out_shape = shape_type(&out_t.shape);

    let mut body = TokenStream::new();
    let mut io_body = TokenStream::new();
    for op in &model.operators {
        body.extend(g.operator(op)?);
        io_body.extend(g_io.operator(op)?);
    }
    let arena = Literal::usize_unsuffixed(plan.arena_size);
    let io_arena = Literal::usize_unsuffixed(io_plan.arena_size);
    let place = |t: usize| {
        let p = io_plan
            .placement(t)
            .expect("a plan with the inputs and outputs places them");
        (
            Literal::usize_unsuffixed(p.offset),
            Literal::usize_unsuffixed(p.offset + p.size),
        )
    };
    let ((in_a, in_b), (out_a, out_b)) = (place(input), place(output));
    let docs = g.docs().into_iter().map(|line| quote!(#[doc = #line]));
    let items = items.into_inner().tokens;
    let mut consts = TokenStream::new();
    if let Some(q) = &in_t.quantization {
        let doc = format!(
            " The input's quantization, scale {} and zero point {}: a real `x` is stored as \
             `round(x / scale) + zero_point` (`Tensor::quantize`).",
            q.scales[0], q.zero_points[0]
        );
        let q = quant(q);
        consts.extend(quote! {
            #[doc = #doc]
            pub const INPUT: ::shaped::quant::Quant<i8> = #q;
        });
    }
    if let Some(q) = &out_t.quantization {
        let doc = format!(
            " The output's quantization, scale {} and zero point {}: a stored `y` stands for \
             `scale * (y - zero_point)`.",
            q.scales[0], q.zero_points[0]
        );
        let q = quant(q);
        consts.extend(quote! {
            #[doc = #doc]
            pub const OUTPUT: ::shaped::quant::Quant<i8> = #q;
        });
    }
    let zero = zero_of(out_t.dtype);
    // An int8 output comes back with its parameters attached (`dequantize` gives the real
    // values); a float one as it is.
    let (predicted, wrap) = if out_t.quantization.is_some() {
        (
            quote!(::shaped::quant::Quantized<::shaped::Tensor<i8, #out_shape>, i8>),
            quote!(out.quantized(Self::OUTPUT)),
        )
    } else {
        (quote!(::shaped::Tensor<#out_elem, #out_shape>), quote!(out))
    };
    Ok(quote! {
        /// The weights and prepared operations of the model of the same name.
        #[doc(hidden)]
        #[allow(non_snake_case, non_upper_case_globals)]
        mod #module {
            #items
        }

        #(#docs)*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        __shaped_vis struct #name;

        impl #name {
            /// Bytes of the arena `predict_into` keeps the intermediate tensors in.
            pub const ARENA_BYTES: usize = #arena;
            #consts

            /// The model on `input` (an owned tensor or a view, say of a sensor's buffer), as
            /// TFLM computes it; the arena and the output on the stack. An int8 output is
            /// returned as a `Quantized` tensor, quantized by [`Self::OUTPUT`]: `.values()`
            /// holds the integers, `.dequantize()` gives the real values.
            pub fn predict<D: ::shaped::typed::storage::Data<#in_elem>>(
                input: &::shaped::Tensor<#in_elem, #in_shape, D>,
            ) -> #predicted {
                let mut arena = ::shaped::model::Arena::<#arena>::new();
                let mut out = ::shaped::Tensor::<#out_elem, #out_shape>::splat(#zero);
                Self::predict_into(input, &mut out, &mut arena);
                #wrap
            }

            /// [`Self::predict`] into `out`, the intermediate tensors in `arena` (whose
            /// contents before and after mean nothing): no allocation, and the memory an
            /// inference takes is the caller's to place (a `static`, say). `out` receives the
            /// output's integers (quantized by `OUTPUT` for an int8 model:
            /// `out.quantized(Self::OUTPUT).dequantize()` gives the real values).
            pub fn predict_into<D, O>(
                input: &::shaped::Tensor<#in_elem, #in_shape, D>,
                out: &mut ::shaped::Tensor<#out_elem, #out_shape, O>,
                arena: &mut ::shaped::model::Arena<#arena>,
            ) where
                D: ::shaped::typed::storage::Data<#in_elem>,
                O: ::shaped::typed::storage::DataMut<#out_elem>,
            {
                // Every check these calls make (view lengths and alignments, each layer's
                // input parameters) compares constants the generator made consistent.
                #[inline(always)]
                fn ok<T>(r: ::core::result::Result<T, ::shaped::Error>) -> T {
                    match r {
                        ::core::result::Result::Ok(v) => v,
                        ::core::result::Result::Err(_) => {
                            ::core::unreachable!("the generated model's shapes and parameters agree")
                        }
                    }
                }
                let _ = (&input, &out, &arena);
                #body
            }

            /// Bytes of the arena of [`Self::run`]: the intermediate tensors, the input and the
            /// output, placed by the same plan (at most `ARENA_BYTES` plus the input's and
            /// the output's bytes, often less: the input's bytes are reused once it is read).
            pub const ARENA_WITH_IO_BYTES: usize = #io_arena;

            /// The input's place in `arena`, for [`Self::run`]: write the input here.
            pub fn input_mut(
                arena: &mut ::shaped::model::Arena<#io_arena>,
            ) -> ::shaped::TensorViewMut<'_, #in_elem, #in_shape> {
                match ::shaped::TensorViewMut::from_bytes_mut(&mut arena.0[#in_a..#in_b]) {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(_) => {
                        ::core::unreachable!("the plan places the input inside the arena")
                    }
                }
            }

            /// The output's place in `arena`: after [`Self::run`], the model's output.
            pub fn output(
                arena: &::shaped::model::Arena<#io_arena>,
            ) -> ::shaped::TensorView<'_, #out_elem, #out_shape> {
                match ::shaped::TensorView::from_bytes(&arena.0[#out_a..#out_b]) {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(_) => {
                        ::core::unreachable!("the plan places the output inside the arena")
                    }
                }
            }

            /// The model on the input [`Self::input_mut`] wrote into `arena`; the output is
            /// then at [`Self::output`]. The whole inference in one buffer: the least RAM.
            pub fn run(arena: &mut ::shaped::model::Arena<#io_arena>) {
                #[inline(always)]
                fn ok<T>(r: ::core::result::Result<T, ::shaped::Error>) -> T {
                    match r {
                        ::core::result::Result::Ok(v) => v,
                        ::core::result::Result::Err(_) => {
                            ::core::unreachable!("the generated model's shapes and parameters agree")
                        }
                    }
                }
                let _ = &arena;
                #io_body
            }
        }
    })
}

#[derive(Clone, Copy)]
struct Gen<'a> {
    model: &'a Model,
    plan: &'a Plan,
    bytes: &'a [u8],
    /// The module holding the items.
    module: &'a Ident,
    items: &'a RefCell<Items>,
}

/// The module's items, each written once however many bodies refer to it.
#[derive(Default)]
struct Items {
    tokens: TokenStream,
    names: HashSet<String>,
}

/// Where a tensor an operator reads or writes lives.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Home {
    /// The caller's input tensor (the model's input, or a reshape of it).
    Input,
    /// The caller's output tensor.
    Output,
    /// Bytes `offset..offset + size` of the arena.
    Arena(usize, usize),
    /// A constant of the model: a `static` of the generated code.
    Constant,
}

impl Gen<'_> {
    /// Item `name` of the parameters' module, `item` (its definition, without visibility)
    /// written there the first time. Items name each other plainly; the model's functions by
    /// [`Self::path`].
    fn item(
        &self,
        name: Ident,
        item: impl FnOnce() -> Result<TokenStream, String>,
    ) -> Result<Ident, String> {
        let mut items = self.items.borrow_mut();
        if items.names.insert(name.to_string()) {
            let item = item()?;
            items.tokens.extend(quote!(pub(super) #item));
        }
        Ok(name)
    }

    /// The path of an item of the parameters' module, from the model's functions.
    fn path(&self, name: &Ident) -> TokenStream {
        let module = self.module;
        quote!(#module::#name)
    }

    fn op_error(&self, op: &Operator, message: &str) -> String {
        format!(
            "{}: operator {} ({}): {message}",
            self.model.file,
            op.index,
            op.op.name()
        )
    }

    /// The element type of the model's input or output: int8 quantized per tensor, or f32.
    fn io_elem(&self, t: usize, what: &str) -> Result<TokenStream, String> {
        let tensor = &self.model.tensors[t];
        match (&tensor.dtype, &tensor.quantization) {
            (DType::Int8, Some(q)) if !q.is_per_channel() => Ok(quote!(i8)),
            (DType::Float32, None) => Ok(quote!(f32)),
            _ => Err(format!(
                "{}: the model's {what} is {}: the generator takes int8 inputs and outputs \
                 quantized per tensor, or float32 ones",
                self.model.file,
                tensor.dtype.name()
            )),
        }
    }

    fn home(&self, t: usize) -> Home {
        let m = self.model;
        if m.tensors[t].is_constant() {
            return Home::Constant;
        }
        // With `include_io`, the plan places the input and output too.
        if let Some(p) = self.plan.placement(t) {
            return Home::Arena(p.offset, p.size);
        }
        if m.inputs.contains(&t) {
            return Home::Input;
        }
        if m.outputs.contains(&t) {
            return Home::Output;
        }
        // The plan leaves out a reshape of the model's input: it is the input's bytes.
        let writer = m
            .operators
            .iter()
            .find(|op| op.outputs.contains(&t))
            .and_then(|op| match op.op {
                Op::Reshape { .. } => op.input(0),
                _ => None,
            });
        match writer {
            Some(x) if self.home(x) == Home::Input => Home::Input,
            _ => unreachable!("the plan places every intermediate tensor"),
        }
    }

    /// The struct's documentation: the operators with their shapes, then the arena plan.
    fn docs(&self) -> Vec<String> {
        let m = self.model;
        let shape = |t: usize| {
            let tensor = &m.tensors[t];
            format!("{:?} {}", tensor.shape, tensor.dtype.name())
        };
        let mut lines = vec![
            format!(
                " The model of `{}`, generated by `shaped::include_model!`.",
                m.file
            ),
            String::new(),
            format!(" Operators ({}):", m.operators.len()),
            String::new(),
        ];
        for op in &m.operators {
            let mut line = format!(" {}. `{}`", op.index, op.op.name());
            let ins: Vec<String> = op
                .inputs
                .iter()
                .map(|i| match i {
                    Some(t) if m.tensors[*t].is_constant() => format!("{} const", shape(*t)),
                    Some(t) => shape(*t),
                    None => "none".to_owned(),
                })
                .collect();
            let outs: Vec<String> = op.outputs.iter().map(|&t| shape(t)).collect();
            let _ = write!(line, " ({}) -> {}", ins.join(", "), outs.join(", "));
            let options = options_text(&op.op);
            if !options.is_empty() {
                let _ = write!(line, "; {options}");
            }
            lines.push(line);
        }
        lines.push(String::new());
        lines.push(" Arena plan:".to_owned());
        lines.push(String::new());
        lines.push(" ```text".to_owned());
        for l in self.plan.report(m).to_string().lines() {
            lines.push(format!(" {l}"));
        }
        lines.push(" ```".to_owned());
        lines
    }

    /// One operator's block. Every operator the reader accepts has a case (a new one does
    /// not compile until it has); its element types and options may still be refused.
    fn operator(&self, op: &Operator) -> Result<TokenStream, String> {
        let name = Literal::string(&format!(" operator {}: {}", op.index, op.op.name()));
        let code = match &op.op {
            Op::FullyConnected(fc) => self.fully_connected(op, fc.activation)?,
            Op::Conv2d(c) => {
                let spec = spec_tokens(
                    c.padding,
                    [c.stride_h, c.stride_w],
                    [c.dilation_h, c.dilation_w],
                );
                self.conv(op, false, spec, c.activation)?
            }
            Op::DepthwiseConv2d(c) => {
                let spec = spec_tokens(
                    c.padding,
                    [c.stride_h, c.stride_w],
                    [c.dilation_h, c.dilation_w],
                );
                self.conv(op, true, spec, c.activation)?
            }
            Op::AveragePool2d(p) | Op::MaxPool2d(p) => {
                let largest = matches!(op.op, Op::MaxPool2d(_));
                self.pool(op, p, largest)?
            }
            Op::Reshape { .. } => self.reshape(op)?,
            Op::Softmax { beta } => self.softmax(op, *beta)?,
            Op::Add { activation } => self.binary(op, "QAdd", *activation)?,
            Op::Sub { activation } => self.binary(op, "QSub", *activation)?,
            Op::Mul { activation } => self.binary(op, "QMul", *activation)?,
            Op::Quantize => self.quantize(op)?,
            Op::Dequantize => self.dequantize(op)?,
            Op::Logistic => self.lookup(op, "QLogistic")?,
            Op::Tanh => self.lookup(op, "QTanh")?,
            Op::Relu => self.relu(op, false)?,
            Op::Relu6 => self.relu(op, true)?,
            Op::Mean { axes, .. } => self.mean(op, axes)?,
            Op::Pad { paddings } => self.pad(op, paddings)?,
            Op::Concatenation { axis, activation } => self.concatenation(op, *axis, *activation)?,
        };
        Ok(quote! {
            #[doc = #name]
            {
                #code
            }
        })
    }

    // ---- operands ----------------------------------------------------------------------

    /// The operator's input `i` and output 0, checked present.
    fn io(&self, op: &Operator, i: usize) -> Result<(usize, usize), String> {
        match (op.input(i), op.outputs.first()) {
            (Some(x), Some(&y)) => Ok((x, y)),
            _ => Err(self.op_error(op, "an operand is missing")),
        }
    }

    fn dtype_of(&self, t: usize) -> DType {
        self.model.tensors[t].dtype
    }

    /// The per-tensor quantization of int8 tensor `t` as a constant expression.
    fn q(&self, op: &Operator, t: usize) -> Result<TokenStream, String> {
        match &self.model.tensors[t].quantization {
            Some(q) if !q.is_per_channel() => Ok(quant(q)),
            _ => Err(self.op_error(
                op,
                "an activation is not quantized per tensor: the generator takes int8 \
                 activations with one scale",
            )),
        }
    }

    /// Statements binding `y` (a writable view of output tensor `y`) and, for each
    /// `(name, tensor)` of `reads`, `name` (a view of that tensor), from the caller's tensors,
    /// the arena or the statics `statics` names for constants.
    fn views(
        &self,
        op: &Operator,
        reads: &[(&str, usize)],
        y: usize,
    ) -> Result<TokenStream, String> {
        let lit = Literal::usize_unsuffixed;
        let yt = &self.model.tensors[y];
        let (y_elem, y_shape) = (elem(yt.dtype), shape_type(&yt.shape));
        let mut code = TokenStream::new();
        // The output's bytes are split off the arena first; the inputs are shared views of what
        // is left before (`lo`) and after (`hi`) it. The plan never lets an operator's output
        // share bytes with one of its inputs.
        let (y_view, split) = match self.home(y) {
            Home::Arena(o, s) => {
                let (o_lit, s_lit) = (lit(o), lit(s));
                code.extend(quote! {
                    let (lo, rest) = arena.0.split_at_mut(#o_lit);
                    let (ym, hi) = rest.split_at_mut(#s_lit);
                    let (lo, hi): (&[u8], &[u8]) = (lo, hi);
                });
                (
                    quote!(ok(::shaped::TensorViewMut::<#y_elem, #y_shape>::from_bytes_mut(ym))),
                    Some((o, s)),
                )
            }
            Home::Output => {
                code.extend(quote! {
                    let (lo, hi): (&[u8], &[u8]) = (&arena.0, &[]);
                });
                (
                    quote!(ok(::shaped::TensorViewMut::<#y_elem, #y_shape>::new(out.as_mut_slice()))),
                    None,
                )
            }
            Home::Input | Home::Constant => {
                return Err(self.op_error(op, "an operator writes the model's input or a constant"))
            }
        };
        for &(name, x) in reads {
            let xt = &self.model.tensors[x];
            let (x_elem, x_shape) = (elem(xt.dtype), shape_type(&xt.shape));
            let name = Ident::new(name, Span::call_site());
            let view = match self.home(x) {
                Home::Input => {
                    quote!(ok(::shaped::TensorView::<#x_elem, #x_shape>::new(input.as_slice())))
                }
                Home::Output => {
                    return Err(self.op_error(op, "an operator reads the model's output"));
                }
                Home::Constant => {
                    let statik = self.path(&self.constant(op, x)?);
                    quote!(ok(::shaped::TensorView::<#x_elem, #x_shape>::new(&#statik)))
                }
                Home::Arena(o, s) => {
                    let bytes = match split {
                        Some((yo, _)) if o + s <= yo => {
                            let (a, b) = (lit(o), lit(o + s));
                            quote!(&lo[#a..#b])
                        }
                        Some((yo, ys)) if o >= yo + ys => {
                            let (a, b) = (lit(o - yo - ys), lit(o + s - yo - ys));
                            quote!(&hi[#a..#b])
                        }
                        Some(_) => {
                            return Err(
                                self.op_error(op, "the arena plan overlaps input and output")
                            )
                        }
                        None => {
                            let (a, b) = (lit(o), lit(o + s));
                            quote!(&lo[#a..#b])
                        }
                    };
                    quote!(ok(::shaped::TensorView::<#x_elem, #x_shape>::from_bytes(#bytes)))
                }
            };
            code.extend(quote!(let #name = #view;));
        }
        code.extend(quote!(let _ = (&lo, &hi); let mut y = #y_view;));
        Ok(code)
    }

    /// The path of a `static` holding constant tensor `t`'s elements, flat.
    fn constant(&self, op: &Operator, t: usize) -> Result<Ident, String> {
        self.item(format_ident!("C{}", t), || self.constant_item(op, t))
    }

    fn constant_item(&self, op: &Operator, t: usize) -> Result<TokenStream, String> {
        let name = format_ident!("C{}", t);
        let tensor = &self.model.tensors[t];
        let raw = tensor
            .bytes(self.bytes)
            .ok_or_else(|| self.op_error(op, "a constant's bytes are missing"))?;
        let n = Literal::usize_unsuffixed(tensor.element_count());
        Ok(match tensor.dtype {
            DType::Int8 => {
                let bytes = Literal::byte_string(raw);
                // Bytes reinterpreted at compile time: the weights stay in flash.
                quote!(static #name: [i8; #n] = ::shaped::__model::must_cast(*#bytes);)
            }
            DType::Int32 => {
                let values = raw
                    .chunks_exact(4)
                    .map(|c| Literal::i32_unsuffixed(i32::from_le_bytes([c[0], c[1], c[2], c[3]])));
                quote!(static #name: [i32; #n] = [#(#values),*];)
            }
            DType::Float32 => {
                let values = raw
                    .chunks_exact(4)
                    .map(|c| f32_tokens(f32::from_le_bytes([c[0], c[1], c[2], c[3]])));
                quote!(static #name: [f32; #n] = [#(#values),*];)
            }
        })
    }

    /// A bias operand: `&STATIC` (`[T; n]`), or `()` when absent.
    fn bias(&self, op: &Operator, i: usize) -> Result<TokenStream, String> {
        match op.input(i) {
            Some(b) => {
                let path = self.path(&self.constant(op, b)?);
                Ok(quote!(&#path))
            }
            None => Ok(quote!(())),
        }
    }

    /// The path of the prepared operation `OP<index>`, `ty` built by `init` (a `Result`
    /// whose error stops the build with the operator named).
    fn prepared(
        &self,
        op: &Operator,
        ty: TokenStream,
        init: TokenStream,
    ) -> Result<TokenStream, String> {
        self.prepared_as(op, ty, init, quote!(op))
    }

    /// [`Self::prepared`], the value `finish` made of the prepared `op`.
    fn prepared_as(
        &self,
        op: &Operator,
        ty: TokenStream,
        init: TokenStream,
        finish: TokenStream,
    ) -> Result<TokenStream, String> {
        let context = self.const_context(op);
        let name = format_ident!("OP{}", op.index);
        let name = self.item(name.clone(), || {
            Ok(quote! {
                const #name: #ty = match #init {
                    ::core::result::Result::Ok(op) => #finish,
                    ::core::result::Result::Err(_) => ::core::panic!(#context),
                };
            })
        })?;
        Ok(self.path(&name))
    }

    /// The path of `static <NAME><index>: [<ty>; n] = [values]`.
    fn array<T: quote::ToTokens>(
        &self,
        op: &Operator,
        name: &str,
        ty: TokenStream,
        values: &[T],
    ) -> Result<Ident, String> {
        let ident = format_ident!("{}{}", name, op.index);
        let n = Literal::usize_unsuffixed(values.len());
        self.item(ident.clone(), || {
            // A `const`: read while the operations are prepared, kept only where a prepared
            // operation refers to it.
            Ok(quote!(const #ident: [#ty; #n] = [#(#values),*];))
        })
    }

    // ---- operators ---------------------------------------------------------------------

    fn conv(
        &self,
        op: &Operator,
        depthwise: bool,
        spec: TokenStream,
        activation: Activation,
    ) -> Result<TokenStream, String> {
        let m = self.model;
        let (x, y) = self.io(op, 0)?;
        let w = op
            .input(1)
            .ok_or_else(|| self.op_error(op, "the filter is missing"))?;
        let wt = &m.tensors[w];
        let act = activation_tokens(activation);
        let bias = self.bias(op, 2)?;
        // An int8 DEPTHWISE_CONV_2D of one input channel (TFLM's micro_speech and
        // person_detection models start with one, depth multiplier 8) is a CONV_2D of that one
        // input channel, its filter `[1, kh, kw, M]` transposed to `[M, kh, kw, 1]`: the same
        // sums, bias and per-channel requantization, TFLM's int8 kernels compute both alike.
        // The convolution kernel takes it a run of taps at a time, where the depthwise one
        // sums each output's taps byte by byte (shared micro_speech: 7.0 million instructions
        // per inference at "s" on the Cortex-M4 as a depthwise convolution).
        let one_channel = depthwise
            && self.dtype_of(x) == DType::Int8
            && m.tensors[x].shape.len() == 4
            && m.tensors[x].shape[3] == 1
            && wt.shape.len() == 4
            && wt.shape[0] == 1;
        let (depthwise, views) = if one_channel {
            let views = self.views(op, &[("x", x)], y)?;
            let filter = self.filter_of_one_channel(op, w)?;
            (false, quote!(#views #filter))
        } else {
            (depthwise, self.views(op, &[("x", x), ("w", w)], y)?)
        };
        let method = if depthwise {
            quote!(depthwise_conv2d_into)
        } else {
            quote!(conv2d_into)
        };
        if self.dtype_of(x) == DType::Float32 {
            return Ok(quote! {
                #views
                ok(x.#method(&w, #bias, #spec, #act, &mut y));
            });
        }
        let channels = if depthwise || one_channel {
            wt.shape[3]
        } else {
            wt.shape[0]
        };
        let wq = wt
            .quantization
            .as_ref()
            .ok_or_else(|| self.op_error(op, "the filter is not quantized"))?;
        let (q_x, q_y) = (self.q(op, x)?, self.q(op, y)?);
        let (scales, zeros) = per_channel(wq, channels);
        let n = Literal::usize_unsuffixed(channels);
        let scales = self.array(op, "SCALES", quote!(f32), &scales)?;
        let zeros = self.array(op, "ZEROS", quote!(i32), &zeros)?;
        // The kernel alone: the weights' scales are read while it is prepared, and stay out
        // of the firmware.
        let prepared = self.prepared_as(
            op,
            quote!(::shaped::conv::QConvKernel<#n>),
            quote! {
                ::shaped::conv::QConv2d::new(
                    #q_x,
                    ::shaped::quant::PerAxis::new_const(&#scales, &#zeros),
                    #q_y,
                    #act,
                    ::shaped::quant::Rounding::Double,
                )
            },
            quote!(op.kernel()),
        )?;
        Ok(quote! {
            #views
            ok(#prepared.#method(&x.quantized(#q_x), &w, #bias, #spec, &mut y));
        })
    }

    /// `w`, the `[1, kh, kw, M]` filter of a depthwise convolution of one input channel, as the
    /// `[M, kh, kw, 1]` filter of a convolution (a `static` transposed here), viewed as `w`.
    fn filter_of_one_channel(&self, op: &Operator, w: usize) -> Result<TokenStream, String> {
        let wt = &self.model.tensors[w];
        let (kh, kw, channels) = (wt.shape[1], wt.shape[2], wt.shape[3]);
        let raw = wt
            .bytes(self.bytes)
            .ok_or_else(|| self.op_error(op, "the filter's bytes are missing"))?;
        if raw.len() != kh * kw * channels {
            return Err(self.op_error(op, "the filter's bytes do not fill its shape"));
        }
        // Tap (h, w) of channel c is byte (h * kw + w) * M + c of the depthwise filter and byte
        // c * kh * kw + h * kw + w of the convolution's.
        let taps = kh * kw;
        let transposed: Vec<u8> = (0..channels * taps)
            .map(|i| raw[(i % taps) * channels + i / taps])
            .collect();
        let bytes = Literal::byte_string(&transposed);
        let n = Literal::usize_unsuffixed(transposed.len());
        let shape = shape_type(&[channels, kh, kw, 1]);
        let name = format_ident!("C{}T", w);
        let name = self.item(name.clone(), || {
            Ok(quote!(static #name: [i8; #n] = ::shaped::__model::must_cast(*#bytes);))
        })?;
        let statik = self.path(&name);
        Ok(quote! {
            let w = ok(::shaped::TensorView::<i8, #shape>::new(&#statik));
        })
    }

    fn pool(&self, op: &Operator, p: &crate::Pool2d, largest: bool) -> Result<TokenStream, String> {
        let (x, y) = self.io(op, 0)?;
        let spec = spec_tokens(p.padding, [p.stride_h, p.stride_w], [1, 1]);
        let (kh, kw) = (
            Literal::usize_unsuffixed(p.filter_h),
            Literal::usize_unsuffixed(p.filter_w),
        );
        let act = activation_tokens(p.activation);
        let views = self.views(op, &[("x", x)], y)?;
        let method = if largest {
            quote!(max_pool2d_into)
        } else {
            quote!(avg_pool2d_into)
        };
        if self.dtype_of(x) == DType::Float32 {
            return Ok(quote! {
                #views
                ok(x.#method::<#kh, #kw, _, _>(#spec, #act, &mut y));
            });
        }
        let (q_x, q_y) = (self.q(op, x)?, self.q(op, y)?);
        if q_x.to_string() != q_y.to_string() {
            return Err(self.op_error(
                op,
                "the input and output quantizations differ (TFLM's int8 pools keep them)",
            ));
        }
        Ok(quote! {
            #views
            ok(x.quantized(#q_x).#method::<#kh, #kw, _, _>(#spec, #act, &mut y));
        })
    }

    fn reshape(&self, op: &Operator) -> Result<TokenStream, String> {
        let (x, y) = self.io(op, 0)?;
        let same_bytes = match (self.home(x), self.home(y)) {
            (Home::Arena(a, _), Home::Arena(b, _)) => a == b,
            (Home::Input, Home::Input) => true,
            _ => false,
        };
        if same_bytes {
            // The plan gave the output its input's bytes: nothing moves.
            return Ok(quote!());
        }
        let views = self.views(op, &[("x", x)], y)?;
        Ok(quote! {
            #views
            y.as_mut_slice().copy_from_slice(x.as_slice());
        })
    }

    fn softmax(&self, op: &Operator, beta: f32) -> Result<TokenStream, String> {
        let (x, y) = self.io(op, 0)?;
        if self.dtype_of(x) == DType::Float32 {
            let beta = f32_tokens(beta);
            let views = self.views(op, &[("x", x)], y)?;
            return Ok(quote! {
                #views
                ok(x.tflite_softmax_into(#beta, &mut y));
            });
        }
        let (q_x, q_y) = (self.q(op, x)?, self.q(op, y)?);
        let beta = f32_tokens(beta);
        let prepared = self.prepared(
            op,
            quote!(::shaped::quant::QSoftmax),
            quote!(::shaped::quant::QSoftmax::new(#q_x, #beta, #q_y)),
        )?;
        let views = self.views(op, &[("x", x)], y)?;
        Ok(quote! {
            #views
            ok(#prepared.run_into(&x.quantized(#q_x), &mut y));
        })
    }

    fn binary(
        &self,
        op: &Operator,
        prepared: &str,
        activation: Activation,
    ) -> Result<TokenStream, String> {
        let (a, y) = self.io(op, 0)?;
        let b = op
            .input(1)
            .ok_or_else(|| self.op_error(op, "the second operand is missing"))?;
        if self.dtype_of(a) == DType::Float32 {
            // TFLite's float kernels: the operation, then the fused activation's clamp.
            let f = match prepared {
                "QAdd" => quote!(p + q),
                "QSub" => quote!(p - q),
                _ => quote!(p * q),
            };
            let f = match activation {
                Activation::None => f,
                Activation::Relu => quote!((#f).max(0.0)),
                Activation::Relu6 => quote!((#f).max(0.0).min(6.0)),
                Activation::ReluN1To1 => quote!((#f).max(-1.0).min(1.0)),
            };
            let views = self.views(op, &[("a", a), ("b", b)], y)?;
            return Ok(quote! {
                #views
                a.broadcast_with_into(&b, &mut y, |&p: &f32, &q: &f32| #f);
            });
        }
        let (q_a, q_b, q_y) = (self.q(op, a)?, self.q(op, b)?, self.q(op, y)?);
        let act = activation_tokens(activation);
        let ty = Ident::new(prepared, Span::call_site());
        let prepared = self.prepared(
            op,
            quote!(::shaped::quant::#ty<i8>),
            quote! {
                ::shaped::quant::#ty::new(
                    #q_a,
                    #q_b,
                    #q_y,
                    #act,
                    ::shaped::quant::Rounding::Double,
                )
            },
        )?;
        let views = self.views(op, &[("a", a), ("b", b)], y)?;
        Ok(quote! {
            #views
            ok(#prepared.run_into(&a.quantized(#q_a), &b.quantized(#q_b), &mut y));
        })
    }

    fn quantize(&self, op: &Operator) -> Result<TokenStream, String> {
        let (x, y) = self.io(op, 0)?;
        let q_y = self.q(op, y)?;
        let views = self.views(op, &[("x", x)], y)?;
        let call = if self.dtype_of(x) == DType::Float32 {
            quote!(x.quantize_into(#q_y, &mut y))
        } else {
            let q_x = self.q(op, x)?;
            quote!(x.quantized(#q_x).requantize_into(#q_y, ::shaped::quant::Activation::None, &mut y))
        };
        Ok(quote! {
            #views
            ok(#call);
        })
    }

    /// An int8 element-wise operation prepared as `ty::new(input, output)` (LOGISTIC, TANH).
    fn lookup(&self, op: &Operator, ty: &str) -> Result<TokenStream, String> {
        let (x, y) = self.io(op, 0)?;
        if self.dtype_of(x) == DType::Float32 {
            let method = if ty == "QLogistic" {
                quote!(tflite_logistic_into)
            } else {
                quote!(tflite_tanh_into)
            };
            let views = self.views(op, &[("x", x)], y)?;
            return Ok(quote! {
                #views
                ok(x.#method(&mut y));
            });
        }
        let (q_x, q_y) = (self.q(op, x)?, self.q(op, y)?);
        let ty = Ident::new(ty, Span::call_site());
        let prepared = self.prepared(
            op,
            quote!(::shaped::quant::#ty),
            quote!(::shaped::quant::#ty::new(#q_x, #q_y)),
        )?;
        let views = self.views(op, &[("x", x)], y)?;
        Ok(quote! {
            #views
            ok(#prepared.run_into(&x.quantized(#q_x), &mut y));
        })
    }

    /// TFLM's int8 RELU (the input requantized to the output's parameters, clamped) and
    /// RELU6 (the input's bytes clamped in the input's parameters; TFLM does not apply the
    /// output's, and the operators after it read the bytes under the output's): Q26.
    fn relu(&self, op: &Operator, six: bool) -> Result<TokenStream, String> {
        let (x, y) = self.io(op, 0)?;
        if self.dtype_of(x) == DType::Float32 {
            let views = self.views(op, &[("x", x)], y)?;
            return Ok(quote! {
                #views
                ok(x.tflite_relu_into(#six, &mut y));
            });
        }
        let q_x = self.q(op, x)?;
        let (to, act) = if six {
            (q_x.clone(), activation_tokens(Activation::Relu6))
        } else {
            (self.q(op, y)?, activation_tokens(Activation::Relu))
        };
        let views = self.views(op, &[("x", x)], y)?;
        Ok(quote! {
            #views
            ok(x.quantized(#q_x).requantize_into(#to, #act, &mut y));
        })
    }

    /// TFLM's int8 MEAN over the height and width.
    fn mean(&self, op: &Operator, axes: &[usize]) -> Result<TokenStream, String> {
        let (x, y) = self.io(op, 0)?;
        if axes != [1, 2] {
            return Err(self.op_error(
                op,
                "the generator takes MEAN over axes 1 and 2 (height and width) only",
            ));
        }
        if self.dtype_of(x) == DType::Float32 {
            let views = self.views(op, &[("x", x)], y)?;
            return Ok(quote! {
                #views
                ok(x.tflite_mean_hw_into(&mut y));
            });
        }
        let (q_x, q_y) = (self.q(op, x)?, self.q(op, y)?);
        let prepared = self.prepared(
            op,
            quote!(::shaped::quant::QMean),
            quote!(::shaped::quant::QMean::new(#q_x, #q_y, ::shaped::quant::Rounding::Double)),
        )?;
        let views = self.views(op, &[("x", x)], y)?;
        Ok(quote! {
            #views
            ok(#prepared.run_into(&x.quantized(#q_x), &mut y));
        })
    }

    /// PAD with zeros (the output's zero point for int8, as TFLM pads).
    fn pad(&self, op: &Operator, paddings: &[(usize, usize)]) -> Result<TokenStream, String> {
        let (x, y) = self.io(op, 0)?;
        let value = match (&self.dtype_of(y), &self.model.tensors[y].quantization) {
            (DType::Float32, _) => quote!(0.0f32),
            (DType::Int8, Some(q)) => {
                let z = Literal::i8_unsuffixed(q.zero_points[0] as i8);
                quote!(#z)
            }
            _ => return Err(self.op_error(op, "the generator pads int8 or float32 tensors")),
        };
        let before = paddings.iter().map(|&(b, _)| Literal::usize_unsuffixed(b));
        let views = self.views(op, &[("x", x)], y)?;
        Ok(quote! {
            #views
            ok(x.pad_into(&[#(#before),*], #value, &mut y));
        })
    }

    /// CONCATENATION: the inputs' bytes side by side (TFLM requires int8 inputs to carry the
    /// output's parameters).
    fn concatenation(
        &self,
        op: &Operator,
        axis: usize,
        activation: Activation,
    ) -> Result<TokenStream, String> {
        let y = *op
            .outputs
            .first()
            .ok_or_else(|| self.op_error(op, "the output is missing"))?;
        if activation != Activation::None {
            return Err(self.op_error(op, "a fused activation on CONCATENATION"));
        }
        let inputs: Vec<usize> = op.read_tensors().collect();
        let q_y = self.model.tensors[y].quantization.as_ref();
        for &x in &inputs {
            if self.model.tensors[x].quantization.as_ref() != q_y {
                return Err(self.op_error(
                    op,
                    "an input's quantization differs from the output's, which TFLM refuses",
                ));
            }
        }
        let names: Vec<String> = (0..inputs.len()).map(|i| format!("x{i}")).collect();
        let reads: Vec<(&str, usize)> = names
            .iter()
            .map(String::as_str)
            .zip(inputs.iter().copied())
            .collect();
        let views = self.views(op, &reads, y)?;
        let parts = names.iter().zip(&inputs).map(|(name, &x)| {
            let name = Ident::new(name, Span::call_site());
            let dims = self.model.tensors[x]
                .shape
                .iter()
                .map(|&d| Literal::usize_unsuffixed(d));
            quote!(ok(::shaped::runtime::ArrayRef::new(&[#(#dims),*], #name.as_slice())))
        });
        let axis = Literal::i64_unsuffixed(axis as i64);
        Ok(quote! {
            #views
            ok(::shaped::runtime::concat_into(&[#(#parts),*], #axis, y.as_mut_slice()));
        })
    }

    fn dequantize(&self, op: &Operator) -> Result<TokenStream, String> {
        let (x, y) = self.io(op, 0)?;
        let q_x = self.q(op, x)?;
        let views = self.views(op, &[("x", x)], y)?;
        Ok(quote! {
            #views
            ok(x.quantized(#q_x).dequantize_into(&mut y));
        })
    }

    fn fully_connected(
        &self,
        op: &Operator,
        activation: Activation,
    ) -> Result<TokenStream, String> {
        let m = self.model;
        let (x, y) = self.io(op, 0)?;
        let w = op
            .input(1)
            .ok_or_else(|| self.op_error(op, "the weights are missing"))?;
        let (xt, wt) = (&m.tensors[x], &m.tensors[w]);
        let (units, depth) = (wt.shape[0], wt.shape[1]);
        let rows = xt.element_count() / depth.max(1);
        if [xt.dtype, wt.dtype, self.dtype_of(y)] == [DType::Float32; 3] {
            // TFLite's float FULLY_CONNECTED sums each output over the depth in order from
            // zero, then adds the bias and clamps: a 1x1 VALID convolution's sum, the rows
            // laid out as the width of a one-pixel-high image, the weights `[units, depth]`
            // as `[units, 1, 1, depth]`.
            let bias = self.bias(op, 2)?;
            let act = activation_tokens(activation);
            let views = self.views(op, &[("x", x), ("w", w)], y)?;
            let x_shape = shape_type(&[1, 1, rows, depth]);
            let w_shape = shape_type(&[units, 1, 1, depth]);
            let y_shape = shape_type(&[1, 1, rows, units]);
            return Ok(quote! {
                #views
                let x = ok(::shaped::TensorView::<f32, #x_shape>::new(x.as_slice()));
                let w = ok(::shaped::TensorView::<f32, #w_shape>::new(w.as_slice()));
                let mut y = ok(::shaped::TensorViewMut::<f32, #y_shape>::new(y.as_mut_slice()));
                ok(x.conv2d_into(&w, #bias, ::shaped::conv::VALID, #act, &mut y));
            });
        }
        if [xt.dtype, wt.dtype, self.dtype_of(y)] != [DType::Int8; 3] {
            return Err(self.op_error(
                op,
                "the generator takes FULLY_CONNECTED on int8 or on float32 throughout",
            ));
        }
        let (u, d) = (
            Literal::usize_unsuffixed(units),
            Literal::usize_unsuffixed(depth),
        );
        let weights = wt
            .bytes(self.bytes)
            .ok_or_else(|| self.op_error(op, "the weights' bytes are missing"))?;
        let weights = Literal::byte_string(weights);
        let (q_x, q_y) = (self.q(op, x)?, self.q(op, y)?);
        let wq = wt
            .quantization
            .as_ref()
            .ok_or_else(|| self.op_error(op, "the weights are not quantized"))?;
        let act = activation_tokens(activation);
        let w_name = format_ident!("W{}", op.index);
        // The weights `[units, depth]` in place: bytes reinterpreted at compile time.
        let weights = self.item(w_name.clone(), || {
            Ok(quote!(static #w_name: [[i8; #d]; #u] = ::shaped::__model::must_cast(*#weights);))
        })?;
        let bias = match op.input(2) {
            Some(b) => {
                let name = self.constant(op, b)?;
                quote!(::core::option::Option::Some(&#name))
            }
            None => quote!(::core::option::Option::None),
        };
        // Per-channel weights or one scale: the layer and its product, and the weights'
        // parameters as the product takes them.
        let (layer, product, q_w) = if wq.is_per_channel() {
            let (scales, zeros) = per_channel(wq, units);
            let scales = self.array(op, "SCALES", quote!(f32), &scales)?;
            let zeros = self.array(op, "ZEROS", quote!(i32), &zeros)?;
            (
                quote!(QDensePerChannel),
                quote!(QMatMulPerChannel),
                quote!(::shaped::quant::PerAxis::new_const(&#scales, &#zeros)),
            )
        } else {
            (quote!(QDense), quote!(QMatMul), quant(wq))
        };
        let layer = self.prepared_as(
            op,
            quote!(::shaped::layer::#layer<'static, i8, #d, #u>),
            quote! {
                ::shaped::quant::#product::new(
                    #q_x,
                    #q_w,
                    #q_y,
                    #act,
                    ::shaped::quant::Rounding::Double,
                )
            },
            quote!(::shaped::layer::#layer::new(op, &#weights, #bias)),
        )?;
        // TFLM's FULLY_CONNECTED without keep_num_dims reads its input as rows of `depth`
        // (a `[1, 1, 1, C]` input included): both sides are viewed as `[rows, _]`, which
        // `views` does through the flat bytes.
        let views = self.views(op, &[("x", x)], y)?;
        let x_shape = shape_type(&[rows, depth]);
        let y_shape = shape_type(&[rows, units]);
        Ok(quote! {
            #views
            let x = ok(::shaped::TensorView::<i8, #x_shape>::new(x.as_slice()));
            let mut y = ok(::shaped::TensorViewMut::<i8, #y_shape>::new(y.as_mut_slice()));
            ok(#layer.forward_into(&x.quantized(#q_x), &mut y));
        })
    }

    fn const_context(&self, op: &Operator) -> Literal {
        Literal::string(&format!(
            "{}: operator {} ({}): parameters shaped cannot prepare",
            self.model.file,
            op.index,
            op.op.name()
        ))
    }
}

/// An operator's options for the documentation.
fn options_text(op: &Op) -> String {
    let padding = |p: Padding| match p {
        Padding::Same => "SAME",
        Padding::Valid => "VALID",
    };
    match op {
        Op::Conv2d(c) => format!(
            "{}, stride {}x{}, dilation {}x{}, {}",
            padding(c.padding),
            c.stride_h,
            c.stride_w,
            c.dilation_h,
            c.dilation_w,
            c.activation.name()
        ),
        Op::DepthwiseConv2d(c) => format!(
            "{}, stride {}x{}, dilation {}x{}, multiplier {}, {}",
            padding(c.padding),
            c.stride_h,
            c.stride_w,
            c.dilation_h,
            c.dilation_w,
            c.depth_multiplier,
            c.activation.name()
        ),
        Op::AveragePool2d(p) | Op::MaxPool2d(p) => format!(
            "{}x{}, {}, stride {}x{}, {}",
            p.filter_h,
            p.filter_w,
            padding(p.padding),
            p.stride_h,
            p.stride_w,
            p.activation.name()
        ),
        Op::FullyConnected(fc) => fc.activation.name().to_owned(),
        Op::Softmax { beta } => format!("beta {beta}"),
        Op::Add { activation } | Op::Sub { activation } | Op::Mul { activation } => {
            activation.name().to_owned()
        }
        Op::Mean { axes, keep_dims } => format!("axes {axes:?}, keep_dims {keep_dims}"),
        Op::Pad { paddings } => format!("paddings {paddings:?}"),
        Op::Concatenation { axis, activation } => {
            format!("axis {axis}, {}", activation.name())
        }
        _ => String::new(),
    }
}

/// The element type of a `dtype`.
fn elem(dtype: DType) -> TokenStream {
    match dtype {
        DType::Int8 => quote!(i8),
        DType::Int32 => quote!(i32),
        DType::Float32 => quote!(f32),
    }
}

/// Zero of a `dtype`'s element type.
fn zero_of(dtype: DType) -> TokenStream {
    match dtype {
        DType::Float32 => quote!(0.0),
        _ => quote!(0),
    }
}

/// A window's options as a typed `Spec2d` expression.
fn spec_tokens(padding: Padding, stride: [usize; 2], dilation: [usize; 2]) -> TokenStream {
    let base = match padding {
        Padding::Same => quote!(::shaped::conv::SAME),
        Padding::Valid => quote!(::shaped::conv::VALID),
    };
    let [sh, sw] = stride.map(Literal::usize_unsuffixed);
    let [dh, dw] = dilation.map(Literal::usize_unsuffixed);
    quote!(#base.stride::<#sh, #sw>().dilation::<#dh, #dw>())
}

/// One scale and zero point per channel (a per-tensor quantization repeated).
fn per_channel(q: &Quantization, channels: usize) -> (Vec<TokenStream>, Vec<Literal>) {
    let at = |k: usize| if q.scales.len() == 1 { 0 } else { k };
    (
        (0..channels).map(|k| f32_tokens(q.scales[at(k)])).collect(),
        (0..channels)
            .map(|k| Literal::i32_unsuffixed(q.zero_points[at(k)] as i32))
            .collect(),
    )
}

/// `::shaped::Shape![d0, d1, ...]`.
fn shape_type(dims: &[usize]) -> TokenStream {
    let dims = dims.iter().map(|&d| Literal::usize_unsuffixed(d));
    quote!(::shaped::Shape![#(#dims),*])
}

/// An f32 exactly, as its bits.
fn f32_tokens(x: f32) -> TokenStream {
    let bits: TokenStream = format!("0x{:08x}", x.to_bits())
        .parse()
        .expect("a hex literal");
    quote!(f32::from_bits(#bits))
}

/// A per-tensor quantization as a `Quant<i8>` constant expression.
fn quant(q: &Quantization) -> TokenStream {
    let scale = f32_tokens(q.scales[0]);
    let zero = Literal::i32_unsuffixed(q.zero_points[0] as i32);
    quote!(::shaped::quant::Quant::<i8>::new_const(#scale, #zero))
}

fn activation_tokens(a: Activation) -> TokenStream {
    let variant = Ident::new(
        match a {
            Activation::None => "None",
            Activation::Relu => "Relu",
            Activation::ReluN1To1 => "ReluN1To1",
            Activation::Relu6 => "Relu6",
        },
        Span::call_site(),
    );
    quote!(::shaped::quant::Activation::#variant)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str) -> Vec<u8> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        std::fs::read(root.join("tests/models").join(name)).unwrap()
    }

    #[test]
    fn an_operator_the_generator_cannot_write_is_named_in_the_error() {
        let ident = Ident::new("SpeechF32", Span::call_site());
        let bytes = read("speech_f32.tflite");
        let mut m = Model::read(&bytes, "speech_f32.tflite").unwrap();
        // The reader takes a MEAN over any axes; the generator writes height and width only.
        m.operators[3].op = Op::Mean {
            axes: vec![3],
            keep_dims: true,
        };
        let err = generate(&m, &bytes, &ident).unwrap_err();
        assert_eq!(
            err,
            "speech_f32.tflite: operator 3 (MEAN): the generator takes MEAN over axes 1 and 2 \
             (height and width) only"
        );
    }

    #[test]
    fn a_float_model_s_operators_are_float_calls() {
        let ident = Ident::new("SpeechF32", Span::call_site());
        let code = model(&read("speech_f32.tflite"), "speech_f32.tflite", &ident)
            .unwrap()
            .to_string();
        assert!(code.contains("tflite_softmax_into"));
        // CONV_2D and FULLY_CONNECTED (a 1x1 convolution's sums).
        assert_eq!(code.matches(". conv2d_into (").count(), 2 * 2);
        assert!(!code.contains(". quantized ("));
    }

    #[test]
    fn each_operator_is_one_documented_block() {
        let ident = Ident::new("Resnet8", Span::call_site());
        let code = model(&read("resnet8.tflite"), "resnet8.tflite", &ident)
            .unwrap()
            .to_string();
        // Each operator's call twice (in `predict_into` and in `run`), its parameters once.
        assert_eq!(code.matches("conv2d_into (").count(), 2 * 9);
        assert_eq!(code.matches("QAdd :: new (").count(), 3);
        // Nine convolutions and a FULLY_CONNECTED, per-channel.
        assert_eq!(code.matches("const SCALES").count(), 10);
        assert_eq!(
            code.matches("avg_pool2d_into :: < 8 , 8 , _ , _ >").count(),
            2
        );
        assert!(code.contains("# [doc = \" operator 3: ADD\"]"), "{code}");
        // Every shape is a static one.
        assert!(!code.contains("Dyn"));
    }

    #[test]
    fn a_depthwise_convolution_of_one_channel_is_a_convolution() {
        // TFLM's micro_speech model (`../shared/models/`, beside the repository, not in it):
        // DEPTHWISE_CONV_2D `[1, 49, 40, 1]` by `[1, 10, 8, 8]`.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/models/speech.tflite");
        let Ok(bytes) = std::fs::read(&path) else {
            println!("skipped: {} is absent", path.display());
            return;
        };
        let ident = Ident::new("Speech", Span::call_site());
        let code = model(&bytes, "speech.tflite", &ident).unwrap().to_string();
        assert_eq!(code.matches("depthwise_conv2d_into").count(), 0, "{code}");
        assert_eq!(code.matches("conv2d_into").count(), 2, "{code}"); // `predict_into`, `run`
        assert!(
            code.contains(":: shaped :: Shape ! [8 , 10 , 8 , 1]"),
            "{code}"
        );
        // The filter transposed: channel c's taps in order, then channel c + 1's.
        let m = Model::read(&bytes, "speech.tflite").unwrap();
        let op = &m.operators[1];
        let w = &m.tensors[op.input(1).unwrap()];
        assert_eq!(w.shape, [1, 10, 8, 8]);
        let raw = w.bytes(&bytes).unwrap();
        let want: Vec<u8> = (0..8)
            .flat_map(|c| (0..80).map(move |t| raw[t * 8 + c]))
            .collect();
        assert!(code.contains(&Literal::byte_string(&want).to_string()));
    }

    #[test]
    fn anomaly_s_layers_are_constants_over_statics() {
        let ident = Ident::new("Anomaly", Span::call_site());
        let code = model(&read("anomaly.tflite"), "anomaly.tflite", &ident)
            .unwrap()
            .to_string();
        // Nine per-channel layers with a bias, the last without; once each in the parameters'
        // module, whichever bodies use them.
        assert_eq!(code.matches("QDensePerChannel :: new (").count(), 10);
        assert_eq!(code.matches("Option :: Some (& C").count(), 9);
        assert!(code.contains("pub const ARENA_BYTES : usize = 264 ;"));
        assert!(code.contains("pub (super) static W9 : [[i8 ; 128] ; 640] ="));
    }
}
